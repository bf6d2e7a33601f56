package core

import (
	"fmt"
	"maps"
	"slices"

	"github.com/sf-dst/sf/lib/rng"
	"github.com/sf-dst/sf/lib/simnet"
)

// A run's state is everything it needs to go on from a scheduler step:
// virtual time, the planned and lasting faults, every node's disk, clocks
// and counters, every instance's descriptors, random stream and output, the
// network with its sockets and buffers, the random streams, the hash and the
// trace so far. It is plain data: the goroutines, channels and wazero
// handles that run the guests (Run.exec, Instance's mod, resume, hold and
// the preemption globals) are not part of it, and neither is the guests'
// wasm state, their linear memory and globals.
//
// Snapshot copies the state out of a run, and Restore copies it into a run
// whose guests stand where the snapshot's stood, which a replay of the same
// seed to the same step gives. Both copy deeply: the snapshot shares
// nothing that changes with the run it came from or went into, and can be
// restored any number of times.

// Snapshot is a run's state at a scheduler step, without the guests' wasm.
type Snapshot struct {
	// Step is the scheduler step the snapshot was taken before.
	Step uint64
	run  *Run
}

// Snapshot copies the run's state.
func (r *Run) Snapshot() *Snapshot {
	s := &Run{}
	nodes := make([]*Node, len(r.Nodes))
	for i := range nodes {
		nodes[i] = &Node{}
	}
	fresh := map[*Instance]*Instance{}
	copyRun(s, r, nodes, func(src *Instance) *Instance {
		if c, ok := fresh[src]; ok {
			return c
		}
		c := &Instance{}
		fresh[src] = c
		return c
	})
	return &Snapshot{Step: r.res.Steps, run: s}
}

// Restore replaces the run's state with snap's. Every node must run the same
// incarnation as in the snapshot, or be down in both: the guests are the
// run's own and go on from where they stand.
func (r *Run) Restore(snap *Snapshot) error {
	src := snap.run
	if len(src.Nodes) != len(r.Nodes) {
		return fmt.Errorf("restore: the snapshot has %d nodes, the run %d", len(src.Nodes), len(r.Nodes))
	}
	for i, n := range r.Nodes {
		sc := src.Nodes[i].Cur
		switch {
		case (n.Cur == nil) != (sc == nil):
			return fmt.Errorf("restore: node %s is up in only one of the run and the snapshot", n.Spec.Name)
		case n.Cur != nil && (n.Cur.Num != sc.Num || n.Cur.started != sc.started):
			return fmt.Errorf("restore: node %s runs %s, the snapshot %s", n.Spec.Name, n.Cur.Name, sc.Name)
		}
	}
	live := map[*Instance]*Instance{}
	for i, n := range src.Nodes {
		if n.Cur != nil {
			live[n.Cur] = r.Nodes[i].Cur
		}
	}
	nodes := r.Nodes
	if scrambleBeforeRestore != nil {
		scrambleBeforeRestore(r)
	}
	copyRun(r, src, nodes, func(in *Instance) *Instance {
		if dst, ok := live[in]; ok {
			return dst
		}
		c := &Instance{} // an instance that is no node's current one
		live[in] = c
		return c
	})
	if afterSnapshot != nil {
		afterSnapshot(r, snap)
	}
	return nil
}

// scrambleBeforeRestore, set by a test, makes Restore first clear every
// field of the run's state, so that a field Restore forgets to copy shows.
var scrambleBeforeRestore func(*Run)

// afterSnapshot, set by a test, sees each snapshot Options.SnapshotAt takes
// next to the run it was taken from, and each one Restore restored next to
// the run it went into.
var afterSnapshot func(*Run, *Snapshot)

// copyRun copies src's state into dst, keeping dst's execution (its
// Modules, its channel and, through inst, its instances' goroutines and
// modules). nodes are the nodes dst gets, one for each of src's, and inst
// gives the instance of dst that stands for one of src's.
func copyRun(dst, src *Run, nodes []*Node, inst func(*Instance) *Instance) {
	exec := dst.exec
	*dst = *src
	dst.exec = exec
	if exec != nil {
		exec.counted = countedUnknown // src's rates, which Fires learns again
	}

	cl := src.Net.Clone()
	dst.Net = cl.Net
	dst.Nodes = nodes
	dst.sched = cloneStream(src.sched)
	dst.planner = src.planner.Clone()
	dst.res = cloneResult(src.res)
	dst.sites = make(map[string]*siteState, len(src.sites))
	for k, st := range src.sites {
		c := *st
		c.hits = maps.Clone(st.hits)
		c.fire = make(map[int]*rng.Stream, len(st.fire))
		for i, s := range st.fire {
			c.fire[i] = cloneStream(s)
		}
		dst.sites[k] = &c
	}
	if src.rec != nil {
		dst.rec = src.rec.Clone()
	}
	dst.ends = slices.Clone(src.ends)
	dst.props = make(map[string]*Property, len(src.props))
	for k, p := range src.props {
		c := *p
		if p.Margin != nil {
			m := *p.Margin
			c.Margin = &m
		}
		dst.props[k] = &c
	}
	dst.traceLines = slices.Clone(src.traceLines)
	// scheduledHits, scheduledOps and swarm are set before the first step
	// and only read after, so the two runs share them.

	for i, sn := range src.Nodes {
		copyNode(dst, nodes[i], sn, inst, cl)
	}
	if src.opNode != nil {
		dst.opNode = make(map[int64]*Instance, len(src.opNode))
		for id, in := range src.opNode {
			dst.opNode[id] = inst(in)
		}
	}
}

// copyNode copies src's state into dst, a node of run r.
func copyNode(r *Run, dst, src *Node, inst func(*Instance) *Instance, cl *simnet.Cloned) {
	*dst = *src
	dst.FS = src.FS.Clone(func() int64 { return r.Wall(dst) })
	if src.preempt != nil {
		p := *src.preempt
		p.random = cloneStream(src.preempt.random)
		p.points = slices.Clone(src.preempt.points)
		dst.preempt = &p
	}
	dst.Cur = nil
	if src.Cur != nil {
		dst.Cur = inst(src.Cur)
		copyInstance(r, dst, dst.Cur, src.Cur, cl)
	}
}

// copyInstance copies src's state into dst, an instance of node n of run r,
// keeping dst's goroutine, module and baton.
func copyInstance(r *Run, n *Node, dst, src *Instance, cl *simnet.Cloned) {
	// Only the state is written: the instance's goroutine, parked, read
	// its exec without a handoff since.
	dst.InstanceState = src.InstanceState
	dst.Run, dst.Node = r, n
	dst.FDs = make([]*Desc, len(src.FDs))
	for i, d := range src.FDs {
		if d == nil {
			continue
		}
		c := *d
		c.Sock = cl.Socket(d.Sock)
		dst.FDs[i] = &c
	}
	dst.Random = cloneStream(src.Random)
	dst.Maps = slices.Clone(src.Maps)
	for i := range dst.Maps {
		dst.Maps[i].Shadow = src.Maps[i].Shadow.Clone()
	}
	dst.Waits = slices.Clone(src.Waits)
	dst.slowDeadlines = maps.Clone(src.slowDeadlines)
	for fd := range dst.lineBuf {
		dst.lineBuf[fd] = slices.Clone(src.lineBuf[fd])
	}
	dst.sdkBuf = slices.Clone(src.sdkBuf)
	dst.stderrTail = slices.Clone(src.stderrTail)
	dst.crashTail = slices.Clone(src.crashTail)
}

func cloneResult(res *Result) *Result {
	c := *res
	c.Checkpoints = slices.Clone(res.Checkpoints)
	c.Calls = slices.Clone(res.Calls)
	c.Faults = slices.Clone(res.Faults)
	c.Tail = slices.Clone(res.Tail)
	return &c
}

func cloneStream(s *rng.Stream) *rng.Stream {
	if s == nil {
		return nil
	}
	c := *s
	return &c
}

// atSnapshotPoint takes the snapshot and makes the restore that the options
// ask for, at the top of the scheduler's loop, where every instance is
// parked. It reports whether the run goes on.
func (r *Run) atSnapshotPoint() bool {
	if at := r.Opts.SnapshotAt; at > 0 && r.exec.snapshot == nil && r.res.Steps == at {
		r.exec.snapshot = r.Snapshot()
		if afterSnapshot != nil {
			afterSnapshot(r, r.exec.snapshot)
		}
	}
	if s := r.Opts.Restore; s != nil && !r.exec.restored && r.res.Steps == s.Step {
		r.exec.restored = true
		if err := r.Restore(s); err != nil {
			r.internal(nil, err.Error())
			return false
		}
	}
	return true
}
