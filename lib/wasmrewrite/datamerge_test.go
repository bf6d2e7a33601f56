package wasmrewrite

import (
	"bytes"
	"testing"
)

func TestMergeDataSegments(t *testing.T) {
	// A module with one memory and three active segments: two close together
	// (merged, the gap zero-filled), one overlapping the first (the later
	// segment's bytes win), and one far away (kept apart).
	segs := []dataSegment{
		{offset: 100, data: []byte("hello")},
		{offset: 110, data: []byte("world")},
		{offset: 102, data: []byte("LL")},
		{offset: 100000, data: []byte("far")},
	}
	var mod []byte
	mod = append(mod, "\x00asm\x01\x00\x00\x00"...)
	mod = append(mod, 5, 3, 1, 0, 2)          // memory section: one memory, min 2 pages
	mod = append(mod, 12, 1, byte(len(segs))) // data count
	body := encodeSegments(segs)
	mod = append(mod, 11)
	mod = appendUleb(mod, uint32(len(body)))
	mod = append(mod, body...)

	out, err := rewriteData(mod)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(out, []byte{11})
	for out[i-3] != 12 { // find the data section after the data count section
		i = i + 1 + bytes.Index(out[i+1:], []byte{11})
	}
	_, n, _ := uleb(out[i+1:])
	got, err := parseActiveSegments(out[i+1+n:])
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("got %d segments, want 2", len(got))
	}
	want := "heLLo\x00\x00\x00\x00\x00world"
	if got[0].offset != 100 || string(got[0].data) != want {
		t.Fatalf("merged segment at %d = %q, want %q at 100", got[0].offset, got[0].data, want)
	}
	if got[1].offset != 100000 || string(got[1].data) != "far" {
		t.Fatalf("far segment = %d %q", got[1].offset, got[1].data)
	}
	if c := out[bytes.IndexByte(out, 12)+2]; c != 2 {
		t.Fatalf("data count = %d, want 2", c)
	}
}

func TestMergeLeavesPassiveSegmentsAlone(t *testing.T) {
	mod := []byte("\x00asm\x01\x00\x00\x00")
	mod = append(mod, 11, 4, 1, 1, 1, 'x') // one passive segment
	if got := MergeDataSegments(mod); !bytes.Equal(got, mod) {
		t.Fatalf("module with a passive segment was rewritten")
	}
}

func TestLEB(t *testing.T) {
	for _, v := range []int32{0, 1, -1, 63, 64, -64, -65, 1 << 20, -(1 << 20), 1<<31 - 1, -1 << 31} {
		b := appendSleb32(nil, v)
		got, n, ok := sleb32(b)
		if !ok || n != len(b) || got != v {
			t.Fatalf("sleb %d: got %d (n=%d ok=%v) from %x", v, got, n, ok, b)
		}
	}
	for _, v := range []uint32{0, 127, 128, 1 << 30, 1<<32 - 1} {
		b := appendUleb(nil, v)
		got, n, ok := uleb(b)
		if !ok || n != len(b) || got != v {
			t.Fatalf("uleb %d: got %d from %x", v, got, b)
		}
	}
}
