// Package txngen makes list-append histories for the tests of lib/check and
// lib/check/listappend: transactions from a compact spec, and big generated
// histories with or without planted anomalies. It is test support, kept out
// of the test files because both packages' tests use it.
package txngen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/sf-dst/sf/lib/history"
)

// Spec is one list-append transaction in a compact form: Mops such as
// "r x 1 2 | a y 3 | r z", micro-ops separated by |, r KEY VALUES... for a
// read (no values: the empty list) and a KEY VALUE for an append. Status is
// one of ok, info, fail, pending; reads of transactions that are not ok are
// null, as in an invocation.
type Spec struct {
	Process int64
	Status  string
	Mops    string
}

// MopsJSON renders spec's micro-ops as JSON, with the values of its reads
// when withReads (a completion) or null in their place (an invocation).
func MopsJSON(spec string, withReads bool) string {
	var parts []string
	for _, m := range strings.Split(spec, "|") {
		f := strings.Fields(m)
		switch f[0] {
		case "a":
			parts = append(parts, fmt.Sprintf(`["append",%q,%q]`, f[1], f[2]))
		case "r":
			if !withReads {
				parts = append(parts, fmt.Sprintf(`["r",%q,null]`, f[1]))
				continue
			}
			vals := make([]string, len(f)-2)
			for i, v := range f[2:] {
				vals[i] = fmt.Sprintf("%q", v)
			}
			parts = append(parts, fmt.Sprintf(`["r",%q,[%s]]`, f[1], strings.Join(vals, ",")))
		default:
			panic("bad micro-op " + m)
		}
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// History builds operations with ids 0, 1, ... in order, each invoked at
// 10*i and returning at 10*i+5.
func History(specs ...Spec) []history.HistoryOp {
	ops := make([]history.HistoryOp, len(specs))
	for i, s := range specs {
		op := history.HistoryOp{ID: int64(i), Process: s.Process, F: "txn", Call: int64(10 * i), Return: int64(10*i + 5)}
		op.Value = []byte(MopsJSON(s.Mops, false))
		switch s.Status {
		case "ok":
			op.Status = history.StatusOK
			op.Output = []byte(MopsJSON(s.Mops, true))
		case "info":
			op.Status = history.StatusUnknown
		case "fail":
			op.Status = history.StatusFailed
		case "pending":
			op.Status = history.StatusPending
			op.Return = -1
		default:
			panic("bad status " + s.Status)
		}
		ops[i] = op
	}
	return ops
}

// OK, Info and Fail make a Spec of that status for process p.
func OK(p int64, mops string) Spec   { return Spec{p, "ok", mops} }
func Info(p int64, mops string) Spec { return Spec{p, "info", mops} }
func Fail(p int64, mops string) Spec { return Spec{p, "fail", mops} }

// ListAppend generates a list-append history of n transactions the way a
// Jepsen workload against a serializable database would produce it: clients
// run transactions of 1 to 4 micro-ops on a small window of active keys, each
// key retires after appendsPerKeyMax appends, and the database applies them in
// one serial order. About 2% of transactions end info (half of them took
// effect) and 1% fail. With planted, every 500th transaction is replaced by a
// small pattern that has an anomaly (G0, G1a, G1b, G1c, G-single, G2,
// internal, incompatible-order, duplicate-elements, garbage-read) on fresh
// keys.
func ListAppend(n int, planted bool, seed uint64) []history.HistoryOp {
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
				s := History(p)[0]
				add(p.Process, s.Status, s.Value, s.Output)
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
func plantedPattern(i int, newKey func() string) []Spec {
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
	specs := [][]Spec{
		{OK(0, "a X 1 | a Y 1"), OK(1, "a X 2 | a Y 2"), OK(2, "r X 1 2 | r Y 2 1")}, // G0
		{Fail(0, "a X 1"), OK(1, "r X 1")},                                           // G1a
		{OK(0, "a X 1 | a X 2"), OK(1, "r X 1")},                                     // G1b
		{OK(0, "a X 1 | r Y 1"), OK(1, "a Y 1 | r X 1")},                             // G1c
		{OK(0, "a X 1 | a Y 1"), OK(1, "r X | r Y 1"), OK(2, "r X 1")},               // G-single
		{OK(0, "r X | a Y 1"), OK(1, "r Y | a X 1"), OK(2, "r X 1 | r Y 1")},         // G2
		{OK(0, "a X 1 | r X")},                                                       // internal
		{OK(0, "a X 1"), OK(1, "a X 2"), OK(2, "r X 1 2"), OK(3, "r X 2")},           // incompatible-order
		{OK(0, "a X 1"), OK(1, "r X 1 1")},                                           // duplicate-elements
		{OK(0, "a X 1"), OK(1, "r X 9")},                                             // garbage-read
	}
	p := specs[i%len(specs)]
	out := make([]Spec, len(p))
	for j, s := range p {
		out[j] = Spec{s.Process, s.Status, sub(s.Mops)}
	}
	return out
}

// Concurrent makes a list-append history of overlapping
// transactions: each commits when it is invoked, some on a stale snapshot
// (which plants G-single and G2 cycles), some appends are lost, and some
// transactions fail or end unknown. The transactions, numbered by
// invocation, then have dependencies pointing backwards too.
func Concurrent(rng *rand.Rand) []history.HistoryOp {
	procs, keys, n := 2+rng.IntN(6), 1+rng.IntN(5), 5+rng.IntN(120)
	db := make([][]int, keys)
	var snaps [][][]int
	var ops []history.HistoryOp
	open := map[int]int{} // process -> its open operation
	next, now := 1, int64(0)
	for len(ops) < n || len(open) > 0 {
		p := rng.IntN(procs)
		now++
		if i, ok := open[p]; ok {
			if rng.IntN(2) == 0 {
				ops[i].Return = now
				delete(open, p)
			}
			continue
		}
		if len(ops) >= n {
			continue
		}
		state := db
		if len(snaps) > 0 && rng.IntN(6) == 0 {
			state = snaps[rng.IntN(len(snaps))]
		}
		local := make([][]int, keys)
		for k := range local {
			local[k] = slices.Clone(state[k])
		}
		var inv, out []any
		var appended [][2]int
		for range 1 + rng.IntN(4) {
			k := rng.IntN(keys)
			key := "k" + strconv.Itoa(k)
			if rng.IntN(2) == 0 {
				inv = append(inv, []any{"r", key, nil})
				out = append(out, []any{"r", key, slices.Clone(local[k])})
				continue
			}
			inv = append(inv, []any{"append", key, next})
			out = append(out, []any{"append", key, next})
			local[k] = append(local[k], next)
			appended = append(appended, [2]int{k, next})
			next++
		}
		status := history.StatusOK
		switch r := rng.IntN(20); {
		case r == 0:
			status = history.StatusFailed
		case r == 1:
			status = history.StatusUnknown
		}
		if status == history.StatusOK || (status == history.StatusUnknown && rng.IntN(2) == 0) {
			if rng.IntN(50) != 0 {
				for _, a := range appended {
					db[a[0]] = append(db[a[0]], a[1])
				}
			}
		}
		snap := make([][]int, keys)
		for k := range snap {
			snap[k] = slices.Clone(db[k])
		}
		snaps = append(snaps, snap)
		iv, _ := json.Marshal(inv)
		op := history.HistoryOp{ID: int64(len(ops)), Process: int64(p), F: "txn", Value: iv, Status: status,
			Call: now, Return: -1, Line: len(ops) + 1}
		if status == history.StatusOK {
			op.Output, _ = json.Marshal(out)
		}
		open[p] = len(ops)
		ops = append(ops, op)
	}
	return ops
}
