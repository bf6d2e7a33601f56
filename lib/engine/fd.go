package engine

import (
	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/simnet"
)

type fdKind uint8

const (
	fdStdin fdKind = iota
	fdStdout
	fdStderr
	fdDir
	fdFile
	fdSock
)

// fdEntry is one open descriptor of an instance.
type fdEntry struct {
	kind    fdKind
	ino     disk.Ino
	path    string
	pos     int64
	flags   uint16 // WASI fdflags
	read    bool
	write   bool
	preopen bool
	sock    *simnet.Socket
	// antithesis marks the file the Antithesis SDK writes its output to.
	antithesis bool
}

// The preopened root of each node's disk. Go's wasip1 port resolves every
// path against the preopens it finds by scanning fds from 3 up.
const rootFD = 3

func (in *instance) initFDs() {
	in.fds = []*fdEntry{
		{kind: fdStdin, read: true},
		{kind: fdStdout, write: true},
		{kind: fdStderr, write: true},
		{kind: fdDir, ino: in.node.fs.Root(), preopen: true, read: true},
	}
}

func (in *instance) fd(fd int32) *fdEntry {
	if fd < 0 || int(fd) >= len(in.fds) {
		return nil
	}
	return in.fds[fd]
}

// addFD installs e at the lowest free descriptor, as POSIX does.
func (in *instance) addFD(e *fdEntry) int32 {
	for i := rootFD + 1; i < len(in.fds); i++ {
		if in.fds[i] == nil {
			in.fds[i] = e
			return int32(i)
		}
	}
	in.fdLimit(len(in.fds))
	in.fds = append(in.fds, e)
	return int32(len(in.fds) - 1)
}

// fdReady reports whether a poll subscription on fd is satisfied now.
func (in *instance) fdReady(fd int32, write bool) bool {
	e := in.fd(fd)
	if e == nil {
		return true // reported as an error event
	}
	if e.kind != fdSock {
		return true
	}
	if write {
		return e.sock.Writable()
	}
	return e.sock.Readable()
}
