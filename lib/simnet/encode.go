package simnet

import (
	"maps"
	"slices"

	"github.com/sf-dst/sf/lib/rng"
	"github.com/sf-dst/sf/lib/wire"
)

// Sockets and events point at one another (a connection's two ends, a
// listener's backlog, the events in flight to a socket, the last chunk a
// socket sent), so an encoding numbers each once and writes the pointers as
// numbers: 0 for nil, i+1 for the i-th. Sockets are numbered in the order
// they are first met from the sockets outside the network that the caller
// holds, then from the network's own lists and maps (maps in the order of
// their keys), so one state always encodes to the same bytes.

// numbering is the numbers Encode gives sockets and events.
type numbering struct {
	socks  map[*Socket]uint64
	sockL  []*Socket
	events map[*event]uint64
	eventL []*event
}

func (nb *numbering) sock(s *Socket) uint64 {
	if s == nil {
		return 0
	}
	if i, ok := nb.socks[s]; ok {
		return i
	}
	nb.sockL = append(nb.sockL, s)
	nb.socks[s] = uint64(len(nb.sockL))
	return nb.socks[s]
}

func (nb *numbering) event(e *event) uint64 {
	if e == nil {
		return 0
	}
	if i, ok := nb.events[e]; ok {
		return i
	}
	nb.eventL = append(nb.eventL, e)
	nb.events[e] = uint64(len(nb.eventL))
	return nb.events[e]
}

// walk numbers every socket and event reachable from those numbered so far.
func (nb *numbering) walk() {
	si, ei := 0, 0
	for si < len(nb.sockL) || ei < len(nb.eventL) {
		for ; si < len(nb.sockL); si++ {
			s := nb.sockL[si]
			nb.sock(s.Peer)
			for _, b := range s.backlog {
				nb.sock(b)
			}
			nb.event(s.lastData)
			nb.event(s.rbufLast)
			nb.sock(s.rbufFrom)
		}
		for ; ei < len(nb.eventL); ei++ {
			e := nb.eventL[ei]
			nb.sock(e.target)
			nb.sock(e.from)
		}
	}
}

// Encode writes the network's state for a snapshot file: everything Clone
// copies. held are sockets that the caller holds apart from the network (a
// program's descriptors), which Encode numbers first, in their order; it
// returns the number of each socket, which the caller writes in their place
// and Decode's function turns back into the decoded socket.
func (n *Net) Encode(w *wire.Writer, held []*Socket) func(*Socket) uint64 {
	nb := &numbering{socks: map[*Socket]uint64{}, events: map[*event]uint64{}}
	for _, s := range held {
		nb.sock(s)
	}
	listeners := slices.Sorted(maps.Keys(n.listeners))
	for _, k := range listeners {
		nb.sock(n.listeners[k])
	}
	for _, e := range n.queue {
		nb.event(e)
	}
	for _, s := range n.conns {
		nb.sock(s)
	}
	for _, e := range n.held {
		nb.event(e)
	}
	bound := slices.Sorted(maps.Keys(n.bound))
	for _, k := range bound {
		nb.sock(n.bound[k])
	}
	nb.walk()

	w.Uint(uint64(len(nb.sockL)))
	w.Uint(uint64(len(nb.eventL)))
	for _, s := range nb.sockL {
		s.encode(w, nb)
	}
	for _, e := range nb.eventL {
		w.Int(e.at)
		w.Uint(e.seq)
		w.Uint(uint64(e.kind))
		w.Uint(nb.sock(e.target))
		w.Uint(nb.sock(e.from))
		w.Bytes(e.data)
		w.String(e.src)
		w.String(e.dst)
		w.Int(int64(e.port))
		w.Bool(e.delivered)
		w.Bool(e.dropped)
	}

	w.Word(n.seed)
	w.Int(n.latencyNs[0])
	w.Int(n.latencyNs[1])
	encodeBools(w, n.nodes)
	w.Uint(uint64(len(listeners)))
	for _, k := range listeners {
		w.String(k)
		w.Uint(nb.sock(n.listeners[k]))
	}
	w.Uint(uint64(len(n.queue)))
	for _, e := range n.queue {
		w.Uint(nb.event(e))
	}
	w.Uint(n.seq)
	w.Uint(n.nextID)
	w.Int(n.now)
	w.Uint(uint64(len(n.conns)))
	for _, s := range n.conns {
		w.Uint(nb.sock(s))
	}
	w.Int(int64(n.connsLive))

	w.Uint(uint64(len(n.links)))
	for _, l := range n.links {
		w.String(l.From)
		w.String(l.To)
		w.Int(l.LatencyNs[0])
		w.Int(l.LatencyNs[1])
	}
	w.Bool(n.groupsOf != nil)
	groups := slices.Sorted(maps.Keys(n.groupsOf))
	w.Uint(uint64(len(groups)))
	for _, k := range groups {
		w.String(k)
		w.Uint(uint64(len(n.groupsOf[k])))
		for _, g := range n.groupsOf[k] {
			w.Int(int64(g))
		}
	}
	w.Uint(uint64(len(n.clogs)))
	for _, c := range n.clogs {
		w.Uint(uint64(c.id))
		w.String(c.From)
		w.String(c.To)
		w.String(c.Node)
		w.String(c.Dir)
		w.String(c.Mode)
		w.Int(c.DelayNs)
	}
	w.Uint(uint64(n.nextClog))
	w.Bool(n.slow != nil)
	slow := slices.Sorted(maps.Keys(n.slow))
	w.Uint(uint64(len(slow)))
	for _, k := range slow {
		w.String(k)
		w.Float(n.slow[k])
	}
	w.Uint(uint64(len(n.held)))
	for _, e := range n.held {
		w.Uint(nb.event(e))
	}

	w.Uint(uint64(len(bound)))
	for _, k := range bound {
		w.String(k)
		w.Uint(nb.sock(n.bound[k]))
	}
	w.Bool(n.nextPort != nil)
	ports := slices.Sorted(maps.Keys(n.nextPort))
	w.Uint(uint64(len(ports)))
	for _, k := range ports {
		w.String(k)
		w.Int(int64(n.nextPort[k]))
	}
	for _, d := range []int{n.drops.Loss, n.drops.Cut, n.drops.NoSocket, n.drops.Full} {
		w.Int(int64(d))
	}

	w.Uint(uint64(n.mutant))
	encodeBools(w, n.mutantNodes)
	w.Int(int64(n.mutantHits))
	w.Bool(n.chunks != nil)
	chunked := slices.Sorted(maps.Keys(n.chunks))
	w.Uint(uint64(len(chunked)))
	for _, k := range chunked {
		w.String(k)
		w.Uint(n.chunks[k])
	}
	return nb.sock
}

func (s *Socket) encode(w *wire.Writer, nb *numbering) {
	w.Uint(s.ID)
	w.String(s.Node)
	w.Int(int64(s.Instance))
	w.Bool(s.Listener)
	w.Bool(s.Datagram)
	w.Int(int64(s.Port))
	w.Uint(nb.sock(s.Peer))
	w.Uint(uint64(s.State))
	w.Uint(uint64(len(s.backlog)))
	for _, b := range s.backlog {
		w.Uint(nb.sock(b))
	}
	w.Bytes(s.rbuf)
	w.Bool(s.rdEOF)
	w.Bool(s.wrClosed)
	w.Bool(s.closed)
	w.Int(s.lastAt)
	encodeStream(w, s.stream)
	w.Bool(s.accepted)
	w.String(s.connectTo)
	w.String(s.connectNode)
	w.Uint(nb.event(s.lastData))
	w.Uint(nb.event(s.rbufLast))
	w.Uint(nb.sock(s.rbufFrom))
	w.Bool(s.inbox != nil)
	w.Uint(uint64(len(s.inbox)))
	for _, d := range s.inbox {
		w.String(d.from)
		w.Int(int64(d.port))
		w.Bytes(d.data)
	}
	w.Int(int64(s.inboxBytes))
	encodeStream(w, s.dupStream)
}

func encodeStream(w *wire.Writer, s *rng.Stream) {
	w.Bool(s != nil)
	if s != nil {
		w.Word(s.State())
	}
}

func decodeStream(r *wire.Reader) *rng.Stream {
	if !r.Bool() {
		return nil
	}
	return rng.FromState(r.Word())
}

func encodeBools(w *wire.Writer, m map[string]bool) {
	w.Bool(m != nil)
	keys := slices.Sorted(maps.Keys(m))
	w.Uint(uint64(len(keys)))
	for _, k := range keys {
		w.String(k)
		w.Bool(m[k])
	}
}

func decodeBools(r *wire.Reader) map[string]bool {
	present := r.Bool()
	k := r.Len(wire.ListMax)
	if !present && k == 0 {
		return nil
	}
	m := make(map[string]bool, k)
	for range k {
		key := r.String(wire.StringMax)
		m[key] = r.Bool()
	}
	return m
}

// Decode reads a network that Encode wrote. Its function gives the socket
// of a number Encode's returned, nil for 0, or fails r for a number that
// names no socket.
func Decode(r *wire.Reader) (*Net, func(uint64) *Socket) {
	socks := make([]*Socket, r.Len(wire.ListMax))
	events := make([]*event, r.Len(wire.ListMax))
	for i := range socks {
		socks[i] = new(Socket)
	}
	for i := range events {
		events[i] = new(event)
	}
	sock := func(i uint64) *Socket {
		if i > uint64(len(socks)) {
			r.Failf("socket %d of %d", i, len(socks))
			return nil
		}
		if i == 0 {
			return nil
		}
		return socks[i-1]
	}
	ev := func(i uint64) *event {
		if i > uint64(len(events)) {
			r.Failf("network event %d of %d", i, len(events))
			return nil
		}
		if i == 0 {
			return nil
		}
		return events[i-1]
	}
	for _, s := range socks {
		s.decode(r, sock, ev)
	}
	for _, e := range events {
		e.at, e.seq = r.Int(), r.Uint()
		e.kind = eventKind(r.UintIn(uint64(evDgram)))
		e.target, e.from = sock(r.Uint()), sock(r.Uint())
		e.data = r.Bytes(wire.BytesMax)
		e.src, e.dst = r.String(wire.StringMax), r.String(wire.StringMax)
		e.port = int(r.Int())
		e.delivered, e.dropped = r.Bool(), r.Bool()
	}

	n := &Net{seed: r.Word()}
	n.latencyNs = [2]int64{r.Int(), r.Int()}
	n.nodes = decodeBools(r)
	k := r.Len(wire.ListMax)
	n.listeners = make(map[string]*Socket, k)
	for range k {
		key := r.String(wire.StringMax)
		n.listeners[key] = sock(r.Uint())
	}
	n.queue = make(eventQueue, r.Len(wire.ListMax))
	for i := range n.queue {
		if n.queue[i] = ev(r.Uint()); n.queue[i] == nil && r.Err() == nil {
			r.Failf("a nil event in the network's queue")
		}
	}
	n.seq, n.nextID, n.now = r.Uint(), r.Uint(), r.Int()
	if k := r.Len(wire.ListMax); k > 0 {
		n.conns = make([]*Socket, k)
		for i := range n.conns {
			n.conns[i] = sock(r.Uint())
		}
	}
	n.connsLive = int(r.IntIn(0, wire.ListMax))
	n.decodeFaults(r, ev)
	n.decodeUDP(r, sock)
	n.mutant = Mutant(r.UintIn(uint64(MutantDupChunk)))
	n.mutantNodes = decodeBools(r)
	n.mutantHits = int(r.IntIn(0, 1<<62))
	hasChunks := r.Bool()
	if k := r.Len(wire.ListMax); k > 0 || hasChunks {
		n.chunks = make(map[string]uint64, k)
		for range k {
			key := r.String(wire.StringMax)
			n.chunks[key] = r.Uint()
		}
	}
	if r.Err() != nil {
		return nil, func(uint64) *Socket { return nil }
	}
	return n, sock
}

func (s *Socket) decode(r *wire.Reader, sock func(uint64) *Socket, ev func(uint64) *event) {
	s.ID, s.Node, s.Instance = r.Uint(), r.String(wire.StringMax), int(r.Int())
	s.Listener, s.Datagram = r.Bool(), r.Bool()
	s.Port = int(r.Int())
	s.Peer = sock(r.Uint())
	s.State = State(r.UintIn(uint64(Reset)))
	if k := r.Len(wire.ListMax); k > 0 {
		s.backlog = make([]*Socket, k)
		for i := range s.backlog {
			s.backlog[i] = sock(r.Uint())
		}
	}
	s.rbuf = r.Bytes(wire.BytesMax)
	s.rdEOF, s.wrClosed, s.closed = r.Bool(), r.Bool(), r.Bool()
	s.lastAt = r.Int()
	s.stream = decodeStream(r)
	s.accepted = r.Bool()
	s.connectTo, s.connectNode = r.String(wire.StringMax), r.String(wire.StringMax)
	s.lastData, s.rbufLast = ev(r.Uint()), ev(r.Uint())
	s.rbufFrom = sock(r.Uint())
	hasInbox := r.Bool()
	if k := r.Len(wire.ListMax); k > 0 || hasInbox {
		s.inbox = make([]datagram, k)
		for i := range s.inbox {
			s.inbox[i] = datagram{from: r.String(wire.StringMax), port: int(r.Int()), data: r.Bytes(wire.BytesMax)}
		}
	}
	s.inboxBytes = int(r.Int())
	s.dupStream = decodeStream(r)
}

func (n *Net) decodeFaults(r *wire.Reader, ev func(uint64) *event) {
	if k := r.Len(wire.ListMax); k > 0 {
		n.links = make([]Link, k)
		for i := range n.links {
			n.links[i] = Link{From: r.String(wire.StringMax), To: r.String(wire.StringMax), LatencyNs: [2]int64{r.Int(), r.Int()}}
		}
	}
	hasGroups := r.Bool()
	if k := r.Len(wire.ListMax); k > 0 || hasGroups {
		n.groupsOf = make(map[string][]int, k)
		for range k {
			key := r.String(wire.StringMax)
			gs := make([]int, r.Len(wire.ListMax))
			for i := range gs {
				gs[i] = int(r.Int())
			}
			n.groupsOf[key] = gs
		}
	}
	if k := r.Len(wire.ListMax); k > 0 {
		n.clogs = make([]clogEntry, k)
		for i := range n.clogs {
			c := clogEntry{id: ClogID(r.Uint())}
			c.From, c.To, c.Node = r.String(wire.StringMax), r.String(wire.StringMax), r.String(wire.StringMax)
			c.Dir, c.Mode, c.DelayNs = r.String(wire.StringMax), r.String(wire.StringMax), r.Int()
			n.clogs[i] = c
		}
	}
	n.nextClog = ClogID(r.Uint())
	hasSlow := r.Bool()
	if k := r.Len(wire.ListMax); k > 0 || hasSlow {
		n.slow = make(map[string]float64, k)
		for range k {
			key := r.String(wire.StringMax)
			n.slow[key] = r.Float()
		}
	}
	if k := r.Len(wire.ListMax); k > 0 {
		n.held = make([]*event, k)
		for i := range n.held {
			n.held[i] = ev(r.Uint())
		}
	}
}

func (n *Net) decodeUDP(r *wire.Reader, sock func(uint64) *Socket) {
	k := r.Len(wire.ListMax)
	n.bound = make(map[string]*Socket, k)
	for range k {
		key := r.String(wire.StringMax)
		n.bound[key] = sock(r.Uint())
	}
	hasPorts := r.Bool()
	if k := r.Len(wire.ListMax); k > 0 || hasPorts {
		n.nextPort = make(map[string]int, k)
		for range k {
			key := r.String(wire.StringMax)
			n.nextPort[key] = int(r.Int())
		}
	}
	n.drops = Drops{Loss: int(r.IntIn(0, 1<<62)), Cut: int(r.IntIn(0, 1<<62)), NoSocket: int(r.IntIn(0, 1<<62)), Full: int(r.IntIn(0, 1<<62))}
}
