package history

import (
	"maps"
	"slices"

	"github.com/sf-dst/sf/lib/wire"
)

// Encode writes the recorder's state for a snapshot file: its events, the
// invocations still open and its counters.
func (r *Recorder) Encode(w *wire.Writer) {
	w.Uint(uint64(len(r.events)))
	for _, e := range r.events {
		w.Int(e.Index)
		w.String(string(e.Type))
		w.Int(e.Process)
		w.String(e.F)
		w.String(e.Key)
		w.Bool(e.Value != nil)
		w.Bytes(e.Value)
		w.Int(e.Time)
		w.Int(e.ID)
		w.Int(int64(e.Line))
	}
	ids := slices.Sorted(maps.Keys(r.open))
	w.Uint(uint64(len(ids)))
	for _, id := range ids {
		w.Int(id)
		w.Int(int64(r.open[id]))
	}
	w.Int(r.nextID)
	w.Int(int64(r.ops))
}

// DecodeRecorder reads a recorder that Encode wrote, checking that each
// open invocation is an event of it.
func DecodeRecorder(rd *wire.Reader) *Recorder {
	r := &Recorder{}
	if k := rd.Len(wire.ListMax); k > 0 {
		r.events = make([]Event, k)
		for i := range r.events {
			e := Event{Index: rd.Int()}
			switch t := EventType(rd.String(wire.StringMax)); t {
			case Invoke, OK, Info, Fail:
				e.Type = t
			default:
				rd.Failf("a history event of type %q", t)
			}
			e.Process, e.F, e.Key = rd.Int(), rd.String(wire.StringMax), rd.String(wire.StringMax)
			hasValue := rd.Bool()
			if v := rd.Bytes(wire.BytesMax); hasValue {
				e.Value = append([]byte{}, v...)
			}
			e.Time, e.ID, e.Line = rd.Int(), rd.Int(), int(rd.Int())
			r.events[i] = e
		}
	}
	k := rd.Len(wire.ListMax)
	r.open = make(map[int64]int32, k)
	for range k {
		id := rd.Int()
		r.open[id] = int32(rd.IntIn(0, int64(len(r.events))-1))
	}
	r.nextID, r.ops = rd.Int(), int(rd.IntIn(0, OpsMax))
	if rd.Err() != nil {
		return nil
	}
	return r
}
