package history

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/sf-dst/sf/lib/history/jsontext"
)

// AppendEvent appends e to dst as one line of a history file, with its
// newline. Fields are written in a fixed order; key is omitted when empty and
// an empty value is written as null. A value that is not valid JSON is written
// as a JSON string of its bytes, so the line stays readable.
func AppendEvent(dst []byte, e *Event) []byte {
	dst = append(dst, `{"index":`...)
	dst = strconv.AppendInt(dst, e.Index, 10)
	dst = append(dst, `,"type":`...)
	dst = jsontext.AppendString(dst, string(e.Type))
	dst = append(dst, `,"process":`...)
	dst = strconv.AppendInt(dst, e.Process, 10)
	dst = append(dst, `,"f":`...)
	dst = jsontext.AppendString(dst, e.F)
	if e.Key != "" {
		dst = append(dst, `,"key":`...)
		dst = jsontext.AppendString(dst, e.Key)
	}
	dst = append(dst, `,"value":`...)
	switch {
	case len(e.Value) == 0:
		dst = append(dst, "null"...)
	case jsontext.Valid(e.Value):
		dst = appendCompact(dst, e.Value)
	default:
		dst = jsontext.AppendString(dst, string(e.Value))
	}
	dst = append(dst, `,"time":`...)
	dst = strconv.AppendInt(dst, e.Time, 10)
	dst = append(dst, `,"id":`...)
	dst = strconv.AppendInt(dst, e.ID, 10)
	return append(dst, "}\n"...)
}

// appendCompact appends valid JSON without its insignificant white space, so
// that a value never breaks the line.
func appendCompact(dst, v []byte) []byte {
	inString := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if inString {
			dst = append(dst, c)
			switch c {
			case '\\':
				i++
				dst = append(dst, v[i])
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			inString = true
		}
		dst = append(dst, c)
	}
	return dst
}

// Writer writes events to a history file, each as one whole line written with
// a single Write call, so a crash never leaves half an event behind.
type Writer struct {
	w   io.Writer
	buf []byte
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes one event as it is, including its Index.
func (w *Writer) Write(e *Event) error {
	w.buf = AppendEvent(w.buf[:0], e)
	_, err := w.w.Write(w.buf)
	return err
}

// WriteEvents writes events to w, buffered, as a history file.
func WriteEvents(w io.Writer, events []Event) error {
	var buf []byte
	for i := range events {
		buf = AppendEvent(buf, &events[i])
		if len(buf) >= 64<<10 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if len(buf) > 0 {
		_, err := w.Write(buf)
		return err
	}
	return nil
}

// OpsMax is the most operations a Recorder holds. A workload that invokes
// more gets an error from Invoke; no checker could finish on such a history
// in its time limit anyway, except list-append, which Elle-style checking
// keeps linear.
const OpsMax = 4 << 20

// Recorder records a history as it happens, for the engine: each call adds
// one event, numbered in order, and completions repeat their invocation's
// process, f and key. It is not safe for concurrent use; the engine runs one
// node at a time.
type Recorder struct {
	events []Event
	open   map[int64]int32 // id -> index of the invocation in events
	nextID int64
	ops    int
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder { return &Recorder{open: map[int64]int32{}} }

// Invoke records an invocation at virtual time timeNs and returns its id. The
// value is the operation's input as JSON (nil means null).
func (r *Recorder) Invoke(process int64, f, key string, value json.RawMessage, timeNs int64) (int64, error) {
	if r.ops >= OpsMax {
		return 0, fmt.Errorf("history is at its limit of %d operations", OpsMax)
	}
	id := r.nextID
	r.nextID++
	r.ops++
	r.open[id] = int32(len(r.events))
	r.events = append(r.events, Event{
		Index: int64(len(r.events)), Type: Invoke, Process: process, F: f, Key: key,
		Value: cloneRaw(value), Time: timeNs, ID: id,
	})
	return id, nil
}

// Complete records the completion of the invocation id at virtual time timeNs.
// For OK, output is the operation's output as JSON; for Info and Fail the
// completion repeats the input, as the format says, and output is ignored.
func (r *Recorder) Complete(id int64, t EventType, output json.RawMessage, timeNs int64) error {
	j, ok := r.open[id]
	if !ok {
		return fmt.Errorf("completion of id %d, which is not an open invocation", id)
	}
	switch t {
	case OK, Info, Fail:
	default:
		return fmt.Errorf("completion type %q is not one of ok, info, fail", t)
	}
	delete(r.open, id)
	inv := &r.events[j]
	value := inv.Value
	if t == OK {
		value = cloneRaw(output)
	}
	if timeNs < inv.Time {
		timeNs = inv.Time
	}
	r.events = append(r.events, Event{
		Index: int64(len(r.events)), Type: t, Process: inv.Process, F: inv.F, Key: inv.Key,
		Value: value, Time: timeNs, ID: id,
	})
	return nil
}

func cloneRaw(v json.RawMessage) json.RawMessage {
	if len(v) == 0 {
		return nil
	}
	return append(json.RawMessage(nil), v...)
}

// Len returns the number of events recorded.
func (r *Recorder) Len() int { return len(r.events) }

// Open returns the number of invocations that have not completed yet. They
// stay open in the history: a workload that crashed mid-operation leaves its
// outcome unknown.
func (r *Recorder) Open() int { return len(r.open) }

// Events returns the recorded events. The slice is shared with the Recorder.
func (r *Recorder) Events() []Event { return r.events }

// Ops pairs the recorded events into operations.
func (r *Recorder) Ops() []HistoryOp {
	ops, err := Pair(r.events)
	if err != nil {
		// The recorder only ever writes well-paired events.
		panic("history: recorder produced an invalid history: " + err.Error())
	}
	return ops
}

// WriteTo writes the history file to w.
func (r *Recorder) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: w}
	err := WriteEvents(cw, r.events)
	return cw.n, err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Clone returns a copy of the Recorder that goes on apart from it: recording
// into either leaves the other as it was. Recorded values are never changed
// in place, so the copy shares them.
func (r *Recorder) Clone() *Recorder {
	c := &Recorder{events: append([]Event(nil), r.events...), open: make(map[int64]int32, len(r.open)), nextID: r.nextID, ops: r.ops}
	for id, j := range r.open {
		c.open[id] = j
	}
	return c
}
