package history

import (
	"fmt"
	"slices"
)

// denseIDMax bounds the ids the pairer indexes with a slice instead of a map.
// Recorded histories number ids from 0, so a slice covers them with a few bytes
// per operation; ids beyond it (hand-written files) fall back to a map.
const denseIDMax = 1 << 26

// pairer pairs events into operations as they arrive, checking that every
// completion has an open invocation and that ids are unique.
type pairer struct {
	file   string
	ops    []HistoryOp
	dense  []int32 // id -> op index + 1, 0 when unseen
	sparse map[int64]int32
	seq    int64 // events added so far
}

func (p *pairer) lookup(id int64) (int, bool) {
	if id >= 0 && id < int64(len(p.dense)) {
		if j := p.dense[id]; j > 0 {
			return int(j - 1), true
		}
		return 0, false
	}
	if j, ok := p.sparse[id]; ok {
		return int(j), true
	}
	return 0, false
}

func (p *pairer) store(id int64, j int) {
	if id >= 0 && id < denseIDMax && id < int64(4*len(p.ops)+1024) {
		for int64(len(p.dense)) <= id {
			if cap(p.dense) > len(p.dense) {
				p.dense = p.dense[:cap(p.dense)]
			} else {
				p.dense = append(p.dense, make([]int32, len(p.dense)+64)...)
			}
		}
		p.dense[id] = int32(j + 1)
		return
	}
	if p.sparse == nil {
		p.sparse = make(map[int64]int32)
	}
	p.sparse[id] = int32(j)
}

func (p *pairer) errorf(line int, format string, args ...any) error {
	return &Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

var nullValue = []byte("null")

func orNull(v []byte) []byte {
	if len(v) == 0 {
		return nullValue
	}
	return v
}

func (p *pairer) add(ev *Event) error {
	// The event's position among the history's events; the count moves on
	// whether or not the event is an error.
	seq := p.seq
	p.seq++
	switch ev.Type {
	case Invoke:
		if j, ok := p.lookup(ev.ID); ok {
			return p.errorf(ev.Line, "duplicate id %d: it was already invoked at line %d", ev.ID, p.ops[j].Line)
		}
		if len(p.ops) >= 1<<31-2 {
			return p.errorf(ev.Line, "too many operations")
		}
		n := len(p.ops)
		p.store(ev.ID, n)
		// Grown by one in place, and filled field by field: appending a
		// literal built the 144-byte record on the stack and copied it.
		if n < cap(p.ops) {
			p.ops = p.ops[:n+1]
		} else {
			p.ops = append(p.ops, HistoryOp{})
		}
		op := &p.ops[n]
		op.ID = ev.ID
		op.Process = ev.Process
		op.F = ev.F
		op.Key = ev.Key
		op.Value = orNull(ev.Value)
		op.Output = nil
		op.Status = StatusPending
		op.Call = ev.Time
		op.Return = -1
		op.CallSeq = seq
		op.ReturnSeq = -1
		op.Line = ev.Line
		return nil
	case OK, Info, Fail:
	default:
		return p.errorf(ev.Line, "event type %q is not one of invoke, ok, info, fail", ev.Type)
	}
	j, ok := p.lookup(ev.ID)
	if !ok {
		return p.errorf(ev.Line, "%s completion of id %d has no invocation before it", ev.Type, ev.ID)
	}
	op := &p.ops[j]
	switch {
	case op.Return >= 0:
		return p.errorf(ev.Line, "second completion of id %d (invoked at line %d)", ev.ID, op.Line)
	case ev.Process != op.Process:
		return p.errorf(ev.Line, "completion of id %d has process %d, but its invocation at line %d has process %d", ev.ID, ev.Process, op.Line, op.Process)
	case ev.F != op.F:
		return p.errorf(ev.Line, "completion of id %d has f %q, but its invocation at line %d has f %q", ev.ID, ev.F, op.Line, op.F)
	case ev.Key != "" && ev.Key != op.Key:
		return p.errorf(ev.Line, "completion of id %d has key %q, but its invocation at line %d has key %q", ev.ID, ev.Key, op.Line, op.Key)
	case ev.Time < op.Call:
		return p.errorf(ev.Line, "completion of id %d at time %d is before its invocation at time %d (line %d)", ev.ID, ev.Time, op.Call, op.Line)
	}
	op.Return = ev.Time
	op.ReturnSeq = seq
	switch ev.Type {
	case OK:
		op.Status = StatusOK
		op.Output = orNull(ev.Value)
	case Info:
		op.Status = StatusUnknown
	case Fail:
		op.Status = StatusFailed
	}
	return nil
}

// Pair pairs invocations with their completions by id and returns the
// operations in the order of their invocations. It fails on a completion with
// no open invocation, a duplicate id, or a completion whose process, f or key
// differs from its invocation's.
func Pair(events []Event) ([]HistoryOp, error) {
	p := pairer{ops: make([]HistoryOp, 0, len(events)/2+1)}
	for i := range events {
		if err := p.add(&events[i]); err != nil {
			return nil, err
		}
	}
	return p.ops, nil
}

// Events turns operations back into events: each invocation followed by its
// completion, ordered by time (invocations before completions at equal times,
// then by operation order), and numbered from 0. Pending operations have no
// completion.
func Events(ops []HistoryOp) []Event {
	type ref struct {
		time int64
		op   int32
		done bool
	}
	refs := make([]ref, 0, 2*len(ops))
	for i := range ops {
		refs = append(refs, ref{ops[i].Call, int32(i), false})
		if ops[i].Return >= 0 {
			refs = append(refs, ref{ops[i].Return, int32(i), true})
		}
	}
	slices.SortFunc(refs, func(a, b ref) int {
		switch {
		case a.time != b.time:
			return cmpInt64(a.time, b.time)
		case a.done != b.done:
			if !a.done {
				return -1
			}
			return 1
		}
		return int(a.op - b.op)
	})
	events := make([]Event, len(refs))
	for i, r := range refs {
		op := &ops[r.op]
		e := Event{Index: int64(i), Process: op.Process, F: op.F, Key: op.Key, ID: op.ID, Time: r.time}
		switch {
		case !r.done:
			e.Type, e.Value = Invoke, op.Value
		case op.Status == StatusOK:
			e.Type, e.Value = OK, op.Output
		case op.Status == StatusUnknown:
			e.Type, e.Value = Info, op.Value
		default:
			e.Type, e.Value = Fail, op.Value
		}
		events[i] = e
	}
	return events
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
