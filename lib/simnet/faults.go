package simnet

import (
	"container/heap"
	"fmt"
	"math"

	"github.com/sf-dst/sf/lib/rng"
)

// Every network fault is directional underneath: it decides what happens to
// traffic from one node to another. A direction can be stopped (by a
// partition or a stop clog), jammed (by a jam clog) and slowed (by slow clogs
// and slow nodes), all at once; see Direction.
//
// What a stopped or jammed direction does to TCP:
//   - A new connection needs both directions. A dial with either direction
//     stopped is refused (ECONNREFUSED, one hop later); a SYN that arrives
//     while either direction is stopped is refused too. With neither stopped
//     but either jammed, the SYN is held, so the listener accepts only after
//     the jam lifts and the dialer sees nothing but its own timeouts.
//   - Everything else (data, FIN, RST, SYN-ACK) that arrives across a stopped
//     or jammed direction is held, in order, and released when the direction
//     opens again: each held message then arrives after a fresh latency draw
//     from the moment of release, still in order behind what its socket sent
//     before and ahead of what it sent after.
//
// Datagrams are never held: a stopped or jammed direction drops them, when
// they are sent and when they arrive (udp.go).
//
// A node's traffic to itself never meets a partition or a clog.

// Clog modes.
const (
	ClogStop = "stop" // refuse new connections, hold traffic, drop datagrams
	ClogJam  = "jam"  // hold new connections and traffic, drop datagrams; no error
	ClogSlow = "slow" // add DelayNs to every message
)

// Directions of a clog on a node.
const (
	DirIn   = "in"   // everything the node receives
	DirOut  = "out"  // everything the node sends
	DirBoth = "both" // both
)

// Link overrides the latency of messages from one node to another. From or
// To left empty matches any node. Links are one-way.
type Link struct {
	From, To  string
	LatencyNs [2]int64 // [lo, hi], drawn per message like the global range
}

// Clog is one clog: either one direction of one link (From and To), or a
// node's traffic (Node with Dir in, out or both). Mode is ClogStop, ClogJam
// or ClogSlow; DelayNs is the extra latency of a slow clog and must be 0 for
// the other modes.
type Clog struct {
	From, To string
	Node     string
	Dir      string
	Mode     string
	DelayNs  int64
}

// ClogID names a clog for Unclog. IDs start at 1 and are never reused.
type ClogID uint64

// DirState is what the faults do to one direction, from one node to another,
// at the current time.
type DirState struct {
	Stopped bool  // a partition or stop clog cuts it
	Jammed  bool  // a jam clog cuts it
	DelayNs int64 // the sum of the delays of the slow clogs on it
}

// Cut reports whether the direction is stopped or jammed.
func (d DirState) Cut() bool { return d.Stopped || d.Jammed }

type clogEntry struct {
	id ClogID
	Clog
}

// faults is the fault state of a Net, embedded in it.
type faults struct {
	links []Link
	// groupsOf maps a node to the indexes of the partition groups that hold
	// it; nil when there is no partition.
	groupsOf map[string][]int
	clogs    []clogEntry
	nextClog ClogID
	slow     map[string]float64 // only factors above 1
	// held is every TCP event a stopped or jammed direction holds, in the
	// order it was held.
	held []*event
}

func (f *faults) init() { f.slow = map[string]float64{} }

// SetLinks replaces the per-link latencies. For each message the first link
// whose From and To match its sending and receiving nodes gives the latency
// range; with none, the network's global range applies. An unknown node or a
// negative or reversed range is an error, and leaves the links as they were.
func (n *Net) SetLinks(links []Link) error {
	for i, l := range links {
		for _, end := range []struct{ field, node string }{{"from", l.From}, {"to", l.To}} {
			if end.node != "" && !n.nodes[end.node] {
				return fmt.Errorf("links[%d].%s: unknown node %q", i, end.field, end.node)
			}
		}
		if err := checkRange(l.LatencyNs); err != nil {
			return fmt.Errorf("links[%d].latency: %w", i, err)
		}
	}
	n.links = append([]Link(nil), links...)
	return nil
}

func checkRange(r [2]int64) error {
	switch {
	case r[0] < 0 || r[1] < 0:
		return fmt.Errorf("negative range [%d %d]", r[0], r[1])
	case r[0] > r[1]:
		return fmt.Errorf("reversed range [%d %d]", r[0], r[1])
	}
	return nil
}

// Partition splits the nodes into groups: two nodes can talk only if some
// group holds both, so overlapping groups describe a ring. A node in no group
// is left out of the partition and talks to everyone, which is how a node
// with faults off stays connected. A new partition replaces the previous
// one, and traffic it no longer cuts is released at once. Nil or empty
// groups heal. An unknown node is an error, and leaves the partition as it
// was.
func (n *Net) Partition(groups [][]string) error {
	for i, g := range groups {
		for j, node := range g {
			if !n.nodes[node] {
				return fmt.Errorf("partition: groups[%d][%d]: unknown node %q", i, j, node)
			}
		}
	}
	n.groupsOf = nil
	if len(groups) > 0 {
		n.groupsOf = map[string][]int{}
		for i, g := range groups {
			for _, node := range g {
				if gs := n.groupsOf[node]; len(gs) == 0 || gs[len(gs)-1] != i {
					n.groupsOf[node] = append(gs, i)
				}
			}
		}
	}
	n.release()
	return nil
}

// Heal ends the partition, if any, and releases the traffic it held that no
// clog still holds. Clogs stay.
func (n *Net) Heal() {
	n.groupsOf = nil
	n.release()
}

// HealAll ends the partition, every clog and every slowdown at once, as
// sim.QuietFor and the recovery phase of liveness do. Links stay.
func (n *Net) HealAll() {
	n.groupsOf = nil
	n.clogs = nil
	clear(n.slow)
	n.release()
}

// Clog starts a clog and returns its ID. Clogs stack with each other and with
// the partition: a direction is stopped if any of them stops it, and the
// delays of slow clogs add up, also for traffic a partition held. A clog of
// the wrong shape, an unknown node or mode, or a delay on a mode other than
// slow is an error.
func (n *Net) Clog(c Clog) (ClogID, error) {
	if err := n.checkClog(c); err != nil {
		return 0, err
	}
	n.nextClog++
	n.clogs = append(n.clogs, clogEntry{id: n.nextClog, Clog: c})
	// A new clog only cuts more, so nothing held can pass now that could
	// not before: no release.
	return n.nextClog, nil
}

func (n *Net) checkClog(c Clog) error {
	switch c.Mode {
	case ClogStop, ClogJam, ClogSlow:
	default:
		return fmt.Errorf("clog: unknown mode %q, want stop, slow or jam", c.Mode)
	}
	switch {
	case c.DelayNs < 0:
		return fmt.Errorf("clog: negative delay %d", c.DelayNs)
	case c.DelayNs > 0 && c.Mode != ClogSlow:
		return fmt.Errorf("clog: a delay with mode %q; only slow takes one", c.Mode)
	}
	if c.Node != "" {
		if c.From != "" || c.To != "" {
			return fmt.Errorf("clog: node %q with from or to; a clog is one link or one node", c.Node)
		}
		if !n.nodes[c.Node] {
			return fmt.Errorf("clog: unknown node %q", c.Node)
		}
		switch c.Dir {
		case DirIn, DirOut, DirBoth:
			return nil
		}
		return fmt.Errorf("clog: node %q needs dir in, out or both, got %q", c.Node, c.Dir)
	}
	if c.Dir != "" {
		return fmt.Errorf("clog: dir %q without a node", c.Dir)
	}
	for _, end := range []string{c.From, c.To} {
		if end != "" && !n.nodes[end] {
			return fmt.Errorf("clog: unknown node %q", end)
		}
	}
	if c.From == "" || c.To == "" || c.From == c.To {
		return fmt.Errorf("clog: from and to must name two different nodes, got %q and %q", c.From, c.To)
	}
	return nil
}

// Unclog ends a clog and releases the traffic that nothing else still holds.
// It reports whether the clog existed.
func (n *Net) Unclog(id ClogID) bool {
	for i, c := range n.clogs {
		if c.id == id {
			n.clogs = append(n.clogs[:i:i], n.clogs[i+1:]...)
			n.release()
			return true
		}
	}
	return false
}

// SetSlow makes every message node sends or receives take factor times its
// drawn latency, from the next message on; 1 ends the slowdown. When both
// ends are slow, the larger factor applies. Slow clog delays are added after
// the stretch, not stretched. A factor below 1 (or NaN or infinite) or an
// unknown node is an error.
func (n *Net) SetSlow(node string, factor float64) error {
	if !n.nodes[node] {
		return fmt.Errorf("slow: unknown node %q", node)
	}
	if !(factor >= 1) || math.IsInf(factor, 0) {
		return fmt.Errorf("slow %s: factor %v, want at least 1", node, factor)
	}
	if factor == 1 {
		delete(n.slow, node)
	} else {
		n.slow[node] = factor
	}
	return nil
}

// ResetNode resets every open connection of node at once, as a middlebox
// that drops them would: the node's ends (established, under way, or waiting
// in a listener's backlog) report ECONNRESET at once, and each peer when the
// reset reaches it, one hop later or after the heal if a fault holds it.
// Listeners and datagram sockets stay. It returns how many of the node's
// connection ends it reset.
func (n *Net) ResetNode(node string) int {
	n.compactConns()
	count := 0
	for _, s := range n.conns {
		if s.Node == node && s.open() {
			n.abort(s)
			count++
		}
	}
	n.compactConns()
	return count
}

// Direction returns what the faults do to traffic from one node to another
// now.
func (n *Net) Direction(from, to string) DirState {
	var d DirState
	if from == to {
		return d
	}
	d.Stopped = n.partitioned(from, to)
	for _, c := range n.clogs {
		if !c.matches(from, to) {
			continue
		}
		switch c.Mode {
		case ClogStop:
			d.Stopped = true
		case ClogJam:
			d.Jammed = true
		case ClogSlow:
			d.DelayNs += c.DelayNs
		}
	}
	return d
}

// Held returns how many TCP messages (data, handshakes, FINs, resets) the
// faults hold now.
func (n *Net) Held() int { return len(n.held) }

func (c *clogEntry) matches(from, to string) bool {
	if c.Node == "" {
		return c.From == from && c.To == to
	}
	switch c.Dir {
	case DirIn:
		return c.Node == to
	case DirOut:
		return c.Node == from
	}
	return c.Node == from || c.Node == to
}

func (n *Net) partitioned(from, to string) bool {
	if n.groupsOf == nil {
		return false
	}
	gf, ok := n.groupsOf[from]
	if !ok {
		return false
	}
	gt, ok := n.groupsOf[to]
	if !ok {
		return false
	}
	for _, a := range gf {
		for _, b := range gt {
			if a == b {
				return false
			}
		}
	}
	return true
}

func (n *Net) stopped(from, to string) bool {
	if n.groupsOf == nil && len(n.clogs) == 0 {
		return false
	}
	return n.Direction(from, to).Stopped
}

// latency draws the latency of one message from src to dst from stream st:
// the first matching link's range or the global one, stretched by the
// slower end, plus the delays of the slow clogs on the direction. With no
// faults this is exactly one draw from the global range.
func (n *Net) latency(src, dst string, st *rng.Stream) int64 {
	lo, hi := n.latencyNs[0], n.latencyNs[1]
	for _, l := range n.links {
		if (l.From == "" || l.From == src) && (l.To == "" || l.To == dst) {
			lo, hi = l.LatencyNs[0], l.LatencyNs[1]
			break
		}
	}
	d := st.Between(lo, hi)
	if len(n.slow) > 0 {
		if f := max(n.slow[src], n.slow[dst]); f > 1 {
			d = stretch(d, f)
		}
	}
	if len(n.clogs) > 0 {
		d += n.Direction(src, dst).DelayNs
	}
	return d
}

// maxLatencyNs bounds a stretched latency, far past any run's horizon, so
// that no arithmetic on delivery times overflows.
const maxLatencyNs = math.MaxInt64 / 4

func stretch(d int64, f float64) int64 {
	s := float64(d) * f
	if s >= maxLatencyNs {
		return maxLatencyNs
	}
	return int64(s)
}

// holds reports whether TCP event e, due now, must wait for a fault to lift.
func (n *Net) holds(e *event) bool {
	if e.src == e.dst || (n.groupsOf == nil && len(n.clogs) == 0) {
		return false
	}
	switch e.kind {
	case evRefuse, evDgram:
		return false
	case evSyn:
		if e.from.State != Connecting {
			return false // deliver drops it
		}
		there, back := n.Direction(e.src, e.dst), n.Direction(e.dst, e.src)
		if there.Stopped || back.Stopped {
			return false // deliver refuses it
		}
		return there.Jammed || back.Jammed
	}
	return n.Direction(e.src, e.dst).Cut()
}

// release re-times every held event that may now pass: it arrives a fresh
// latency draw after now, never before what its socket released just before
// it. Events its socket sent later and that are still in flight are pushed
// back behind it, so each socket's messages stay in order; so are its later
// sends, through lastAt.
func (n *Net) release() {
	if len(n.held) == 0 {
		return
	}
	type floor struct {
		at  int64
		seq uint64
	}
	var (
		senders  []*Socket // in first-released order
		floors   = map[*Socket]floor{}
		stuck    = map[*Socket]bool{}
		released []*event
		keep     = n.held[:0]
	)
	for _, e := range n.held {
		if stuck[e.from] || n.holds(e) {
			// What a socket sent after a message that must still wait,
			// waits too.
			stuck[e.from] = true
			keep = append(keep, e)
			continue
		}
		at := n.now + n.latency(e.src, e.dst, e.from.stream)
		f, seen := floors[e.from]
		if !seen {
			senders = append(senders, e.from)
		}
		at = max(at, f.at)
		floors[e.from] = floor{at, e.seq}
		e.at = at
		released = append(released, e)
	}
	clear(n.held[len(keep):])
	n.held = keep
	if len(released) == 0 {
		return
	}
	for _, q := range n.queue {
		if q.kind == evDgram || q.kind == evRefuse {
			continue
		}
		if f, ok := floors[q.from]; ok && q.seq > f.seq && q.at < f.at {
			q.at = f.at
		}
	}
	n.queue = append(n.queue, released...)
	heap.Init(&n.queue)
	for _, s := range senders {
		s.lastAt = max(s.lastAt, floors[s].at)
	}
}
