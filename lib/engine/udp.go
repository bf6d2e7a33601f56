package engine

import (
	"context"
	"fmt"

	"github.com/tetratelabs/wazero/api"

	"github.com/sf-dst/sf/lib/rng"
	"github.com/sf-dst/sf/lib/simnet"
)

// UDP datagrams. Go's wasip1 net package cannot wrap a datagram socket, so
// the SDK's sim.ListenPacket talks to these host functions directly and
// waits for readiness through Go's netpoller on the socket's fd.

// WASI file type of a datagram socket.
const ftSocketDgram = 5

func init() {
	w := func(name string, id callID, params []api.ValueType, results []api.ValueType, fn func(in *instance, ctx context.Context, m api.Module, s []uint64)) {
		hostModules["seedfall"] = append(hostModules["seedfall"], hostFunc{name, id, params, results, fn})
	}
	w("sock_listen_packet", cSimListen, p(i32, i32, i32), p(i32), func(in *instance, _ context.Context, m api.Module, s []uint64) {
		addr, ok := readString(m, uint32(s[0]), uint32(s[1]))
		in.hcall(cSimListen, hashString(addr), 1)
		if !ok {
			s[0] = eFault
			return
		}
		host, port, err := splitHostPortZero(addr)
		if err != nil || (host != "" && host != in.node.spec.Name && host != "0.0.0.0" && host != "localhost" && host != "127.0.0.1") {
			s[0] = eInval
			return
		}
		sock, errno := in.run.net.ListenPacket(in.node.spec.Name, in.num, port)
		if errno != simnet.OK {
			s[0] = uint64(errno)
			return
		}
		fd := in.addFD(&fdEntry{kind: fdSock, sock: sock, read: true, write: true})
		if !m.Memory().WriteUint32Le(uint32(s[2]), uint32(fd)) {
			s[0] = eFault
			return
		}
		s[0] = eSuccess
	})
	// sock_send_to(fd, addr, addr_len, buf, buf_len) -> errno
	w("sock_send_to", cSimUDP, p(i32, i32, i32, i32, i32), p(i32), func(in *instance, _ context.Context, m api.Module, s []uint64) {
		fd := int32(s[0])
		addr, ok1 := readString(m, uint32(s[1]), uint32(s[2]))
		buf, ok2 := m.Memory().Read(uint32(s[3]), uint32(s[4]))
		in.hcall(cSimUDP, uint64(fd), hashString(addr)^uint64(len(buf)))
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
		host, port, err := splitHostPort(addr)
		if err != nil {
			s[0] = eInval
			return
		}
		if host == "localhost" || host == "127.0.0.1" {
			host = in.node.spec.Name
		}
		drop, dup := in.datagramFaults(host)
		s[0] = uint64(in.run.net.SendTo(e.sock, host, port, buf, drop, dup))
	})
	// sock_addrs(fd, buf, cap, len*) writes "local\nremote" into buf.
	w("sock_addrs", cSimUDP, p(i32, i32, i32, i32), p(i32), func(in *instance, _ context.Context, m api.Module, s []uint64) {
		fd := int32(s[0])
		e := in.fd(fd)
		in.hcall(cSimUDP, uint64(fd), 2<<40)
		if e == nil || e.kind != fdSock {
			s[0] = eBadf
			return
		}
		local, remote := in.sockAddrs(e.sock)
		out := local + "\n" + remote
		if uint32(len(out)) > uint32(s[2]) {
			out = out[:s[2]]
		}
		if !m.Memory().WriteString(uint32(s[1]), out) || !m.Memory().WriteUint32Le(uint32(s[3]), uint32(len(out))) {
			s[0] = eFault
			return
		}
		s[0] = eSuccess
	})
	// sock_recv_from(fd, buf, buf_len, n*, from, from_cap, from_len*) -> errno
	w("sock_recv_from", cSimUDP, p(i32, i32, i32, i32, i32, i32, i32), p(i32), func(in *instance, _ context.Context, m api.Module, s []uint64) {
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
		in.hcall(cSimUDP, uint64(fd), uint64(n)|uint64(errno)<<32)
		if errno != simnet.OK {
			s[0] = uint64(errno)
			return
		}
		src := fmt.Sprintf("%s:%d", from, fromPort)
		if uint32(len(src)) > uint32(s[5]) {
			src = src[:s[5]]
		}
		mem := m.Memory()
		if !mem.WriteUint32Le(uint32(s[3]), uint32(n)) || !mem.WriteString(uint32(s[4]), src) || !mem.WriteUint32Le(uint32(s[6]), uint32(len(src))) {
			s[0] = eFault
			return
		}
		s[0] = eSuccess
	})
}

// sockAddrs names the two ends of a TCP connection, or a listener's own
// address, as "node:port". A dialer's own port is an ephemeral port derived
// from its socket's number.
func (in *instance) sockAddrs(sock *simnet.Socket) (local, remote string) {
	port := func(s *simnet.Socket) int {
		if s.Listener || s.Datagram || !s.Dialer() {
			return s.Port
		}
		return 49152 + int(s.ID%16384)
	}
	local = fmt.Sprintf("%s:%d", sock.Node, port(sock))
	if p := sock.Peer; p != nil {
		remote = fmt.Sprintf("%s:%d", p.Node, port(p))
	}
	return local, remote
}

// datagramFaults numbers a datagram the node sends and decides whether it is
// lost or duplicated: from the schedule on replay, otherwise from a stream
// keyed by the seed, the sender and the datagram's number. Quiet periods,
// the recovery phase and nodes without network faults take none.
func (in *instance) datagramFaults(to string) (drop, dup bool) {
	r, n := in.run, in.node
	n.datagrams++
	op := n.datagrams
	target := r.nodeByName(to)
	if !n.spec.NetFaults || (target != nil && !target.spec.NetFaults) || r.quiet() {
		return false, false
	}
	if r.opts.Faults != nil {
		drop = r.scheduledOps[opKey{KindUDPDrop, n.idx, op}]
		dup = r.scheduledOps[opKey{KindUDPDup, n.idx, op}]
	} else {
		var s rng.Stream
		s.Reset(r.seedOf(bsUDP), "udp", rng.Key(n.spec.Name), uint64(op))
		drop = s.Chance(r.rate(KindUDPDrop, r.spec.Net.UDPLoss))
		dup = !drop && s.Chance(r.rate(KindUDPDup, r.spec.Net.UDPDup))
	}
	for _, k := range []struct {
		on   bool
		kind string
	}{{drop, KindUDPDrop}, {dup, KindUDPDup}} {
		if k.on {
			r.res.Faults = append(r.res.Faults, Fault{At: Dur(r.now), Kind: k.kind, Node: n.spec.Name, To: to, Op: op})
			r.tracef("fault %s: datagram #%d of %s to %s", k.kind, op, in.name, to)
		}
	}
	return drop, dup
}

func splitHostPortZero(addr string) (string, int, error) {
	if len(addr) > 0 && addr[len(addr)-2:] == ":0" {
		return addr[:len(addr)-2], 0, nil
	}
	return splitHostPort(addr)
}
