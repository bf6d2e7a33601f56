package simnet

import (
	"maps"
	"slices"
)

// Clone returns a copy of the network that goes on apart from it: sending,
// delivering, faulting or closing in either leaves the other as it was.
// The copy holds its own sockets; Sockets maps a socket of the original,
// one that a program holds as well as one the network knows, to the copy's.
func (n *Net) Clone() *Cloned {
	cl := &Cloned{socks: map[*Socket]*Socket{}, events: map[*event]*event{}}
	c := &Net{
		seed:      n.seed,
		latencyNs: n.latencyNs,
		nodes:     maps.Clone(n.nodes),
		listeners: make(map[string]*Socket, len(n.listeners)),
		seq:       n.seq,
		nextID:    n.nextID,
		now:       n.now,
		connsLive: n.connsLive,
	}
	cl.Net = c
	for k, s := range n.listeners {
		c.listeners[k] = cl.Socket(s)
	}
	// The queue is copied in its order, so the copy is a heap as it is.
	c.queue = make(eventQueue, len(n.queue))
	for i, e := range n.queue {
		c.queue[i] = cl.event(e)
	}
	c.conns = make([]*Socket, len(n.conns))
	for i, s := range n.conns {
		c.conns[i] = cl.Socket(s)
	}

	c.faults = faults{
		links:    slices.Clone(n.links),
		clogs:    slices.Clone(n.clogs),
		nextClog: n.nextClog,
		slow:     maps.Clone(n.slow),
	}
	if n.groupsOf != nil {
		c.groupsOf = make(map[string][]int, len(n.groupsOf))
		for k, v := range n.groupsOf {
			c.groupsOf[k] = slices.Clone(v)
		}
	}
	for _, e := range n.held {
		c.held = append(c.held, cl.event(e))
	}

	c.udp = udp{bound: make(map[string]*Socket, len(n.bound)), nextPort: maps.Clone(n.nextPort), drops: n.drops}
	for k, s := range n.bound {
		c.bound[k] = cl.Socket(s)
	}

	c.mutantState = mutantState{
		mutant:      n.mutant,
		mutantNodes: maps.Clone(n.mutantNodes),
		mutantHits:  n.mutantHits,
		chunks:      maps.Clone(n.chunks),
	}
	return cl
}

// Cloned is the copy of a network and the map from the original's sockets
// to the copy's.
type Cloned struct {
	Net    *Net
	socks  map[*Socket]*Socket
	events map[*event]*event
}

// Socket returns the copy of the original's socket s (nil for nil).
func (cl *Cloned) Socket(s *Socket) *Socket {
	if s == nil {
		return nil
	}
	if c, ok := cl.socks[s]; ok {
		return c
	}
	c := new(Socket)
	cl.socks[s] = c
	*c = *s
	c.Peer = cl.Socket(s.Peer)
	if s.backlog != nil {
		c.backlog = make([]*Socket, len(s.backlog))
		for i, b := range s.backlog {
			c.backlog[i] = cl.Socket(b)
		}
	}
	c.rbuf = slices.Clone(s.rbuf)
	c.stream = cloneStream(s.stream)
	c.dupStream = cloneStream(s.dupStream)
	c.lastData = cl.event(s.lastData)
	c.rbufLast = cl.event(s.rbufLast)
	c.rbufFrom = cl.Socket(s.rbufFrom)
	if s.inbox != nil {
		c.inbox = make([]datagram, len(s.inbox))
		for i, d := range s.inbox {
			d.data = slices.Clone(d.data)
			c.inbox[i] = d
		}
	}
	return c
}

func (cl *Cloned) event(e *event) *event {
	if e == nil {
		return nil
	}
	if c, ok := cl.events[e]; ok {
		return c
	}
	c := new(event)
	cl.events[e] = c
	*c = *e
	c.target = cl.Socket(e.target)
	c.from = cl.Socket(e.from)
	c.data = slices.Clone(e.data)
	return c
}

func cloneStream[S any](s *S) *S {
	if s == nil {
		return nil
	}
	c := *s
	return &c
}
