package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/tetratelabs/wazero/api"

	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/simnet"
)

// The host side of net_overlay (lib/build/overlay.go): the functions that
// Go's net package calls once the overlay has patched it (tcp_* for TCP,
// udp_* for UDP), and the files that let it resolve node names.
//
// Every program of the world (nodes, workloads, the finally check) has a
// fixed IPv4 address, 10.0.0.1 for the first in spec order, 10.0.0.2 for the
// next and so on, counting on past 10.0.0.255 into 10.0.1.0. Each node's
// disk holds an /etc/hosts that names them all, and an /etc/nsswitch.conf
// that tells Go's resolver to look only there, so an unknown name fails at
// once instead of waiting for a DNS server that does not exist.

// WASI errno numbers net_overlay answers besides the network's own.
const (
	eAddrNotAvail = 4
	eHostUnreach  = 23
)

// Ephemeral ports. A listener on port 0 gets the node's lowest free port
// from ephemeralPortFirst up (Linux's range); a dialed connection's local
// port is derived from its socket's number in the IANA dynamic range, as the
// SDK's connections name it too (udp.go), so the two rarely meet.
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

// nodeIP is the IPv4 address of the node with index idx.
func nodeIP(idx int) [4]byte {
	v := uint32(10)<<24 + uint32(idx) + 1
	return [4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
}

// ipNode returns the index of the node whose address is ip, or -1.
func ipNode(ip [4]byte, nodes int) int {
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
		ip := nodeIP(i)
		fmt.Fprintf(&b, "%d.%d.%d.%d\t%s\n", ip[0], ip[1], ip[2], ip[3], name)
	}
	return []byte(b.String())
}

// nsswitchFile sends host lookups to /etc/hosts only.
const nsswitchFile = "# Written by sf for net_overlay: names resolve through /etc/hosts only.\nhosts: files\n"

// seedNetOverlay puts /etc/hosts and /etc/nsswitch.conf on a node's disk,
// durable, before the node first starts. A seeded /etc/hosts keeps its lines
// after the world's names; a seeded /etc/nsswitch.conf is left alone.
func seedNetOverlay(fs *disk.FS, spec *Spec, seed []SeedFile) error {
	names := make([]string, len(spec.Nodes))
	for i := range spec.Nodes {
		names[i] = spec.Nodes[i].Name
	}
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
	if err := fs.AddFile(hostsPath, hosts); err != nil {
		return err
	}
	if ownNsswitch {
		return nil
	}
	return fs.AddFile(nsswitchPath, []byte(nsswitchFile))
}

// dialPort is the local port of the connection dialed as socket id.
func dialPort(id uint64) uint32 { return dialPortFirst + uint32(id%dialPorts) }

// overlayAddr reads the IP argument of tcp_listen and tcp_dial: none, 4
// bytes or 16. any is true for no address or an unspecified one, loopback
// for 127.0.0.0/8 and ::1. Other IPv6 addresses are not node addresses.
type overlayAddr struct {
	ip            [4]byte
	v4            bool
	any, loopback bool
}

func readOverlayIP(m api.Module, ptr, n uint32) (overlayAddr, bool) {
	b, ok := m.Memory().Read(ptr, n)
	if !ok {
		return overlayAddr{}, false
	}
	var a overlayAddr
	switch len(b) {
	case 0:
		a.any = true
	case 4:
		copy(a.ip[:], b)
		a.v4 = true
		a.any = a.ip == [4]byte{}
		a.loopback = a.ip[0] == 127
	case 16:
		var zero [16]byte
		loop := zero
		loop[15] = 1
		a.any, a.loopback = [16]byte(b) == zero, [16]byte(b) == loop
	}
	return a, true
}

func init() {
	w := func(name string, id callID, params []api.ValueType, results []api.ValueType, fn func(in *instance, ctx context.Context, m api.Module, s []uint64)) {
		hostModules["seedfall"] = append(hostModules["seedfall"], hostFunc{name, id, params, results, fn})
	}
	// tcp_listen(ip, ip_len, port, out) listens on the node. out receives the
	// fd, the port (the lowest free ephemeral one for port 0) and the node's
	// address.
	w("tcp_listen", cNetListen, p(i32, i32, i32, i32), p(i32), func(in *instance, _ context.Context, m api.Module, s []uint64) {
		a, ok := readOverlayIP(m, uint32(s[0]), uint32(s[1]))
		port := int(uint32(s[2]))
		in.hcall(cNetListen, uint64(a.ip[0])<<24|uint64(a.ip[1])<<16|uint64(a.ip[2])<<8|uint64(a.ip[3]), uint64(port))
		switch {
		case !ok:
			s[0] = eFault
			return
		case !a.any && !a.loopback && !(a.v4 && ipNode(a.ip, len(in.run.nodes)) == in.node.idx):
			s[0] = eAddrNotAvail
			return
		case port > 65535:
			s[0] = eInval
			return
		}
		var l *simnet.Socket
		errno := simnet.EADDRINUSE
		if port != 0 {
			l, errno = in.run.net.Listen(in.node.spec.Name, in.num, port)
		} else {
			for port = ephemeralPortFirst; port <= ephemeralPortLast && errno == simnet.EADDRINUSE; port++ {
				l, errno = in.run.net.Listen(in.node.spec.Name, in.num, port)
			}
			port--
		}
		if errno != simnet.OK {
			s[0] = uint64(errno)
			return
		}
		s[0] = in.installOverlaySock(m, uint32(s[3]), l, uint32(port))
	})
	// tcp_dial(ip, ip_len, port, out) starts a connection to the node with
	// that address (this node for a loopback or unspecified one). out
	// receives the fd, the connection's local port and the node's address.
	w("tcp_dial", cNetDial, p(i32, i32, i32, i32), p(i32), func(in *instance, _ context.Context, m api.Module, s []uint64) {
		a, ok := readOverlayIP(m, uint32(s[0]), uint32(s[1]))
		port := int(uint32(s[2]))
		in.hcall(cNetDial, uint64(a.ip[0])<<24|uint64(a.ip[1])<<16|uint64(a.ip[2])<<8|uint64(a.ip[3]), uint64(port))
		if !ok {
			s[0] = eFault
			return
		}
		target := in.node.idx
		if !a.any && !a.loopback {
			if target = -1; a.v4 {
				target = ipNode(a.ip, len(in.run.nodes))
			}
			if target < 0 {
				s[0] = eHostUnreach
				return
			}
		}
		c, errno := in.run.net.Dial(in.node.spec.Name, in.num, in.run.nodes[target].spec.Name, port)
		if errno != simnet.OK {
			s[0] = uint64(errno)
			return
		}
		s[0] = in.installOverlaySock(m, uint32(s[3]), c, dialPort(c.ID))
	})
	// tcp_addrs(fd, out) writes the local address and port of an
	// established connection, then the remote ones.
	w("tcp_addrs", cNetAddrs, p(i32, i32), p(i32), func(in *instance, _ context.Context, m api.Module, s []uint64) {
		fd := int32(s[0])
		e := in.fd(fd)
		var errno uint64
		switch {
		case e == nil:
			errno = eBadf
		case e.kind != fdSock:
			errno = eNotsock
		case e.sock.Listener || e.sock.Peer == nil:
			errno = uint64(simnet.ENOTCONN)
		}
		in.hcall(cNetAddrs, uint64(fd), errno)
		if errno != eSuccess {
			s[0] = errno
			return
		}
		sock, peer := e.sock, e.sock.Peer
		var buf [16]byte
		local, remote := nodeIP(in.node.idx), [4]byte{}
		if n := in.run.nodeByName(peer.Node); n != nil {
			remote = nodeIP(n.idx)
		}
		copy(buf[0:4], local[:])
		copy(buf[8:12], remote[:])
		// Both ends' Port is the listener's: the one dialed.
		if sock.Dialer() {
			putU32(buf[4:], dialPort(sock.ID))
			putU32(buf[12:], uint32(sock.Port))
		} else {
			putU32(buf[4:], uint32(sock.Port))
			putU32(buf[12:], dialPort(peer.ID))
		}
		if !m.Memory().Write(uint32(s[1]), buf[:]) {
			s[0] = eFault
			return
		}
		s[0] = eSuccess
	})
	// node_ip(out) writes the node's own IPv4 address at out, 4 bytes, for
	// the interfaces that net.Interfaces and net.InterfaceAddrs list. The
	// engine numbers the nodes, so it is the one source of the address that
	// the program cannot change or lose: /etc/hosts is a file on the node's
	// disk that disk faults can strike, and reading it there would shift the
	// numbering of read faults.
	w("node_ip", cNetNodeIP, p(i32), p(i32), func(in *instance, _ context.Context, m api.Module, s []uint64) {
		ip := nodeIP(in.node.idx)
		in.hcall(cNetNodeIP, uint64(in.node.idx), 0)
		if !m.Memory().Write(uint32(s[0]), ip[:]) {
			s[0] = eFault
			return
		}
		s[0] = eSuccess
	})
	// udp_listen(ip, ip_len, port, out) binds a datagram socket on the node.
	// out receives the fd, the port (a free one for port 0, as the SDK's
	// sockets get) and the node's address.
	w("udp_listen", cSimListen, p(i32, i32, i32, i32), p(i32), func(in *instance, _ context.Context, m api.Module, s []uint64) {
		a, ok := readOverlayIP(m, uint32(s[0]), uint32(s[1]))
		port := int(uint32(s[2]))
		in.hcall(cSimListen, uint64(a.ip[0])<<24|uint64(a.ip[1])<<16|uint64(a.ip[2])<<8|uint64(a.ip[3]), uint64(port)|2<<32)
		switch {
		case !ok:
			s[0] = eFault
			return
		case !a.any && !a.loopback && !(a.v4 && ipNode(a.ip, len(in.run.nodes)) == in.node.idx):
			s[0] = eAddrNotAvail
			return
		case port > 65535:
			s[0] = eInval
			return
		}
		sock, errno := in.run.net.ListenPacket(in.node.spec.Name, in.num, port)
		if errno != simnet.OK {
			s[0] = uint64(errno)
			return
		}
		s[0] = in.installOverlaySock(m, uint32(s[3]), sock, uint32(sock.Port))
	})
	// udp_send_to(fd, ip, ip_len, port, buf, buf_len) sends a datagram to
	// the node with that address (this node for a loopback or unspecified
	// one), subject to udp_loss and udp_dup as the SDK's datagrams are.
	w("udp_send_to", cSimUDP, p(i32, i32, i32, i32, i32, i32), p(i32), func(in *instance, _ context.Context, m api.Module, s []uint64) {
		fd := int32(s[0])
		a, ok1 := readOverlayIP(m, uint32(s[1]), uint32(s[2]))
		port := int(uint32(s[3]))
		buf, ok2 := m.Memory().Read(uint32(s[4]), uint32(s[5]))
		in.hcall(cSimUDP, uint64(fd), (uint64(a.ip[0])<<24|uint64(a.ip[1])<<16|uint64(a.ip[2])<<8|uint64(a.ip[3]))<<16^uint64(port)<<48^uint64(len(buf)))
		e := in.fd(fd)
		switch {
		case !ok1 || !ok2:
			s[0] = eFault
			return
		case e == nil:
			s[0] = eBadf
			return
		case e.kind != fdSock || !e.sock.Datagram:
			s[0] = eNotsock
			return
		}
		target := in.node.idx
		if !a.any && !a.loopback {
			if target = -1; a.v4 {
				target = ipNode(a.ip, len(in.run.nodes))
			}
			if target < 0 {
				s[0] = eHostUnreach
				return
			}
		}
		to := in.run.nodes[target].spec.Name
		drop, dup := in.datagramFaults(to)
		s[0] = uint64(in.run.net.SendTo(e.sock, to, port, buf, drop, dup))
	})
	// udp_recv_from(fd, buf, buf_len, out) takes the next datagram into buf
	// (cut to buf_len) and writes 12 bytes at out: its length as copied, the
	// sender's port and the sender node's address.
	w("udp_recv_from", cSimUDP, p(i32, i32, i32, i32), p(i32), func(in *instance, _ context.Context, m api.Module, s []uint64) {
		fd := int32(s[0])
		e := in.fd(fd)
		if e == nil || e.kind != fdSock || !e.sock.Datagram {
			in.hcall(cSimUDP, uint64(fd), 1<<40)
			s[0] = eBadf
			return
		}
		buf, ok := m.Memory().Read(uint32(s[1]), uint32(s[2]))
		if !ok {
			s[0] = eFault
			return
		}
		n, from, fromPort, _, errno := in.run.net.RecvFrom(e.sock, buf)
		in.hcall(cSimUDP, uint64(fd), uint64(n)|uint64(errno)<<32|3<<40)
		if errno != simnet.OK {
			s[0] = uint64(errno)
			return
		}
		var out [12]byte
		putU32(out[0:], uint32(n))
		putU32(out[4:], uint32(fromPort))
		if sender := in.run.nodeByName(from); sender != nil {
			ip := nodeIP(sender.idx)
			copy(out[8:], ip[:])
		}
		if !m.Memory().Write(uint32(s[3]), out[:]) {
			s[0] = eFault
			return
		}
		s[0] = eSuccess
	})
}

// installOverlaySock gives the program an fd for sock and writes the 12-byte
// answer of tcp_listen and tcp_dial at ptr: the fd, port, and the node's
// address.
func (in *instance) installOverlaySock(m api.Module, ptr uint32, sock *simnet.Socket, port uint32) uint64 {
	e := &fdEntry{kind: fdSock, sock: sock, read: true, write: !sock.Listener}
	fd := in.addFD(e)
	var buf [12]byte
	putU32(buf[0:], uint32(fd))
	putU32(buf[4:], port)
	ip := nodeIP(in.node.idx)
	copy(buf[8:], ip[:])
	if !m.Memory().Write(ptr, buf[:]) {
		in.fds[fd] = nil
		in.run.net.Close(sock)
		return eFault
	}
	return eSuccess
}

func putU32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}
