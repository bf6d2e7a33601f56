// Package compat is the host side of compat_overlay's shared writable
// mappings: the guest's syscall.Mmap shim (lib/build/compat) registers each
// mapping, so that a crash can decide, page by page, what the kernel had
// already written back (mmap_early_writeback). Everything else about
// mappings lives in the guest.
package compat

import (
	"github.com/tetratelabs/wazero/api"

	"github.com/sf-dst/sf/lib/engine/core"
)

// Adapter is compat_overlay's mapping registry.
type Adapter struct{}

// Module is sf's own host module.
func (Adapter) Module() string { return "seedfall" }

// Funcs are the registry's functions, each with its word in the hash.
func (Adapter) Funcs() []core.HostFunc { return funcs }

var (
	i32 = api.ValueTypeI32
	i64 = api.ValueTypeI64
)

var funcs = []core.HostFunc{
	// mmap_register(fd, off, data, clean, len) registers a shared writable
	// mapping of the file fd from file offset off.
	{Name: "mmap_register", ID: 54, Params: []api.ValueType{i32, i64, i32, i32, i32}, Results: []api.ValueType{i32}, Run: func(c *core.Call) {
		in, s := c.In, c.Stack
		fd, off, data, clean, n := int32(s[0]), int64(s[1]), uint32(s[2]), uint32(s[3]), uint32(s[4])
		c.Key(uint64(uint32(fd))<<32|uint64(n), uint64(off))
		e := in.FD(fd)
		switch {
		case e == nil:
			s[0] = core.EBadf
			return
		case e.Kind != core.DescFile || off < 0:
			s[0] = core.EInval
			return
		}
		mem := c.Mem()
		if _, ok := mem.Read(data, n); !ok {
			s[0] = core.EFault
			return
		}
		if _, ok := mem.Read(clean, n); !ok {
			s[0] = core.EFault
			return
		}
		in.Maps = append(in.Maps, core.Mapping{Ino: e.Ino, Path: e.Path, Off: off, Data: data, Clean: clean, N: n})
		s[0] = core.ESuccess
	}},
	// mmap_unregister(data) forgets the mapping at data.
	{Name: "mmap_unregister", ID: 55, Params: []api.ValueType{i32}, Run: func(c *core.Call) {
		in := c.In
		data := uint32(c.Stack[0])
		c.Key(uint64(data), 0)
		for i, g := range in.Maps {
			if g.Data == data {
				in.Maps = append(in.Maps[:i], in.Maps[i+1:]...)
				return
			}
		}
	}},
}
