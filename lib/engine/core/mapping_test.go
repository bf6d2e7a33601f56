package core

import (
	"bytes"
	"testing"
	"unsafe"
)

// drainShadowPool empties the pool, so that a test sees only its own
// buffers in it.
func drainShadowPool() {
	shadowPool.Lock()
	shadowPool.free, shadowPool.bytes = nil, 0
	shadowPool.Unlock()
}

// TestShadowPool: a shadow is a copy of its mapping's bytes whether it comes
// from the pool or not; a released shadow is handed to the next mapping
// that fits in it (the smallest that fits), with its old bytes overwritten
// and its length the new mapping's; and the pool keeps at most
// shadowPoolMax bytes.
func TestShadowPool(t *testing.T) {
	drainShadowPool()
	defer drainShadowPool()

	small := bytes.Repeat([]byte{1}, 8192)
	large := bytes.Repeat([]byte{2}, 64<<10)
	a, b := NewShadow(small), NewShadow(large)
	if !bytes.Equal(a, small) || !bytes.Equal(b, large) {
		t.Fatal("a new shadow is not a copy of its mapping")
	}
	a[0] = 9
	if small[0] != 1 {
		t.Fatal("a shadow shares its mapping's bytes")
	}
	ReleaseShadow(b)
	ReleaseShadow(a)

	// 6,000 bytes fit in both; the smaller is taken.
	want := bytes.Repeat([]byte{3}, 6000)
	c := NewShadow(want)
	if unsafe.SliceData(c) != unsafe.SliceData(a) {
		t.Errorf("a 6,000-byte shadow did not reuse the released 8 KiB one")
	}
	if !bytes.Equal(c, want) {
		t.Errorf("a reused shadow holds %d bytes, first %d; want 6000 of 3", len(c), c[0])
	}
	// 20,000 bytes fit only in the 64 KiB one.
	want = bytes.Repeat([]byte{4}, 20000)
	d := NewShadow(want)
	if unsafe.SliceData(d) != unsafe.SliceData(b) || !bytes.Equal(d, want) {
		t.Errorf("a 20,000-byte shadow: reused %v, equal %v", unsafe.SliceData(d) == unsafe.SliceData(b), bytes.Equal(d, want))
	}
	// Nothing is left that fits 100 KiB.
	want = bytes.Repeat([]byte{5}, 100<<10)
	if e := NewShadow(want); !bytes.Equal(e, want) || unsafe.SliceData(e) == unsafe.SliceData(b) {
		t.Errorf("a 100 KiB shadow from an empty pool is not a fresh copy")
	}

	for range 3 * shadowPoolMax / (8 << 20) {
		ReleaseShadow(make([]byte, 8<<20))
	}
	shadowPool.Lock()
	n, free := shadowPool.bytes, len(shadowPool.free)
	shadowPool.Unlock()
	if n > shadowPoolMax || n != free*(8<<20) {
		t.Errorf("the pool holds %d bytes in %d buffers, at most %d wanted", n, free, shadowPoolMax)
	}
}
