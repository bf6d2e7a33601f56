//go:build unix

package core

import "testing"

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
		m := newLinearMemoryOver(image, limit, image)
		got := m.Reallocate(used)
		for i := image; i < used; i++ {
			if got[i] != 0 {
				t.Fatalf("byte %d above the image is %#x, not zero", i, got[i])
			}
		}
		m.Free()
	}
}
