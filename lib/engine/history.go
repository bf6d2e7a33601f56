package engine

import "encoding/json"

// HistoryEvent is one line of a recorded history, in the Jepsen-shaped
// format of .seedfall/seed-N.history.jsonl.
type HistoryEvent struct {
	Index   int64           `json:"index"`
	Type    string          `json:"type"` // invoke, ok, info, fail
	Process int64           `json:"process"`
	F       string          `json:"f"`
	Key     string          `json:"key,omitempty"`
	Value   json.RawMessage `json:"value"`
	Time    int64           `json:"time"`
	ID      int64           `json:"id"`
}

type openOp struct {
	process int64
	f, key  string
	value   json.RawMessage
	node    int
	done    bool
}

func rawOrNull(s string) json.RawMessage {
	if s == "" {
		return json.RawMessage("null")
	}
	return json.RawMessage(s)
}

func (r *run) historyInvoke(in *instance, process int64, f, key, value string) uint64 {
	id := int64(len(r.ops))
	r.ops = append(r.ops, &openOp{process: process, f: f, key: key, value: rawOrNull(value), node: in.node.idx})
	r.history = append(r.history, HistoryEvent{Index: int64(len(r.history)), Type: "invoke", Process: process, F: f,
		Key: key, Value: rawOrNull(value), Time: r.now, ID: id})
	return uint64(id)
}

func (r *run) historyComplete(in *instance, id uint64, kind uint32, output string) {
	if id >= uint64(len(r.ops)) || r.ops[id].done {
		return // completing an unknown or finished operation is the SDK's guard's job; ignore
	}
	op := r.ops[id]
	op.done = true
	typ, val := "ok", rawOrNull(output)
	switch kind {
	case 2:
		typ, val = "info", op.value
	case 3:
		typ, val = "fail", op.value
	}
	r.history = append(r.history, HistoryEvent{Index: int64(len(r.history)), Type: typ, Process: op.process, F: op.f,
		Key: op.key, Value: val, Time: r.now, ID: int64(id)})
}
