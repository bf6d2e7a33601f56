package engine

import (
	"bytes"
	"context"

	"github.com/tetratelabs/wazero/api"

	"github.com/sf-dst/sf/lib/disk"
)

// Shared writable mappings, for mmap_early_writeback. compat_overlay's
// syscall.Mmap keeps a mapping as two byte slices in the guest's memory: the
// mapping itself, and the content it last wrote back to the file. The guest
// registers each shared writable mapping here, so that at a crash the engine
// can find its dirty pages (the pages where the two differ) while the
// guest's memory is still there, and decide for each whether the kernel had
// already written it back. Everything else about mappings lives in the
// guest (lib/build/compat/syscall_seedfall_wasip1.go.txt).

// guestMapping is one registered mapping.
type guestMapping struct {
	ino         disk.Ino
	path        string
	off         int64  // file offset of the mapping's first byte
	data, clean uint32 // guest addresses of the two slices
	n           uint32 // their length
}

// mmapPage is a dirty page that a crash finds already written back.
type mmapPage struct {
	ino  disk.Ino
	off  int64
	data []byte
}

func init() {
	w := func(name string, id callID, params []api.ValueType, results []api.ValueType, fn func(in *instance, ctx context.Context, m api.Module, s []uint64)) {
		hostModules["seedfall"] = append(hostModules["seedfall"], hostFunc{name, id, params, results, fn})
	}
	// mmap_register(fd, off, data, clean, len) registers a shared writable
	// mapping of the file fd from file offset off.
	w("mmap_register", cMmapRegister, p(i32, i64, i32, i32, i32), p(i32), func(in *instance, _ context.Context, m api.Module, s []uint64) {
		fd, off, data, clean, n := int32(s[0]), int64(s[1]), uint32(s[2]), uint32(s[3]), uint32(s[4])
		in.hcall(cMmapRegister, uint64(uint32(fd))<<32|uint64(n), uint64(off))
		e := in.fd(fd)
		switch {
		case e == nil:
			s[0] = eBadf
			return
		case e.kind != fdFile || off < 0:
			s[0] = eInval
			return
		}
		mem := m.Memory()
		if _, ok := mem.Read(data, n); !ok {
			s[0] = eFault
			return
		}
		if _, ok := mem.Read(clean, n); !ok {
			s[0] = eFault
			return
		}
		in.maps = append(in.maps, guestMapping{ino: e.ino, path: e.path, off: off, data: data, clean: clean, n: n})
		s[0] = eSuccess
	})
	// mmap_unregister(data) forgets the mapping at data.
	w("mmap_unregister", cMmapUnregister, p(i32), nil, func(in *instance, _ context.Context, _ api.Module, s []uint64) {
		data := uint32(s[0])
		in.hcall(cMmapUnregister, uint64(data), 0)
		for i, g := range in.maps {
			if g.data == data {
				in.maps = append(in.maps[:i], in.maps[i+1:]...)
				return
			}
		}
	})
}

// mmapWrittenBack decides, for each dirty page of the crashing instance's
// mappings, whether the kernel had already written it back, and returns the
// pages it had, with their content. Each dirty page considered is a disk
// operation of the node of its own, so that each decision is keyed, replayed
// and shrunk on its own, like any fault that fires at a disk operation. It
// must run before the instance's memory is released. Nothing is counted
// when the world's mmap_early_writeback is 0, so that other faults keep
// their operation numbers.
func (r *run) mmapWrittenBack(in *instance) []mmapPage {
	p := r.spec.Disk.MmapWB
	if p <= 0 || len(in.maps) == 0 || in.mod == nil {
		return nil
	}
	n, mem := in.node, in.mod.Memory()
	var out []mmapPage
	for _, g := range in.maps {
		data, ok1 := mem.Read(g.data, g.n)
		clean, ok2 := mem.Read(g.clean, g.n)
		if !ok1 || !ok2 {
			continue
		}
		for a := uint32(0); a < g.n; a += disk.PageBytes {
			e := min(a+disk.PageBytes, g.n)
			if bytes.Equal(data[a:e], clean[a:e]) {
				continue
			}
			op := n.nextOp()
			if !r.diskFault(n, KindMmapWB, op, p) {
				continue
			}
			off := g.off + int64(a)
			out = append(out, mmapPage{ino: g.ino, off: off, data: bytes.Clone(data[a:e])})
			r.recordDiskFault(in, KindMmapWB, op, g.path, off)
		}
	}
	return out
}

// applyWrittenBack puts the pages a crash found written back onto the
// node's disk, after the crash rules.
func (r *run) applyWrittenBack(n *node, pages []mmapPage) {
	for _, pg := range pages {
		n.fs.WrittenBack(pg.ino, pg.data, pg.off)
	}
}
