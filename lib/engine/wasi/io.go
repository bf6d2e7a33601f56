package wasi

import (
	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/engine/core"
	"github.com/sf-dst/sf/lib/faults"
	"github.com/sf-dst/sf/lib/simnet"
)

// short numbers a read or write call on a file or a socket (kind
// short_read or short_write, at its counter), and decides whether it is cut
// short: then it returns how many bytes the call may move, at least 1 and
// fewer than its iovecs ask for. 0 is no limit. The bytes come from the
// schedule when it gives them, else from the fault's stream.
func short(c *core.Call, e *core.Desc, kind string, counter faults.Counter, iovs, iovsLen uint32) (limit uint32, op int64) {
	in := c.In
	if e.Kind != core.DescFile && e.Kind != core.DescSock || e.Antithesis {
		return 0, 0
	}
	op = in.Node.Next(counter)
	if !in.Run.Fires(in.Node, kind, op) {
		return 0, op
	}
	mem := c.Mod.Memory()
	var want uint64
	for i := uint32(0); i < iovsLen; i++ {
		n, ok := mem.ReadUint32Le(iovs + 8*i + 4)
		if !ok {
			return 0, op // a bad iovec: the call fails with EFault there, uncut
		}
		want += uint64(n)
	}
	want = min(want, 1<<32-1)
	if want < 2 {
		return 0, op // nothing shorter to return
	}
	if f, ok := in.Run.Replayed(in.Node, kind, op); ok && f.Bytes > 0 {
		if uint64(f.Bytes) >= want {
			return 0, op
		}
		return uint32(f.Bytes), op
	}
	return 1 + uint32(in.Run.FaultStream(kind, in.Node, op).Intn(int(want-1))), op
}

// cut trims buf to what is left of limit after total bytes; a limit of 0
// leaves it whole.
func cut(buf []byte, total, limit uint32) []byte {
	if limit > 0 && uint32(len(buf)) > limit-total {
		return buf[:limit-total]
	}
	return buf
}

// readv reads into the iovecs at iovs; off < 0 reads at and moves the
// descriptor's position.
func readv(c *core.Call, fd int32, iovs, iovsLen uint32, off int64) (uint32, uint64) {
	in := c.In
	e := in.FD(fd)
	if e == nil {
		return 0, core.EBadf
	}
	limit, shortOp := short(c, e, faults.KindShortRead, faults.ReadCall, iovs, iovsLen)
	total, errno := readIovecs(c, e, iovs, iovsLen, off, limit)
	if limit > 0 && total == limit && errno == core.ESuccess {
		in.RecordFault(faults.Fault{Kind: faults.KindShortRead, Op: shortOp, Bytes: int64(total), Path: e.Path})
	}
	return total, errno
}

// readIovecs reads into the iovecs at iovs, at most limit bytes in all
// when limit is above 0.
func readIovecs(c *core.Call, e *core.Desc, iovs, iovsLen uint32, off int64, limit uint32) (uint32, uint64) {
	in, m := c.In, c.Mod
	mem := m.Memory()
	var total uint32
	var readOp int64
	for i := uint32(0); i < iovsLen; i++ {
		if limit > 0 && total == limit {
			break
		}
		ptr, ok1 := mem.ReadUint32Le(iovs + 8*i)
		n, ok2 := mem.ReadUint32Le(iovs + 8*i + 4)
		if !ok1 || !ok2 {
			return total, core.EFault
		}
		buf, ok := mem.Read(ptr, n)
		if !ok {
			return total, core.EFault
		}
		buf = cut(buf, total, limit)
		n = uint32(len(buf))
		var got int
		switch e.Kind {
		case core.DescStdin:
			return total, core.ESuccess
		case core.DescStdout, core.DescStderr:
			return total, core.EBadf
		case core.DescDir:
			return total, core.EIsdir
		case core.DescSock:
			if off >= 0 {
				return total, core.ESpipe
			}
			got2, errno := in.Run.Net.Read(e.Sock, buf)
			if errno != simnet.OK {
				if total > 0 && errno == simnet.EAGAIN {
					return total, core.ESuccess
				}
				return total, uint64(errno)
			}
			got = got2
		case core.DescFile:
			if !e.Read {
				return total, core.EBadf
			}
			pos := e.Pos
			if off >= 0 {
				pos = off + int64(total)
			}
			if readOp == 0 {
				var errno uint64
				if readOp, errno = in.BeforeRead(e); errno != core.ESuccess {
					return total, errno
				}
			}
			k, err := in.Node.FS.ReadAtOnto(e.Ino, buf, pos, in.ReadZeroTest(buf, ptr).Zero)
			if err != nil {
				return total, core.Errno(err)
			}
			if in.AfterRead(e, readOp, buf[:k], pos) {
				in.ForgetZeros()
			}
			in.ReadEnded(ptr + uint32(k))
			got = k
			if off < 0 {
				e.Pos += int64(k)
			}
		}
		total += uint32(got)
		if uint32(got) < n {
			break
		}
	}
	return total, core.ESuccess
}

func writev(c *core.Call, fd int32, iovs, iovsLen uint32, off int64) (uint32, uint64) {
	in := c.In
	e := in.FD(fd)
	if e == nil {
		return 0, core.EBadf
	}
	if c.Resuming() {
		// A fork copied the node inside the sync of a write with O_SYNC
		// or O_DSYNC: the data is written (a short write recorded), the
		// sync goes on.
		if errno := in.Fsync(c.Ctx, e); errno != core.ESuccess {
			return 0, errno
		}
		return uint32(c.Carried()), core.ESuccess
	}
	sc := shortCut{kind: faults.KindShortWrite}
	sc.limit, sc.op = short(c, e, faults.KindShortWrite, faults.WriteCall, iovs, iovsLen)
	total, errno := writeIovecs(c, e, iovs, iovsLen, off, &sc)
	if errno == core.ESuccess {
		sc.record(in, e, total)
	}
	return total, errno
}

// shortCut is a short read or write that a call's faults asked for: at
// most limit bytes, when limit is above 0, at op of the kind's counter.
type shortCut struct {
	kind     string
	limit    uint32
	op       int64
	recorded bool
}

// record records the fault once the call has moved total bytes, if it cut
// the call short: once, so that a write with O_SYNC can record it before
// its sync, where a fork may copy the node.
func (sc *shortCut) record(in *core.Instance, e *core.Desc, total uint32) {
	if sc.limit > 0 && total == sc.limit && !sc.recorded {
		sc.recorded = true
		in.RecordFault(faults.Fault{Kind: sc.kind, Op: sc.op, Bytes: int64(total), Path: e.Path})
	}
}

// writeIovecs writes the iovecs at iovs, at most sc.limit bytes in all when
// that is above 0.
func writeIovecs(c *core.Call, e *core.Desc, iovs, iovsLen uint32, off int64, sc *shortCut) (uint32, uint64) {
	in, ctx, m := c.In, c.Ctx, c.Mod
	limit := sc.limit
	crashing := false // crash_on_io hit this write: no sync follows it
	if e.Kind == core.DescFile && e.Write && !e.Antithesis {
		op, errno, crash := in.BeforeWrite(e, true)
		if errno != core.ESuccess {
			return 0, errno
		}
		if crash {
			crashing = true
			defer in.CrashInside(ctx, op, e.Path, 0)
		}
	}
	mem := m.Memory()
	var total uint32
	for i := uint32(0); i < iovsLen; i++ {
		if limit > 0 && total == limit {
			break
		}
		ptr, ok1 := mem.ReadUint32Le(iovs + 8*i)
		n, ok2 := mem.ReadUint32Le(iovs + 8*i + 4)
		if !ok1 || !ok2 {
			return total, core.EFault
		}
		buf, ok := mem.Read(ptr, n)
		if !ok {
			return total, core.EFault
		}
		buf = cut(buf, total, limit)
		n = uint32(len(buf))
		switch e.Kind {
		case core.DescStdout, core.DescStderr:
			in.Output(int(e.Kind), buf)
		case core.DescStdin:
			return total, core.EBadf
		case core.DescDir:
			return total, core.EIsdir
		case core.DescSock:
			if off >= 0 {
				return total, core.ESpipe
			}
			k, errno := in.Run.Net.Write(e.Sock, buf)
			if errno != simnet.OK {
				if total > 0 {
					return total, core.ESuccess
				}
				return total, uint64(errno)
			}
			n = uint32(k)
		case core.DescFile:
			if !e.Write {
				return total, core.EBadf
			}
			if e.Antithesis {
				in.AntithesisOutput(ctx, buf)
				total += n
				continue
			}
			fs := in.Node.FS
			pos := e.Pos
			switch {
			case off >= 0:
				pos = off + int64(total)
			case e.Flags&fdflagAppend != 0:
				st, err := fs.Stat(e.Ino)
				if err != nil {
					return total, core.Errno(err)
				}
				pos = st.Size
			}
			k, err := fs.WriteAt(e.Ino, buf, pos)
			if err != nil {
				if total > 0 {
					return total, core.ESuccess
				}
				return total, core.Errno(err)
			}
			if off < 0 {
				e.Pos = pos + int64(k)
			}
			if uint32(k) < n { // the disk is full: a short write
				return total + uint32(k), core.ESuccess
			}
			n = uint32(k)
		}
		total += n
	}
	if e.Kind == core.DescFile && e.Flags&(fdflagSync|fdflagDsync) != 0 && !e.Antithesis && !crashing && in.OsyncIgnored() {
		in.Run.MutantHit()
	} else if e.Kind == core.DescFile && e.Flags&(fdflagSync|fdflagDsync) != 0 && !e.Antithesis && !crashing {
		// O_SYNC and O_DSYNC: the write is an fsync too, a disk operation of
		// its own with every fsync fault (latency, crash_on_io, fsync_eio,
		// lost_write, misdirected_write). A failed sync fails the write.
		sc.record(in, e, total)
		c.Carry(uint64(total))
		if errno := in.Fsync(ctx, e); errno != core.ESuccess {
			return 0, errno
		}
	}
	return total, core.ESuccess
}

// syncFD is fsync and fdatasync, which the disk does not tell apart.
func syncFD(c *core.Call, fd int32) uint64 {
	in, ctx := c.In, c.Ctx
	if !c.Resuming() {
		c.Key(uint64(fd), 0)
	}
	e := in.FD(fd)
	switch {
	case e == nil:
		return core.EBadf
	case e.Kind == core.DescFile || e.Kind == core.DescDir:
		return in.Fsync(ctx, e)
	case e.Kind == core.DescSock:
		return core.EInval
	}
	return core.ESuccess
}

func readdir(c *core.Call, fd int32, buf, bufLen uint32, cookie uint64, usedPtr uint32) uint64 {
	in, m := c.In, c.Mod
	e := in.FD(fd)
	if e == nil {
		return core.EBadf
	}
	if e.Kind != core.DescDir {
		return core.ENotdir
	}
	fs := in.Node.FS
	list, err := fs.ReadDir(e.Ino)
	if err != nil {
		return core.Errno(err)
	}
	entries := make([]disk.DirEntry, 0, len(list)+2)
	entries = append(entries, disk.DirEntry{Name: ".", Ino: e.Ino, Type: disk.TypeDir}, disk.DirEntry{Name: "..", Ino: fs.Parent(e.Ino), Type: disk.TypeDir})
	entries = append(entries, list...)
	if cookie > uint64(len(entries)) {
		return core.EInval
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
		return core.EFault
	}
	return core.ESuccess
}
