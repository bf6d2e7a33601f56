package core

import (
	"bytes"

	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/faults"
)

// Shared writable mappings, for mmap_early_writeback. compat_overlay's
// syscall.Mmap keeps a mapping as two byte slices in the guest's memory: the
// mapping itself, and the content it last wrote back to the file. The guest
// registers each shared writable mapping (the compat adapter), so that at a
// crash the engine can find its dirty pages (the pages where the two
// differ) while the guest's memory is still there, and decide for each
// whether the kernel had already written it back.

// Mapping is one registered mapping.
type Mapping struct {
	Ino  disk.Ino
	Path string
	// Off is the file offset of the mapping's first byte.
	Off int64
	// Data and Clean are the guest addresses of the two slices, N their
	// length.
	Data, Clean uint32
	N           uint32
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
		data, ok1 := mem.Read(g.Data, g.N)
		clean, ok2 := mem.Read(g.Clean, g.N)
		if !ok1 || !ok2 {
			continue
		}
		for a := uint32(0); a < g.N; a += disk.PageBytes {
			e := min(a+disk.PageBytes, g.N)
			if bytes.Equal(data[a:e], clean[a:e]) {
				continue
			}
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
