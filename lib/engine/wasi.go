package engine

import (
	"context"
	"errors"
	"math"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/simnet"
)

// WASI errno numbers.
const (
	eSuccess     = 0
	eBadf        = 8
	eFault       = 21
	eInval       = 28
	eIO          = 29
	eIsdir       = 31
	eNosys       = 52
	eNotdir      = 54
	eNotsock     = 57
	eNotsup      = 58
	eSpipe       = 70
	eNotcapable  = 76
	eAgain       = 6
	eNametoolong = 37
	eNospc       = 51
)

// WASI file types.
const (
	ftUnknown      = 0
	ftCharDevice   = 2
	ftDirectory    = 3
	ftRegular      = 4
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
	f64 = api.ValueTypeF64
)

type hostFunc struct {
	name    string
	id      callID
	params  []api.ValueType
	results []api.ValueType
	fn      func(in *instance, ctx context.Context, m api.Module, s []uint64)
}

var hostModules = map[string][]hostFunc{}

func hostProvides(module, name string) bool {
	for _, f := range hostModules[module] {
		if f.name == name {
			return true
		}
	}
	return false
}

func p(ts ...api.ValueType) []api.ValueType { return ts }

func instantiateHostModules(ctx context.Context, rt wazero.Runtime) error {
	for _, modName := range []string{"wasi_snapshot_preview1", "seedfall"} {
		b := rt.NewHostModuleBuilder(modName)
		for _, f := range hostModules[modName] {
			f := f
			// wazero passes an i32 argument in the low half of a stack slot
			// and leaves the high half undefined; clearing it here keeps
			// junk out of every use, the determinism hash above all.
			var narrow []int
			for i, t := range f.params {
				if t == api.ValueTypeI32 {
					narrow = append(narrow, i)
				}
			}
			b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, m api.Module, s []uint64) {
				in := ctx.Value(ctxKey{}).(*instance)
				if !in.hold.CompareAndSwap(holdWasm, holdHost) {
					// Abandoned by the watchdog: the run is no longer
					// this goroutine's to touch.
					in.stop(ctx, 137)
				}
				for _, i := range narrow {
					s[i] &= 0xffffffff
				}
				f.fn(in, ctx, m, s)
				in.stopAtLimit(ctx)
				in.hold.Store(holdWasm)
			}), f.params, f.results).Export(f.name)
		}
		if _, err := b.Instantiate(ctx); err != nil {
			return err
		}
	}
	return nil
}

func errnoOf(err error) uint64 {
	if err == nil {
		return eSuccess
	}
	var e disk.Errno
	if errors.As(err, &e) {
		return uint64(e)
	}
	return eIO
}

func readString(m api.Module, ptr, n uint32) (string, bool) {
	b, ok := m.Memory().Read(ptr, n)
	if !ok {
		return "", false
	}
	return string(b), true
}

func init() {
	w := func(name string, id callID, params []api.ValueType, results []api.ValueType, fn func(in *instance, ctx context.Context, m api.Module, s []uint64)) {
		hostModules["wasi_snapshot_preview1"] = append(hostModules["wasi_snapshot_preview1"], hostFunc{name, id, params, results, fn})
	}
	r1 := p(i32)

	w("args_get", cArgsGet, p(i32, i32), r1, func(in *instance, _ context.Context, m api.Module, s []uint64) {
		in.hcall(cArgsGet, 0, 0)
		s[0] = writeStrings(m, in.args(), uint32(s[0]), uint32(s[1]))
	})
	w("args_sizes_get", cArgsSizesGet, p(i32, i32), r1, func(in *instance, _ context.Context, m api.Module, s []uint64) {
		in.hcall(cArgsSizesGet, 0, 0)
		s[0] = writeSizes(m, in.args(), uint32(s[0]), uint32(s[1]))
	})
	w("environ_get", cEnvironGet, p(i32, i32), r1, func(in *instance, _ context.Context, m api.Module, s []uint64) {
		in.hcall(cEnvironGet, 0, 0)
		s[0] = writeStrings(m, in.environ(), uint32(s[0]), uint32(s[1]))
	})
	w("environ_sizes_get", cEnvironSizesGet, p(i32, i32), r1, func(in *instance, _ context.Context, m api.Module, s []uint64) {
		in.hcall(cEnvironSizesGet, 0, 0)
		s[0] = writeSizes(m, in.environ(), uint32(s[0]), uint32(s[1]))
	})
	w("clock_res_get", cUnsupported, p(i32, i32), r1, func(in *instance, _ context.Context, m api.Module, s []uint64) {
		in.hcall(cUnsupported, 1, s[0])
		if !m.Memory().WriteUint64Le(uint32(s[1]), 1) {
			s[0] = eFault
			return
		}
		s[0] = eSuccess
	})
	w("clock_time_get", cClockTimeGet, p(i32, i64, i32), r1, func(in *instance, _ context.Context, m api.Module, s []uint64) {
		id := uint32(s[0])
		in.hcall(cClockTimeGet, uint64(id), 0)
		var t int64
		switch id {
		case 0: // realtime
			t = in.node.wall(in.run)
		case 1, 2, 3: // monotonic and the CPU-time clocks, which are virtual time too
			t = in.run.monoNow()
			if j := in.node.monoJumps; j != 0 {
				t = max(t+j, 1) // monotonic_jump; never 0, which kills Go's runtime
			}
		default:
			s[0] = eInval
			return
		}
		if !m.Memory().WriteUint64Le(uint32(s[2]), uint64(t)) {
			s[0] = eFault
			return
		}
		s[0] = eSuccess
	})
	w("random_get", cRandomGet, p(i32, i32), r1, func(in *instance, _ context.Context, m api.Module, s []uint64) {
		n := uint32(s[1])
		in.hcall(cRandomGet, uint64(n), 0)
		b, ok := m.Memory().Read(uint32(s[0]), n)
		if !ok {
			s[0] = eFault
			return
		}
		in.random.Fill(b)
		s[0] = eSuccess
	})
	w("sched_yield", cSchedYield, nil, r1, func(in *instance, ctx context.Context, m api.Module, s []uint64) {
		if in.pCounter != nil && uint32(in.pCounter.Get()) == 0 {
			// Only the instrumentation's function-entry countdown calls
			// with the counter at zero.
			in.preemptDue(ctx, m)
			s[0] = eSuccess
			return
		}
		in.hcall(cSchedYield, 0, 0)
		in.watchdogTick(ctx)
		s[0] = eSuccess
	})
	w("proc_exit", cProcExit, p(i32), nil, func(in *instance, ctx context.Context, _ api.Module, s []uint64) {
		code := uint32(s[0])
		in.hcall(cProcExit, uint64(code), 0)
		in.exitCode = code
		in.stop(ctx, code)
	})
	w("proc_raise", cUnsupported, p(i32), r1, func(in *instance, _ context.Context, _ api.Module, s []uint64) {
		in.hcall(cUnsupported, 2, s[0])
		s[0] = eNosys
	})
	w("poll_oneoff", cPollOneoff, p(i32, i32, i32, i32), r1, func(in *instance, ctx context.Context, m api.Module, s []uint64) {
		s[0] = in.pollOneoff(ctx, m, uint32(s[0]), uint32(s[1]), uint32(s[2]), uint32(s[3]))
	})

	w("fd_read", cFdRead, p(i32, i32, i32, i32), r1, func(in *instance, _ context.Context, m api.Module, s []uint64) {
		fd := int32(s[0])
		n, errno := in.readv(m, fd, uint32(s[1]), uint32(s[2]), -1)
		in.hcall(cFdRead, uint64(fd), uint64(n))
		if errno == eSuccess && !m.Memory().WriteUint32Le(uint32(s[3]), n) {
			errno = eFault
		}
		s[0] = errno
	})
	w("fd_pread", cFdPread, p(i32, i32, i32, i64, i32), r1, func(in *instance, _ context.Context, m api.Module, s []uint64) {
		fd := int32(s[0])
		n, errno := in.readv(m, fd, uint32(s[1]), uint32(s[2]), int64(s[3]))
		in.hcall(cFdPread, uint64(fd), uint64(n)^s[3]<<20)
		if errno == eSuccess && !m.Memory().WriteUint32Le(uint32(s[4]), n) {
			errno = eFault
		}
		s[0] = errno
	})
	w("fd_write", cFdWrite, p(i32, i32, i32, i32), r1, func(in *instance, ctx context.Context, m api.Module, s []uint64) {
		fd := int32(s[0])
		n, errno := in.writev(ctx, m, fd, uint32(s[1]), uint32(s[2]), -1)
		in.hcall(cFdWrite, uint64(fd), uint64(n))
		if errno == eSuccess && !m.Memory().WriteUint32Le(uint32(s[3]), n) {
			errno = eFault
		}
		s[0] = errno
	})
	w("fd_pwrite", cFdPwrite, p(i32, i32, i32, i64, i32), r1, func(in *instance, ctx context.Context, m api.Module, s []uint64) {
		fd := int32(s[0])
		n, errno := in.writev(ctx, m, fd, uint32(s[1]), uint32(s[2]), int64(s[3]))
		in.hcall(cFdPwrite, uint64(fd), uint64(n)^s[3]<<20)
		if errno == eSuccess && !m.Memory().WriteUint32Le(uint32(s[4]), n) {
			errno = eFault
		}
		s[0] = errno
	})
	w("fd_close", cFdClose, p(i32), r1, func(in *instance, _ context.Context, _ api.Module, s []uint64) {
		fd := int32(s[0])
		e, ok := in.fdCall(s, cFdClose, 0)
		if !ok {
			return
		}
		if e.sock != nil {
			in.run.net.Close(e.sock)
		}
		in.fds[fd] = nil
		if e.kind == fdFile && !in.inoOpen(e.ino) {
			in.node.fs.Release(e.ino) // frees a file that lost its last name while open
		}
		s[0] = eSuccess
	})
	w("fd_sync", cFdSync, p(i32), r1, func(in *instance, ctx context.Context, _ api.Module, s []uint64) {
		s[0] = in.sync(ctx, cFdSync, int32(s[0]))
	})
	w("fd_datasync", cFdSync, p(i32), r1, func(in *instance, ctx context.Context, _ api.Module, s []uint64) {
		s[0] = in.sync(ctx, cFdSync, int32(s[0]))
	})
	w("fd_seek", cFdSeek, p(i32, i64, i32, i32), r1, func(in *instance, _ context.Context, m api.Module, s []uint64) {
		fd := int32(s[0])
		off, whence := int64(s[1]), uint32(s[2])
		in.hcall(cFdSeek, uint64(fd), uint64(off)^uint64(whence)<<60)
		e := in.fd(fd)
		if e == nil {
			s[0] = eBadf
			return
		}
		if e.kind != fdFile && e.kind != fdDir {
			s[0] = eSpipe
			return
		}
		var base int64
		switch whence {
		case 0:
		case 1:
			base = e.pos
		case 2:
			st, err := in.node.fs.Stat(e.ino)
			if err != nil {
				s[0] = errnoOf(err)
				return
			}
			base = st.Size
		default:
			s[0] = eInval
			return
		}
		np := base + off
		if np < 0 {
			s[0] = eInval
			return
		}
		e.pos = np
		if !m.Memory().WriteUint64Le(uint32(s[3]), uint64(np)) {
			s[0] = eFault
			return
		}
		s[0] = eSuccess
	})
	w("fd_tell", cFdSeek, p(i32, i32), r1, func(in *instance, _ context.Context, m api.Module, s []uint64) {
		e, ok := in.fdCall(s, cFdSeek, 1<<62)
		if !ok {
			return
		}
		if !m.Memory().WriteUint64Le(uint32(s[1]), uint64(e.pos)) {
			s[0] = eFault
			return
		}
		s[0] = eSuccess
	})
	w("fd_fdstat_get", cFdFdstatGet, p(i32, i32), r1, func(in *instance, _ context.Context, m api.Module, s []uint64) {
		e, ok := in.fdCall(s, cFdFdstatGet, 0)
		if !ok {
			return
		}
		var buf [24]byte
		buf[0] = in.fileType(e)
		flags := e.flags
		if e.kind == fdSock {
			flags |= fdflagNonblock
		}
		buf[2], buf[3] = byte(flags), byte(flags>>8)
		putU64(buf[8:], allRights)
		putU64(buf[16:], allRights)
		if !m.Memory().Write(uint32(s[1]), buf[:]) {
			s[0] = eFault
			return
		}
		s[0] = eSuccess
	})
	w("fd_fdstat_set_flags", cFdFdstatSetFlags, p(i32, i32), r1, func(in *instance, _ context.Context, _ api.Module, s []uint64) {
		e, ok := in.fdCall(s, cFdFdstatSetFlags, s[1])
		if !ok {
			return
		}
		e.flags = uint16(s[1]) &^ fdflagNonblock
		s[0] = eSuccess
	})
	w("fd_fdstat_set_rights", cFdFdstatSetRights, p(i32, i64, i64), r1, func(in *instance, _ context.Context, _ api.Module, s []uint64) {
		fd := int32(s[0])
		in.hcall(cFdFdstatSetRights, uint64(fd), 0)
		if in.fd(fd) == nil {
			s[0] = eBadf
			return
		}
		s[0] = eSuccess
	})
	w("fd_filestat_get", cFdFilestatGet, p(i32, i32), r1, func(in *instance, _ context.Context, m api.Module, s []uint64) {
		e, ok := in.fdCall(s, cFdFilestatGet, 0)
		if !ok {
			return
		}
		var st disk.Stat
		if e.kind == fdFile || e.kind == fdDir {
			var err error
			if st, err = in.node.fs.Stat(e.ino); err != nil {
				s[0] = errnoOf(err)
				return
			}
		}
		s[0] = writeFilestat(m, uint32(s[1]), st, in.fileType(e))
	})
	w("fd_filestat_set_size", cFdFilestatSetSize, p(i32, i64), r1, func(in *instance, ctx context.Context, _ api.Module, s []uint64) {
		fd := int32(s[0])
		in.hcall(cFdFilestatSetSize, uint64(fd), s[1])
		e := in.fd(fd)
		switch {
		case e == nil:
			s[0] = eBadf
		case e.kind != fdFile:
			s[0] = eInval
		case !e.write:
			s[0] = eBadf
		case int64(s[1]) < 0:
			s[0] = eInval
		default:
			op, _, crash := in.beforeWrite(e, false)
			s[0] = errnoOf(in.node.fs.Truncate(e.ino, int64(s[1])))
			if crash {
				in.crashInside(ctx, op, e.path, 0)
			}
		}
	})
	w("fd_filestat_set_times", cUnsupported, p(i32, i64, i64, i32), r1, func(in *instance, _ context.Context, _ api.Module, s []uint64) {
		fd := int32(s[0])
		in.hcall(cUnsupported, 3, uint64(fd))
		e := in.fd(fd)
		if e == nil {
			s[0] = eBadf
			return
		}
		if e.kind != fdFile && e.kind != fdDir {
			s[0] = eSuccess
			return
		}
		s[0] = in.setTimes(e.ino, s[1], s[2], uint32(s[3]))
	})
	w("fd_prestat_get", cFdPrestatGet, p(i32, i32), r1, func(in *instance, _ context.Context, m api.Module, s []uint64) {
		fd := int32(s[0])
		in.hcall(cFdPrestatGet, uint64(fd), 0)
		e := in.fd(fd)
		// EBADF ends Go's scan of the preopens; any other errno kills the guest.
		if e == nil || !e.preopen {
			s[0] = eBadf
			return
		}
		var buf [8]byte
		buf[4] = 1 // len("/")
		if !m.Memory().Write(uint32(s[1]), buf[:]) {
			s[0] = eFault
			return
		}
		s[0] = eSuccess
	})
	w("fd_prestat_dir_name", cFdPrestatDirName, p(i32, i32, i32), r1, func(in *instance, _ context.Context, m api.Module, s []uint64) {
		fd := int32(s[0])
		in.hcall(cFdPrestatDirName, uint64(fd), 0)
		e := in.fd(fd)
		if e == nil || !e.preopen {
			s[0] = eBadf
			return
		}
		if uint32(s[2]) < 1 {
			s[0] = eNametoolong
			return
		}
		if !m.Memory().WriteByte(uint32(s[1]), '/') {
			s[0] = eFault
			return
		}
		s[0] = eSuccess
	})
	w("fd_readdir", cFdReaddir, p(i32, i32, i32, i64, i32), r1, func(in *instance, _ context.Context, m api.Module, s []uint64) {
		fd := int32(s[0])
		in.hcall(cFdReaddir, uint64(fd), s[3])
		s[0] = in.readdir(m, fd, uint32(s[1]), uint32(s[2]), s[3], uint32(s[4]))
	})
	w("fd_advise", cUnsupported, p(i32, i64, i64, i32), r1, func(in *instance, _ context.Context, _ api.Module, s []uint64) {
		in.hcall(cUnsupported, 4, s[0])
		if in.fd(int32(s[0])) == nil {
			s[0] = eBadf
			return
		}
		s[0] = eSuccess
	})
	w("fd_allocate", cUnsupported, p(i32, i64, i64), r1, func(in *instance, _ context.Context, _ api.Module, s []uint64) {
		in.hcall(cUnsupported, 5, s[0])
		s[0] = eNotsup
	})
	w("fd_renumber", cUnsupported, p(i32, i32), r1, func(in *instance, _ context.Context, _ api.Module, s []uint64) {
		in.hcall(cUnsupported, 6, s[0])
		s[0] = eNotsup
	})

	w("path_open", cPathOpen, p(i32, i32, i32, i32, i32, i64, i64, i32, i32), r1, func(in *instance, ctx context.Context, m api.Module, s []uint64) {
		s[0] = in.pathOpen(ctx, m, int32(s[0]), uint32(s[1]), uint32(s[2]), uint32(s[3]), uint32(s[4]), s[5], uint32(s[7]), uint32(s[8]))
	})
	w("path_filestat_get", cPathFilestatGet, p(i32, i32, i32, i32, i32), r1, func(in *instance, _ context.Context, m api.Module, s []uint64) {
		dir, path, errno := in.dirPath(m, int32(s[0]), uint32(s[2]), uint32(s[3]))
		in.hcall(cPathFilestatGet, uint64(dir), hashString(path))
		if errno != eSuccess {
			s[0] = errno
			return
		}
		ino, err := in.node.fs.Lookup(dir, path, uint32(s[1])&1 != 0)
		if err != nil {
			s[0] = errnoOf(err)
			return
		}
		st, err := in.node.fs.Stat(ino)
		if err != nil {
			s[0] = errnoOf(err)
			return
		}
		s[0] = writeFilestat(m, uint32(s[4]), st, diskFileType(st.Type))
	})
	w("path_filestat_set_times", cPathFilestatSetTimes, p(i32, i32, i32, i32, i64, i64, i32), r1, func(in *instance, _ context.Context, m api.Module, s []uint64) {
		dir, path, errno := in.dirPath(m, int32(s[0]), uint32(s[2]), uint32(s[3]))
		in.hcall(cPathFilestatSetTimes, uint64(dir), hashString(path))
		if errno != eSuccess {
			s[0] = errno
			return
		}
		ino, err := in.node.fs.Lookup(dir, path, uint32(s[1])&1 != 0)
		if err != nil {
			s[0] = errnoOf(err)
			return
		}
		s[0] = in.setTimes(ino, s[4], s[5], uint32(s[6]))
	})
	w("path_create_directory", cPathCreateDirectory, p(i32, i32, i32), r1, pathCall(cPathCreateDirectory, (*disk.FS).Mkdir))
	w("path_remove_directory", cPathRemoveDirectory, p(i32, i32, i32), r1, pathCall(cPathRemoveDirectory, (*disk.FS).Rmdir))
	w("path_unlink_file", cPathUnlinkFile, p(i32, i32, i32), r1, pathCall(cPathUnlinkFile, (*disk.FS).Unlink))
	w("path_rename", cPathRename, p(i32, i32, i32, i32, i32, i32), r1, twoPathCall(cPathRename, [6]int{0, 1, 2, 3, 4, 5}, (*disk.FS).Rename))
	// path_link's second argument is its lookup flags, which a hard link ignores.
	w("path_link", cPathLink, p(i32, i32, i32, i32, i32, i32, i32), r1, twoPathCall(cPathLink, [6]int{0, 2, 3, 4, 5, 6}, (*disk.FS).Link))
	w("path_symlink", cPathSymlink, p(i32, i32, i32, i32, i32), r1, func(in *instance, _ context.Context, m api.Module, s []uint64) {
		target, ok := readString(m, uint32(s[0]), uint32(s[1]))
		dir, path, errno := in.dirPath(m, int32(s[2]), uint32(s[3]), uint32(s[4]))
		in.hcall(cPathSymlink, hashString(target), hashString(path))
		if !ok {
			s[0] = eFault
			return
		}
		if errno != eSuccess {
			s[0] = errno
			return
		}
		s[0] = errnoOf(in.node.fs.Symlink(target, dir, path))
	})
	w("path_readlink", cPathReadlink, p(i32, i32, i32, i32, i32, i32), r1, func(in *instance, _ context.Context, m api.Module, s []uint64) {
		dir, path, errno := in.dirPath(m, int32(s[0]), uint32(s[1]), uint32(s[2]))
		in.hcall(cPathReadlink, uint64(dir), hashString(path))
		if errno != eSuccess {
			s[0] = errno
			return
		}
		target, err := in.node.fs.Readlink(dir, path)
		if err != nil {
			s[0] = errnoOf(err)
			return
		}
		n := min(uint32(len(target)), uint32(s[4]))
		if !m.Memory().Write(uint32(s[3]), []byte(target[:n])) || !m.Memory().WriteUint32Le(uint32(s[5]), n) {
			s[0] = eFault
			return
		}
		s[0] = eSuccess
	})

	w("sock_accept", cSockAccept, p(i32, i32, i32), r1, func(in *instance, _ context.Context, m api.Module, s []uint64) {
		fd := int32(s[0])
		e := in.fd(fd)
		if e == nil {
			in.hcall(cSockAccept, uint64(fd), eBadf)
			s[0] = eBadf
			return
		}
		if e.kind != fdSock {
			in.hcall(cSockAccept, uint64(fd), eNotsock)
			s[0] = eNotsock
			return
		}
		c, errno := in.run.net.Accept(e.sock)
		in.hcall(cSockAccept, uint64(fd), uint64(errno))
		if errno != simnet.OK {
			s[0] = uint64(errno)
			return
		}
		nfd := in.addFD(&fdEntry{kind: fdSock, sock: c, read: true, write: true})
		if !m.Memory().WriteUint32Le(uint32(s[2]), uint32(nfd)) {
			s[0] = eFault
			return
		}
		s[0] = eSuccess
	})
	w("sock_shutdown", cSockShutdown, p(i32, i32), r1, func(in *instance, _ context.Context, _ api.Module, s []uint64) {
		fd := int32(s[0])
		in.hcall(cSockShutdown, uint64(fd), s[1])
		e := in.fd(fd)
		switch {
		case e == nil:
			s[0] = eBadf
		case e.kind != fdSock:
			s[0] = eNotsock
		case uint32(s[1])&2 != 0:
			s[0] = uint64(in.run.net.ShutdownWrite(e.sock))
		default:
			s[0] = eSuccess // shutting down reads only changes what this end accepts
		}
	})
	w("sock_recv", cUnsupported, p(i32, i32, i32, i32, i32, i32), r1, func(in *instance, _ context.Context, _ api.Module, s []uint64) {
		in.hcall(cUnsupported, 7, s[0])
		s[0] = eNotsup
	})
	w("sock_send", cUnsupported, p(i32, i32, i32, i32, i32), r1, func(in *instance, _ context.Context, _ api.Module, s []uint64) {
		in.hcall(cUnsupported, 8, s[0])
		s[0] = eNotsup
	})
}

// fdCall starts a host call on the descriptor in s[0]: it enters the call
// into the determinism hash with the descriptor and b, and answers EBADF for
// a descriptor that is not open.
func (in *instance) fdCall(s []uint64, id callID, b uint64) (*fdEntry, bool) {
	fd := int32(s[0])
	in.hcall(id, uint64(fd), b)
	e := in.fd(fd)
	if e == nil {
		s[0] = eBadf
		return nil, false
	}
	return e, true
}

func (in *instance) inoOpen(ino disk.Ino) bool {
	for _, f := range in.fds {
		if f != nil && f.kind == fdFile && f.ino == ino {
			return true
		}
	}
	return false
}

// pathCall is a host function that applies one directory operation of the
// node's disk to a path relative to a directory descriptor.
func pathCall(id callID, op func(*disk.FS, disk.Ino, string) error) func(*instance, context.Context, api.Module, []uint64) {
	return func(in *instance, _ context.Context, m api.Module, s []uint64) {
		dir, path, errno := in.dirPath(m, int32(s[0]), uint32(s[1]), uint32(s[2]))
		in.hcall(id, uint64(dir), hashString(path))
		if errno != eSuccess {
			s[0] = errno
			return
		}
		s[0] = errnoOf(op(in.node.fs, dir, path))
	}
}

// twoPathCall is a host function that applies a directory operation naming
// two paths (rename, link); at holds the stack positions of the first
// directory descriptor, path and length, then the second's.
func twoPathCall(id callID, at [6]int, op func(*disk.FS, disk.Ino, string, disk.Ino, string) error) func(*instance, context.Context, api.Module, []uint64) {
	return func(in *instance, _ context.Context, m api.Module, s []uint64) {
		od, oldPath, e1 := in.dirPath(m, int32(s[at[0]]), uint32(s[at[1]]), uint32(s[at[2]]))
		nd, newPath, e2 := in.dirPath(m, int32(s[at[3]]), uint32(s[at[4]]), uint32(s[at[5]]))
		in.hcall(id, hashString(oldPath), hashString(newPath))
		switch {
		case e1 != eSuccess:
			s[0] = e1
		case e2 != eSuccess:
			s[0] = e2
		default:
			s[0] = errnoOf(op(in.node.fs, od, oldPath, nd, newPath))
		}
	}
}

func (r *run) monoNow() int64 { return r.now + 1 } // Go's runtime dies if nanotime reads 0

func putU64(b []byte, v uint64) {
	for i := 0; i < 8; i++ {
		b[i] = byte(v >> (8 * i))
	}
}

func (in *instance) args() []string {
	return append([]string{in.node.spec.Name}, in.node.spec.Args...)
}

func (in *instance) environ() []string {
	env := []string{"SEEDFALL=1", "SEEDFALL_NODE=" + in.node.spec.Name, antithesisEnv + "=/" + antithesisPath}
	keys := make([]string, 0, len(in.node.spec.Env))
	for k := range in.node.spec.Env {
		keys = append(keys, k)
	}
	sortStrings(keys)
	for _, k := range keys {
		env = append(env, k+"="+in.node.spec.Env[k])
	}
	return env
}

func writeSizes(m api.Module, list []string, countPtr, sizePtr uint32) uint64 {
	size := 0
	for _, s := range list {
		size += len(s) + 1
	}
	if !m.Memory().WriteUint32Le(countPtr, uint32(len(list))) || !m.Memory().WriteUint32Le(sizePtr, uint32(size)) {
		return eFault
	}
	return eSuccess
}

func writeStrings(m api.Module, list []string, ptrs, buf uint32) uint64 {
	mem := m.Memory()
	for i, s := range list {
		if !mem.WriteUint32Le(ptrs+uint32(4*i), buf) || !mem.WriteString(buf, s) || !mem.WriteByte(buf+uint32(len(s)), 0) {
			return eFault
		}
		buf += uint32(len(s)) + 1
	}
	return eSuccess
}

func diskFileType(t disk.FileType) byte {
	switch t {
	case disk.TypeDir:
		return ftDirectory
	case disk.TypeSymlink:
		return ftSymlink
	case disk.TypeRegular:
		return ftRegular
	}
	return ftUnknown
}

func (in *instance) fileType(e *fdEntry) byte {
	switch e.kind {
	case fdStdin, fdStdout, fdStderr:
		return ftCharDevice
	case fdDir:
		return ftDirectory
	case fdSock:
		if e.sock.Datagram {
			return ftSocketDgram
		}
		return ftSocketStream
	}
	return ftRegular
}

func writeFilestat(m api.Module, ptr uint32, st disk.Stat, ft byte) uint64 {
	var buf [64]byte
	putU64(buf[0:], 1)
	putU64(buf[8:], uint64(st.Ino))
	buf[16] = ft
	nlink := st.Nlink
	if nlink == 0 && ft != ftRegular && ft != ftDirectory && ft != ftSymlink {
		nlink = 1
	}
	putU64(buf[24:], nlink)
	putU64(buf[32:], uint64(st.Size))
	putU64(buf[40:], uint64(st.Atim))
	putU64(buf[48:], uint64(st.Mtim))
	putU64(buf[56:], uint64(st.Ctim))
	if !m.Memory().Write(ptr, buf[:]) {
		return eFault
	}
	return eSuccess
}

func (in *instance) setTimes(ino disk.Ino, atim, mtim uint64, flags uint32) uint64 {
	st, err := in.node.fs.Stat(ino)
	if err != nil {
		return errnoOf(err)
	}
	a, mt := st.Atim, st.Mtim
	now := in.run.wallNow()
	switch {
	case flags&2 != 0:
		a = now
	case flags&1 != 0:
		a = int64(atim)
	}
	switch {
	case flags&8 != 0:
		mt = now
	case flags&4 != 0:
		mt = int64(mtim)
	}
	return errnoOf(in.node.fs.SetTimes(ino, a, mt))
}

// dirPath reads a path argument and the directory it is relative to.
func (in *instance) dirPath(m api.Module, dirfd int32, ptr, n uint32) (disk.Ino, string, uint64) {
	path, ok := readString(m, ptr, n)
	if !ok {
		return 0, "", eFault
	}
	e := in.fd(dirfd)
	if e == nil {
		return 0, path, eBadf
	}
	if e.kind != fdDir {
		return 0, path, eNotdir
	}
	return e.ino, path, eSuccess
}

func (in *instance) pathOpen(ctx context.Context, m api.Module, dirfd int32, lookup, pathPtr, pathLen, oflags uint32, rights uint64, fdflags uint32, fdPtr uint32) uint64 {
	dir, path, errno := in.dirPath(m, dirfd, pathPtr, pathLen)
	in.hcall(cPathOpen, hashString(path), uint64(oflags)|uint64(fdflags)<<16|(rights&(rightFdRead|rightFdWrite))<<32)
	if errno != eSuccess {
		return errno
	}
	var fl disk.OpenFlags
	if oflags&1 != 0 {
		fl |= disk.OCreate
	}
	if oflags&2 != 0 {
		fl |= disk.ODirectory
	}
	if oflags&4 != 0 {
		fl |= disk.OExcl
	}
	wantWrite := rights&rightFdWrite != 0
	fs := in.node.fs
	if oflags&8 != 0 {
		if !wantWrite {
			return eInval
		}
		// Truncate only once we know the target is a regular file.
		ino, err := fs.Open(dir, path, fl, lookup&1 != 0)
		if err != nil {
			return errnoOf(err)
		}
		if st, _ := fs.Stat(ino); st.Type == disk.TypeDir {
			return eIsdir
		}
		op, _, crash := in.beforeWrite(&fdEntry{path: fs.PathOf(ino)}, false)
		if err := fs.Truncate(ino, 0); err != nil {
			return errnoOf(err)
		}
		if crash {
			in.crashInside(ctx, op, fs.PathOf(ino), 0)
		}
		return in.installFile(m, ino, path, true, rights, fdflags, fdPtr)
	}
	ino, err := fs.Open(dir, path, fl, lookup&1 != 0)
	if err != nil {
		return errnoOf(err)
	}
	return in.installFile(m, ino, path, wantWrite, rights, fdflags, fdPtr)
}

func (in *instance) installFile(m api.Module, ino disk.Ino, path string, write bool, rights uint64, fdflags uint32, fdPtr uint32) uint64 {
	st, err := in.node.fs.Stat(ino)
	if err != nil {
		return errnoOf(err)
	}
	e := &fdEntry{ino: ino, path: in.node.fs.PathOf(ino), flags: uint16(fdflags) &^ fdflagNonblock, read: rights&rightFdRead != 0, write: write}
	e.antithesis = e.path == antithesisPath
	switch st.Type {
	case disk.TypeDir:
		if write {
			return eIsdir
		}
		e.kind = fdDir
	case disk.TypeRegular:
		e.kind = fdFile
	default:
		return eNotsup
	}
	fd := in.addFD(e)
	if !m.Memory().WriteUint32Le(fdPtr, uint32(fd)) {
		in.fds[fd] = nil
		return eFault
	}
	return eSuccess
}

// readv reads into the iovecs at iovs; off < 0 reads at and moves the
// descriptor's position.
func (in *instance) readv(m api.Module, fd int32, iovs, iovsLen uint32, off int64) (uint32, uint64) {
	e := in.fd(fd)
	if e == nil {
		return 0, eBadf
	}
	mem := m.Memory()
	var total uint32
	var readOp int64
	for i := uint32(0); i < iovsLen; i++ {
		ptr, ok1 := mem.ReadUint32Le(iovs + 8*i)
		n, ok2 := mem.ReadUint32Le(iovs + 8*i + 4)
		if !ok1 || !ok2 {
			return total, eFault
		}
		buf, ok := mem.Read(ptr, n)
		if !ok {
			return total, eFault
		}
		var got int
		switch e.kind {
		case fdStdin:
			return total, eSuccess
		case fdStdout, fdStderr:
			return total, eBadf
		case fdDir:
			return total, eIsdir
		case fdSock:
			if off >= 0 {
				return total, eSpipe
			}
			c, errno := in.run.net.Read(e.sock, buf)
			if errno != simnet.OK {
				if total > 0 && errno == simnet.EAGAIN {
					return total, eSuccess
				}
				return total, uint64(errno)
			}
			got = c
		case fdFile:
			if !e.read {
				return total, eBadf
			}
			pos := e.pos
			if off >= 0 {
				pos = off + int64(total)
			}
			if readOp == 0 {
				var errno uint64
				if readOp, errno = in.beforeRead(e); errno != eSuccess {
					return total, errno
				}
			}
			c, err := in.node.fs.ReadAt(e.ino, buf, pos)
			if err != nil {
				return total, errnoOf(err)
			}
			in.afterRead(e, readOp, buf[:c], pos)
			got = c
			if off < 0 {
				e.pos += int64(c)
			}
		}
		total += uint32(got)
		if uint32(got) < n {
			break
		}
	}
	return total, eSuccess
}

func (in *instance) writev(ctx context.Context, m api.Module, fd int32, iovs, iovsLen uint32, off int64) (uint32, uint64) {
	e := in.fd(fd)
	if e == nil {
		return 0, eBadf
	}
	crashing := false // crash_on_io hit this write: no sync follows it
	if e.kind == fdFile && e.write && !e.antithesis {
		op, errno, crash := in.beforeWrite(e, true)
		if errno != eSuccess {
			return 0, errno
		}
		if crash {
			crashing = true
			defer in.crashInside(ctx, op, e.path, 0)
		}
	}
	mem := m.Memory()
	var total uint32
	for i := uint32(0); i < iovsLen; i++ {
		ptr, ok1 := mem.ReadUint32Le(iovs + 8*i)
		n, ok2 := mem.ReadUint32Le(iovs + 8*i + 4)
		if !ok1 || !ok2 {
			return total, eFault
		}
		buf, ok := mem.Read(ptr, n)
		if !ok {
			return total, eFault
		}
		switch e.kind {
		case fdStdout, fdStderr:
			in.output(int(e.kind), buf)
		case fdStdin:
			return total, eBadf
		case fdDir:
			return total, eIsdir
		case fdSock:
			if off >= 0 {
				return total, eSpipe
			}
			c, errno := in.run.net.Write(e.sock, buf)
			if errno != simnet.OK {
				if total > 0 {
					return total, eSuccess
				}
				return total, uint64(errno)
			}
			n = uint32(c)
		case fdFile:
			if !e.write {
				return total, eBadf
			}
			if e.antithesis {
				in.antithesisOutput(ctx, buf)
				total += n
				continue
			}
			fs := in.node.fs
			pos := e.pos
			switch {
			case off >= 0:
				pos = off + int64(total)
			case e.flags&fdflagAppend != 0:
				st, err := fs.Stat(e.ino)
				if err != nil {
					return total, errnoOf(err)
				}
				pos = st.Size
			}
			c, err := fs.WriteAt(e.ino, buf, pos)
			if err != nil {
				if total > 0 {
					return total, eSuccess
				}
				return total, errnoOf(err)
			}
			if off < 0 {
				e.pos = pos + int64(c)
			}
			if uint32(c) < n { // the disk is full: a short write
				return total + uint32(c), eSuccess
			}
			n = uint32(c)
		}
		total += n
	}
	if e.kind == fdFile && e.flags&(fdflagSync|fdflagDsync) != 0 && !e.antithesis && !crashing && in.osyncIgnored() {
		in.run.engineHits++
	} else if e.kind == fdFile && e.flags&(fdflagSync|fdflagDsync) != 0 && !e.antithesis && !crashing {
		// O_SYNC and O_DSYNC: the write is an fsync too, a disk operation of
		// its own with every fsync fault (latency, crash_on_io, fsync_eio,
		// lost_write, misdirected_write). A failed sync fails the write.
		if errno := in.fsync(ctx, e); errno != eSuccess {
			return 0, errno
		}
	}
	return total, eSuccess
}

func (in *instance) sync(ctx context.Context, id callID, fd int32) uint64 {
	in.hcall(id, uint64(fd), 0)
	e := in.fd(fd)
	switch {
	case e == nil:
		return eBadf
	case e.kind == fdFile || e.kind == fdDir:
		return in.fsync(ctx, e)
	case e.kind == fdSock:
		return eInval
	}
	return eSuccess
}

func (in *instance) readdir(m api.Module, fd int32, buf, bufLen uint32, cookie uint64, usedPtr uint32) uint64 {
	e := in.fd(fd)
	if e == nil {
		return eBadf
	}
	if e.kind != fdDir {
		return eNotdir
	}
	fs := in.node.fs
	list, err := fs.ReadDir(e.ino)
	if err != nil {
		return errnoOf(err)
	}
	entries := make([]disk.DirEntry, 0, len(list)+2)
	entries = append(entries, disk.DirEntry{Name: ".", Ino: e.ino, Type: disk.TypeDir}, disk.DirEntry{Name: "..", Ino: fs.Parent(e.ino), Type: disk.TypeDir})
	entries = append(entries, list...)
	if cookie > uint64(len(entries)) {
		return eInval
	}
	out := make([]byte, 0, bufLen)
	for i := cookie; i < uint64(len(entries)) && uint32(len(out)) < bufLen; i++ {
		d := entries[i]
		var hdr [24]byte
		putU64(hdr[0:], i+1)
		putU64(hdr[8:], uint64(d.Ino))
		hdr[16], hdr[17], hdr[18], hdr[19] = byte(len(d.Name)), byte(len(d.Name)>>8), byte(len(d.Name)>>16), byte(len(d.Name)>>24)
		hdr[20] = diskFileType(d.Type)
		out = append(out, hdr[:]...)
		out = append(out, d.Name...)
	}
	if uint32(len(out)) > bufLen {
		out = out[:bufLen] // a partial last entry tells the caller to retry with a larger buffer
	}
	if !m.Memory().Write(buf, out) || !m.Memory().WriteUint32Le(usedPtr, uint32(len(out))) {
		return eFault
	}
	return eSuccess
}

// pollOneoff answers Go's runtime when it has nothing to run: a clock
// subscription for its next timer plus one per fd it waits on. If nothing is
// ready, the node parks until the scheduler finds one of them ready.
func (in *instance) pollOneoff(ctx context.Context, m api.Module, inPtr, outPtr, nsubs, neventsPtr uint32) uint64 {
	if nsubs == 0 {
		in.hcall(cPollOneoff, 0, 0)
		return eInval
	}
	mem := m.Memory()
	subs, ok := mem.Read(inPtr, 48*nsubs)
	if !ok {
		in.hcall(cPollOneoff, uint64(nsubs), 0)
		return eFault
	}
	r := in.run
	deadline := int64(math.MaxInt64)
	in.waits = in.waits[:0]
	for i := uint32(0); i < nsubs; i++ {
		sub := subs[48*i:]
		switch sub[8] {
		case 0: // clock
			clockID := getU32(sub[16:])
			timeout := int64(getU64(sub[24:]))
			var d int64
			if getU16(sub[40:])&1 != 0 { // absolute
				if clockID == 0 {
					d = timeout - (in.node.wall(r) - r.now)
				} else {
					d = timeout - 1 - in.node.monoJumps
				}
			} else {
				d = r.now + timeout
				if d < r.now || timeout < 0 { // overflow: wait forever
					d = math.MaxInt64
				} else if f := in.node.slow; f > 1 {
					// A slowed node waits f times as long for its timers. Go
					// asks again with the time left after every early wake,
					// so each timer deadline is stretched once, from the
					// first time the node waited for it.
					d = in.stretch(d, timeout, f)
				}
			}
			deadline = min(deadline, r.timerAt(d))
		case 1, 2:
			in.waits = append(in.waits, waitSub{fd: int32(getU32(sub[16:])), write: sub[8] == 2})
		}
	}
	in.hcall(cPollOneoff, uint64(nsubs), uint64(deadline-r.now))
	if !in.pollReady(deadline) {
		in.deadline = deadline
		in.park(ctx)
		in.deadline = math.MaxInt64
		in.hcall(cPollWake, 0, 0)
	}
	var nev uint32
	for i := uint32(0); i < nsubs; i++ {
		sub := subs[48*i:]
		var ev [32]byte
		copy(ev[0:8], sub[0:8])
		ready := false
		switch sub[8] {
		case 0:
			ready = r.now >= deadline
			ev[10] = 0
		case 1, 2:
			fd := int32(getU32(sub[16:]))
			ev[10] = sub[8]
			e := in.fd(fd)
			if e == nil {
				ready = true
				ev[8] = eBadf
			} else if in.fdReady(fd, sub[8] == 2) {
				ready = true
				if e.kind == fdSock && sub[8] == 1 {
					putU64(ev[16:], uint64(e.sock.Buffered()))
					if e.sock.Readable() && e.sock.Buffered() == 0 {
						ev[24] = 1 // hangup: end of stream or an error
					}
				}
			}
		}
		if ready {
			if !mem.Write(outPtr+32*nev, ev[:]) {
				return eFault
			}
			nev++
		}
	}
	if !mem.WriteUint32Le(neventsPtr, nev) {
		return eFault
	}
	return eSuccess
}

// stretch returns the slowed deadline of the timer deadline d, which the
// node now waits timeout for.
func (in *instance) stretch(d, timeout int64, f float64) int64 {
	if in.slowDeadlines == nil {
		in.slowDeadlines = map[int64]int64{}
	}
	if s, ok := in.slowDeadlines[d]; ok {
		return s
	}
	if len(in.slowDeadlines) >= slowDeadlinesMax {
		for k := range in.slowDeadlines {
			if k < in.run.now {
				delete(in.slowDeadlines, k) // timers that are due; order does not matter
			}
		}
	}
	s := in.run.now + int64(float64(timeout)*f)
	in.slowDeadlines[d] = s
	return s
}

// slowDeadlinesMax bounds the stretched deadlines a node keeps before the
// ones already due are dropped.
const slowDeadlinesMax = 256

func (in *instance) pollReady(deadline int64) bool {
	if deadline <= in.run.now {
		return true
	}
	for _, w := range in.waits {
		if in.fdReady(w.fd, w.write) {
			return true
		}
	}
	return false
}

func getU16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }
func getU32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
func getU64(b []byte) uint64 { return uint64(getU32(b)) | uint64(getU32(b[4:]))<<32 }
