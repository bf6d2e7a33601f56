package core

import (
	"bytes"
	"testing"

	"github.com/sf-dst/sf/lib/disk"
)

// drainShadowPool empties the pool, so that a test sees only its own pages
// in it.
func drainShadowPool() {
	shadowPool.Lock()
	shadowPool.free = nil
	shadowPool.Unlock()
}

// canonical reports whether s holds a page exactly where its bytes are not
// all zeros, and zeros past its end in its last page.
func canonical(s *Shadow) bool {
	b := s.Bytes()
	for p, pg := range s.pages {
		part := b[p*disk.PageBytes : min((p+1)*disk.PageBytes, len(b))]
		if (pg == nil) != disk.IsZero(part) || pg != nil && !disk.IsZero(pg[len(part):]) {
			return false
		}
	}
	return true
}

// TestShadow: a shadow is a copy of its mapping's bytes that holds no page
// for a page of zeros; Set keeps it so (a page set to zeros is given back,
// a page of zeros set to something else is taken); Equal compares a
// mapping's page with it; a clone shares no page; a released shadow's pages
// go to the next shadow, with their old bytes overwritten; and the pool
// keeps at most shadowPoolMax pages.
func TestShadow(t *testing.T) {
	drainShadowPool()
	defer drainShadowPool()

	// Pages 0 and 2 hold data, 1 and 3 are zeros, and the last is short.
	b := make([]byte, 4*disk.PageBytes+100)
	b[10], b[2*disk.PageBytes+4095], b[4*disk.PageBytes+99] = 1, 2, 3
	s := NewShadow(b, nil)
	if s.Len() != uint32(len(b)) || !bytes.Equal(s.Bytes(), b) {
		t.Fatal("a new shadow is not a copy of its mapping")
	}
	if s.pages[1] != nil || s.pages[3] != nil || s.pages[0] == nil || s.pages[4] == nil || !canonical(s) {
		t.Fatal("a new shadow holds pages of zeros, or lacks pages of data")
	}
	b[10] = 9
	if s.Bytes()[10] != 1 {
		t.Fatal("a shadow shares its mapping's bytes")
	}
	for a := uint32(0); a < s.Len(); a += disk.PageBytes {
		e := min(a+disk.PageBytes, s.Len())
		if want := a != 0; s.Equal(a, b[a:e]) != want {
			t.Errorf("page at %d: Equal says %v, want %v", a, !want, want)
		}
	}

	s.Set(10, []byte{0})                       // page 0 is zeros now
	s.Set(disk.PageBytes+7, []byte{5, 6})      // page 1 holds data now
	s.Set(3*disk.PageBytes, make([]byte, 100)) // zeros on zeros
	want := make([]byte, len(b))
	want[disk.PageBytes+7], want[disk.PageBytes+8], want[2*disk.PageBytes+4095], want[4*disk.PageBytes+99] = 5, 6, 2, 3
	if !bytes.Equal(s.Bytes(), want) || !canonical(s) || s.pages[0] != nil || s.pages[1] == nil {
		t.Fatal("Set did not leave the shadow's bytes, with pages only where they are not zeros")
	}

	// A Set across pages: zeros over data, data over zeros, and the short
	// last page.
	span := make([]byte, 3*disk.PageBytes+100-50)
	span[1], span[len(span)-1] = 8, 9 // in pages 1 and 4; page 2 becomes zeros
	s.Set(disk.PageBytes+50, span)
	copy(want[disk.PageBytes+50:], span)
	if !bytes.Equal(s.Bytes(), want) || !canonical(s) || s.pages[2] != nil || s.pages[4] == nil {
		t.Fatal("a Set across pages did not leave the shadow's bytes, with pages only where they are not zeros")
	}

	c := s.Clone()
	if !bytes.Equal(c.Bytes(), want) || !canonical(c) {
		t.Fatal("a clone differs from its shadow")
	}
	c.Set(disk.PageBytes+7, []byte{7})
	if s.Bytes()[disk.PageBytes+7] != want[disk.PageBytes+7] {
		t.Fatal("a clone shares a page with its shadow")
	}
	if ShadowOf(nil) != nil || ShadowOf(want).Len() != uint32(len(want)) || !bytes.Equal(ShadowOf(want).Bytes(), want) {
		t.Fatal("ShadowOf is not a copy")
	}

	// A released shadow's pages are the next shadow's, overwritten, and the
	// shadow is no longer one of its mapping's length.
	old := s.pages[4] // the last page released, the first taken
	ReleaseShadow(s)
	if s.Len() != 0 {
		t.Error("a released shadow keeps its length")
	}
	d := NewShadow(bytes.Repeat([]byte{4}, 100), nil)
	if d.pages[0] != old || !bytes.Equal(d.Bytes(), bytes.Repeat([]byte{4}, 100)) || d.pages[0][100] != 0 {
		t.Error("a new shadow did not take a released page, or kept its old bytes")
	}

	big := &Shadow{n: 3 * shadowPoolMax * disk.PageBytes, pages: make([]*shadowPage, 3*shadowPoolMax)}
	for p := range big.pages {
		big.pages[p] = new(shadowPage)
	}
	ReleaseShadow(big)
	shadowPool.Lock()
	free := len(shadowPool.free)
	shadowPool.Unlock()
	if free != shadowPoolMax {
		t.Errorf("the pool holds %d pages, %d wanted (it was empty, and more were released)", free, shadowPoolMax)
	}
}
