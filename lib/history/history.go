// Package history holds the history record of sf: the operations a workload
// performed, one event per line in Jepsen's invoke and completion shape, and
// the readers and writers for it.
//
// A history file (.seedfall/<world>/seed-N.history.jsonl) is JSON Lines:
//
//	{"index":0,"type":"invoke","process":1,"f":"enqueue","key":"q","value":"1-0","time":8,"id":0}
//	{"index":4,"type":"ok","process":1,"f":"enqueue","key":"q","value":null,"time":648261,"id":0}
//
// An invocation is followed, some time later, by at most one completion with
// the same id: ok (it took effect; value is its output), info (unknown; value
// repeats the input) or fail (it did not take effect; value repeats the input).
// An invocation with no completion never returned. Times are virtual
// nanoseconds.
//
// [Read] also accepts the history.edn files that Jepsen tests write, so the
// checkers of package check run on them too. [ReadHistory] pairs invocations
// with completions into [HistoryOp] values, and [PorcupineOperations] turns
// those into Porcupine operations for a model of one's own.
//
// Inside a simulated run the engine records with a [Recorder] and writes the
// file with a [Writer].
package history

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// EventType is the type of an event: an invocation or one of the three kinds of
// completion.
type EventType string

// The event types of a history file.
const (
	Invoke EventType = "invoke" // an operation started
	OK     EventType = "ok"     // it took effect; the value is its output
	Info   EventType = "info"   // its outcome is unknown, such as after a timeout
	Fail   EventType = "fail"   // it definitely did not take effect
)

// Event is one line of a history file.
type Event struct {
	// Index is the event's position in the history, from 0. Readers do not
	// require it; the Writer numbers events itself.
	Index int64 `json:"index"`
	// Type is invoke, ok, info or fail.
	Type EventType `json:"type"`
	// Process is the client that performed the operation.
	Process int64 `json:"process"`
	// F is the operation's name, such as put, get, enqueue or txn.
	F string `json:"f"`
	// Key is the key the operation acts on; each key is checked on its own.
	// It is omitted from the file when empty (transactions have none).
	Key string `json:"key,omitempty"`
	// Value is the input on an invocation, the output on an ok completion and
	// the input again on info and fail completions. For transactions it is a
	// list of [f, key, value] micro-op triples.
	Value json.RawMessage `json:"value"`
	// Time is the virtual time of the event in nanoseconds.
	Time int64 `json:"time"`
	// ID pairs an invocation with its completion.
	ID int64 `json:"id"`
	// Line is the line of the input the event was read from, or 0. It is not
	// written to files.
	Line int `json:"-"`
}

// Status is what became of an operation.
type Status uint8

// The statuses of an operation.
const (
	StatusOK      Status = iota // completed ok: it took effect, Output is its output
	StatusUnknown               // completed info: it may or may not have taken effect
	StatusFailed                // completed fail: it did not take effect
	StatusPending               // never completed: it may or may not have taken effect
)

var statusNames = [...]string{"ok", "unknown", "failed", "pending"}

// String returns ok, unknown, failed or pending.
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "status(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText encodes the status as its name.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText decodes a status name.
func (s *Status) UnmarshalText(b []byte) error {
	for i, n := range statusNames {
		if string(b) == n {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("unknown status %q", b)
}

// Committed reports whether the operation took effect or may have: every
// status but failed.
func (s Status) Committed() bool { return s != StatusFailed }

// HistoryOp is one operation: an invocation paired with its completion, if any.
type HistoryOp struct {
	// ID is the id shared by the invocation and its completion. For Jepsen
	// histories it is the invocation's :index.
	ID int64
	// Process is the client that performed the operation.
	Process int64
	// F is the operation's name.
	F string
	// Key is the key the operation acts on, or "".
	Key string
	// Value is the invocation's value, the input, as raw JSON ("null" at least).
	Value json.RawMessage
	// Output is the ok completion's value as raw JSON, or nil when the status
	// is not ok.
	Output json.RawMessage
	// Status is ok, unknown, failed or pending.
	Status Status
	// Call is the invocation's virtual time in nanoseconds.
	Call int64
	// CallSeq and ReturnSeq are the positions of the invocation and the
	// completion among the history's events (ReturnSeq is -1 while pending).
	// The checkers order operations by them rather than by time: events at
	// the same virtual instant still happened one after the other, and the
	// history's order says in which.
	CallSeq, ReturnSeq int64
	// Return is the completion's virtual time in nanoseconds, or -1 for a
	// pending operation.
	Return int64
	// Line is the input line of the invocation, or 0.
	Line int
}

// Error is a problem with a history's content, located by file and line.
type Error struct {
	File string // the file name, or "" when unknown
	Line int    // the line, from 1, or 0 when unknown
	Msg  string
	Err  error // the underlying error, if any
}

func (e *Error) Error() string {
	switch {
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	case e.File != "":
		return e.File + ": " + e.Msg
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }
