package core

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/faults"
)

// Shared writable mappings. compat_overlay's syscall.Mmap keeps a mapping
// as a byte slice in the guest's memory and registers each shared writable
// one (the compat adapter). The host keeps its shadow: the content the
// mapping last wrote back to the file, or that a write to the file put
// there. The pages where the two differ are the dirty pages, which a
// write-back writes to the file and which a crash may find written back
// (mmap_early_writeback). The shadow lives on the host so that a mapping
// costs the guest its length once, not twice, and so that finding the dirty
// pages is native code (dirty.go).

// Mapping is one registered mapping.
type Mapping struct {
	Ino  disk.Ino
	Path string
	// Off is the file offset of the mapping's first byte.
	Off int64
	// Data is the guest address of the mapping, N its length.
	Data uint32
	N    uint32
	// Shadow is what the mapping's bytes were when they last reached the
	// file or came from it; nil for a mapping that has none.
	Shadow *Shadow
}

// Shadow is a mapping's shadow, page by page (pages of disk.PageBytes). A
// page of zeros is nil and costs nothing: badger maps its logs at twice
// their size, megabytes of zeros that a flat copy made at every mapping, at
// every start of a node that the world restarts. A page is nil exactly
// when it is all zeros, so that two equal shadows are equal field by field
// (the fork tests compare states so).
type Shadow struct {
	n     uint32
	pages []*shadowPage
}

type shadowPage [disk.PageBytes]byte

// Len is the shadow's length in bytes, its mapping's.
func (s *Shadow) Len() uint32 {
	if s == nil {
		return 0
	}
	return s.n
}

// NewShadow returns a shadow holding a copy of b, whose zero pages z tells
// (a ZeroTest of b, or nil to read them all).
func NewShadow(b []byte, z *ZeroTest) *Shadow {
	s := &Shadow{n: uint32(len(b)), pages: make([]*shadowPage, numPages(uint32(len(b))))}
	for p := range s.pages {
		part := b[p*disk.PageBytes : min((p+1)*disk.PageBytes, len(b))]
		if z != nil && z.IsZero(part) || z == nil && disk.IsZero(part) {
			continue
		}
		pg := takePage()
		copy(pg[:], part)
		clear(pg[len(part):])
		s.pages[p] = pg
	}
	return s
}

// NewShadow returns a shadow holding a copy of b, the part of the guest's
// memory from address at that the current host call registers as a
// mapping.
func (in *Instance) NewShadow(b []byte, at uint32) *Shadow {
	return NewShadow(b, in.mappedZeroTest(b, at))
}

// ShadowOf returns a shadow holding a copy of b, nil for an empty b.
func ShadowOf(b []byte) *Shadow {
	if len(b) == 0 {
		return nil
	}
	return NewShadow(b, nil)
}

// Equal reports whether data, the bytes of the mapping from offset a (a
// page's first byte) to at most the end of that page, are the shadow's.
func (s *Shadow) Equal(a uint32, data []byte) bool {
	pg := s.pages[a/disk.PageBytes]
	if pg == nil {
		return disk.IsZero(data)
	}
	return bytes.Equal(data, pg[:len(data)])
}

// Set copies b into the shadow from offset off; off+len(b) must be at most
// its length.
func (s *Shadow) Set(off uint32, b []byte) {
	for len(b) > 0 {
		p, in := off/disk.PageBytes, off%disk.PageBytes
		k := min(uint32(len(b)), disk.PageBytes-in)
		part := b[:k]
		switch pg := s.pages[p]; {
		case pg == nil && disk.IsZero(part):
			// Zeros over zeros: still no page.
		case pg == nil:
			pg = takePage()
			clear(pg[:])
			copy(pg[in:], part)
			s.pages[p] = pg
		default:
			copy(pg[in:], part)
			if disk.IsZero(pg[:]) {
				givePage(pg)
				s.pages[p] = nil
			}
		}
		b, off = b[k:], off+k
	}
}

// Bytes returns the shadow as one slice, nil for a nil shadow.
func (s *Shadow) Bytes() []byte {
	if s == nil {
		return nil
	}
	out := make([]byte, s.n)
	for p, pg := range s.pages {
		if pg != nil {
			copy(out[p*disk.PageBytes:], pg[:])
		}
	}
	return out
}

// Clone returns a copy of s that shares no page with it.
func (s *Shadow) Clone() *Shadow {
	if s == nil {
		return nil
	}
	c := &Shadow{n: s.n, pages: make([]*shadowPage, len(s.pages))}
	for p, pg := range s.pages {
		if pg != nil {
			c.pages[p] = takePage()
			*c.pages[p] = *pg
		}
	}
	return c
}

// shadowPool holds the pages of the shadows that no mapping uses any more,
// for the next mapping: a node that the world restarts maps the same
// files again at every start. Which page a shadow gets reaches nothing in
// the run: every byte of it is written before it is read.
var shadowPool struct {
	sync.Mutex
	free []*shadowPage
}

// shadowPoolMax bounds the pages the pool keeps (64 MiB).
const shadowPoolMax = 64 << 20 / disk.PageBytes

// takePage returns a page with any content.
func takePage() *shadowPage {
	shadowPool.Lock()
	defer shadowPool.Unlock()
	if k := len(shadowPool.free); k > 0 {
		pg := shadowPool.free[k-1]
		shadowPool.free[k-1] = nil
		shadowPool.free = shadowPool.free[:k-1]
		return pg
	}
	return new(shadowPage)
}

func givePage(pg *shadowPage) {
	shadowPool.Lock()
	defer shadowPool.Unlock()
	if len(shadowPool.free) < shadowPoolMax {
		shadowPool.free = append(shadowPool.free, pg)
	}
}

// ReleaseShadow gives the pages of a shadow no mapping uses any more back
// to the pool.
func ReleaseShadow(s *Shadow) {
	if s == nil {
		return
	}
	shadowPool.Lock()
	defer shadowPool.Unlock()
	for p, pg := range s.pages {
		if pg != nil && len(shadowPool.free) < shadowPoolMax {
			shadowPool.free = append(shadowPool.free, pg)
		}
		s.pages[p] = nil
	}
	// Any later use fails the length checks instead of reading zeros.
	s.n, s.pages = 0, nil
}

// releaseShadows gives the shadows of an ended guest's mappings back to the
// pool. Nothing reads them after the guest's module is closed: a crash
// decides its written-back pages before it kills the guest, and snapshots
// and forks keep copies of their own.
func (in *Instance) releaseShadows() {
	for i := range in.Maps {
		ReleaseShadow(in.Maps[i].Shadow)
		in.Maps[i].Shadow = nil
	}
}

// mmapPage is a dirty page that a crash finds already written back.
type mmapPage struct {
	ino  disk.Ino
	off  int64
	data []byte
}

// mmapWrittenBack decides, for each dirty page of the crashing instance's
// mappings, whether the kernel had already written it back, and returns the
// pages it had, with their content. Each dirty page considered is a disk
// operation of the node of its own, so that each decision is keyed, replayed
// and shrunk on its own, like any fault that fires at a disk operation. It
// must run before the instance's memory is released. Nothing is counted
// when the world's mmap_early_writeback is 0, so that other faults keep
// their operation numbers.
func (r *Run) mmapWrittenBack(in *Instance) []mmapPage {
	if r.Spec.Kinds.Rate(faults.KindMmapWB) <= 0 || len(in.Maps) == 0 || in.exec.mod == nil {
		return nil
	}
	n, mem := in.Node, in.exec.mod.Memory()
	var out []mmapPage
	for _, g := range in.Maps {
		dirty, ok := in.DirtyPages(g)
		if !ok {
			continue
		}
		data, _ := mem.Read(g.Data, g.N)
		for _, p := range dirty {
			a := p * disk.PageBytes
			e := min(a+disk.PageBytes, g.N)
			op := n.NextOp()
			if !r.Fires(n, faults.KindMmapWB, op) {
				continue
			}
			off := g.Off + int64(a)
			out = append(out, mmapPage{ino: g.Ino, off: off, data: bytes.Clone(data[a:e])})
			r.RecordDiskFault(in, faults.KindMmapWB, op, g.Path, off)
		}
	}
	return out
}

// applyWrittenBack puts the pages a crash found written back onto the
// node's disk, after the crash rules.
func (r *Run) applyWrittenBack(n *Node, pages []mmapPage) {
	for _, pg := range pages {
		n.FS.WrittenBack(pg.ino, pg.data, pg.off)
	}
}

// mappingsHeld says, for a report that the guest ran out of memory, how
// much of it its shared writable mappings held, the largest first: ", 640
// MiB in shared mappings: data/000001.vlog 512 MiB, ...". It is empty when
// there are none.
func (in *Instance) mappingsHeld() string {
	if len(in.Maps) == 0 {
		return ""
	}
	ms := slices.Clone(in.Maps)
	slices.SortStableFunc(ms, func(a, b Mapping) int { return cmp.Compare(b.N, a.N) })
	var total uint64
	var each []string
	for i, g := range ms {
		total += uint64(g.N)
		if i < 3 {
			each = append(each, fmt.Sprintf("%s %d MiB", g.Path, g.N>>20))
		}
	}
	if len(ms) > 3 {
		each = append(each, "...")
	}
	return fmt.Sprintf(", %d MiB in shared mappings: %s", total>>20, strings.Join(each, ", "))
}
