//go:build unix

package core

import (
	"testing"
	"unsafe"

	"github.com/tetratelabs/wazero/experimental"
)

// TestImageMemoryIsZeroAboveTheImage: a resumed guest's memory comes from
// the pool of freed mappings, cleared only above its image, which is
// written over the rest; above the image it must read zero as a fresh
// guest's memory does, whatever the mapping held before.
func TestImageMemoryIsZeroAboveTheImage(t *testing.T) {
	const image, used = 1 << 20, 4 << 20
	limit := uint64(GuestMemoryLimitPages) * 65536
	for range 3 {
		dirty := newLinearMemory(image, limit)
		buf := dirty.Reallocate(used)
		for i := range buf {
			buf[i] = 0xa5
		}
		dirty.Free()
		m := newLinearMemoryOver(image, limit, image, "", [2]uint64{})
		got := m.Reallocate(used)
		for i := image; i < used; i++ {
			if got[i] != 0 {
				t.Fatalf("byte %d above the image is %#x, not zero", i, got[i])
			}
		}
		m.Free()
	}
}

// TestReusedLargeMemoryIsZero: a freed memory that used more than the
// pool clears on reuse gives its pages past that back (dropPages); a guest
// that reuses it must read zero there too.
func TestReusedLargeMemoryIsZero(t *testing.T) {
	const used = memoryPoolClearMax + 8<<20
	limit := uint64(GuestMemoryLimitPages) * 65536
	for range 2 {
		dirty := newLinearMemory(1<<20, limit)
		buf := dirty.Reallocate(used)
		for i := 0; i < len(buf); i += 4096 {
			buf[i], buf[len(buf)-1] = 0xa5, 0xa5
		}
		dirty.Free()
		m := newLinearMemory(1<<20, limit)
		got := m.Reallocate(used)
		for i := 0; i < len(got); i += 4096 {
			if got[i] != 0 {
				t.Fatalf("byte %d of a reused memory is %#x, not zero", i, got[i])
			}
		}
		if got[len(got)-1] != 0 {
			t.Fatalf("the last byte of a reused memory is %#x, not zero", got[len(got)-1])
		}
		m.Free()
	}
}

// TestPoolPrefersTheSameModule: a freed memory goes next to a guest of the
// module that used it, whatever was freed after it, and to a guest of
// another module only when none of its own is waiting.
func TestPoolPrefersTheSameModule(t *testing.T) {
	limit := uint64(GuestMemoryLimitPages) * 65536
	start := func(l experimental.LinearMemory) *byte { return unsafe.SliceData(l.Reallocate(65536)) }
	a := newLinearMemoryOver(1<<20, limit, 0, "a.wasm", [2]uint64{})
	b := newLinearMemoryOver(1<<20, limit, 0, "b.wasm", [2]uint64{})
	aBuf, bBuf := start(a), start(b)
	a.Free()
	b.Free() // freed last: what a guest of another module gets
	if got := newLinearMemoryOver(1<<20, limit, 0, "a.wasm", [2]uint64{}); start(got) != aBuf {
		t.Errorf("a guest of a.wasm did not get the memory a.wasm's last guest freed")
	} else {
		defer got.Free()
	}
	if got := newLinearMemoryOver(1<<20, limit, 0, "c.wasm", [2]uint64{}); start(got) != bBuf {
		t.Errorf("a guest of c.wasm did not get the latest freed memory")
	} else {
		defer got.Free()
	}
}

// TestReuseKeepsTheDataRange: a reused memory is cleared everywhere but the
// run its next guest's data segments will write whole (wazero copies them
// right after), and above an image where there is one.
func TestReuseKeepsTheDataRange(t *testing.T) {
	const used = 4 << 20
	limit := uint64(GuestMemoryLimitPages) * 65536
	for _, c := range []struct {
		image  uint64
		lo, hi uint64
	}{{0, 48000, 2 << 20}, {1 << 20, 48000, 2 << 20}, {3 << 20, 48000, 2 << 20}, {0, 0, 0}} {
		dirty := newLinearMemoryOver(1<<20, limit, 0, "x.wasm", [2]uint64{})
		buf := dirty.Reallocate(used)
		for i := range buf {
			buf[i] = 0xa5
		}
		dirty.Free()
		m := newLinearMemoryOver(used, limit, c.image, "x.wasm", [2]uint64{c.lo, c.hi})
		got := m.Reallocate(used)
		for i := range uint64(used) {
			kept := i < c.image || (i >= c.lo && i < c.hi)
			if !kept && got[i] != 0 {
				t.Fatalf("image %d, data [%d, %d): byte %d is %#x, not zero", c.image, c.lo, c.hi, i, got[i])
			}
			if kept && got[i] != 0xa5 {
				t.Fatalf("image %d, data [%d, %d): byte %d was cleared, which the data segment or image writes anyway", c.image, c.lo, c.hi, i)
			}
		}
		m.Free()
	}
}
