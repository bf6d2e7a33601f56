//go:build unix

package core

import (
	"cmp"
	"slices"
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
	// owner names the module of the guest the memory was made for (see
	// newLinearMemoryOver), so that the pool can hand it to the next
	// guest of the same module.
	owner string
	// watched says the memory is under the kernel's write watch
	// (dirty_watch_linux.go), and protected the page-aligned ranges of
	// buf in which the watch may have left pages protected: those of the
	// mappings it was asked to watch. Reservations' lock guards both.
	watched   bool
	protected []offsetRange
	// shrinkTo, when not 0, is what the next Reallocate returns the
	// memory cut to (reuse.go).
	shrinkTo uint64
	// size is the length the last Reallocate returned: the guest's memory
	// size.
	size uint64
	// abandoned says a guest the watchdog gave up on may still write to
	// the memory: Free neither pools nor unmaps it. Reservations' lock
	// guards it.
	abandoned bool
	// zeroed are ranges that held only zeros when the last guest ended,
	// sorted (zeroedAtEnd); the next resetTo clears around them.
	zeroed []offsetRange
	// image, when not 0, says the memory's first image bytes are under
	// the write watch, protected since they last were a fresh instance's
	// image (restoreImage): only the pages written since differ from it.
	// Reservations' lock guards it.
	image uint64
}

// abandon leaves the memory to a guest that may still run (stopSpinning).
func (m *mmapMemory) abandon() {
	reservations.Lock()
	m.abandoned = true
	reservations.Unlock()
}

// atLimit reports whether the memory is as large as it may grow: a reuse
// could not shrink it through a grow (reuse.go).
func (m *mmapMemory) atLimit() bool { return m.size >= uint64(len(m.buf)) }

// addProtected notes that the watch may protect r, merging it with the
// ranges it overlaps or touches.
func (m *mmapMemory) addProtected(r offsetRange) {
	out := m.protected[:0]
	for _, q := range m.protected {
		if q.hi < r.lo || r.hi < q.lo {
			out = append(out, q)
			continue
		}
		r = offsetRange{min(q.lo, r.lo), max(q.hi, r.hi)}
	}
	m.protected = append(out, r)
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
	if n := m.shrinkTo; n != 0 {
		m.shrinkTo, m.size = 0, n
		return m.buf[:n]
	}
	if size > uint64(len(m.buf)) {
		return nil
	}
	m.used = max(m.used, size)
	m.size = size
	return m.buf[:size]
}

func (m *mmapMemory) shrinkNext(n uint64) { m.shrinkTo = n }

// resetTo makes the memory image followed by zeros up to all any guest
// used of it, as a reused pooled mapping is (newLinearMemoryOver).
func (m *mmapMemory) resetTo(image *memoryImage) {
	n := uint64(len(image.bytes))
	// First: restoreImage counts the pages whose protection this lifts as
	// written, the mappings' inside the image among them.
	m.releaseWatch()
	if m.used > n {
		// Around the ranges the last guest's end found holding zeros.
		from := n
		for _, r := range m.zeroed {
			lo, hi := max(r.lo, from), min(r.hi, m.used)
			if lo >= hi {
				continue
			}
			clearMemory(m.buf[from:lo])
			from = hi
		}
		clearMemory(m.buf[from:m.used])
	}
	m.zeroed = m.zeroed[:0]
	m.restoreImage(image)
	m.used = n
}

func (m *mmapMemory) zeroedAtEnd(r []offsetRange) {
	slices.SortFunc(r, func(a, b offsetRange) int { return cmp.Compare(a.lo, b.lo) })
	m.zeroed = append(m.zeroed[:0], r...)
}

// restoreImage makes the memory's first bytes image. Copying the whole of
// it was most of a reused instance's start, and most of a Go guest's image
// is read-only data its program never writes: so after a first whole copy
// the image's pages are put under the kernel's write watch, and each later
// restore sets back only the pages written since (memoryImage.restore).
func (m *mmapMemory) restoreImage(image *memoryImage) {
	n := uint64(len(image.bytes))
	reservations.Lock()
	watched := m.image == n
	reservations.Unlock()
	if n > 0 && watched && imageWritten(m.buf, n, func(lo, hi uint64) { image.restore(m.buf, lo, hi) }) {
		return
	}
	copy(m.buf[:n], image.bytes)
	if n > 0 && m.protectImage(n) {
		return
	}
	reservations.Lock()
	m.image = 0
	reservations.Unlock()
}

// protectImage puts the memory's first n bytes under the write watch,
// every page of them protected.
func (m *mmapMemory) protectImage(n uint64) bool {
	reservations.Lock()
	defer reservations.Unlock()
	if !m.watched {
		if !watchRegister(m.buf) {
			return false
		}
		m.watched = true
	}
	if !watchProtect(m.buf[:n]) {
		return false
	}
	m.image = n
	return true
}

// trim gives back the populated pages past memoryPoolClearMax, as Free
// does for a mapping that goes back to the pool.
func (m *mmapMemory) trim() {
	if m.used > memoryPoolClearMax {
		dropPages(m.buf[memoryPoolClearMax:min((m.used+4095)&^4095, uint64(len(m.buf)))])
		m.used = memoryPoolClearMax
	}
}

// releaseWatch lifts the write watch's protection where the last guests'
// mappings were watched: only there can pages be protected, and lifting it
// walks the page tables, over the whole of a large memory more than its
// mappings.
func (m *mmapMemory) releaseWatch() {
	reservations.Lock()
	watched, protected := m.watched, m.protected
	m.protected = nil
	reservations.Unlock()
	if !watched {
		return
	}
	for _, r := range protected {
		if r.lo < m.used {
			watchRelease(m.buf[r.lo:min(r.hi, m.used)])
		}
	}
}

// memoryPoolMax bounds how many freed mappings wait for reuse, and
// memoryPoolClearMax how much of one stays populated for a reuse to clear;
// the pages past it go back to the kernel.
const (
	memoryPoolMax      = 16
	memoryPoolClearMax = 64 << 20
)

// memoryPool holds the freed mappings, the latest freed last.
var memoryPool struct {
	sync.Mutex
	free []*mmapMemory
}

// takePooled removes and returns a freed mapping of length n for a guest of
// module owner, or nil. It prefers the latest freed by a guest of the same
// module, which populated about as many pages as the new guest will touch:
// a mapping another module left smaller costs the new guest a page fault
// per page past it, and one left larger costs the clearing of pages the
// new guest may never touch. Only the fallback is the latest freed of any.
func takePooled(n uint64, owner string) *mmapMemory {
	memoryPool.Lock()
	defer memoryPool.Unlock()
	pick := -1
	for i := len(memoryPool.free) - 1; i >= 0; i-- {
		m := memoryPool.free[i]
		if uint64(len(m.buf)) != n {
			continue
		}
		if owner != "" && m.owner == owner {
			pick = i
			break
		}
		if pick < 0 {
			pick = i
		}
	}
	if pick < 0 {
		return nil
	}
	m := memoryPool.free[pick]
	memoryPool.free = append(memoryPool.free[:pick], memoryPool.free[pick+1:]...)
	return m
}

// putPooled gives a freed mapping to the pool, unmapping the oldest when it
// is full.
func putPooled(m *mmapMemory) {
	memoryPool.Lock()
	var drop *mmapMemory
	if len(memoryPool.free) == memoryPoolMax {
		drop = memoryPool.free[0]
		memoryPool.free = append(memoryPool.free[:0], memoryPool.free[1:]...)
	}
	memoryPool.free = append(memoryPool.free, m)
	memoryPool.Unlock()
	if drop != nil {
		syscall.Munmap(drop.buf)
	}
}

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
	watched, protected, abandoned := m.watched, m.protected, m.abandoned
	if m.image != 0 {
		// The mapping's next guest is a fresh instance, which writes
		// the image's pages itself: their protection is lifted with the
		// mappings' when the pool hands the mapping on.
		protected = append(protected, offsetRange{0, m.image})
	}
	reservations.Unlock()
	if abandoned {
		return // the abandoned guest may still write to it: it stays mapped
	}
	used := m.used
	if used > memoryPoolClearMax {
		// Keep the first pages, which a reuse clears, and give the rest
		// back: a large guest then costs page faults only past them, where
		// unmapping the whole of it cost them everywhere.
		dropPages(m.buf[memoryPoolClearMax:min((used+4095)&^4095, uint64(len(m.buf)))])
		used = memoryPoolClearMax
	}
	putPooled(&mmapMemory{buf: m.buf, used: used, watched: watched, protected: protected, owner: m.owner})
	m.buf = nil
}

func newLinearMemory(capacity, max uint64) experimental.LinearMemory {
	return newLinearMemoryOver(capacity, max, 0, "", [2]uint64{})
}

// newLinearMemoryOver is newLinearMemory for a guest of the module named
// owner (its wasm file; "" for none in particular) whose image of
// imageBytes will be written over the start of its memory, and whose data
// segments will write [keep[0], keep[1]) whole: a reused mapping needs
// clearing in neither. A Go guest's data segment is about half of the
// memory a small guest uses.
func newLinearMemoryOver(capacity, max, imageBytes uint64, owner string, keep [2]uint64) experimental.LinearMemory {
	limit := uint64(GuestMemoryLimitPages) * 65536
	if max > limit {
		max = limit
	}
	if max < capacity {
		max = capacity
	}
	if m := takePooled(max, owner); m != nil {
		m.releaseWatch()
		from, to := min(imageBytes, m.used), m.used
		if lo, hi := keep[0], keep[1]; lo < hi && hi <= capacity {
			clearMemory(m.buf[min(from, lo):min(to, lo)])
			if from < hi {
				from = hi
			}
		}
		clearMemory(m.buf[min(from, to):to])
		m.used, m.owner = 0, owner
		return m.inUse()
	}
	buf, err := syscall.Mmap(-1, 0, int(max), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|mapNoReserve)
	if err != nil {
		return &sliceMemory{buf: make([]byte, 0, capacity), max: max}
	}
	return (&mmapMemory{buf: buf, owner: owner}).inUse()
}
