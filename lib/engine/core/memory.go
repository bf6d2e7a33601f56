package core

import "github.com/tetratelabs/wazero/experimental"

// sliceMemory is the portable fallback: a slice that grows by doubling.
type sliceMemory struct {
	buf []byte
	max uint64
}

func (m *sliceMemory) Reallocate(size uint64) []byte {
	if size > m.max {
		return nil
	}
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size]
		return m.buf
	}
	n := make([]byte, size, max(size, 2*uint64(cap(m.buf))))
	copy(n, m.buf)
	m.buf = n
	return n
}

func (m *sliceMemory) Free() { m.buf = nil }

// memoryAllocator allocates the memory of a guest of the module in the wasm
// file owner.
func memoryAllocator(owner string) experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(capacity, max uint64) experimental.LinearMemory {
		return newLinearMemoryOver(capacity, max, 0, owner)
	})
}

// imageAllocator allocates the memory of a guest of the module in owner resumed
// from an image of imageBytes, which is written over the start of it before
// the guest runs: a reused mapping must be zero only above the image.
func imageAllocator(imageBytes uint64, owner string) experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(capacity, max uint64) experimental.LinearMemory {
		return newLinearMemoryOver(capacity, max, imageBytes, owner)
	})
}
