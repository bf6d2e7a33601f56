package core

import (
	"slices"
	"testing"

	"github.com/sf-dst/sf/lib/disk"
)

// TestKnownZeros: the zeros the reads of files leave are known to a
// mapping registered in the very next host call, and to nothing later. A
// mapping's shadow takes their word without reading the pages: the test
// shows it by putting data where they said zeros, which a fill never does.
func TestKnownZeros(t *testing.T) {
	const page = disk.PageBytes
	in := &Instance{exec: &instExec{}}
	buf := make([]byte, 6*page)
	const at = 1 << 20 // the guest address of buf
	call := func() { in.exec.seq++ }
	// holes reads a run of a file's holes into pages [lo, hi) of buf, as
	// one read of the current host call does.
	holes := func(lo, hi int) {
		z := in.ReadZeroTest(buf[lo*page:], at+uint32(lo*page))
		z.Zero(buf[lo*page : hi*page])
		in.ReadEnded(at + uint32(hi*page))
	}
	// read fills buf as a read of a file whose page 2 holds data does, in
	// two calls when split (the second going on where the first ended),
	// and then reads the end of the file: nothing, as the shim's loop does.
	read := func(split bool) {
		call()
		z := in.ReadZeroTest(buf, at)
		z.Zero(buf[:2*page])
		buf[2*page] = 1
		if split {
			in.ReadEnded(at + 3*page)
			call()
			z = in.ReadZeroTest(buf[3*page:], at+3*page)
			z.Zero(buf[3*page:])
		} else {
			z.Zero(buf[3*page:])
		}
		in.ReadEnded(at + 6*page)
		call()
		in.ReadZeroTest(nil, at+6*page)
		in.ReadEnded(at + 6*page)
	}
	// onWord reports, page by page, whether a mapping registered now
	// takes the page for zeros although it holds data.
	onWord := func() []bool {
		call()
		for p := range 6 {
			buf[p*page+7] = 9
		}
		z := in.mappedZeroTest(buf, at)
		var got []bool
		for p := range 6 {
			got = append(got, z.IsZero(buf[p*page:(p+1)*page]))
		}
		clear(buf)
		return got
	}
	want := []bool{true, true, false, true, true, true}
	for _, split := range []bool{false, true} {
		read(split)
		if got := onWord(); !slices.Equal(got, want) {
			t.Fatalf("split %v: the next call took the pages for zeros %v, want %v", split, got, want)
		}
	}
	none := make([]bool, 6)

	// A call between the read and the mapping: nothing is known.
	read(false)
	call()
	if got := onWord(); !slices.Equal(got, none) {
		t.Fatalf("with a call between: %v, want none taken for zeros", got)
	}
	// A read that changed what it wrote (read_corrupt).
	read(false)
	in.ForgetZeros()
	if got := onWord(); !slices.Equal(got, none) {
		t.Fatalf("after ForgetZeros: %v, want none taken for zeros", got)
	}
	// A read after an unrelated call starts anew: the zeros of a read
	// before the gap are not carried over.
	read(false)
	call()
	call()
	holes(5, 6)
	if got, want := onWord(), []bool{false, false, false, false, false, true}; !slices.Equal(got, want) {
		t.Fatalf("a read after a gap: %v, want %v", got, want)
	}
	// So does a read in the next call that does not go on where the last
	// one ended: the zeros noted in another buffer (here buf's first
	// pages, read at call N, then written by the guest and read into again
	// at call N+1 from elsewhere) are not the new buffer's.
	call()
	holes(0, 1)
	call()
	holes(4, 6)
	if got, want := onWord(), []bool{false, false, false, false, true, true}; !slices.Equal(got, want) {
		t.Fatalf("a read elsewhere in the next call: %v, want %v", got, want)
	}
	// Two reads of one call (a readv of two buffers) both count.
	call()
	holes(0, 1)
	holes(4, 6)
	if got, want := onWord(), []bool{true, false, false, false, true, true}; !slices.Equal(got, want) {
		t.Fatalf("two reads of one call: %v, want %v", got, want)
	}
}

// TestCovered: a range is covered only by one known range that holds all
// of it.
func TestCovered(t *testing.T) {
	r := []uint32{10, 20, 30, 40}
	for _, c := range []struct {
		lo, hi uint32
		want   bool
	}{
		{10, 20, true}, {12, 18, true}, {30, 40, true}, {5, 15, false}, {15, 25, false},
		{20, 30, false}, {18, 32, false}, {35, 45, false}, {40, 50, false}, {0, 5, false},
	} {
		if got := covered(r, c.lo, c.hi); got != c.want {
			t.Errorf("covered(%v, %d, %d) = %v, want %v", r, c.lo, c.hi, got, c.want)
		}
	}
	if covered(nil, 0, 1) {
		t.Error("covered by nothing")
	}
}
