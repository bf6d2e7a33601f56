//go:build unix

package engine

import (
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// mmapMemory backs a guest's linear memory with one anonymous mapping as
// large as the memory may ever grow. Growing is then only a longer slice:
// no copy, and the pages cost nothing until the guest touches them. Go's
// runtime grows its memory many times while it starts, and copying it each
// time showed up as a tenth of a run's time. The mapping is outside the Go
// heap, so the collector never scans it either.
type mmapMemory struct {
	buf []byte
}

func (m *mmapMemory) Reallocate(size uint64) []byte {
	if size > uint64(len(m.buf)) {
		return nil
	}
	return m.buf[:size]
}

func (m *mmapMemory) Free() {
	if m.buf != nil {
		syscall.Munmap(m.buf)
		m.buf = nil
	}
}

func newLinearMemory(capacity, max uint64) experimental.LinearMemory {
	limit := uint64(GuestMemoryLimitPages) * 65536
	if max > limit {
		max = limit
	}
	if max < capacity {
		max = capacity
	}
	buf, err := syscall.Mmap(-1, 0, int(max), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|mapNoReserve)
	if err != nil {
		return &sliceMemory{buf: make([]byte, 0, capacity), max: max}
	}
	return &mmapMemory{buf: buf}
}
