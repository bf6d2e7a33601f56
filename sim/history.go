package sim

import "encoding/json"

// Op is one recorded operation of a history: created by Invoke (or Put, Get,
// Txn) when the operation starts, completed by exactly one of Ok, Unknown or
// Failed. At the end of the run the engine checks the history against the
// world's checker model. Outside the simulator recording does nothing.
type Op struct {
	id   uint64
	done bool
}

// Invoke records the start of operation f on key by client, with input
// value (any JSON-encodable value: a string for put, []string{old, new} for
// cas, an integer for counter add).
func Invoke(client int, f, key string, value any) *Op {
	if !hosted() {
		return &Op{}
	}
	return &Op{id: hostHistoryInvoke(client, f, key, encodeValue(value))}
}

// Put records a write of value to key, for the kv and cas models.
func Put(client int, key, value string) *Op { return Invoke(client, "put", key, value) }

// Get records a read of key. Complete it with Ok(value read), "" for absent.
func Get(client int, key string) *Op { return Invoke(client, "get", key, nil) }

// Ok records that the operation took effect, with its output: what a read
// read, whether a cas swapped, the micro-ops of a transaction with their
// read values filled in. Writes pass "" or nil.
func (op *Op) Ok(output any) { op.complete(completeOk, encodeValue(output)) }

// Unknown records that the operation may or may not have taken effect, such
// as after a timeout.
func (op *Op) Unknown() { op.complete(completeInfo, nil) }

// Failed records that the operation certainly did not take effect, such as a
// redirect to another leader.
func (op *Op) Failed() { op.complete(completeFail, nil) }

const (
	completeOk   = 1
	completeInfo = 2
	completeFail = 3
)

func (op *Op) complete(kind uint32, output []byte) {
	if op == nil || op.done || !hosted() {
		return
	}
	op.done = true
	hostHistoryComplete(op.id, kind, output)
}

// Mop is one micro-operation of a list-append transaction: a read of a key's
// whole list, or an append of a value to it.
type Mop struct {
	F     string // "r" or "append"
	Key   string
	Value any // the appended string; for a read, the []string read (set it before Ok)
}

// Read is the micro-op that reads key's list.
func Read(key string) Mop { return Mop{F: "r", Key: key} }

// Append is the micro-op that appends value to key's list.
func Append(key, value string) Mop { return Mop{F: "append", Key: key, Value: value} }

// MarshalJSON writes a micro-op in Elle's [f, key, value] layout.
func (m Mop) MarshalJSON() ([]byte, error) { return json.Marshal([]any{m.F, m.Key, m.Value}) }

// Txn records a list-append transaction of the micro-ops mops. Complete it
// with Ok(mops) once every read's Value holds the list it returned.
func Txn(client int, mops ...Mop) *Op { return Invoke(client, "txn", "", mops) }

func encodeValue(v any) []byte {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		Fail("sim: history value cannot be encoded as JSON: " + err.Error())
	}
	return b
}
