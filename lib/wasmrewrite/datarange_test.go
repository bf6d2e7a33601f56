package wasmrewrite

import "testing"

// dataModule is a module holding only a data section with body.
func dataModule(body []byte) []byte {
	bin := []byte("\x00asm\x01\x00\x00\x00")
	bin = append(bin, 11)
	bin = appendUleb(bin, uint32(len(body)))
	return append(bin, body...)
}

// activeSegment encodes an active segment of memory 0 at off.
func activeSegment(off int32, data string) []byte {
	b := []byte{0, 0x41}
	b = appendSleb32(b, off)
	b = append(b, 0x0b)
	b = appendUleb(b, uint32(len(data)))
	return append(b, data...)
}

// TestDataRange: the longest run the active segments write whole, across
// segments that touch, overlap or come out of order; none for a module with
// a passive segment or without data.
func TestDataRange(t *testing.T) {
	segs := func(ss ...[]byte) []byte {
		body := appendUleb(nil, uint32(len(ss)))
		for _, s := range ss {
			body = append(body, s...)
		}
		return body
	}
	for _, c := range []struct {
		name   string
		bin    []byte
		lo, hi uint64
		ok     bool
	}{
		{"one", dataModule(segs(activeSegment(100, "abcd"))), 100, 104, true},
		{"touching and out of order", dataModule(segs(activeSegment(104, "ef"), activeSegment(100, "abcd"))), 100, 106, true},
		{"overlapping", dataModule(segs(activeSegment(100, "abcd"), activeSegment(102, "xyzw"))), 100, 106, true},
		{"the longer of two runs", dataModule(segs(activeSegment(10, "ab"), activeSegment(100, "abcdefgh"), activeSegment(50, "abc"))), 100, 108, true},
		{"a gap splits a run", dataModule(segs(activeSegment(100, "abcd"), activeSegment(105, "xyz"))), 100, 104, true},
		{"passive", dataModule(segs(activeSegment(100, "abcd"), []byte{1, 2, 'x', 'y'})), 0, 0, false},
		{"no data", []byte("\x00asm\x01\x00\x00\x00"), 0, 0, false},
		{"empty segments", dataModule(segs(activeSegment(100, ""))), 0, 0, false},
	} {
		lo, hi, ok := DataRange(c.bin)
		if lo != c.lo || hi != c.hi || ok != c.ok {
			t.Errorf("%s: DataRange = %d, %d, %v; want %d, %d, %v", c.name, lo, hi, ok, c.lo, c.hi, c.ok)
		}
	}
}
