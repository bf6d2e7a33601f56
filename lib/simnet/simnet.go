// Package simnet is the simulated network: TCP-like connections and UDP-like
// datagrams between nodes, addressed by node name and port, whose bytes
// travel in chunks that each arrive after a seeded latency.
//
// The network holds only data. It never runs on its own: the engine asks for
// the time of the next delivery, moves virtual time there and calls Advance,
// and then asks sockets whether they are readable or writable. Everything
// that happens is ordered by (time, sequence number), so a run replays
// exactly.
//
// The network faults of the spec are data too (faults.go): per-link
// latencies (SetLinks), partitions (Partition, Heal), clogs in stop, jam and
// slow modes (Clog, Unclog), slow nodes (SetSlow) and connection resets
// (ResetNode). The engine decides when each starts and ends and calls these
// at the current virtual time, after Advance. Datagrams are in udp.go.
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
	EDESTADDRREQ Errno = 17
	EINVAL       Errno = 28
	EMSGSIZE     Errno = 35
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

// Socket is one end of a connection, a listener, or a datagram socket.
type Socket struct {
	ID       uint64
	Node     string // the node that owns it
	Instance int    // the owning instance's number, for traces
	Listener bool
	Datagram bool // a UDP socket from ListenPacket
	Port     int  // a listener's or datagram socket's own port; a connection's listening port
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
	// connectNode is the node a dialer dials.
	connectNode string

	// lastData is the last data chunk this end sent, and rbufLast the last
	// chunk that arrived here (from rbufFrom), for MutantDropAfterClose.
	lastData, rbufLast *event
	rbufFrom           *Socket

	// Datagram sockets only.
	inbox      []datagram
	inboxBytes int
	dupStream  *rng.Stream // latencies of the second copies of duplicated datagrams
}

// Readable reports whether a read or accept would not block.
func (s *Socket) Readable() bool {
	if s.Listener {
		return len(s.backlog) > 0
	}
	if s.Datagram {
		return len(s.inbox) > 0
	}
	return len(s.rbuf) > 0 || s.rdEOF || s.State == Refused || s.State == Reset
}

// Writable reports whether a write would not block (or would fail at once).
func (s *Socket) Writable() bool {
	if s.Listener {
		return false
	}
	if s.Datagram {
		return true // sends never block; they fail or go at once
	}
	return s.State != Connecting
}

// Dialer reports whether this end opened its connection (as opposed to
// being accepted by a listener).
func (s *Socket) Dialer() bool { return s.connectTo != "" }

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
	evDgram
)

type event struct {
	at     int64
	seq    uint64
	kind   eventKind
	target *Socket // the socket the event arrives at
	from   *Socket // the sending end (evSyn: the dialer)
	data   []byte
	// src and dst are the nodes the event travels between, which the
	// network's faults look at. An evRefuse travels from the dialed node
	// back to the dialer.
	src, dst string
	port     int // evDgram: the destination port
	// delivered and dropped serve MutantDropAfterClose.
	delivered, dropped bool
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

	// conns holds every connection socket in the order it was made, so
	// ResetNode can find a node's connections without iterating a map. It
	// is compacted as connections end.
	conns     []*Socket
	connsLive int // len(conns) after the last compaction

	// free holds data events delivered without a mutant, which nothing
	// refers to any more, for the next writes: a run sends one per chunk
	// written. It is not the network's state; Clone leaves it out.
	free []*event
	// block is where Write copies the chunks it sends (chunkCopy). It is
	// not the network's state either: Clone and Decode start without one.
	block []byte

	faults
	udp
	mutantState
}

// New returns the network of a run with the given seed, the per-chunk
// latency range in nanoseconds, and the names of the nodes that exist.
func New(seed uint64, latencyNs [2]int64, nodes []string) *Net {
	n := &Net{seed: seed, latencyNs: latencyNs, nodes: map[string]bool{}, listeners: map[string]*Socket{}}
	n.faults.init()
	n.udp.init()
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
	s.connectNode = toNode
	s.stream = rng.New(n.seed, "net", s.ID)
	n.track(s)
	if n.stopped(node, toNode) || n.stopped(toNode, node) {
		// A stopped direction either way refuses a new connection: the
		// refusal comes back after one hop, and no SYN goes out.
		n.send(s, nil, &event{kind: evRefuse, from: s})
		return s, OK
	}
	n.send(s, nil, &event{kind: evSyn, from: s})
	return s, OK
}

// send schedules e to arrive after a latency drawn for the sending end from,
// never before the previous thing from sent, so each direction stays in
// order.
func (n *Net) send(from *Socket, target *Socket, e *event) {
	e.src, e.dst = from.Node, from.Node
	switch {
	case target != nil:
		e.dst = target.Node
	case e.kind == evSyn:
		e.dst = from.connectNode
	case e.kind == evRefuse:
		e.src = from.connectNode
	}
	at := n.now + n.latency(e.src, e.dst, from.stream)
	if at < from.lastAt {
		at = from.lastAt
	}
	from.lastAt = at
	n.seq++
	e.at, e.seq, e.target = at, n.seq, target
	heap.Push(&n.queue, e)
}

// track records a new connection socket for ResetNode, dropping the ones
// that have ended whenever the list has doubled since it was last compacted.
func (n *Net) track(s *Socket) {
	if len(n.conns) >= 2*n.connsLive+64 {
		n.compactConns()
	}
	n.conns = append(n.conns, s)
}

func (n *Net) compactConns() {
	live := n.conns[:0]
	for _, s := range n.conns {
		if s.open() {
			live = append(live, s)
		}
	}
	clear(n.conns[len(live):])
	n.conns = live
	n.connsLive = len(live)
}

// open reports whether connection socket s is still a connection of its
// node's: under way or established, and not fully closed in both
// directions.
func (s *Socket) open() bool {
	if s.State != Connecting && s.State != Established {
		return false
	}
	return !(s.closed && s.rdEOF)
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
	case s.Datagram:
		return 0, EDESTADDRREQ // a datagram socket has no peer to write to
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
		chunk := n.chunkCopy(p[off:end])
		e := n.dataEvent(s, chunk)
		n.send(s, s.Peer, e)
		if n.mutant != MutantNone {
			s.lastData = e
			if n.dupChunk(s.Peer.Node) {
				e2 := &event{kind: evData, from: s, data: chunk}
				n.send(s, s.Peer, e2)
				s.lastData = e2
			}
		}
	}
	return len(p), OK
}

// Read copies received bytes into p. It returns 0, OK at end of stream and
// EAGAIN when nothing has arrived yet.
func (n *Net) Read(s *Socket, p []byte) (int, Errno) {
	if s.Datagram {
		c, _, _, _, e := n.RecvFrom(s, p)
		return c, e
	}
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
	if s.Listener || s.Datagram || s.State != Established {
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
	if s.Datagram {
		n.unbind(s)
		return
	}
	if s.Listener {
		delete(n.listeners, addrKey(s.Node, s.Port))
		for _, c := range s.backlog {
			n.reset(c)
		}
		s.backlog = nil
		return
	}
	if s.State == Established && !s.wrClosed {
		if n.mutant == MutantDropAfterClose {
			n.dropLast(s)
		}
		s.wrClosed = true
		n.send(s, s.Peer, &event{kind: evFin, from: s})
	}
}

// reset tears down s at once and tells its peer, as a kernel does when the
// process that owns a socket dies.
func (n *Net) reset(s *Socket) {
	if s.Listener || s.Datagram {
		n.Close(s)
		return
	}
	s.closed = true
	n.abort(s)
}

// abort resets connection socket s at once and sends its peer a reset,
// without closing it for the program, which reads ECONNRESET from it.
func (n *Net) abort(s *Socket) {
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
		if n.holds(e) {
			n.held = append(n.held, e)
			continue
		}
		n.deliver(e)
		if e.kind == evData && n.mutant == MutantNone {
			*e = event{}
			n.free = append(n.free, e)
		}
	}
	n.now = now
}

// chunkBlockBytes is the size of the blocks chunkCopy copies small chunks
// into: a block lives as long as any chunk in it (an unread one a receive
// buffer took whole, say), so it is kept to a few pages.
const chunkBlockBytes = 8 << 10

// chunkCopy returns a copy of the written bytes p. Small chunks (up to an
// eighth of a block) share blocks, one allocation for many of them: an
// allocation for each was the most frequent of a sweep's in the worlds that
// talk over the network, and its garbage with it. Each copy is capped at
// its length, so that an append to it (a receive buffer's) never writes
// into the next one.
func (n *Net) chunkCopy(p []byte) []byte {
	if len(p) > chunkBlockBytes/8 {
		return append([]byte(nil), p...)
	}
	if cap(n.block)-len(n.block) < len(p) {
		n.block = make([]byte, 0, chunkBlockBytes)
	}
	a := len(n.block)
	n.block = append(n.block, p...)
	return n.block[a:len(n.block):len(n.block)]
}

// dataEvent is a data event from s carrying chunk, a delivered one reused
// when there is one.
func (n *Net) dataEvent(s *Socket, chunk []byte) *event {
	if k := len(n.free); k > 0 {
		e := n.free[k-1]
		n.free = n.free[:k-1]
		e.kind, e.from, e.data = evData, s, chunk
		return e
	}
	return &event{kind: evData, from: s, data: chunk}
}

func (n *Net) deliver(e *event) {
	switch e.kind {
	case evSyn:
		d := e.from
		if d.State != Connecting {
			return // the dialer died before its handshake reached the listener
		}
		if n.stopped(e.src, e.dst) || n.stopped(e.dst, e.src) {
			// A partition or stop clog came up while the SYN was on its way.
			n.send(d, nil, &event{kind: evRefuse, from: d})
			return
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
		n.track(s)
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
		if n.mutant != MutantNone {
			if e.dropped {
				return
			}
			e.delivered = true
			t.rbufFrom, t.rbufLast = e.from, e
		}
		if len(t.rbuf) == 0 {
			// The chunk is the sender's copy, which nothing writes to: an
			// empty buffer takes it as it is, instead of a copy of it.
			// Capped, so that a later append copies rather than writes
			// after it.
			t.rbuf = e.data[:len(e.data):len(e.data)]
		} else {
			t.rbuf = append(t.rbuf, e.data...)
		}
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
	case evDgram:
		n.arrive(e)
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

// Rekey changes the seed that the network's latency streams are keyed by, as
// a branch of the net stream does. Sockets made from now on key their
// streams by the new seed and their id, and every socket that already has a
// stream restarts it the same way, so that latencies drawn after the branch
// follow from the new seed alone. Each socket's stream is reset on its own,
// so the order the sockets are visited in does not matter.
func (n *Net) Rekey(seed uint64) {
	n.seed = seed
	for _, s := range n.conns {
		if s.stream != nil {
			s.stream.Reset(seed, "net", s.ID)
		}
	}
	for _, s := range n.bound {
		s.stream.Reset(seed, "net", s.ID)
		s.dupStream.Reset(seed, "net", s.ID, 1)
	}
}
