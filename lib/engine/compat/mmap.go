// Package compat is the host side of compat_overlay's shared writable
// mappings. The guest's syscall.Mmap shim (lib/build/compat) registers each
// one, and the host keeps its shadow, the content the file has for it
// (core/mapping.go). The shim asks the host which pages are dirty whenever
// it writes a mapping back, since the host answers natively and, where its
// kernel watches the guest's memory, in proportion to what was written
// (core/dirty.go); it tells the host what reached the file. A crash decides
// from the same registry, page by page, what the kernel had already written
// back (mmap_early_writeback). Everything else about mappings lives in the
// guest.
package compat

import (
	"encoding/binary"
	"fmt"
	"slices"

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
	// mmap_register(fd, off, data, len) registers a shared writable mapping
	// of the file fd from file offset off, filled from the file: its
	// shadow starts as a copy of it.
	{Name: "mmap_register", ID: 54, Params: []api.ValueType{i32, i64, i32, i32}, Results: []api.ValueType{i32}, Run: func(c *core.Call) {
		in, s := c.In, c.Stack
		fd, off, data, n := int32(s[0]), int64(s[1]), uint32(s[2]), uint32(s[3])
		c.Key(uint64(uint32(fd))<<32|uint64(n), uint64(off))
		e := in.FD(fd)
		switch {
		case e == nil:
			s[0] = core.EBadf
			return
		case e.Kind != core.DescFile || off < 0 || n == 0:
			s[0] = core.EInval
			return
		}
		b, ok := c.Mem().Read(data, n)
		if !ok {
			s[0] = core.EFault
			return
		}
		g := core.Mapping{Ino: e.Ino, Path: e.Path, Off: off, Data: data, N: n, Shadow: in.NewShadow(b, data)}
		in.Maps = append(in.Maps, g)
		in.TrackMapping(g)
		s[0] = core.ESuccess
	}},
	// mmap_unregister(data) forgets the mapping at data.
	{Name: "mmap_unregister", ID: 55, Params: []api.ValueType{i32}, Run: func(c *core.Call) {
		in := c.In
		data := uint32(c.Stack[0])
		c.Key(uint64(data), 0)
		in.ForgetMapping(data)
		if i := find(in, data); i >= 0 {
			core.ReleaseShadow(in.Maps[i].Shadow)
			in.Maps = slices.Delete(in.Maps, i, i+1)
		}
	}},
	// mmap_dirty(data, out, max) writes the indexes of the dirty pages of
	// the mapping at data (4,096-byte pages that differ from its shadow),
	// in increasing order, to out as little-endian uint32s, and returns
	// how many there are; -1 if data is not a registered mapping or out
	// cannot hold them all. The host finds the same pages whether its
	// kernel watches the guest's memory or not, so the hash, which takes
	// the count, is the same on every host.
	{Name: "mmap_dirty", ID: 58, Params: []api.ValueType{i32, i32, i32}, Results: []api.ValueType{i32}, Run: func(c *core.Call) {
		s := c.Stack
		data := uint32(s[0])
		n := dirty(c, data, uint32(s[1]), uint32(s[2]))
		c.Key(uint64(data), uint64(uint32(n)))
		s[0] = api.EncodeI32(n)
	}},
	// mmap_clean(data, off, len) says that bytes [off, off+len) of the
	// mapping at data are what the file holds: the guest wrote them back,
	// or a write to the file put them there. Their shadow becomes a copy
	// of them. It returns 0, or -1 if data is not a registered mapping or
	// the range is not in it.
	{Name: "mmap_clean", ID: 59, Params: []api.ValueType{i32, i32, i32}, Results: []api.ValueType{i32}, Run: func(c *core.Call) {
		in, s := c.In, c.Stack
		data, off, n := uint32(s[0]), uint32(s[1]), uint32(s[2])
		c.Key(uint64(data), uint64(off)<<32|uint64(n))
		s[0] = api.EncodeI32(-1)
		i := find(in, data)
		if i < 0 {
			return
		}
		g := in.Maps[i]
		if off > g.N || n > g.N-off || g.Shadow.Len() != g.N {
			return
		}
		b, ok := c.Mem().Read(data+off, n)
		if !ok {
			return
		}
		g.Shadow.Set(off, b)
		s[0] = 0
	}},
	// mmap_too_large(fd, off, len) says that the program refused itself a
	// mapping of len bytes of the file fd from off, longer than all the
	// memory it has; the trace names the file, which the program cannot.
	{Name: "mmap_too_large", ID: 60, Params: []api.ValueType{i32, i64, i64}, Run: func(c *core.Call) {
		in, s := c.In, c.Stack
		fd, off, n := int32(s[0]), int64(s[1]), int64(s[2])
		c.Key(uint64(uint32(fd)), uint64(n))
		path := fmt.Sprintf("fd %d", fd)
		if e := in.FD(fd); e != nil && e.Path != "" {
			path = e.Path
		}
		in.Run.Tracef("mmap refused in %s: %s, %d bytes from offset %d, more than the %d bytes of memory a wasm32 program has",
			in.Name, path, n, off, core.GuestMemoryBytes)
	}},
}

// find returns the index of the mapping at data in in.Maps, or -1.
func find(in *core.Instance, data uint32) int {
	return slices.IndexFunc(in.Maps, func(g core.Mapping) bool { return g.Data == data })
}

// dirty answers mmap_dirty.
func dirty(c *core.Call, data, out, max uint32) int32 {
	in := c.In
	i := find(in, data)
	if i < 0 {
		return -1
	}
	pages, ok := in.DirtyPages(in.Maps[i])
	if !ok || uint32(len(pages)) > max {
		return -1
	}
	buf, ok := c.Mem().Read(out, 4*uint32(len(pages)))
	if !ok {
		return -1
	}
	for j, p := range pages {
		binary.LittleEndian.PutUint32(buf[4*j:], p)
	}
	return int32(len(pages))
}
