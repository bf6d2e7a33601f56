package core

import (
	"fmt"
	"strings"
)

// NodeFDs is one node's open descriptors as -inspect shows them at a
// snapshot's moment; Instance is "" while the node is down.
type NodeFDs struct {
	Node     string
	Instance string
	FDs      []FDView
}

// FDView is one open descriptor: its number and a line saying what it is.
type FDView struct {
	FD   int
	What string
}

// Inspect lists each node's disk and open descriptors at p. It may only be
// called during the AtStep call that got p.
func (p StepPoint) Inspect() ([]NodeDisk, []NodeFDs) {
	var disks []NodeDisk
	var fds []NodeFDs
	for _, n := range p.r.Nodes {
		disks = append(disks, NodeDisk{Node: n.Spec.Name, UsageBytes: n.FS.Usage(), CapacityBytes: n.FS.Capacity(), Files: n.FS.Files()})
		v := NodeFDs{Node: n.Spec.Name}
		if in := n.Cur; in != nil {
			v.Instance = in.Name
			for i, d := range in.FDs {
				if d != nil {
					v.FDs = append(v.FDs, FDView{FD: i, What: d.describe()})
				}
			}
		}
		fds = append(fds, v)
	}
	return disks, fds
}

// describe is the descriptor's line of -inspect.
func (d *Desc) describe() string {
	switch d.Kind {
	case DescStdin:
		return "stdin"
	case DescStdout:
		return "stdout"
	case DescStderr:
		return "stderr"
	case DescSock:
		if d.Sock == nil {
			return "socket"
		}
		return "socket " + d.Sock.Describe()
	}
	if d.Kind == DescDir {
		if d.Preopen {
			return "dir / (the disk's root, preopened)"
		}
		return "dir " + d.Path
	}
	what := "file " + d.Path
	var mode []string
	if d.Read {
		mode = append(mode, "read")
	}
	if d.Write {
		mode = append(mode, "write")
	}
	if len(mode) > 0 {
		what += " (" + strings.Join(mode, ", ") + ")"
	}
	return what + fmt.Sprintf(" at offset %d", d.Pos)
}
