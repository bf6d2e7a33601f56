package simnet

import (
	"container/heap"

	"github.com/sf-dst/sf/lib/rng"
)

// Datagrams follow UDP: each one arrives whole or not at all, after its own
// latency draw, so two datagrams can arrive in either order (but the same
// order every time the same calls are made). They are never held: a
// partition or a stop or jam clog drops a datagram that crosses it, both when
// it is sent and when it arrives, and a slow clog or slow node delays it like
// any message. A datagram that finds no socket bound at its destination, or a
// full one, is dropped too, silently, as on Linux.

// MaxDatagram is the largest datagram payload, as for UDP over IPv4
// (65,535 bytes less the IP and UDP headers). SendTo refuses a larger one
// with EMSGSIZE.
const MaxDatagram = 65507

// DatagramBufferBytes is how many payload bytes a datagram socket queues
// unread before it drops what arrives, Linux's default receive buffer
// (net.core.rmem_default).
const DatagramBufferBytes = 212992

// DatagramQueueMax is how many datagrams a socket queues unread before it
// drops what arrives, whatever their size, so that empty datagrams cannot
// queue without bound.
const DatagramQueueMax = 4096

// Ephemeral ports for ListenPacket with port 0: Linux's default range
// (net.ipv4.ip_local_port_range).
const (
	ephemeralLo = 32768
	ephemeralHi = 60999
)

type datagram struct {
	from string
	port int
	data []byte
}

// Drops counts the datagrams that never arrived, by cause.
type Drops struct {
	Loss     int // the engine passed drop (udp_loss)
	Cut      int // a partition or a stop or jam clog, when sent or when arriving
	NoSocket int // nothing was bound at the destination when it arrived
	Full     int // the destination's queue was full (DatagramBufferBytes, DatagramQueueMax)
}

// udp is the datagram state of a Net, embedded in it.
type udp struct {
	bound    map[string]*Socket // by addrKey
	nextPort map[string]int     // next ephemeral port to try, by node
	drops    Drops
}

func (u *udp) init() {
	u.bound = map[string]*Socket{}
	u.nextPort = map[string]int{}
}

// ListenPacket opens a datagram socket of node bound to port, or to a free
// ephemeral port when port is 0. Datagram ports are apart from TCP ports, as
// on Linux: a node can listen on TCP 53 and UDP 53 at once.
func (n *Net) ListenPacket(node string, inst int, port int) (*Socket, Errno) {
	if port < 0 || port > 65535 {
		return nil, EINVAL
	}
	if port == 0 {
		if port = n.ephemeral(node); port == 0 {
			return nil, EADDRINUSE
		}
	}
	key := addrKey(node, port)
	if _, taken := n.bound[key]; taken {
		return nil, EADDRINUSE
	}
	s := n.newSocket(node, inst)
	s.Datagram = true
	s.Port = port
	s.State = Established
	s.stream = rng.New(n.seed, "net", s.ID)
	s.dupStream = rng.New(n.seed, "net", s.ID, 1)
	n.bound[key] = s
	return s, OK
}

// ephemeral returns a free ephemeral datagram port of node, going round the
// range from where the last one was taken, or 0 when all are taken.
func (n *Net) ephemeral(node string) int {
	const span = ephemeralHi - ephemeralLo + 1
	start := n.nextPort[node]
	if start == 0 {
		start = ephemeralLo
	}
	for i := range span {
		p := ephemeralLo + (start-ephemeralLo+i)%span
		if _, taken := n.bound[addrKey(node, p)]; !taken {
			n.nextPort[node] = ephemeralLo + (p-ephemeralLo+1)%span
			return p
		}
	}
	return 0
}

// unbind closes datagram socket s: its port is free again and what it had
// queued is gone.
func (n *Net) unbind(s *Socket) {
	if key := addrKey(s.Node, s.Port); n.bound[key] == s {
		delete(n.bound, key)
	}
	s.inbox, s.inboxBytes = nil, 0
}

// SendTo sends datagram p from s to toNode:port. drop and dup are the
// engine's udp_loss and udp_dup choices for this datagram: drop loses it, dup
// sends a second copy with a latency of its own (drop wins over dup). An
// unknown node is EHOSTUNREACH, a bad port EINVAL, a datagram over
// MaxDatagram EMSGSIZE; a datagram cut by a fault or with no socket at the
// other end is dropped without an error.
//
// Every datagram draws its latency from its socket's stream, even when it is
// dropped, and a second copy draws from a stream of its own, so adding or
// removing a drop or a dup (as shrinking does) does not move the other
// datagrams' latencies.
func (n *Net) SendTo(s *Socket, toNode string, port int, p []byte, drop, dup bool) Errno {
	switch {
	case !s.Datagram || s.closed:
		return EINVAL
	case !n.nodes[toNode]:
		return EHOSTUNREACH
	case port <= 0 || port > 65535:
		return EINVAL
	case len(p) > MaxDatagram:
		return EMSGSIZE
	}
	data := append([]byte{}, p...)
	n.sendDatagram(s, toNode, port, data, s.stream, drop)
	if dup {
		n.sendDatagram(s, toNode, port, data, s.dupStream, drop)
	}
	if drop {
		n.drops.Loss++
	}
	return OK
}

func (n *Net) sendDatagram(s *Socket, toNode string, port int, data []byte, st *rng.Stream, drop bool) {
	at := n.now + n.latency(s.Node, toNode, st)
	if drop {
		return
	}
	if n.Direction(s.Node, toNode).Cut() {
		n.drops.Cut++
		return
	}
	n.seq++
	heap.Push(&n.queue, &event{at: at, seq: n.seq, kind: evDgram, from: s, data: data, src: s.Node, dst: toNode, port: port})
}

// arrive delivers a datagram to the socket bound at its destination, if it
// may cross and fits.
func (n *Net) arrive(e *event) {
	if n.Direction(e.src, e.dst).Cut() {
		n.drops.Cut++
		return
	}
	t := n.bound[addrKey(e.dst, e.port)]
	switch {
	case t == nil:
		n.drops.NoSocket++
		return
	case len(t.inbox) >= DatagramQueueMax || t.inboxBytes+len(e.data) > DatagramBufferBytes:
		n.drops.Full++
		return
	}
	t.inbox = append(t.inbox, datagram{from: e.src, port: e.from.Port, data: e.data})
	t.inboxBytes += len(e.data)
}

// RecvFrom takes the next datagram that arrived at s and copies it into p,
// with the node and port it came from. A datagram longer than p is truncated
// to len(p), the rest is lost, and truncated is true, as recvfrom reports
// MSG_TRUNC on Linux. It returns EAGAIN when nothing is queued and EINVAL on
// a socket that is not a datagram socket.
func (n *Net) RecvFrom(s *Socket, p []byte) (c int, fromNode string, fromPort int, truncated bool, e Errno) {
	if !s.Datagram {
		return 0, "", 0, false, EINVAL
	}
	if len(s.inbox) == 0 {
		return 0, "", 0, false, EAGAIN
	}
	d := s.inbox[0]
	s.inbox[0] = datagram{}
	s.inbox = s.inbox[1:]
	if len(s.inbox) == 0 {
		s.inbox = nil
	}
	s.inboxBytes -= len(d.data)
	c = copy(p, d.data)
	return c, d.from, d.port, c < len(d.data), OK
}

// Queued returns how many datagrams wait to be read on s.
func (s *Socket) Queued() int { return len(s.inbox) }

// DatagramDrops returns how many datagrams were lost so far, by cause.
func (n *Net) DatagramDrops() Drops { return n.drops }
