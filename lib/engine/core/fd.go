package core

import (
	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/simnet"
)

// DescKind is what a descriptor refers to.
type DescKind uint8

// Descriptor kinds; the standard streams' numbers are their descriptors'.
const (
	DescStdin DescKind = iota
	DescStdout
	DescStderr
	DescDir
	DescFile
	DescSock
)

// Desc is one open descriptor of an instance.
type Desc struct {
	Kind DescKind
	Ino  disk.Ino
	Path string
	Pos  int64
	// Flags are the WASI fdflags it was opened with.
	Flags   uint16
	Read    bool
	Write   bool
	Preopen bool
	Sock    *simnet.Socket
	// Antithesis marks the file the Antithesis SDK writes its output to.
	Antithesis bool
}

// RootFD is the preopened root of each node's disk. Go's wasip1 port resolves
// every path against the preopens it finds by scanning fds from 3 up.
const RootFD = 3

func (in *Instance) initFDs() {
	in.FDs = []*Desc{
		{Kind: DescStdin, Read: true},
		{Kind: DescStdout, Write: true},
		{Kind: DescStderr, Write: true},
		{Kind: DescDir, Ino: in.Node.FS.Root(), Preopen: true, Read: true},
	}
}

// FD returns the descriptor fd, or nil when it is not open.
func (in *Instance) FD(fd int32) *Desc {
	if fd < 0 || int(fd) >= len(in.FDs) {
		return nil
	}
	return in.FDs[fd]
}

// AddFD installs e at the lowest free descriptor, as POSIX does.
func (in *Instance) AddFD(e *Desc) int32 {
	for i := RootFD + 1; i < len(in.FDs); i++ {
		if in.FDs[i] == nil {
			in.FDs[i] = e
			return int32(i)
		}
	}
	in.fdLimit(len(in.FDs))
	in.FDs = append(in.FDs, e)
	return int32(len(in.FDs) - 1)
}

// InoOpen reports whether any descriptor of the instance holds the file ino.
func (in *Instance) InoOpen(ino disk.Ino) bool {
	for _, f := range in.FDs {
		if f != nil && f.Kind == DescFile && f.Ino == ino {
			return true
		}
	}
	return false
}

// FDReady reports whether a poll subscription on fd is satisfied now.
func (in *Instance) FDReady(fd int32, write bool) bool {
	e := in.FD(fd)
	if e == nil {
		return true // reported as an error event
	}
	if e.Kind != DescSock {
		return true
	}
	if write {
		return e.Sock.Writable()
	}
	return e.Sock.Readable()
}
