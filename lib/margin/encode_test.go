package margin

import (
	"math"
	"testing"

	"github.com/sf-dst/sf/lib/wire"
)

// TestEncodeRoundTrip: integer and float margins read back as they were,
// a float of an integer's value staying a float.
func TestEncodeRoundTrip(t *testing.T) {
	for _, v := range []Value{Int(false, 0), Int(true, 7), Int(false, math.MaxUint64), Float(3), Float(-0.5), Float(math.Inf(-1)), Float(math.NaN())} {
		w := wire.NewWriter(0)
		v.Encode(w)
		r := wire.NewReader(w.Data())
		got := Decode(r)
		if err := r.Done(); err != nil {
			t.Fatal(err)
		}
		if got.String() != v.String() || got.IsInt() != v.IsInt() {
			t.Errorf("%v (integer %v) read back as %v (integer %v)", v, v.IsInt(), got, got.IsInt())
		}
	}
}
