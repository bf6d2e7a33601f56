package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/sf-dst/sf/lib/wire"
	"github.com/sf-dst/sf/lib/wire/wiretest"
)

// TestRecorderEncodeGoesOn: a recorder encoded and decoded with operations
// open goes on to the same history as the one it came from.
func TestRecorderEncodeGoesOn(t *testing.T) {
	script := func(r *Recorder, from, to int) {
		for i := from; i < to; i++ {
			id, err := r.Invoke(int64(i%3), "put", fmt.Sprint("k", i%4), json.RawMessage(fmt.Sprint(i)), int64(10*i))
			if err != nil {
				t.Fatal(err)
			}
			if i%5 != 4 { // every fifth stays open
				typ := []EventType{OK, Info, Fail}[i%3]
				if err := r.Complete(id, typ, json.RawMessage(`null`), int64(10*i+5)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	whole := NewRecorder()
	script(whole, 0, 40)
	var want bytes.Buffer
	whole.WriteTo(&want)
	for _, at := range []int{0, 1, 9, 23, 40} {
		r := NewRecorder()
		script(r, 0, at)
		w := wire.NewWriter(0)
		r.Encode(w)
		rd := wire.NewReader(w.Data())
		c := DecodeRecorder(rd)
		if err := rd.Done(); err != nil {
			t.Fatal(err)
		}
		if c.Open() != r.Open() || c.Len() != r.Len() {
			t.Fatalf("at %d: %d open of %d, want %d of %d", at, c.Open(), c.Len(), r.Open(), r.Len())
		}
		script(c, at, 40)
		var got bytes.Buffer
		c.WriteTo(&got)
		if got.String() != want.String() {
			t.Errorf("encoded after %d operations, the history differs:\n%s\nwant\n%s", at, got.String(), want.String())
		}
	}
}

// FuzzDecodeRecorder: no input makes DecodeRecorder panic.
func FuzzDecodeRecorder(f *testing.F) {
	r := NewRecorder()
	r.Invoke(1, "get", "k", nil, 3)
	w := wire.NewWriter(0)
	r.Encode(w)
	f.Add(w.Data())
	f.Fuzz(func(t *testing.T, b []byte) {
		rd := wire.NewReader(b)
		DecodeRecorder(rd)
		_ = rd.Done()
	})
}

// TestRecorderEncodeCoversEveryField pins the fields Encode writes: a field
// added to one of these types fails here until Encode and DecodeRecorder
// write it.
func TestRecorderEncodeCoversEveryField(t *testing.T) {
	pinned := map[reflect.Type]string{
		reflect.TypeFor[Recorder](): "events open nextID ops",
		reflect.TypeFor[Event]():    "Index Type Process F Key Value Time ID Line",
	}
	wiretest.CheckFields(t, pinned)
}
