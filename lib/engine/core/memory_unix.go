//go:build unix

package core

import (
	"sync"
	"syscall"
	"unsafe"

	"github.com/tetratelabs/wazero/experimental"
)

// mmapMemory backs a guest's linear memory with one anonymous mapping as
// large as the memory may ever grow. Growing is then only a longer slice:
// no copy, and the pages cost nothing until the guest touches them. Go's
// runtime grows its memory many times while it starts, and copying it each
// time showed up as a tenth of a run's time. The mapping is outside the Go
// heap, so the collector never scans it either.
//
// Freed mappings go back to a small pool and are cleared when reused: a Go
// guest touches only a few megabytes, and clearing those costs less than
// the page faults of a fresh mapping, which showed up in every instance's
// start.
type mmapMemory struct {
	buf  []byte
	used uint64 // the largest size handed out: what a reuse must clear
	// watched says the memory is under the kernel's write watch
	// (dirty_watch_linux.go); reservations' lock guards it.
	watched bool
}

// reservations are the guest memories in use, for the write watch to find
// the one that holds a mapping.
var reservations struct {
	sync.Mutex
	live []*mmapMemory
}

// reservationOf returns the guest memory in use that holds the host range
// [host, host+n), or nil. The caller holds reservations' lock.
func reservationOf(host, n uintptr) *mmapMemory {
	for _, m := range reservations.live {
		lo := uintptr(unsafe.Pointer(unsafe.SliceData(m.buf)))
		if host >= lo && host+n <= lo+uintptr(len(m.buf)) {
			return m
		}
	}
	return nil
}

func (m *mmapMemory) inUse() *mmapMemory {
	reservations.Lock()
	reservations.live = append(reservations.live, m)
	reservations.Unlock()
	return m
}

func (m *mmapMemory) Reallocate(size uint64) []byte {
	if size > uint64(len(m.buf)) {
		return nil
	}
	m.used = max(m.used, size)
	return m.buf[:size]
}

// memoryPoolMax bounds how many freed mappings wait for reuse, and
// memoryPoolClearMax how much of one stays populated for a reuse to clear;
// the pages past it go back to the kernel.
const (
	memoryPoolMax      = 16
	memoryPoolClearMax = 64 << 20
)

var memoryPool = make(chan *mmapMemory, memoryPoolMax)

func (m *mmapMemory) Free() {
	if m.buf == nil {
		return
	}
	reservations.Lock()
	for i, l := range reservations.live {
		if l == m {
			reservations.live = append(reservations.live[:i], reservations.live[i+1:]...)
			break
		}
	}
	watched := m.watched
	reservations.Unlock()
	used := m.used
	if used > memoryPoolClearMax {
		// Keep the first pages, which a reuse clears, and give the rest
		// back: a large guest then costs page faults only past them, where
		// unmapping the whole of it cost them everywhere.
		dropPages(m.buf[memoryPoolClearMax:min((used+4095)&^4095, uint64(len(m.buf)))])
		used = memoryPoolClearMax
	}
	select {
	case memoryPool <- &mmapMemory{buf: m.buf, used: used, watched: watched}:
		m.buf = nil
		return
	default:
	}
	syscall.Munmap(m.buf)
	m.buf = nil
}

func newLinearMemory(capacity, max uint64) experimental.LinearMemory {
	return newLinearMemoryOver(capacity, max, 0)
}

// newLinearMemoryOver is newLinearMemory for a guest whose image of
// imageBytes will be written over the start of its memory: a reused
// mapping needs clearing only above it.
func newLinearMemoryOver(capacity, max, imageBytes uint64) experimental.LinearMemory {
	limit := uint64(GuestMemoryLimitPages) * 65536
	if max > limit {
		max = limit
	}
	if max < capacity {
		max = capacity
	}
	select {
	case m := <-memoryPool:
		if uint64(len(m.buf)) == max {
			if m.watched {
				watchRelease(m.buf[:m.used])
			}
			clearMemory(m.buf[min(imageBytes, m.used):m.used])
			m.used = 0
			return m.inUse()
		}
		syscall.Munmap(m.buf)
	default:
	}
	buf, err := syscall.Mmap(-1, 0, int(max), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|mapNoReserve)
	if err != nil {
		return &sliceMemory{buf: make([]byte, 0, capacity), max: max}
	}
	return (&mmapMemory{buf: buf}).inUse()
}
