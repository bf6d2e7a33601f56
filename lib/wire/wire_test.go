package wire

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestRoundTrip: every kind of value reads back as written, and the reader
// ends exactly at the end.
func TestRoundTrip(t *testing.T) {
	w := NewWriter(0)
	w.Uint(math.MaxUint64)
	w.Int(math.MinInt64)
	w.Word(0x0102030405060708)
	w.Float(math.Inf(-1))
	w.Bool(true)
	w.Bool(false)
	w.Bytes([]byte("abc"))
	w.String("")
	w.Strings([]string{"x", "", "yz"})
	w.Ints([]int64{-1, 0, 1 << 40})
	r := NewReader(w.Data())
	if v := r.Uint(); v != math.MaxUint64 {
		t.Errorf("Uint %d", v)
	}
	if v := r.Int(); v != math.MinInt64 {
		t.Errorf("Int %d", v)
	}
	if v := r.Word(); v != 0x0102030405060708 {
		t.Errorf("Word %x", v)
	}
	if v := r.Float(); !math.IsInf(v, -1) {
		t.Errorf("Float %v", v)
	}
	if a, b := r.Bool(), r.Bool(); !a || b {
		t.Errorf("Bool %v %v", a, b)
	}
	if v := r.Bytes(10); string(v) != "abc" {
		t.Errorf("Bytes %q", v)
	}
	if v := r.String(10); v != "" {
		t.Errorf("String %q", v)
	}
	if v := r.Strings(10, 10); !slices.Equal(v, []string{"x", "", "yz"}) {
		t.Errorf("Strings %q", v)
	}
	if v := r.Ints(10); !slices.Equal(v, []int64{-1, 0, 1 << 40}) {
		t.Errorf("Ints %v", v)
	}
	if err := r.Done(); err != nil {
		t.Errorf("Done: %v", err)
	}
}

// TestBounds: a value past its bound, a length past the input, a flag that
// is not 0 or 1, an input cut short and bytes left over are each an error
// wrapping ErrCorrupt that says what, and the first error sticks.
func TestBounds(t *testing.T) {
	enc := func(f func(w *Writer)) []byte {
		w := NewWriter(0)
		f(w)
		return w.Data()
	}
	for _, c := range []struct {
		in   []byte
		read func(r *Reader)
		want string
	}{
		{enc(func(w *Writer) { w.String("abcdef") }), func(r *Reader) { r.String(3) }, "a length of 6, more than the most of 3"},
		{enc(func(w *Writer) { w.Uint(1000) }), func(r *Reader) { r.View(1 << 20) }, "a length of 1000, more than the 0 bytes left"},
		{[]byte{2}, func(r *Reader) { r.Bool() }, "a flag of 2, neither 0 nor 1"},
		{[]byte{0x80}, func(r *Reader) { r.Uint() }, "it ends inside a number"},
		{[]byte{1, 2, 3}, func(r *Reader) { r.Word() }, "it ends inside a word"},
		{enc(func(w *Writer) { w.Int(-5) }), func(r *Reader) { r.IntIn(0, 10) }, "-5, outside [0, 10]"},
		{enc(func(w *Writer) { w.Uint(3) }), func(r *Reader) { r.Index(3) }, "3, more than 2"},
		{enc(func(w *Writer) { w.Uint(4) }), func(r *Reader) { r.Ref(3) }, "4, more than 3"},
		{[]byte{0, 0}, func(r *Reader) { r.Bool() }, "1 bytes left over after the end"},
		{[]byte{7, 1}, func(r *Reader) { r.Bool(); r.Bool() }, "a flag of 7"},
	} {
		r := NewReader(c.in)
		c.read(r)
		err := r.Done()
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("% x: error %v, want one with %q", c.in, err, c.want)
		}
	}
	if r := NewReader([]byte{1}); r.Ref(3) != 0 || r.Done() != nil {
		t.Error("Ref 1 is element 0")
	}
	if r := NewReader([]byte{0}); r.Ref(3) != -1 {
		t.Error("Ref 0 is none")
	}
}

// TestViewShares: View returns the input's bytes with no room past its
// own, so that appending to it never writes over what follows.
func TestViewShares(t *testing.T) {
	in := []byte{2, 'a', 'b', 'c'}
	r := NewReader(in)
	v := r.View(10)
	if string(v) != "ab" || cap(v) != 2 {
		t.Fatalf("View %q, cap %d", v, cap(v))
	}
	_ = append(v, 'z')
	if in[3] != 'c' {
		t.Error("appending to a view wrote into the input")
	}
}
