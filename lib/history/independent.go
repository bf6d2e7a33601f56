package history

import (
	"github.com/sf-dst/sf/lib/history/jsontext"
)

// UnpackIndependent reads keys from Jepsen's jepsen.independent tuples: when
// no operation has a key and every invocation's value (and every ok
// completion's output) is a two-element list [key, value], it returns the
// operations with Key set from the first element and Value and Output
// replaced by the second, and true. Otherwise it returns ops unchanged and
// false. A key that is not a string or an integer keeps its JSON text.
//
// The shape alone cannot tell a tuple from a compare-and-set's [old, new]
// pair, so callers should only unpack histories they know come from an
// independent Jepsen test, or whose other operations settle the question
// (a register's reads carry [key, nil], never nil).
func UnpackIndependent(ops []HistoryOp) ([]HistoryOp, bool) {
	if len(ops) == 0 {
		return ops, false
	}
	out := make([]HistoryOp, len(ops))
	keys := map[string]string{}
	for i, op := range ops {
		if op.Key != "" {
			return ops, false
		}
		key, value, ok := splitTuple(op.Value)
		if !ok {
			return ops, false
		}
		if op.Status == StatusOK {
			okey, output, ok := splitTuple(op.Output)
			if !ok || okey != key {
				return ops, false
			}
			op.Output = output
		}
		if k, seen := keys[key]; seen {
			key = k
		} else {
			keys[key] = key
		}
		op.Key, op.Value = key, value
		out[i] = op
	}
	return out, true
}

// splitTuple splits a raw [key, value] list.
func splitTuple(raw []byte) (key string, value []byte, ok bool) {
	s := jsontext.Scanner{Data: raw}
	if !s.Next('[') {
		return "", nil, false
	}
	switch s.Peek() {
	case jsontext.String:
		b, err := s.String()
		if err != nil {
			return "", nil, false
		}
		key = string(b)
	case jsontext.Number:
		b, err := s.IntText()
		if err != nil {
			return "", nil, false
		}
		key = string(b)
	default:
		b, err := s.Skip()
		if err != nil {
			return "", nil, false
		}
		key = string(b)
	}
	if !s.Next(',') {
		return "", nil, false
	}
	value, err := s.Skip()
	if err != nil || !s.Next(']') || !s.AtEnd() {
		return "", nil, false
	}
	return key, value, true
}
