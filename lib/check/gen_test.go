package check

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/sf-dst/sf/lib/history"
)

// genKV generates a kv history: each of processes clients does puts and gets
// (and with cas, compare-and-sets) on one of keys keys against a linearizable
// store, with concurrent operations overlapping in time and a few puts of
// unknown outcome. It ends with a whole round, so it may have a few more
// than n operations.
func genKV(n, keys, processes int, seed uint64) []history.HistoryOp {
	return genRegister(n, keys, processes, seed, false)
}

func genRegister(n, keys, processes int, seed uint64, cas bool) []history.HistoryOp {
	rng := rand.New(rand.NewPCG(seed, 0xc0ffee))
	store := map[string]string{}
	ops := make([]history.HistoryOp, 0, n)
	clock := int64(0)
	for len(ops) < n {
		// One round: every process starts an operation, they take effect in a
		// random order, then all return.
		start := clock
		order := rng.Perm(processes)
		round := make([]history.HistoryOp, processes)
		for _, p := range order {
			k := "k" + strconv.Itoa(rng.IntN(keys))
			op := history.HistoryOp{Process: int64(p), Key: k, Call: start + int64(p), Return: start + 100 + int64(rng.IntN(50)), Status: history.StatusOK}
			if cas && rng.IntN(3) == 0 {
				old := store[k]
				if rng.IntN(2) == 0 {
					old = strconv.Itoa(rng.IntN(len(ops) + processes + 1))
				}
				v := strconv.Itoa(len(ops) + p)
				op.F, op.Value = "cas", []byte(fmt.Sprintf("[%q,%q]", old, v))
				if store[k] == old {
					store[k], op.Output = v, []byte("true")
				} else {
					op.Output = []byte("false")
				}
			} else if rng.IntN(2) == 0 {
				v := strconv.Itoa(len(ops) + p)
				op.F, op.Value, op.Output = "put", []byte(strconv.Quote(v)), []byte("null")
				if rng.IntN(50) == 0 {
					op.Status, op.Output = history.StatusUnknown, nil
					if rng.IntN(2) == 0 {
						store[k] = v
					}
				} else {
					store[k] = v
				}
			} else {
				op.F, op.Value, op.Output = "get", []byte("null"), []byte(strconv.Quote(store[k]))
			}
			round[p] = op
		}
		// Keep whole rounds: a cut round could leave out a write that a
		// kept read saw.
		for _, op := range round {
			op.ID = int64(len(ops))
			ops = append(ops, op)
		}
		clock += 200
	}
	return ops
}

// historyFile writes operations as a JSON Lines history file.
func historyFile(ops []history.HistoryOp) []byte {
	var buf bytes.Buffer
	if err := history.WriteEvents(&buf, history.Events(ops)); err != nil {
		panic(fmt.Sprint(err))
	}
	return buf.Bytes()
}
