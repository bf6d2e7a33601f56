// Package simnet is the simulated network: TCP-like connections between
// nodes, addressed by node name and port, whose bytes travel in chunks that
// each arrive after a seeded latency.
//
// The network holds only data. It never runs on its own: the engine asks for
// the time of the next delivery, moves virtual time there and calls Advance,
// and then asks sockets whether they are readable or writable. Everything
// that happens is ordered by (time, sequence number), so a run replays
// exactly.
package simnet

import (
	"container/heap"
	"math"
	"strconv"

	"github.com/sf-dst/sf/lib/rng"
)

// Errno is a WASI errno number, as the guest sees it.
type Errno uint16

// The errnos the network returns.
const (
	OK           Errno = 0
	EADDRINUSE   Errno = 3
	EAGAIN       Errno = 6
	ECONNREFUSED Errno = 14
	ECONNRESET   Errno = 15
	EHOSTUNREACH Errno = 23
	EINPROGRESS  Errno = 26
	EINVAL       Errno = 28
	ENOTCONN     Errno = 53
	EPIPE        Errno = 64
)

// MaxChunk is the largest piece a write is split into. Each chunk draws its
// own latency, so a large write arrives over time, in order.
const MaxChunk = 16 << 10

// State is where a connection is in its life.
type State uint8

// Connection states.
const (
	Connecting State = iota
	Established
	Refused
	Reset
)

// Socket is one end of a connection, or a listener.
type Socket struct {
	ID       uint64
	Node     string // the node that owns it
	Instance int    // the owning instance's number, for traces
	Listener bool
	Port     int
	Peer     *Socket
	State    State

	backlog   []*Socket
	rbuf      []byte
	rdEOF     bool // the peer shut down its sending side and all its data arrived
	wrClosed  bool // this end shut down its sending side
	closed    bool // the program closed this end
	lastAt    int64
	stream    *rng.Stream
	accepted  bool
	connectTo string
}

// Readable reports whether a read or accept would not block.
func (s *Socket) Readable() bool {
	if s.Listener {
		return len(s.backlog) > 0
	}
	return len(s.rbuf) > 0 || s.rdEOF || s.State == Refused || s.State == Reset
}

// Writable reports whether a write would not block (or would fail at once).
func (s *Socket) Writable() bool {
	if s.Listener {
		return false
	}
	return s.State != Connecting
}

// Status is what a dialer learns about its connection: EINPROGRESS while the
// handshake is under way, then OK, ECONNREFUSED or ECONNRESET.
func (s *Socket) Status() Errno {
	switch s.State {
	case Connecting:
		return EINPROGRESS
	case Refused:
		return ECONNREFUSED
	case Reset:
		return ECONNRESET
	}
	return OK
}

// Buffered returns how many received bytes wait to be read.
func (s *Socket) Buffered() int { return len(s.rbuf) }

type eventKind uint8

const (
	evSyn eventKind = iota
	evSynAck
	evRefuse
	evData
	evFin
	evRst
)

type event struct {
	at     int64
	seq    uint64
	kind   eventKind
	target *Socket // the socket the event arrives at
	from   *Socket // the sending end (evSyn: the dialer)
	data   []byte
}

type eventQueue []*event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(*event)) }
func (q *eventQueue) Pop() any     { old := *q; e := old[len(old)-1]; *q = old[:len(old)-1]; return e }
func (q eventQueue) peek() *event  { return q[0] }

// Net is the network of one run.
type Net struct {
	seed      uint64
	latencyNs [2]int64
	nodes     map[string]bool
	listeners map[string]*Socket
	queue     eventQueue
	seq       uint64
	nextID    uint64
	now       int64
}

// New returns the network of a run with the given seed, the per-chunk
// latency range in nanoseconds, and the names of the nodes that exist.
func New(seed uint64, latencyNs [2]int64, nodes []string) *Net {
	n := &Net{seed: seed, latencyNs: latencyNs, nodes: map[string]bool{}, listeners: map[string]*Socket{}}
	for _, name := range nodes {
		n.nodes[name] = true
	}
	return n
}

func addrKey(node string, port int) string { return node + ":" + strconv.Itoa(port) }

// Now returns the network's notion of the current virtual time.
func (n *Net) Now() int64 { return n.now }

// SetNow moves the network's clock; the engine calls it whenever virtual time
// moves, before any socket call at the new time.
func (n *Net) SetNow(now int64) { n.now = now }

// NextAt returns the time of the next pending delivery, or math.MaxInt64.
func (n *Net) NextAt() int64 {
	if len(n.queue) == 0 {
		return math.MaxInt64
	}
	return n.queue.peek().at
}

func (n *Net) newSocket(node string, inst int) *Socket {
	n.nextID++
	return &Socket{ID: n.nextID, Node: node, Instance: inst}
}

// Listen opens a listener of node on port.
func (n *Net) Listen(node string, inst int, port int) (*Socket, Errno) {
	if port <= 0 || port > 65535 {
		return nil, EINVAL
	}
	key := addrKey(node, port)
	if _, taken := n.listeners[key]; taken {
		return nil, EADDRINUSE
	}
	s := n.newSocket(node, inst)
	s.Listener = true
	s.Port = port
	s.State = Established
	n.listeners[key] = s
	return s, OK
}

// Dial starts a connection from node to toNode:port. The handshake takes a
// round trip; until then the socket's Status is EINPROGRESS.
func (n *Net) Dial(node string, inst int, toNode string, port int) (*Socket, Errno) {
	if !n.nodes[toNode] {
		return nil, EHOSTUNREACH
	}
	if port <= 0 || port > 65535 {
		return nil, EINVAL
	}
	s := n.newSocket(node, inst)
	s.State = Connecting
	s.Port = port
	s.connectTo = addrKey(toNode, port)
	s.stream = rng.New(n.seed, "net", s.ID)
	n.send(s, nil, &event{kind: evSyn, from: s})
	return s, OK
}

// send schedules e to arrive after a latency drawn for the sending end from,
// never before the previous thing from sent, so each direction stays in
// order.
func (n *Net) send(from *Socket, target *Socket, e *event) {
	at := n.now + from.stream.Between(n.latencyNs[0], n.latencyNs[1])
	if at < from.lastAt {
		at = from.lastAt
	}
	from.lastAt = at
	n.seq++
	e.at, e.seq, e.target = at, n.seq, target
	heap.Push(&n.queue, e)
}

// Accept takes the next connection waiting on listener l.
func (n *Net) Accept(l *Socket) (*Socket, Errno) {
	if !l.Listener {
		return nil, EINVAL
	}
	if len(l.backlog) == 0 {
		return nil, EAGAIN
	}
	s := l.backlog[0]
	l.backlog = l.backlog[1:]
	s.accepted = true
	return s, OK
}

// Write sends p to the peer. Writes never block: the simulated network
// buffers without limit.
func (n *Net) Write(s *Socket, p []byte) (int, Errno) {
	switch {
	case s.Listener:
		return 0, ENOTCONN
	case s.State == Connecting:
		return 0, EAGAIN
	case s.State == Refused:
		return 0, ECONNREFUSED
	case s.State == Reset:
		return 0, ECONNRESET
	case s.wrClosed:
		return 0, EPIPE
	}
	for off := 0; off < len(p); off += MaxChunk {
		end := min(off+MaxChunk, len(p))
		chunk := append([]byte(nil), p[off:end]...)
		n.send(s, s.Peer, &event{kind: evData, from: s, data: chunk})
	}
	return len(p), OK
}

// Read copies received bytes into p. It returns 0, OK at end of stream and
// EAGAIN when nothing has arrived yet.
func (n *Net) Read(s *Socket, p []byte) (int, Errno) {
	switch {
	case s.Listener:
		return 0, ENOTCONN
	case s.State == Refused:
		return 0, ECONNREFUSED
	case s.State == Reset:
		return 0, ECONNRESET
	case len(s.rbuf) > 0:
		c := copy(p, s.rbuf)
		s.rbuf = s.rbuf[c:]
		if len(s.rbuf) == 0 {
			s.rbuf = nil
		}
		return c, OK
	case s.rdEOF:
		return 0, OK
	case s.State == Connecting:
		return 0, EAGAIN
	}
	return 0, EAGAIN
}

// ShutdownWrite ends this side's stream: the peer reads end of file after
// everything sent so far.
func (n *Net) ShutdownWrite(s *Socket) Errno {
	if s.Listener || s.State != Established {
		return ENOTCONN
	}
	if !s.wrClosed {
		s.wrClosed = true
		n.send(s, s.Peer, &event{kind: evFin, from: s})
	}
	return OK
}

// Close is the program closing its end.
func (n *Net) Close(s *Socket) {
	if s.closed {
		return
	}
	s.closed = true
	if s.Listener {
		delete(n.listeners, addrKey(s.Node, s.Port))
		for _, c := range s.backlog {
			n.reset(c)
		}
		s.backlog = nil
		return
	}
	if s.State == Established && !s.wrClosed {
		s.wrClosed = true
		n.send(s, s.Peer, &event{kind: evFin, from: s})
	}
}

// reset tears down s at once and tells its peer, as a kernel does when the
// process that owns a socket dies.
func (n *Net) reset(s *Socket) {
	if s.Listener {
		n.Close(s)
		return
	}
	s.closed = true
	if s.Peer != nil && (s.State == Established || s.State == Connecting) {
		n.send(s, s.Peer, &event{kind: evRst, from: s})
	}
	s.State = Reset
	s.rbuf = nil
}

// Crash resets every socket in sockets (those of a node instance that died).
func (n *Net) Crash(sockets []*Socket) {
	for _, s := range sockets {
		if !s.closed || s.Listener {
			n.reset(s)
		}
	}
}

// Advance delivers everything due at or before now.
func (n *Net) Advance(now int64) {
	for len(n.queue) > 0 && n.queue.peek().at <= now {
		e := heap.Pop(&n.queue).(*event)
		// Anything a delivery sends back leaves at the delivery's own time.
		n.now = max(n.now, e.at)
		n.deliver(e)
	}
	n.now = now
}

func (n *Net) deliver(e *event) {
	switch e.kind {
	case evSyn:
		d := e.from
		if d.State != Connecting {
			return // the dialer died before its handshake reached the listener
		}
		l := n.listeners[d.connectTo]
		if l == nil || l.closed {
			n.send(d, nil, &event{kind: evRefuse, from: d})
			// The refusal travels back to the dialer itself.
			return
		}
		node, _ := splitKey(d.connectTo)
		s := n.newSocket(node, l.Instance)
		s.State = Established
		s.Port = l.Port
		s.Peer = d
		s.stream = rng.New(n.seed, "net", s.ID)
		d.Peer = s
		l.backlog = append(l.backlog, s)
		n.send(s, d, &event{kind: evSynAck, from: s})
	case evRefuse:
		if e.from.State == Connecting {
			e.from.State = Refused
		}
	case evSynAck:
		switch t := e.target; {
		case t.State == Connecting:
			t.State = Established
			if t.closed {
				n.reset(t)
			}
		case t.State == Reset && e.from.State == Established:
			// The dialer died during the handshake: answer with a reset so
			// the accepting side does not keep a connection nobody owns.
			n.send(t, e.from, &event{kind: evRst, from: t})
		}
	case evData:
		t := e.target
		if t.State != Established {
			return
		}
		if t.closed {
			// Data for a socket the program has closed: a real stack answers
			// with a reset, and so do we.
			n.reset(t)
			return
		}
		t.rbuf = append(t.rbuf, e.data...)
	case evFin:
		if e.target.State == Established {
			e.target.rdEOF = true
		}
	case evRst:
		t := e.target
		if t.State == Established || t.State == Connecting {
			t.State = Reset
			t.rbuf = nil
		}
	}
}

func splitKey(key string) (string, int) {
	for i := len(key) - 1; i >= 0; i-- {
		if key[i] == ':' {
			p, _ := strconv.Atoi(key[i+1:])
			return key[:i], p
		}
	}
	return key, 0
}
