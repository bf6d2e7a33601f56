package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/sf-dst/sf/lib/history"
)

// genListAppend generates a list-append history of n transactions the way a
// Jepsen workload against a serializable database would produce it: clients
// run transactions of 1 to 4 micro-ops on a small window of active keys, each
// key retires after appendsPerKeyMax appends, and the database applies them in
// one serial order. About 2% of transactions end info (half of them took
// effect) and 1% fail. With planted, every 500th transaction is replaced by a
// small pattern that has an anomaly (G0, G1a, G1b, G1c, G-single, G2,
// internal, incompatible-order, duplicate-elements, garbage-read) on fresh
// keys.
func genListAppend(n int, planted bool, seed uint64) []history.HistoryOp {
	const (
		processes        = 10
		activeKeys       = 8
		appendsPerKeyMax = 32
	)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	db := map[string][]string{}
	appends := map[string]int{}
	active := make([]string, activeKeys)
	nextKey := 0
	newKey := func() string {
		nextKey++
		return "k" + strconv.Itoa(nextKey)
	}
	for i := range active {
		active[i] = newKey()
	}
	var ops []history.HistoryOp
	add := func(process int64, status history.Status, value, output []byte) {
		i := int64(len(ops))
		op := history.HistoryOp{ID: i, Process: process, F: "txn", Value: value, Output: output,
			Status: status, Call: 10 * i, Return: 10*i + 7}
		if status == history.StatusPending {
			op.Return = -1
		}
		ops = append(ops, op)
	}
	var inv, out bytes.Buffer
	mop := func(buf *bytes.Buffer, f, key string, val any) {
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		b, _ := json.Marshal([]any{f, key, val})
		buf.Write(b)
	}
	value := 0
	for len(ops) < n {
		i := len(ops)
		process := int64(i % processes)
		if planted && i%500 == 250 {
			for _, p := range plantedPattern(i/500, newKey) {
				s := txnHistory(p)[0]
				add(p.process, s.Status, s.Value, s.Output)
			}
			continue
		}
		inv.Reset()
		out.Reset()
		inv.WriteByte('[')
		out.WriteByte('[')
		status := history.StatusOK
		switch r := rng.IntN(100); {
		case r < 1:
			status = history.StatusFailed
		case r < 3:
			status = history.StatusUnknown
		}
		apply := status == history.StatusOK || (status == history.StatusUnknown && rng.IntN(2) == 0)
		nm := 1 + rng.IntN(4)
		for range nm {
			slot := rng.IntN(activeKeys)
			k := active[slot]
			if rng.IntN(2) == 0 {
				mop(&inv, "r", k, nil)
				list := db[k]
				if list == nil {
					list = []string{}
				}
				mop(&out, "r", k, list)
				continue
			}
			value++
			v := strconv.Itoa(int(process)) + "-" + strconv.Itoa(value)
			mop(&inv, "append", k, v)
			mop(&out, "append", k, v)
			if apply {
				db[k] = append(db[k][:len(db[k]):len(db[k])], v)
			}
			appends[k]++
			if appends[k] >= appendsPerKeyMax {
				active[slot] = newKey()
			}
		}
		inv.WriteByte(']')
		out.WriteByte(']')
		var output []byte
		if status == history.StatusOK {
			output = bytes.Clone(out.Bytes())
		}
		add(process, status, bytes.Clone(inv.Bytes()), output)
	}
	return ops[:n]
}

// plantedPattern returns a few transactions with the anomaly number i (mod
// 10) on fresh keys.
func plantedPattern(i int, newKey func() string) []txnSpec {
	x, y := newKey(), newKey()
	sub := func(s string) string {
		b := []byte(s)
		out := make([]byte, 0, len(b)+8)
		for _, c := range b {
			switch c {
			case 'X':
				out = append(out, x...)
			case 'Y':
				out = append(out, y...)
			default:
				out = append(out, c)
			}
		}
		return string(out)
	}
	specs := [][]txnSpec{
		{ok(0, "a X 1 | a Y 1"), ok(1, "a X 2 | a Y 2"), ok(2, "r X 1 2 | r Y 2 1")}, // G0
		{fail(0, "a X 1"), ok(1, "r X 1")},                                           // G1a
		{ok(0, "a X 1 | a X 2"), ok(1, "r X 1")},                                     // G1b
		{ok(0, "a X 1 | r Y 1"), ok(1, "a Y 1 | r X 1")},                             // G1c
		{ok(0, "a X 1 | a Y 1"), ok(1, "r X | r Y 1"), ok(2, "r X 1")},               // G-single
		{ok(0, "r X | a Y 1"), ok(1, "r Y | a X 1"), ok(2, "r X 1 | r Y 1")},         // G2
		{ok(0, "a X 1 | r X")},                                                       // internal
		{ok(0, "a X 1"), ok(1, "a X 2"), ok(2, "r X 1 2"), ok(3, "r X 2")},           // incompatible-order
		{ok(0, "a X 1"), ok(1, "r X 1 1")},                                           // duplicate-elements
		{ok(0, "a X 1"), ok(1, "r X 9")},                                             // garbage-read
	}
	p := specs[i%len(specs)]
	out := make([]txnSpec, len(p))
	for j, s := range p {
		out[j] = txnSpec{s.process, s.status, sub(s.mops)}
	}
	return out
}

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
