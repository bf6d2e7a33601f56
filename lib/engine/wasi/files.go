package wasi

import (
	"sort"

	"github.com/tetratelabs/wazero/api"

	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/engine/core"
)

// fdCall starts a host call on the descriptor in the call's first argument:
// it keys the call with the descriptor and b, and answers EBADF for a
// descriptor that is not open.
func fdCall(c *core.Call, b uint64) (*core.Desc, bool) {
	fd := int32(c.Stack[0])
	c.Key(uint64(fd), b)
	e := c.In.FD(fd)
	if e == nil {
		c.Stack[0] = core.EBadf
		return nil, false
	}
	return e, true
}

// pathCall is a host function that applies one directory operation of the
// node's disk to a path relative to a directory descriptor. With frees set,
// the operation may take a file's last name (unlink), and the file's space
// comes back when no descriptor holds it (freeUnnamed).
func pathCall(op func(*disk.FS, disk.Ino, string) error, frees bool) func(*core.Call) {
	return func(c *core.Call) {
		s := c.Stack
		dir, path, errno := dirPath(c, int32(s[0]), uint32(s[1]), uint32(s[2]))
		c.KeyText(uint64(dir), core.HashString(path), "", path)
		if errno != core.ESuccess {
			s[0] = errno
			return
		}
		fs := c.In.Node.FS
		var named disk.Ino
		if frees {
			named, _ = fs.Lookup(dir, path, false)
		}
		err := op(fs, dir, path)
		if err == nil && named != 0 {
			freeUnnamed(c.In, named)
		}
		s[0] = core.Errno(err)
	}
}

// twoPathCall is a host function that applies a directory operation naming
// two paths (rename, link); at holds the stack positions of the first
// directory descriptor, path and length, then the second's. With frees set,
// the operation may take the last name of the file the second path named
// (a rename over it), whose space then comes back as pathCall's does.
func twoPathCall(at [6]int, op func(*disk.FS, disk.Ino, string, disk.Ino, string) error, frees bool) func(*core.Call) {
	return func(c *core.Call) {
		s := c.Stack
		od, oldPath, e1 := dirPath(c, int32(s[at[0]]), uint32(s[at[1]]), uint32(s[at[2]]))
		nd, newPath, e2 := dirPath(c, int32(s[at[3]]), uint32(s[at[4]]), uint32(s[at[5]]))
		c.KeyText(core.HashString(oldPath), core.HashString(newPath), oldPath, newPath)
		switch {
		case e1 != core.ESuccess:
			s[0] = e1
		case e2 != core.ESuccess:
			s[0] = e2
		default:
			fs := c.In.Node.FS
			var replaced disk.Ino
			if frees {
				replaced, _ = fs.Lookup(nd, newPath, false)
			}
			err := op(fs, od, oldPath, nd, newPath)
			if err == nil && replaced != 0 {
				freeUnnamed(c.In, replaced)
			}
			s[0] = core.Errno(err)
		}
	}
}

// freeUnnamed gives back the space of ino, a file an operation just took a
// name from, if it has no name left and no descriptor of the instance holds
// it (disk.FS.Unnamed): as on Linux, the space of a file removed or renamed
// over while closed comes back at once, not at the node's next crash. One a
// descriptor holds gives it back at its close (Release).
func freeUnnamed(in *core.Instance, ino disk.Ino) {
	if !in.InoOpen(ino) {
		in.Node.FS.Unnamed(ino)
	}
}

func putU64(b []byte, v uint64) {
	for i := 0; i < 8; i++ {
		b[i] = byte(v >> (8 * i))
	}
}

func args(in *core.Instance) []string {
	return append([]string{in.Node.Spec.Name}, in.Node.Spec.Args...)
}

func environ(in *core.Instance) []string {
	env := []string{"SEEDFALL=1", "SEEDFALL_NODE=" + in.Node.Spec.Name, core.AntithesisEnv + "=/" + core.AntithesisPath}
	keys := make([]string, 0, len(in.Node.Spec.Env))
	for k := range in.Node.Spec.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+in.Node.Spec.Env[k])
	}
	return env
}

func writeSizes(m api.Module, list []string, countPtr, sizePtr uint32) uint64 {
	size := 0
	for _, s := range list {
		size += len(s) + 1
	}
	if !m.Memory().WriteUint32Le(countPtr, uint32(len(list))) || !m.Memory().WriteUint32Le(sizePtr, uint32(size)) {
		return core.EFault
	}
	return core.ESuccess
}

func writeStrings(m api.Module, list []string, ptrs, buf uint32) uint64 {
	mem := m.Memory()
	for i, s := range list {
		if !mem.WriteUint32Le(ptrs+uint32(4*i), buf) || !mem.WriteString(buf, s) || !mem.WriteByte(buf+uint32(len(s)), 0) {
			return core.EFault
		}
		buf += uint32(len(s)) + 1
	}
	return core.ESuccess
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

func fileType(e *core.Desc) byte {
	switch e.Kind {
	case core.DescStdin, core.DescStdout, core.DescStderr:
		return ftCharDevice
	case core.DescDir:
		return ftDirectory
	case core.DescSock:
		if e.Sock.Datagram {
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
		return core.EFault
	}
	return core.ESuccess
}

func setTimes(in *core.Instance, ino disk.Ino, atim, mtim uint64, flags uint32) uint64 {
	st, err := in.Node.FS.Stat(ino)
	if err != nil {
		return core.Errno(err)
	}
	a, mt := st.Atim, st.Mtim
	now := in.Run.WallNow()
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
	return core.Errno(in.Node.FS.SetTimes(ino, a, mt))
}

// dirPath reads a path argument and the directory it is relative to.
func dirPath(c *core.Call, dirfd int32, ptr, n uint32) (disk.Ino, string, uint64) {
	path, ok := readString(c.Mod, ptr, n)
	if !ok {
		return 0, "", core.EFault
	}
	e := c.In.FD(dirfd)
	if e == nil {
		return 0, path, core.EBadf
	}
	if e.Kind != core.DescDir {
		return 0, path, core.ENotdir
	}
	return e.Ino, path, core.ESuccess
}

func pathOpen(c *core.Call, dirfd int32, lookup, pathPtr, pathLen, oflags uint32, rights uint64, fdflags uint32, fdPtr uint32) uint64 {
	in := c.In
	dir, path, errno := dirPath(c, dirfd, pathPtr, pathLen)
	c.KeyText(core.HashString(path), uint64(oflags)|uint64(fdflags)<<16|(rights&(rightFdRead|rightFdWrite))<<32, path, "")
	if errno != core.ESuccess {
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
	fs := in.Node.FS
	if oflags&8 != 0 {
		if !wantWrite {
			return core.EInval
		}
		// Truncate only once we know the target is a regular file.
		ino, err := fs.Open(dir, path, fl, lookup&1 != 0)
		if err != nil {
			return core.Errno(err)
		}
		if st, _ := fs.Stat(ino); st.Type == disk.TypeDir {
			return core.EIsdir
		}
		op, _, crash := in.BeforeWrite(&core.Desc{Path: fs.PathOf(ino)}, false)
		if err := fs.Truncate(ino, 0); err != nil {
			return core.Errno(err)
		}
		if crash {
			in.CrashInside(c.Ctx, op, fs.PathOf(ino), 0)
		}
		return installFile(c, ino, true, rights, fdflags, fdPtr)
	}
	ino, err := fs.Open(dir, path, fl, lookup&1 != 0)
	if err != nil {
		return core.Errno(err)
	}
	return installFile(c, ino, wantWrite, rights, fdflags, fdPtr)
}

func installFile(c *core.Call, ino disk.Ino, write bool, rights uint64, fdflags uint32, fdPtr uint32) uint64 {
	in := c.In
	st, err := in.Node.FS.Stat(ino)
	if err != nil {
		return core.Errno(err)
	}
	e := &core.Desc{Ino: ino, Path: in.Node.FS.PathOf(ino), Flags: uint16(fdflags) &^ fdflagNonblock, Read: rights&rightFdRead != 0, Write: write}
	e.Antithesis = e.Path == core.AntithesisPath
	switch st.Type {
	case disk.TypeDir:
		if write {
			return core.EIsdir
		}
		e.Kind = core.DescDir
	case disk.TypeRegular:
		e.Kind = core.DescFile
	default:
		return core.ENotsup
	}
	fd := in.AddFD(e)
	if !c.Mem().WriteUint32Le(fdPtr, uint32(fd)) {
		in.FDs[fd] = nil
		return core.EFault
	}
	return core.ESuccess
}
