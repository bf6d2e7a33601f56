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
	// file or came from it.
	Shadow []byte
}

// Shadows are as long as their mappings (badger's logs are mapped at twice
// their size, megabytes each), and a node that the world restarts maps them
// again at every start. A fresh allocation for each was a copy, a clearing
// and garbage for sf's collector, so the shadows of unmapped mappings and of
// ended guests wait here for the next mapping. Which buffer a shadow gets
// reaches nothing in the run: every byte of it is overwritten.
var shadowPool struct {
	sync.Mutex
	free  [][]byte
	bytes int
}

// shadowPoolMax bounds the bytes the pool keeps.
const shadowPoolMax = 64 << 20

// NewShadow returns a shadow holding a copy of b: a pooled buffer when one
// is large enough (the smallest such), a new one otherwise.
func NewShadow(b []byte) []byte {
	shadowPool.Lock()
	pick := -1
	for i, f := range shadowPool.free {
		if cap(f) >= len(b) && (pick < 0 || cap(f) < cap(shadowPool.free[pick])) {
			pick = i
		}
	}
	var buf []byte
	if pick >= 0 {
		buf = shadowPool.free[pick]
		shadowPool.free = slices.Delete(shadowPool.free, pick, pick+1)
		shadowPool.bytes -= cap(buf)
	}
	shadowPool.Unlock()
	if buf == nil {
		return bytes.Clone(b)
	}
	buf = buf[:len(b)]
	copy(buf, b)
	return buf
}

// ReleaseShadow gives a shadow no mapping uses any more back to the pool,
// dropping the oldest ones past shadowPoolMax.
func ReleaseShadow(b []byte) {
	if cap(b) == 0 || cap(b) > shadowPoolMax {
		return
	}
	shadowPool.Lock()
	defer shadowPool.Unlock()
	shadowPool.free = append(shadowPool.free, b[:0])
	shadowPool.bytes += cap(b)
	for shadowPool.bytes > shadowPoolMax {
		shadowPool.bytes -= cap(shadowPool.free[0])
		shadowPool.free[0] = nil
		shadowPool.free = shadowPool.free[1:]
	}
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
