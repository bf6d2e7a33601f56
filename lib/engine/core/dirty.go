package core

import (
	"os"
	"unsafe"

	"github.com/tetratelabs/wazero/api"

	"github.com/sf-dst/sf/lib/disk"
)

// Finding the dirty pages of a shared writable mapping: the pages whose
// bytes differ between the mapping and its shadow (mapping.go). The
// answer must be exact, since it decides which pages a write-back writes
// and which a crash may find written back; only the cost may vary.
//
// Comparing every page costs what the mapping is long, at every msync and
// at every read of a mapped file. When the kernel can say
// which pages of the guest's memory were written since it last asked
// (writeWatch: Linux's userfaultfd write protection, read back with
// PAGEMAP_SCAN), only those pages, and the pages that were dirty at the
// last answer, are compared: the cost is what was written. Elsewhere every
// page is compared, natively, which is still many times cheaper than the
// guest's own comparison in wasm. Both ways give the same answer, so a run
// never depends on which one a host has.

// WriteWatchEnv is the environment variable that, set to "off", makes the
// tracker compare every page even where the kernel could watch, and a
// reused instance's memory get its whole image back (restoreImage): a way
// to rule the watch out, or to time what it saves.
const WriteWatchEnv = "SF_WRITE_WATCH"

// WriteWatchOff reports whether WriteWatchEnv turns the kernel's watch off.
func WriteWatchOff() bool { return os.Getenv(WriteWatchEnv) == "off" }

// dirtyTracker is an instance's record of which pages of its mappings may
// be dirty. It is not part of a run's state: it describes the host memory
// that runs the guest, and an instance that has none starts over from
// "every page may be dirty".
type dirtyTracker struct {
	maps []*trackedMap
	buf  []uint32 // the last answer
	// compare says to compare every page even where the kernel could
	// watch (tests of both ways).
	compare bool
}

// trackedMap is what the tracker knows of one mapping.
type trackedMap struct {
	data uint32  // the mapping's guest address: its key
	host uintptr // the host address of its first byte
	n    uint32
	// shadow is the shadow the candidates were found against: a shadow
	// put in place otherwise (a restore) starts the mapping over.
	shadow *Shadow
	// watched says the kernel reports writes to the mapping's pages; cand
	// then holds the pages that may differ from the shadow: those written
	// since the last scan and those that differed at the last answer. A
	// page leaves cand only when it is found equal to its shadow, and an
	// update of the shadow only ever copies the mapping's own bytes into
	// it, so a page outside cand is clean. Without a watch every page is
	// a candidate.
	watched bool
	cand    []uint64
}

// DirtyPages returns the indexes (from the mapping's first byte, in pages
// of disk.PageBytes) of the pages of g whose bytes differ from its shadow,
// in increasing order, in a slice that the next call reuses. It reports
// false when the mapping is not in the guest's memory.
func (in *Instance) DirtyPages(g Mapping) ([]uint32, bool) {
	t := &in.exec.dirty
	var ok bool
	t.buf, ok = t.pages(in.exec.mod.Memory(), g, t.buf[:0])
	return t.buf, ok
}

// ForgetMapping drops what the tracker knows of the mapping at guest
// address data.
func (in *Instance) ForgetMapping(data uint32) { in.exec.dirty.forget(data) }

// TrackMapping starts tracking g, whose shadow was just made a copy of it:
// no page is dirty yet, so the first write-back need not compare them all.
func (in *Instance) TrackMapping(g Mapping) { in.exec.dirty.registered(in.exec.mod.Memory(), g) }

func (t *dirtyTracker) registered(mem api.Memory, g Mapping) {
	t.forget(g.Data)
	data, ok := mem.Read(g.Data, g.N)
	if !ok || g.N == 0 || g.Shadow.Len() != g.N {
		return
	}
	m := t.track(g, data)
	if !m.watched {
		return
	}
	// Arm the watch now; what it saw written until now is in the shadow.
	if !watchCollect(m.host, uintptr(g.N), t.mark) {
		m.watched = false
	}
	clear(m.cand)
}

func (t *dirtyTracker) forget(data uint32) {
	for i, m := range t.maps {
		if m.data == data {
			t.maps = append(t.maps[:i], t.maps[i+1:]...)
			return
		}
	}
}

func (t *dirtyTracker) pages(mem api.Memory, g Mapping, out []uint32) ([]uint32, bool) {
	if g.N == 0 || g.Shadow.Len() != g.N {
		return out, g.N == 0
	}
	data, ok := mem.Read(g.Data, g.N)
	if !ok {
		return out, false
	}
	host := uintptr(unsafe.Pointer(&data[0]))
	m := t.find(g.Data)
	if m == nil || m.host != host || m.n != g.N || m.shadow != g.Shadow {
		// New to the tracker, or not the memory or the shadow it knew:
		// every page may be dirty, once.
		m = t.track(g, data)
	}
	if m.watched && !watchCollect(host, uintptr(g.N), t.mark) {
		// The kernel stopped answering: compare every page from now on.
		m.watched = false
	}
	for p, np := uint32(0), numPages(g.N); p < np; p++ {
		if m.watched && m.cand[p/64]&(1<<(p%64)) == 0 {
			if m.cand[p/64] == 0 {
				p |= 63 // the rest of this word holds no candidate either
			}
			continue
		}
		a := p * disk.PageBytes
		e := min(a+disk.PageBytes, g.N)
		if g.Shadow.Equal(a, data[a:e]) {
			m.cand[p/64] &^= 1 << (p % 64)
			continue
		}
		out = append(out, p)
	}
	return out, true
}

// track starts a record of g, whose bytes data are, with every page a
// candidate.
func (t *dirtyTracker) track(g Mapping, data []byte) *trackedMap {
	t.forget(g.Data)
	host := uintptr(unsafe.Pointer(&data[0]))
	m := &trackedMap{data: g.Data, host: host, n: g.N, shadow: g.Shadow}
	m.cand = make([]uint64, (numPages(g.N)+63)/64)
	for p := range numPages(g.N) {
		m.cand[p/64] |= 1 << (p % 64)
	}
	m.watched = !t.compare && watchStart(host, uintptr(g.N))
	t.maps = append(t.maps, m)
	return m
}

func (t *dirtyTracker) find(data uint32) *trackedMap {
	for _, m := range t.maps {
		if m.data == data {
			return m
		}
	}
	return nil
}

// mark records that the kernel saw the host range [lo, hi) written. A
// host page may hold the end of one mapping and the start of another, and a
// scan that reports it also rearms it, so every watched mapping that
// overlaps the range learns of it, not only the one being scanned.
func (t *dirtyTracker) mark(lo, hi uintptr) {
	for _, m := range t.maps {
		if !m.watched || hi <= m.host || lo >= m.host+uintptr(m.n) {
			continue
		}
		a := uint32(max(lo, m.host) - m.host)
		e := uint32(min(hi, m.host+uintptr(m.n)) - m.host)
		for p := a / disk.PageBytes; p < numPages(e); p++ {
			m.cand[p/64] |= 1 << (p % 64)
		}
	}
}

// numPages is how many pages of disk.PageBytes hold n bytes.
func numPages(n uint32) uint32 { return (n + disk.PageBytes - 1) / disk.PageBytes }

// zeroMappedPages returns the page-aligned guest ranges of the instance's
// mappings that hold only zeros as its guest ends (dirtyTracker.zeroPages):
// most of a badger mapping is a file's holes that nothing wrote, and the
// reuse of the memory need not clear them (resetTo).
func (in *Instance) zeroMappedPages() []offsetRange {
	if in.exec.mod == nil {
		return nil
	}
	return in.exec.dirty.zeroPages(in.exec.mod.Memory(), in.Maps)
}

// zeroPages returns the page-aligned guest ranges of maps, as the tracker
// last answered for them, that hold only zeros: the pages it knows equal
// to their shadow (not written since its last scan, nor dirty at its last
// answer) whose shadow page is zeros. It scans for the writes since its
// last scan without arming the watch again, so that nothing may ask it of
// these mappings after. Without the kernel's watch it knows none.
func (t *dirtyTracker) zeroPages(mem api.Memory, maps []Mapping) []offsetRange {
	if os.Getpagesize() != disk.PageBytes {
		return nil
	}
	var out []offsetRange
	for _, g := range maps {
		m := t.find(g.Data)
		if m == nil || !m.watched || m.shadow != g.Shadow || m.n != g.N || g.Data%disk.PageBytes != 0 {
			continue
		}
		data, ok := mem.Read(g.Data, g.N)
		if !ok || uintptr(unsafe.Pointer(&data[0])) != m.host || !watchScan(m.host, uintptr(g.N), 0, t.mark) {
			continue
		}
		for p := range g.N / disk.PageBytes {
			if m.cand[p/64]&(1<<(p%64)) != 0 || g.Shadow.pages[p] != nil {
				continue
			}
			a := uint64(g.Data) + uint64(p)*disk.PageBytes
			if k := len(out); k > 0 && out[k-1].hi == a {
				out[k-1].hi += disk.PageBytes
				continue
			}
			out = append(out, offsetRange{a, a + disk.PageBytes})
		}
	}
	return out
}
