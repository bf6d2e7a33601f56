// Package udp is the host side of UDP datagrams, for both ways a guest can
// reach them: the SDK's sim.ListenPacket, which names peers as "node:port"
// (Go's wasip1 net package cannot wrap a datagram socket, so the SDK calls
// these functions directly and waits for readiness through Go's netpoller
// on the socket's fd), and net_overlay's patched net package, which names
// them by IPv4 address. Both go through the same binding, sending and
// receiving below, with the same datagram faults; each keeps its own words
// in the determinism hash.
package udp

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tetratelabs/wazero/api"

	"github.com/sf-dst/sf/lib/engine/core"
	"github.com/sf-dst/sf/lib/engine/netoverlay"
	"github.com/sf-dst/sf/lib/simnet"
)

// Adapter is the UDP host functions of both ABIs.
type Adapter struct{}

// Module is sf's own host module.
func (Adapter) Module() string { return "seedfall" }

// Funcs are the datagram functions, each with its word in the hash.
func (Adapter) Funcs() []core.HostFunc { return funcs }

var i32 = api.ValueTypeI32

func p(ts ...api.ValueType) []api.ValueType { return ts }

// The hash words of the calls that share ID sim.udp (53) tell them apart in
// the bits above 40.
const (
	markBadRecv   = 1 << 40
	markAddrs     = 2 << 40
	markRecvNet   = 3 << 40
	idListen      = 42 // shared with sim.listen
	idDatagram    = 53
	markListenSDK = 1
	markListenNet = 2 << 32
)

var funcs = []core.HostFunc{
	// sock_listen_packet(addr, addr_len, fd*) binds a datagram socket on
	// "host:port" of this node (port 0 for a free one).
	{Name: "sock_listen_packet", ID: idListen, Params: p(i32, i32, i32), Results: p(i32), Run: func(c *core.Call) {
		in, s := c.In, c.Stack
		addr, ok := readString(c.Mod, uint32(s[0]), uint32(s[1]))
		c.KeyText(core.HashString(addr), markListenSDK, addr, "")
		if !ok {
			s[0] = core.EFault
			return
		}
		host, port, err := splitHostPortZero(addr)
		if err != nil || (host != "" && host != in.Node.Spec.Name && host != "0.0.0.0" && host != "localhost" && host != "127.0.0.1") {
			s[0] = core.EInval
			return
		}
		sock, errno := listen(in, port)
		if errno != simnet.OK {
			s[0] = uint64(errno)
			return
		}
		fd := in.AddFD(&core.Desc{Kind: core.DescSock, Sock: sock, Read: true, Write: true})
		if !c.Mem().WriteUint32Le(uint32(s[2]), uint32(fd)) {
			s[0] = core.EFault
			return
		}
		s[0] = core.ESuccess
	}},
	// udp_listen(ip, ip_len, port, out) binds a datagram socket on the node
	// for net_overlay. out receives the fd, the port (a free one for port 0,
	// as the SDK's sockets get) and the node's address.
	{Name: "udp_listen", ID: idListen, Params: p(i32, i32, i32, i32), Results: p(i32), Run: func(c *core.Call) {
		in, s := c.In, c.Stack
		a, ok := netoverlay.ReadIP(c.Mod, uint32(s[0]), uint32(s[1]))
		port := int(uint32(s[2]))
		c.Key(a.Word(), uint64(port)|markListenNet)
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
		sock, errno := listen(in, port)
		if errno != simnet.OK {
			s[0] = uint64(errno)
			return
		}
		s[0] = netoverlay.InstallSock(c, uint32(s[3]), sock, uint32(sock.Port))
	}},
	// sock_send_to(fd, addr, addr_len, buf, buf_len) sends a datagram to
	// "node:port".
	{Name: "sock_send_to", ID: idDatagram, Params: p(i32, i32, i32, i32, i32), Results: p(i32), Run: func(c *core.Call) {
		in, s := c.In, c.Stack
		fd := int32(s[0])
		addr, ok1 := readString(c.Mod, uint32(s[1]), uint32(s[2]))
		buf, ok2 := c.Mem().Read(uint32(s[3]), uint32(s[4]))
		c.Key(uint64(fd), core.HashString(addr)^uint64(len(buf)))
		e, errno := datagramSocket(in, fd, ok1 && ok2)
		if errno != core.ESuccess {
			s[0] = errno
			return
		}
		host, port, err := SplitHostPort(addr)
		if err != nil {
			s[0] = core.EInval
			return
		}
		if host == "localhost" || host == "127.0.0.1" {
			host = in.Node.Spec.Name
		}
		s[0] = sendTo(in, e, host, port, buf)
	}},
	// udp_send_to(fd, ip, ip_len, port, buf, buf_len) sends a datagram to
	// the node with that address (this node for a loopback or unspecified
	// one), for net_overlay.
	{Name: "udp_send_to", ID: idDatagram, Params: p(i32, i32, i32, i32, i32, i32), Results: p(i32), Run: func(c *core.Call) {
		in, s := c.In, c.Stack
		fd := int32(s[0])
		a, ok1 := netoverlay.ReadIP(c.Mod, uint32(s[1]), uint32(s[2]))
		port := int(uint32(s[3]))
		buf, ok2 := c.Mem().Read(uint32(s[4]), uint32(s[5]))
		c.Key(uint64(fd), a.Word()<<16^uint64(port)<<48^uint64(len(buf)))
		e, errno := datagramSocket(in, fd, ok1 && ok2)
		if errno != core.ESuccess {
			s[0] = errno
			return
		}
		target, ok := a.Target(in)
		if !ok {
			s[0] = core.EHostUnreach
			return
		}
		s[0] = sendTo(in, e, target.Spec.Name, port, buf)
	}},
	// sock_recv_from(fd, buf, buf_len, n*, from, from_cap, from_len*) takes
	// the next datagram, and names its sender as "node:port".
	{Name: "sock_recv_from", ID: idDatagram, Params: p(i32, i32, i32, i32, i32, i32, i32), Results: p(i32), Run: func(c *core.Call) {
		s := c.Stack
		n, from, fromPort, errno := recvFrom(c, 0)
		if errno != core.ESuccess {
			s[0] = errno
			return
		}
		src := fmt.Sprintf("%s:%d", from, fromPort)
		if uint32(len(src)) > uint32(s[5]) {
			src = src[:s[5]]
		}
		mem := c.Mem()
		if !mem.WriteUint32Le(uint32(s[3]), uint32(n)) || !mem.WriteString(uint32(s[4]), src) || !mem.WriteUint32Le(uint32(s[6]), uint32(len(src))) {
			s[0] = core.EFault
			return
		}
		s[0] = core.ESuccess
	}},
	// udp_recv_from(fd, buf, buf_len, out) takes the next datagram into buf
	// (cut to buf_len) and writes 12 bytes at out: its length as copied, the
	// sender's port and the sender node's address.
	{Name: "udp_recv_from", ID: idDatagram, Params: p(i32, i32, i32, i32), Results: p(i32), Run: func(c *core.Call) {
		s := c.Stack
		n, from, fromPort, errno := recvFrom(c, markRecvNet)
		if errno != core.ESuccess {
			s[0] = errno
			return
		}
		var out [12]byte
		putU32(out[0:], uint32(n))
		putU32(out[4:], uint32(fromPort))
		if sender := c.In.Run.NodeByName(from); sender != nil {
			ip := netoverlay.NodeIP(sender.Idx)
			copy(out[8:], ip[:])
		}
		if !c.Mem().Write(uint32(s[3]), out[:]) {
			s[0] = core.EFault
			return
		}
		s[0] = core.ESuccess
	}},
	// sock_addrs(fd, buf, cap, len*) writes "local\nremote" into buf, for
	// the SDK's connections and datagram sockets.
	{Name: "sock_addrs", ID: idDatagram, Params: p(i32, i32, i32, i32), Results: p(i32), Run: func(c *core.Call) {
		in, s := c.In, c.Stack
		fd := int32(s[0])
		e := in.FD(fd)
		c.Key(uint64(fd), markAddrs)
		if e == nil || e.Kind != core.DescSock {
			s[0] = core.EBadf
			return
		}
		local, remote := sockAddrs(e.Sock)
		out := local + "\n" + remote
		if uint32(len(out)) > uint32(s[2]) {
			out = out[:s[2]]
		}
		if !c.Mem().WriteString(uint32(s[1]), out) || !c.Mem().WriteUint32Le(uint32(s[3]), uint32(len(out))) {
			s[0] = core.EFault
			return
		}
		s[0] = core.ESuccess
	}},
}

// listen binds a datagram socket of in on port, 0 for a free one.
func listen(in *core.Instance, port int) (*simnet.Socket, simnet.Errno) {
	return in.Run.Net.ListenPacket(in.Node.Spec.Name, in.Num, port)
}

// datagramSocket returns the datagram socket fd of in; args says whether the
// call's other arguments were readable.
func datagramSocket(in *core.Instance, fd int32, args bool) (*core.Desc, uint64) {
	e := in.FD(fd)
	switch {
	case !args:
		return nil, core.EFault
	case e == nil:
		return nil, core.EBadf
	case e.Kind != core.DescSock || !e.Sock.Datagram:
		return nil, core.ENotsock
	}
	return e, core.ESuccess
}

// sendTo sends buf from e to port of the node named to, with the datagram
// faults of the seed or the schedule.
func sendTo(in *core.Instance, e *core.Desc, to string, port int, buf []byte) uint64 {
	drop, dup := in.DatagramFaults(to)
	return uint64(in.Run.Net.SendTo(e.Sock, to, port, buf, drop, dup))
}

// recvFrom takes the next datagram of the socket in the call's first
// argument into the buffer its next two name. It keys the call, with mark
// telling the two ABIs apart.
func recvFrom(c *core.Call, mark uint64) (n int, from string, fromPort int, errno uint64) {
	in, s := c.In, c.Stack
	fd := int32(s[0])
	e := in.FD(fd)
	if e == nil || e.Kind != core.DescSock || !e.Sock.Datagram {
		c.Key(uint64(fd), markBadRecv)
		return 0, "", 0, core.EBadf
	}
	buf, ok := c.Mem().Read(uint32(s[1]), uint32(s[2]))
	if !ok {
		c.Unkeyed() // as it always was: a guest that passes a bad buffer adds nothing
		return 0, "", 0, core.EFault
	}
	n, from, fromPort, _, err := in.Run.Net.RecvFrom(e.Sock, buf)
	c.Key(uint64(fd), uint64(n)|uint64(err)<<32|mark)
	if err != simnet.OK {
		return 0, "", 0, uint64(err)
	}
	return n, from, fromPort, core.ESuccess
}

// sockAddrs names the two ends of a TCP connection, or a socket's own
// address, as "node:port". A dialer's own port is an ephemeral port derived
// from its socket's number.
func sockAddrs(sock *simnet.Socket) (local, remote string) {
	port := func(s *simnet.Socket) int {
		if s.Listener || s.Datagram || !s.Dialer() {
			return s.Port
		}
		return int(netoverlay.DialPort(s.ID))
	}
	local = fmt.Sprintf("%s:%d", sock.Node, port(sock))
	if p := sock.Peer; p != nil {
		remote = fmt.Sprintf("%s:%d", p.Node, port(p))
	}
	return local, remote
}

func readString(m api.Module, ptr, n uint32) (string, bool) {
	b, ok := m.Memory().Read(ptr, n)
	if !ok {
		return "", false
	}
	return string(b), true
}

func putU32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

// SplitHostPort splits "host:port", with port from 1 to 65535.
func SplitHostPort(addr string) (string, int, error) {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		return "", 0, fmt.Errorf("missing port in %q", addr)
	}
	port, err := strconv.Atoi(addr[i+1:])
	if err != nil || port <= 0 || port > 65535 {
		return "", 0, fmt.Errorf("bad port in %q", addr)
	}
	host := strings.TrimSuffix(strings.TrimPrefix(addr[:i], "["), "]")
	return host, port, nil
}

func splitHostPortZero(addr string) (string, int, error) {
	if len(addr) > 0 && addr[len(addr)-2:] == ":0" {
		return addr[:len(addr)-2], 0, nil
	}
	return SplitHostPort(addr)
}
