package wasi

import (
	"github.com/sf-dst/sf/lib/engine/core"

	"github.com/tetratelabs/wazero/api"

	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/simnet"
)

// WASI file types.
const (
	ftUnknown      = 0
	ftCharDevice   = 2
	ftDirectory    = 3
	ftRegular      = 4
	ftSocketDgram  = 5
	ftSocketStream = 6
	ftSymlink      = 7
)

// WASI fdflags.
const (
	fdflagAppend   = 1
	fdflagDsync    = 2
	fdflagNonblock = 4
	fdflagSync     = 16
)

const (
	rightFdRead  = 1 << 1
	rightFdWrite = 1 << 6
	allRights    = (1 << 30) - 1
)

var (
	i32 = api.ValueTypeI32
	i64 = api.ValueTypeI64
)

func p(ts ...api.ValueType) []api.ValueType { return ts }

func readString(m api.Module, ptr, n uint32) (string, bool) {
	b, ok := m.Memory().Read(ptr, n)
	if !ok {
		return "", false
	}
	return string(b), true
}

// Adapter is WASI preview 1, as Go's wasip1 port imports it.
type Adapter struct{}

// Module is WASI's host module.
func (Adapter) Module() string { return "wasi_snapshot_preview1" }

var r1 = p(i32)

// Funcs are the WASI functions, each with its word in the determinism hash.
func (Adapter) Funcs() []core.HostFunc { return funcs }

var funcs = []core.HostFunc{
	{Name: "args_get", ID: 1, Params: p(i32, i32), Results: r1, Key: func(s []uint64) (uint64, uint64) { return 0, 0 }, Run: func(c *core.Call) {
		in, m, s := c.In, c.Mod, c.Stack
		s[0] = writeStrings(m, args(in), uint32(s[0]), uint32(s[1]))
	}},
	{Name: "args_sizes_get", ID: 2, Params: p(i32, i32), Results: r1, Key: func(s []uint64) (uint64, uint64) { return 0, 0 }, Run: func(c *core.Call) {
		in, m, s := c.In, c.Mod, c.Stack
		s[0] = writeSizes(m, args(in), uint32(s[0]), uint32(s[1]))
	}},
	{Name: "environ_get", ID: 3, Params: p(i32, i32), Results: r1, Key: func(s []uint64) (uint64, uint64) { return 0, 0 }, Run: func(c *core.Call) {
		in, m, s := c.In, c.Mod, c.Stack
		s[0] = writeStrings(m, environ(in), uint32(s[0]), uint32(s[1]))
	}},
	{Name: "environ_sizes_get", ID: 4, Params: p(i32, i32), Results: r1, Key: func(s []uint64) (uint64, uint64) { return 0, 0 }, Run: func(c *core.Call) {
		in, m, s := c.In, c.Mod, c.Stack
		s[0] = writeSizes(m, environ(in), uint32(s[0]), uint32(s[1]))
	}},
	{Name: "clock_res_get", ID: 37, Params: p(i32, i32), Results: r1, Key: func(s []uint64) (uint64, uint64) { return 1, s[0] }, Run: func(c *core.Call) {
		m, s := c.Mod, c.Stack
		if !m.Memory().WriteUint64Le(uint32(s[1]), 1) {
			s[0] = core.EFault
			return
		}
		s[0] = core.ESuccess
	}},
	// A guest with the clock rewrite answers most of its reads itself and
	// the dispatcher counts them as this call (core/clock.go): the ID, the
	// words and the values must stay the ones that code uses.
	{Name: core.ClockTimeGet.Name, ID: core.ClockTimeGet.ID, Params: p(i32, i64, i32), Results: r1, Key: func(s []uint64) (uint64, uint64) { return uint64(uint32(s[0])), 0 }, Run: func(c *core.Call) {
		in, m, s := c.In, c.Mod, c.Stack
		t, ok := in.ClockNow(uint32(s[0]))
		if !ok {
			s[0] = core.EInval
			return
		}
		if !m.Memory().WriteUint64Le(uint32(s[2]), uint64(t)) {
			s[0] = core.EFault
			return
		}
		s[0] = core.ESuccess
	}},
	{Name: "random_get", ID: 6, Params: p(i32, i32), Results: r1, Key: func(s []uint64) (uint64, uint64) { return uint64(uint32(s[1])), 0 }, Run: func(c *core.Call) {
		in, m, s := c.In, c.Mod, c.Stack
		n := uint32(s[1])
		b, ok := m.Memory().Read(uint32(s[0]), n)
		if !ok {
			s[0] = core.EFault
			return
		}
		in.Random.Fill(b)
		s[0] = core.ESuccess
	}},
	{Name: "sched_yield", ID: 8, Params: nil, Results: r1, Run: func(c *core.Call) {
		in, ctx, s := c.In, c.Ctx, c.Stack
		if in.PreemptCalled() {
			// Only the instrumentation's function-entry countdown calls
			// with the counter at zero.
			in.PreemptDue(c)
			s[0] = core.ESuccess
			return
		}
		c.Key(0, 0)
		in.WatchdogTick(ctx)
		s[0] = core.ESuccess
	}},
	{Name: "proc_exit", ID: 9, Params: p(i32), Results: nil, Key: func(s []uint64) (uint64, uint64) { return uint64(uint32(s[0])), 0 }, Run: func(c *core.Call) {
		in, ctx, s := c.In, c.Ctx, c.Stack
		code := uint32(s[0])
		in.ExitCode = code
		in.Stop(ctx, code)
	}},
	{Name: "proc_raise", ID: 37, Params: p(i32), Results: r1, Key: func(s []uint64) (uint64, uint64) { return 2, s[0] }, Run: func(c *core.Call) {
		s := c.Stack
		s[0] = core.ENosys
	}},
	{Name: "poll_oneoff", ID: 7, Params: p(i32, i32, i32, i32), Results: r1, Run: func(c *core.Call) {
		s := c.Stack
		s[0] = pollOneoff(c, uint32(s[0]), uint32(s[1]), uint32(s[2]), uint32(s[3]))
	}},

	{Name: "fd_read", ID: 10, OnFD: true, Params: p(i32, i32, i32, i32), Results: r1, Run: func(c *core.Call) {
		m, s := c.Mod, c.Stack
		fd := int32(s[0])
		n, errno := readv(c, fd, uint32(s[1]), uint32(s[2]), -1)
		c.Key(uint64(fd), uint64(n))
		if errno == core.ESuccess && !m.Memory().WriteUint32Le(uint32(s[3]), n) {
			errno = core.EFault
		}
		s[0] = errno
	}},
	{Name: "fd_pread", ID: 22, OnFD: true, Params: p(i32, i32, i32, i64, i32), Results: r1, Run: func(c *core.Call) {
		m, s := c.Mod, c.Stack
		fd := int32(s[0])
		n, errno := readv(c, fd, uint32(s[1]), uint32(s[2]), int64(s[3]))
		c.Key(uint64(fd), uint64(n)^s[3]<<20)
		if errno == core.ESuccess && !m.Memory().WriteUint32Le(uint32(s[4]), n) {
			errno = core.EFault
		}
		s[0] = errno
	}},
	{Name: "fd_write", ID: 11, OnFD: true, Params: p(i32, i32, i32, i32), Results: r1, Run: func(c *core.Call) {
		m, s := c.Mod, c.Stack
		fd := int32(s[0])
		n, errno := writev(c, fd, uint32(s[1]), uint32(s[2]), -1)
		c.Key(uint64(fd), uint64(n))
		if errno == core.ESuccess && !m.Memory().WriteUint32Le(uint32(s[3]), n) {
			errno = core.EFault
		}
		s[0] = errno
	}},
	{Name: "fd_pwrite", ID: 23, OnFD: true, Params: p(i32, i32, i32, i64, i32), Results: r1, Run: func(c *core.Call) {
		m, s := c.Mod, c.Stack
		fd := int32(s[0])
		n, errno := writev(c, fd, uint32(s[1]), uint32(s[2]), int64(s[3]))
		c.Key(uint64(fd), uint64(n)^s[3]<<20)
		if errno == core.ESuccess && !m.Memory().WriteUint32Le(uint32(s[4]), n) {
			errno = core.EFault
		}
		s[0] = errno
	}},
	{Name: "fd_close", ID: 12, OnFD: true, Params: p(i32), Results: r1, Run: func(c *core.Call) {
		in, s := c.In, c.Stack
		fd := int32(s[0])
		e, ok := fdCall(c, 0)
		if !ok {
			return
		}
		if e.Sock != nil {
			in.Run.Net.Close(e.Sock)
		}
		in.FDs[fd] = nil
		if e.Kind == core.DescFile && !in.InoOpen(e.Ino) {
			in.Node.FS.Release(e.Ino) // frees a file that lost its last name while open
		}
		s[0] = core.ESuccess
	}},
	{Name: "fd_sync", ID: 13, OnFD: true, Params: p(i32), Results: r1, Run: func(c *core.Call) {
		s := c.Stack
		s[0] = syncFD(c, int32(s[0]))
	}},
	{Name: "fd_datasync", ID: 13, OnFD: true, Params: p(i32), Results: r1, Run: func(c *core.Call) {
		s := c.Stack
		s[0] = syncFD(c, int32(s[0]))
	}},
	{Name: "fd_seek", ID: 24, OnFD: true, Params: p(i32, i64, i32, i32), Results: r1, Run: func(c *core.Call) {
		in, m, s := c.In, c.Mod, c.Stack
		fd := int32(s[0])
		off, whence := int64(s[1]), uint32(s[2])
		c.Key(uint64(fd), uint64(off)^uint64(whence)<<60)
		e := in.FD(fd)
		if e == nil {
			s[0] = core.EBadf
			return
		}
		if e.Kind != core.DescFile && e.Kind != core.DescDir {
			s[0] = core.ESpipe
			return
		}
		var base int64
		switch whence {
		case 0:
		case 1:
			base = e.Pos
		case 2:
			st, err := in.Node.FS.Stat(e.Ino)
			if err != nil {
				s[0] = core.Errno(err)
				return
			}
			base = st.Size
		default:
			s[0] = core.EInval
			return
		}
		np := base + off
		if np < 0 {
			s[0] = core.EInval
			return
		}
		e.Pos = np
		if !m.Memory().WriteUint64Le(uint32(s[3]), uint64(np)) {
			s[0] = core.EFault
			return
		}
		s[0] = core.ESuccess
	}},
	{Name: "fd_tell", ID: 24, OnFD: true, Params: p(i32, i32), Results: r1, Run: func(c *core.Call) {
		m, s := c.Mod, c.Stack
		e, ok := fdCall(c, 1<<62)
		if !ok {
			return
		}
		if !m.Memory().WriteUint64Le(uint32(s[1]), uint64(e.Pos)) {
			s[0] = core.EFault
			return
		}
		s[0] = core.ESuccess
	}},
	{Name: "fd_fdstat_get", ID: 14, Params: p(i32, i32), Results: r1, Run: func(c *core.Call) {
		m, s := c.Mod, c.Stack
		e, ok := fdCall(c, 0)
		if !ok {
			return
		}
		var buf [24]byte
		buf[0] = fileType(e)
		flags := e.Flags
		if e.Kind == core.DescSock {
			flags |= fdflagNonblock
		}
		buf[2], buf[3] = byte(flags), byte(flags>>8)
		putU64(buf[8:], allRights)
		putU64(buf[16:], allRights)
		if !m.Memory().Write(uint32(s[1]), buf[:]) {
			s[0] = core.EFault
			return
		}
		s[0] = core.ESuccess
	}},
	{Name: "fd_fdstat_set_flags", ID: 15, Params: p(i32, i32), Results: r1, Run: func(c *core.Call) {
		s := c.Stack
		e, ok := fdCall(c, s[1])
		if !ok {
			return
		}
		e.Flags = uint16(s[1]) &^ fdflagNonblock
		s[0] = core.ESuccess
	}},
	{Name: "fd_fdstat_set_rights", ID: 27, Params: p(i32, i64, i64), Results: r1, Key: func(s []uint64) (uint64, uint64) { return uint64(int32(s[0])), 0 }, Run: func(c *core.Call) {
		in, s := c.In, c.Stack
		fd := int32(s[0])
		if in.FD(fd) == nil {
			s[0] = core.EBadf
			return
		}
		s[0] = core.ESuccess
	}},
	{Name: "fd_filestat_get", ID: 16, Params: p(i32, i32), Results: r1, Run: func(c *core.Call) {
		in, m, s := c.In, c.Mod, c.Stack
		e, ok := fdCall(c, 0)
		if !ok {
			return
		}
		var st disk.Stat
		if e.Kind == core.DescFile || e.Kind == core.DescDir {
			var err error
			if st, err = in.Node.FS.Stat(e.Ino); err != nil {
				s[0] = core.Errno(err)
				return
			}
		}
		s[0] = writeFilestat(m, uint32(s[1]), st, fileType(e))
	}},
	{Name: "fd_filestat_set_size", ID: 26, OnFD: true, Params: p(i32, i64), Results: r1, Key: func(s []uint64) (uint64, uint64) { return uint64(int32(s[0])), s[1] }, Run: func(c *core.Call) {
		in, ctx, s := c.In, c.Ctx, c.Stack
		fd := int32(s[0])
		e := in.FD(fd)
		switch {
		case e == nil:
			s[0] = core.EBadf
		case e.Kind != core.DescFile:
			s[0] = core.EInval
		case !e.Write:
			s[0] = core.EBadf
		case int64(s[1]) < 0:
			s[0] = core.EInval
		default:
			op, _, crash := in.BeforeWrite(e, false)
			s[0] = core.Errno(in.Node.FS.Truncate(e.Ino, int64(s[1])))
			if crash {
				in.CrashInside(ctx, op, e.Path, 0)
			}
		}
	}},
	{Name: "fd_filestat_set_times", ID: 37, Params: p(i32, i64, i64, i32), Results: r1, Key: func(s []uint64) (uint64, uint64) { return 3, uint64(int32(s[0])) }, Run: func(c *core.Call) {
		in, s := c.In, c.Stack
		fd := int32(s[0])
		e := in.FD(fd)
		if e == nil {
			s[0] = core.EBadf
			return
		}
		if e.Kind != core.DescFile && e.Kind != core.DescDir {
			s[0] = core.ESuccess
			return
		}
		s[0] = setTimes(in, e.Ino, s[1], s[2], uint32(s[3]))
	}},
	{Name: "fd_prestat_get", ID: 17, Params: p(i32, i32), Results: r1, Key: func(s []uint64) (uint64, uint64) { return uint64(int32(s[0])), 0 }, Run: func(c *core.Call) {
		in, m, s := c.In, c.Mod, c.Stack
		fd := int32(s[0])
		e := in.FD(fd)
		// EBADF ends Go's scan of the preopens; any other errno kills the guest.
		if e == nil || !e.Preopen {
			s[0] = core.EBadf
			return
		}
		var buf [8]byte
		buf[4] = 1 // len("/")
		if !m.Memory().Write(uint32(s[1]), buf[:]) {
			s[0] = core.EFault
			return
		}
		s[0] = core.ESuccess
	}},
	{Name: "fd_prestat_dir_name", ID: 18, Params: p(i32, i32, i32), Results: r1, Key: func(s []uint64) (uint64, uint64) { return uint64(int32(s[0])), 0 }, Run: func(c *core.Call) {
		in, m, s := c.In, c.Mod, c.Stack
		fd := int32(s[0])
		e := in.FD(fd)
		if e == nil || !e.Preopen {
			s[0] = core.EBadf
			return
		}
		if uint32(s[2]) < 1 {
			s[0] = core.ENametoolong
			return
		}
		if !m.Memory().WriteByte(uint32(s[1]), '/') {
			s[0] = core.EFault
			return
		}
		s[0] = core.ESuccess
	}},
	{Name: "fd_readdir", ID: 25, OnFD: true, Params: p(i32, i32, i32, i64, i32), Results: r1, Key: func(s []uint64) (uint64, uint64) { return uint64(int32(s[0])), s[3] }, Run: func(c *core.Call) {
		s := c.Stack
		fd := int32(s[0])
		s[0] = readdir(c, fd, uint32(s[1]), uint32(s[2]), s[3], uint32(s[4]))
	}},
	{Name: "fd_advise", ID: 37, Params: p(i32, i64, i64, i32), Results: r1, Key: func(s []uint64) (uint64, uint64) { return 4, s[0] }, Run: func(c *core.Call) {
		in, s := c.In, c.Stack
		if in.FD(int32(s[0])) == nil {
			s[0] = core.EBadf
			return
		}
		s[0] = core.ESuccess
	}},
	{Name: "fd_allocate", ID: 37, Params: p(i32, i64, i64), Results: r1, Key: func(s []uint64) (uint64, uint64) { return 5, s[0] }, Run: func(c *core.Call) {
		s := c.Stack
		s[0] = core.ENotsup
	}},
	{Name: "fd_renumber", ID: 37, Params: p(i32, i32), Results: r1, Key: func(s []uint64) (uint64, uint64) { return 6, s[0] }, Run: func(c *core.Call) {
		s := c.Stack
		s[0] = core.ENotsup
	}},

	{Name: "path_open", ID: 19, Params: p(i32, i32, i32, i32, i32, i64, i64, i32, i32), Results: r1, Run: func(c *core.Call) {
		s := c.Stack
		s[0] = pathOpen(c, int32(s[0]), uint32(s[1]), uint32(s[2]), uint32(s[3]), uint32(s[4]), s[5], uint32(s[7]), uint32(s[8]))
	}},
	{Name: "path_filestat_get", ID: 20, Params: p(i32, i32, i32, i32, i32), Results: r1, Run: func(c *core.Call) {
		in, m, s := c.In, c.Mod, c.Stack
		dir, path, errno := dirPath(c, int32(s[0]), uint32(s[2]), uint32(s[3]))
		c.KeyText(uint64(dir), core.HashString(path), "", path)
		if errno != core.ESuccess {
			s[0] = errno
			return
		}
		ino, err := in.Node.FS.Lookup(dir, path, uint32(s[1])&1 != 0)
		if err != nil {
			s[0] = core.Errno(err)
			return
		}
		st, err := in.Node.FS.Stat(ino)
		if err != nil {
			s[0] = core.Errno(err)
			return
		}
		s[0] = writeFilestat(m, uint32(s[4]), st, diskFileType(st.Type))
	}},
	{Name: "path_filestat_set_times", ID: 28, Params: p(i32, i32, i32, i32, i64, i64, i32), Results: r1, Run: func(c *core.Call) {
		in, s := c.In, c.Stack
		dir, path, errno := dirPath(c, int32(s[0]), uint32(s[2]), uint32(s[3]))
		c.KeyText(uint64(dir), core.HashString(path), "", path)
		if errno != core.ESuccess {
			s[0] = errno
			return
		}
		ino, err := in.Node.FS.Lookup(dir, path, uint32(s[1])&1 != 0)
		if err != nil {
			s[0] = core.Errno(err)
			return
		}
		s[0] = setTimes(in, ino, s[4], s[5], uint32(s[6]))
	}},
	{Name: "path_create_directory", ID: 29, Params: p(i32, i32, i32), Results: r1, Run: pathCall((*disk.FS).Mkdir, false)},
	{Name: "path_remove_directory", ID: 30, Params: p(i32, i32, i32), Results: r1, Run: pathCall((*disk.FS).Rmdir, false)},
	{Name: "path_unlink_file", ID: 31, Params: p(i32, i32, i32), Results: r1, Run: pathCall((*disk.FS).Unlink, true)},
	{Name: "path_rename", ID: 21, Params: p(i32, i32, i32, i32, i32, i32), Results: r1, Run: twoPathCall([6]int{0, 1, 2, 3, 4, 5}, (*disk.FS).Rename, true)},
	// path_link's second argument is its lookup flags, which a hard link ignores.
	{Name: "path_link", ID: 32, Params: p(i32, i32, i32, i32, i32, i32, i32), Results: r1, Run: twoPathCall([6]int{0, 2, 3, 4, 5, 6}, (*disk.FS).Link, false)},
	{Name: "path_symlink", ID: 33, Params: p(i32, i32, i32, i32, i32), Results: r1, Run: func(c *core.Call) {
		in, m, s := c.In, c.Mod, c.Stack
		target, ok := readString(m, uint32(s[0]), uint32(s[1]))
		dir, path, errno := dirPath(c, int32(s[2]), uint32(s[3]), uint32(s[4]))
		c.KeyText(core.HashString(target), core.HashString(path), target, path)
		if !ok {
			s[0] = core.EFault
			return
		}
		if errno != core.ESuccess {
			s[0] = errno
			return
		}
		s[0] = core.Errno(in.Node.FS.Symlink(target, dir, path))
	}},
	{Name: "path_readlink", ID: 34, Params: p(i32, i32, i32, i32, i32, i32), Results: r1, Run: func(c *core.Call) {
		in, m, s := c.In, c.Mod, c.Stack
		dir, path, errno := dirPath(c, int32(s[0]), uint32(s[1]), uint32(s[2]))
		c.KeyText(uint64(dir), core.HashString(path), "", path)
		if errno != core.ESuccess {
			s[0] = errno
			return
		}
		target, err := in.Node.FS.Readlink(dir, path)
		if err != nil {
			s[0] = core.Errno(err)
			return
		}
		n := min(uint32(len(target)), uint32(s[4]))
		if !m.Memory().Write(uint32(s[3]), []byte(target[:n])) || !m.Memory().WriteUint32Le(uint32(s[5]), n) {
			s[0] = core.EFault
			return
		}
		s[0] = core.ESuccess
	}},

	{Name: "sock_accept", ID: 35, Params: p(i32, i32, i32), Results: r1, Run: func(c *core.Call) {
		in, m, s := c.In, c.Mod, c.Stack
		fd := int32(s[0])
		e := in.FD(fd)
		if e == nil {
			c.Key(uint64(fd), core.EBadf)
			s[0] = core.EBadf
			return
		}
		if e.Kind != core.DescSock {
			c.Key(uint64(fd), core.ENotsock)
			s[0] = core.ENotsock
			return
		}
		conn, errno := in.Run.Net.Accept(e.Sock)
		c.Key(uint64(fd), uint64(errno))
		if errno != simnet.OK {
			s[0] = uint64(errno)
			return
		}
		nfd := in.AddFD(&core.Desc{Kind: core.DescSock, Sock: conn, Read: true, Write: true})
		if !m.Memory().WriteUint32Le(uint32(s[2]), uint32(nfd)) {
			s[0] = core.EFault
			return
		}
		s[0] = core.ESuccess
	}},
	{Name: "sock_shutdown", ID: 36, Params: p(i32, i32), Results: r1, Key: func(s []uint64) (uint64, uint64) { return uint64(int32(s[0])), s[1] }, Run: func(c *core.Call) {
		in, s := c.In, c.Stack
		fd := int32(s[0])
		e := in.FD(fd)
		switch {
		case e == nil:
			s[0] = core.EBadf
		case e.Kind != core.DescSock:
			s[0] = core.ENotsock
		case uint32(s[1])&2 != 0:
			s[0] = uint64(in.Run.Net.ShutdownWrite(e.Sock))
		default:
			s[0] = core.ESuccess // shutting down reads only changes what this end accepts
		}
	}},
	{Name: "sock_recv", ID: 37, Params: p(i32, i32, i32, i32, i32, i32), Results: r1, Key: func(s []uint64) (uint64, uint64) { return 7, s[0] }, Run: func(c *core.Call) {
		s := c.Stack
		s[0] = core.ENotsup
	}},
	{Name: "sock_send", ID: 37, Params: p(i32, i32, i32, i32, i32), Results: r1, Key: func(s []uint64) (uint64, uint64) { return 8, s[0] }, Run: func(c *core.Call) {
		s := c.Stack
		s[0] = core.ENotsup
	}},
}
