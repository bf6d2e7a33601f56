// Package netoverlay is the host side of net_overlay (lib/build/overlay.go):
// the TCP functions that Go's net package calls once the overlay has patched
// it, the node addresses they speak in, and the files that let the
// resolver find node names. Its UDP functions are the udp adapter's.
//
// Every program of the world (nodes, workloads, the finally check) has a
// fixed IPv4 address, 10.0.0.1 for the first in spec order, 10.0.0.2 for the
// next and so on, counting on past 10.0.0.255 into 10.0.1.0. Each node's
// disk holds an /etc/hosts that names them all, and an /etc/nsswitch.conf
// that tells Go's resolver to look only there, so an unknown name fails at
// once instead of waiting for a DNS server that does not exist.
package netoverlay

import (
	"fmt"
	"strings"

	"github.com/tetratelabs/wazero/api"

	"github.com/sf-dst/sf/lib/engine/core"
	"github.com/sf-dst/sf/lib/simnet"
)

// Adapter is net_overlay's TCP host functions.
type Adapter struct{}

// Module is sf's own host module.
func (Adapter) Module() string { return "seedfall" }

// Funcs are the overlay's TCP functions, each with its word in the hash.
func (Adapter) Funcs() []core.HostFunc { return funcs }

// Ephemeral ports. A listener on port 0 gets the node's lowest free port
// from ephemeralPortFirst up (Linux's range); a dialed connection's local
// port is derived from its socket's number in the IANA dynamic range, as the
// SDK's connections name it too (the udp adapter's sock_addrs), so the two
// rarely meet.
const (
	ephemeralPortFirst = 32768
	ephemeralPortLast  = 60999
	dialPortFirst      = 49152
	dialPorts          = 16384
)

// Paths of the files net_overlay puts on every disk, relative to its root.
const (
	hostsPath    = "etc/hosts"
	nsswitchPath = "etc/nsswitch.conf"
)

var i32 = api.ValueTypeI32

func p(ts ...api.ValueType) []api.ValueType { return ts }

var funcs = []core.HostFunc{
	// tcp_listen(ip, ip_len, port, out) listens on the node. out receives the
	// fd, the port (the lowest free ephemeral one for port 0) and the node's
	// address.
	{Name: "tcp_listen", ID: 50, Params: p(i32, i32, i32, i32), Results: p(i32), Run: func(c *core.Call) {
		in, s := c.In, c.Stack
		a, ok := ReadIP(c.Mod, uint32(s[0]), uint32(s[1]))
		port := int(uint32(s[2]))
		c.Key(a.Word(), uint64(port))
		switch {
		case !ok:
			s[0] = core.EFault
			return
		case !a.Local(in):
			s[0] = core.EAddrNotAvail
			return
		case port > 65535:
			s[0] = core.EInval
			return
		}
		var l *simnet.Socket
		errno := simnet.EADDRINUSE
		if port != 0 {
			l, errno = in.Run.Net.Listen(in.Node.Spec.Name, in.Num, port)
		} else {
			for port = ephemeralPortFirst; port <= ephemeralPortLast && errno == simnet.EADDRINUSE; port++ {
				l, errno = in.Run.Net.Listen(in.Node.Spec.Name, in.Num, port)
			}
			port--
		}
		if errno != simnet.OK {
			s[0] = uint64(errno)
			return
		}
		s[0] = InstallSock(c, uint32(s[3]), l, uint32(port))
	}},
	// tcp_dial(ip, ip_len, port, out) starts a connection to the node with
	// that address (this node for a loopback or unspecified one). out
	// receives the fd, the connection's local port and the node's address.
	{Name: "tcp_dial", ID: 51, Params: p(i32, i32, i32, i32), Results: p(i32), Run: func(c *core.Call) {
		in, s := c.In, c.Stack
		a, ok := ReadIP(c.Mod, uint32(s[0]), uint32(s[1]))
		port := int(uint32(s[2]))
		c.Key(a.Word(), uint64(port))
		if !ok {
			s[0] = core.EFault
			return
		}
		target, ok := a.Target(in)
		if !ok {
			s[0] = core.EHostUnreach
			return
		}
		conn, errno := in.Run.Net.Dial(in.Node.Spec.Name, in.Num, target.Spec.Name, port)
		if errno != simnet.OK {
			s[0] = uint64(errno)
			return
		}
		s[0] = InstallSock(c, uint32(s[3]), conn, DialPort(conn.ID))
	}},
	// tcp_addrs(fd, out) writes the local address and port of an
	// established connection, then the remote ones.
	{Name: "tcp_addrs", ID: 52, Params: p(i32, i32), Results: p(i32), Run: func(c *core.Call) {
		in, s := c.In, c.Stack
		fd := int32(s[0])
		e := in.FD(fd)
		var errno uint64
		switch {
		case e == nil:
			errno = core.EBadf
		case e.Kind != core.DescSock:
			errno = core.ENotsock
		case e.Sock.Listener || e.Sock.Peer == nil:
			errno = uint64(simnet.ENOTCONN)
		}
		c.Key(uint64(fd), errno)
		if errno != core.ESuccess {
			s[0] = errno
			return
		}
		sock, peer := e.Sock, e.Sock.Peer
		var buf [16]byte
		local, remote := NodeIP(in.Node.Idx), [4]byte{}
		if n := in.Run.NodeByName(peer.Node); n != nil {
			remote = NodeIP(n.Idx)
		}
		copy(buf[0:4], local[:])
		copy(buf[8:12], remote[:])
		// Both ends' Port is the listener's: the one dialed.
		if sock.Dialer() {
			putU32(buf[4:], DialPort(sock.ID))
			putU32(buf[12:], uint32(sock.Port))
		} else {
			putU32(buf[4:], uint32(sock.Port))
			putU32(buf[12:], DialPort(peer.ID))
		}
		if !c.Mem().Write(uint32(s[1]), buf[:]) {
			s[0] = core.EFault
			return
		}
		s[0] = core.ESuccess
	}},
	// node_ip(out) writes the node's own IPv4 address at out, 4 bytes, for
	// the interfaces that net.Interfaces and net.InterfaceAddrs list. The
	// engine numbers the nodes, so it is the one source of the address that
	// the program cannot change or lose: /etc/hosts is a file on the node's
	// disk that disk faults can strike, and reading it there would shift the
	// numbering of read faults.
	{Name: "node_ip", ID: 57, Params: p(i32), Results: p(i32), Run: func(c *core.Call) {
		in, s := c.In, c.Stack
		ip := NodeIP(in.Node.Idx)
		c.Key(uint64(in.Node.Idx), 0)
		if !c.Mem().Write(uint32(s[0]), ip[:]) {
			s[0] = core.EFault
			return
		}
		s[0] = core.ESuccess
	}},
}

// NodeIP is the IPv4 address of the node with index idx.
func NodeIP(idx int) [4]byte {
	v := uint32(10)<<24 + uint32(idx) + 1
	return [4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
}

// NodeOfIP returns the index of the node whose address is ip, or -1.
func NodeOfIP(ip [4]byte, nodes int) int {
	v := uint32(ip[0])<<24 | uint32(ip[1])<<16 | uint32(ip[2])<<8 | uint32(ip[3])
	idx := int64(v) - (10<<24 + 1)
	if idx < 0 || idx >= int64(nodes) {
		return -1
	}
	return int(idx)
}

// HostsFile is the /etc/hosts that net_overlay gives every node of a world
// whose programs are named names, in spec order.
func HostsFile(names []string) []byte {
	var b strings.Builder
	b.WriteString("# Written by sf for net_overlay: every program of the world by name.\n")
	b.WriteString("127.0.0.1\tlocalhost\n")
	for i, name := range names {
		ip := NodeIP(i)
		fmt.Fprintf(&b, "%d.%d.%d.%d\t%s\n", ip[0], ip[1], ip[2], ip[3], name)
	}
	return []byte(b.String())
}

// nsswitchFile sends host lookups to /etc/hosts only.
const nsswitchFile = "# Written by sf for net_overlay: names resolve through /etc/hosts only.\nhosts: files\n"

// SeedFiles returns a node's seeded files with the ones net_overlay adds
// after them: /etc/hosts and /etc/nsswitch.conf. A seeded /etc/hosts keeps
// its lines after the world's names; a seeded /etc/nsswitch.conf is left
// alone. names are every program of the world, in spec order.
func SeedFiles(names []string, seed []core.SeedFile) []core.SeedFile {
	hosts := HostsFile(names)
	ownNsswitch := false
	for _, f := range seed {
		switch f.Path {
		case hostsPath:
			hosts = append(append(hosts, "# Seeded with the node's disk:\n"...), f.Data...)
		case nsswitchPath:
			ownNsswitch = true
		}
	}
	out := append(append([]core.SeedFile(nil), seed...), core.SeedFile{Path: hostsPath, Data: hosts})
	if !ownNsswitch {
		out = append(out, core.SeedFile{Path: nsswitchPath, Data: []byte(nsswitchFile)})
	}
	return out
}

// DialPort is the local port of the connection dialed as socket id.
func DialPort(id uint64) uint32 { return dialPortFirst + uint32(id%dialPorts) }

// Addr is the IP argument of the overlay's functions: none, 4 bytes or 16.
// Any is true for no address or an unspecified one, Loopback for 127.0.0.0/8
// and ::1. Other IPv6 addresses are not node addresses.
type Addr struct {
	IP            [4]byte
	V4            bool
	Any, Loopback bool
}

// ReadIP reads an IP argument of n bytes at ptr.
func ReadIP(m api.Module, ptr, n uint32) (Addr, bool) {
	b, ok := m.Memory().Read(ptr, n)
	if !ok {
		return Addr{}, false
	}
	var a Addr
	switch len(b) {
	case 0:
		a.Any = true
	case 4:
		copy(a.IP[:], b)
		a.V4 = true
		a.Any = a.IP == [4]byte{}
		a.Loopback = a.IP[0] == 127
	case 16:
		var zero [16]byte
		loop := zero
		loop[15] = 1
		a.Any, a.Loopback = [16]byte(b) == zero, [16]byte(b) == loop
	}
	return a, true
}

// Word is the address as one word of the determinism hash.
func (a Addr) Word() uint64 {
	return uint64(a.IP[0])<<24 | uint64(a.IP[1])<<16 | uint64(a.IP[2])<<8 | uint64(a.IP[3])
}

// Local reports whether a names the instance's own node: any address,
// loopback, or the node's own.
func (a Addr) Local(in *core.Instance) bool {
	return a.Any || a.Loopback || a.V4 && NodeOfIP(a.IP, len(in.Run.Nodes)) == in.Node.Idx
}

// Target is the node a names, the instance's own for a loopback or
// unspecified address; false when no node has the address.
func (a Addr) Target(in *core.Instance) (*core.Node, bool) {
	target := in.Node.Idx
	if !a.Any && !a.Loopback {
		if target = -1; a.V4 {
			target = NodeOfIP(a.IP, len(in.Run.Nodes))
		}
		if target < 0 {
			return nil, false
		}
	}
	return in.Run.Nodes[target], true
}

// InstallSock gives the program an fd for sock and writes the 12-byte
// answer of the overlay's listen and dial at ptr: the fd, port, and the
// node's address.
func InstallSock(c *core.Call, ptr uint32, sock *simnet.Socket, port uint32) uint64 {
	in := c.In
	e := &core.Desc{Kind: core.DescSock, Sock: sock, Read: true, Write: !sock.Listener}
	fd := in.AddFD(e)
	var buf [12]byte
	putU32(buf[0:], uint32(fd))
	putU32(buf[4:], port)
	ip := NodeIP(in.Node.Idx)
	copy(buf[8:], ip[:])
	if !c.Mem().Write(ptr, buf[:]) {
		in.FDs[fd] = nil
		in.Run.Net.Close(sock)
		return core.EFault
	}
	return core.ESuccess
}

func putU32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}
