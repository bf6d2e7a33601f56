package history

import (
	"slices"

	"github.com/anishathalye/porcupine"
)

// Order gives every invocation and completion a distinct rank: by virtual
// time, then by position in the history (CallSeq, ReturnSeq), so that events
// sharing an instant keep the order in which they happened. Operations built
// without positions fall back to time, with invocations before completions
// at equal times. ret is -1 for a pending operation; end is a rank after
// every event.
func Order(ops []HistoryOp) (call, ret []int64, end int64) {
	if call, ret, end, ok := orderBySeq(ops); ok {
		return call, ret, end
	}
	type point struct {
		time, seq int64
		op        int32
		done      bool
	}
	pts := make([]point, 0, 2*len(ops))
	for i := range ops {
		pts = append(pts, point{ops[i].Call, ops[i].CallSeq, int32(i), false})
		if ops[i].Return >= 0 {
			pts = append(pts, point{ops[i].Return, ops[i].ReturnSeq, int32(i), true})
		}
	}
	slices.SortFunc(pts, func(a, b point) int {
		switch {
		case a.time != b.time:
			return cmpInt64(a.time, b.time)
		case a.seq != b.seq:
			return cmpInt64(a.seq, b.seq)
		case a.done != b.done:
			if !a.done {
				return -1
			}
			return 1
		}
		return int(a.op - b.op)
	})
	call = make([]int64, len(ops))
	ret = make([]int64, len(ops))
	for i := range ret {
		ret[i] = -1
	}
	for r, p := range pts {
		if p.done {
			ret[p.op] = int64(r)
		} else {
			call[p.op] = int64(r)
		}
	}
	return call, ret, int64(len(pts))
}

// ClientIDs maps each process of the history to a dense, zero-based client id
// in the order of the process numbers, as Porcupine's timeline wants them.
func ClientIDs(ops []HistoryOp) map[int64]int {
	procs := make([]int64, 0, 16)
	seen := make(map[int64]int)
	for i := range ops {
		if _, ok := seen[ops[i].Process]; !ok {
			seen[ops[i].Process] = 0
			procs = append(procs, ops[i].Process)
		}
	}
	slices.Sort(procs)
	for i, p := range procs {
		seen[p] = i
	}
	return seen
}

// orderBySeq is Order's fast path for histories read from a file or
// recorded by the engine: when the events' positions are distinct and their
// times never decrease along them, the positions are already the ranks and
// nothing needs sorting.
func orderBySeq(ops []HistoryOp) (call, ret []int64, end int64, ok bool) {
	n := int64(2 * len(ops))
	times := make([]int64, n)
	seen := make([]bool, n)
	put := func(seq, t int64) bool {
		if seq < 0 || seq >= n || seen[seq] {
			return false
		}
		seen[seq], times[seq] = true, t
		return true
	}
	for i := range ops {
		op := &ops[i]
		if !put(op.CallSeq, op.Call) || (op.ReturnSeq >= 0 && !put(op.ReturnSeq, op.Return)) || (op.ReturnSeq < 0 && op.Return >= 0) {
			return nil, nil, 0, false
		}
	}
	last := int64(-1 << 63)
	for i := int64(0); i < n; i++ {
		if !seen[i] {
			continue
		}
		if times[i] < last {
			return nil, nil, 0, false
		}
		last = times[i]
		end = i + 1
	}
	call = make([]int64, len(ops))
	ret = make([]int64, len(ops))
	for i := range ops {
		call[i], ret[i] = ops[i].CallSeq, ops[i].ReturnSeq
	}
	return call, ret, end, true
}

// PorcupineOperations turns operations into Porcupine operations for a model
// of one's own:
//
//   - failed operations are dropped: they did not take effect;
//   - Call and Return are ranks from Order: virtual time, with events that
//     share an instant kept in the order they happened;
//   - unknown and pending operations get a return after the end of the
//     history (End), so they may take effect at any point after their call;
//   - Input and Output are both the HistoryOp itself, with the raw JSON Value
//     and Output and the Status. A model's Step should accept any output when
//     the Status is not StatusOK;
//   - ClientId is the process's dense index (ClientIDs).
func PorcupineOperations(ops []HistoryOp) []porcupine.Operation {
	calls, rets, end := Order(ops)
	clients := ClientIDs(ops)
	out := make([]porcupine.Operation, 0, len(ops))
	for i := range ops {
		op := ops[i]
		if op.Status == StatusFailed {
			continue
		}
		ret := rets[i]
		if op.Status != StatusOK {
			ret = end
		}
		out = append(out, porcupine.Operation{
			ClientId: clients[op.Process],
			Input:    op,
			Call:     calls[i],
			Output:   op,
			Return:   ret,
		})
	}
	return out
}
