package core

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"

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
