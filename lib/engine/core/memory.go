package core

import (
	"sync"

	"github.com/tetratelabs/wazero/experimental"
)

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

// abandonedMemories keep the memories of guests the watchdog gave up on
// reachable: such a guest may still write to its memory through an address
// the collector does not see.
var abandonedMemories struct {
	sync.Mutex
	bufs [][]byte
}

// abandon leaves the memory to a guest that may still run (stopSpinning).
func (m *sliceMemory) abandon() {
	abandonedMemories.Lock()
	abandonedMemories.bufs = append(abandonedMemories.bufs, m.buf)
	abandonedMemories.Unlock()
}

// memoryAllocator allocates the memory of a guest of the module in the wasm
// file owner. imageBytes, when not 0, is the size of the image of a resumed
// guest, which is written over the start of the memory before the guest
// runs, and keep the run of memory the module's data segments write at its
// instantiation: a reused mapping need not be cleared in either.
func memoryAllocator(owner string, imageBytes uint64, keep [2]uint64) experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(capacity, max uint64) experimental.LinearMemory {
		return newLinearMemoryOver(capacity, max, imageBytes, owner, keep)
	})
}

// offsetRange is the bytes [lo, hi) of a guest memory.
type offsetRange struct{ lo, hi uint64 }
