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

var memoryAllocator = experimental.MemoryAllocatorFunc(newLinearMemory)
