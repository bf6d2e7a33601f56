package history

import (
	"slices"

	"github.com/anishathalye/porcupine"
)

// End returns a time after every event of the history: one more than the
// latest invocation or completion time.
func End(ops []HistoryOp) int64 {
	var end int64
	for i := range ops {
		end = max(end, ops[i].Call, ops[i].Return)
	}
	return end + 1
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

// PorcupineOperations turns operations into Porcupine operations for a model
// of one's own:
//
//   - failed operations are dropped: they did not take effect;
//   - unknown and pending operations get a return time after the end of the
//     history (End), so they may take effect at any point after their call;
//   - Input and Output are both the HistoryOp itself, with the raw JSON Value
//     and Output and the Status. A model's Step should accept any output when
//     the Status is not StatusOK;
//   - ClientId is the process's dense index (ClientIDs).
func PorcupineOperations(ops []HistoryOp) []porcupine.Operation {
	end := End(ops)
	clients := ClientIDs(ops)
	out := make([]porcupine.Operation, 0, len(ops))
	for i := range ops {
		op := ops[i]
		if op.Status == StatusFailed {
			continue
		}
		ret := op.Return
		if op.Status != StatusOK {
			ret = end
		}
		out = append(out, porcupine.Operation{
			ClientId: clients[op.Process],
			Input:    op,
			Call:     op.Call,
			Output:   op,
			Return:   ret,
		})
	}
	return out
}
