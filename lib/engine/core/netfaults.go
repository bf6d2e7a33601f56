package core

import (
	"math"
	"sort"

	"github.com/sf-dst/sf/lib/faults"
	"github.com/sf-dst/sf/lib/rng"
	"github.com/sf-dst/sf/lib/simnet"
)

// NetFaults are the world's network settings that belong to no fault kind:
// the latency overrides of one-way links. The network faults' own settings
// are Spec.Kinds.
type NetFaults struct {
	Links []simnet.Link
}

// netEnd is a network fault that lasts: what undoes it at its time. It is
// data, not a closure, so that a run's state can be copied.
type netEnd struct {
	at  int64
	seq uint64
	// fault is the fault that ends; gen is the partition's number or the
	// node's slowdown number when it began, so that an end that a newer
	// fault overtook does nothing; clog is a clog's ID.
	fault Fault
	gen   int
	clog  simnet.ClogID
}

// schedule adds the end of a lasting fault, kept in order of time and then
// of scheduling.
func (r *Run) schedule(e netEnd) {
	r.endSeq++
	e.seq = r.endSeq
	r.ends = append(r.ends, e)
	sort.SliceStable(r.ends, func(i, j int) bool {
		if r.ends[i].at != r.ends[j].at {
			return r.ends[i].at < r.ends[j].at
		}
		return r.ends[i].seq < r.ends[j].seq
	})
}

func (r *Run) nextEndAt() int64 {
	if len(r.ends) == 0 {
		return math.MaxInt64
	}
	return r.ends[0].at
}

func (r *Run) fireEnds() {
	for len(r.ends) > 0 && r.ends[0].at <= r.Now {
		e := r.ends[0]
		r.ends = r.ends[1:]
		r.undo(e)
	}
}

// undo undoes a lasting fault whose time has come.
func (r *Run) undo(e netEnd) {
	f := e.fault
	switch f.Kind {
	case faults.KindPartition:
		if r.partitionSeq == e.gen { // a newer partition replaced it already
			r.Net.Heal()
			r.Tracef("partition healed")
		}
	case faults.KindClog:
		if r.Net.Unclog(e.clog) {
			r.Tracef("clog %s lifted", faults.ClogText(f))
		}
	case faults.KindSlow:
		n := r.NodeByName(f.Node)
		if n.slowSeq == e.gen && n.Slow > 1 {
			n.Slow = 1
			if n.Cur != nil {
				n.Cur.slowDeadlines = nil
			}
			r.Net.SetSlow(f.Node, 1)
			r.Tracef("%s is no longer slow", f.Node)
		}
	case faults.KindPause:
		if n := r.NodeByName(f.Node); n.pausedUntil == int64(f.Until) {
			r.Tracef("%s resumes", f.Node)
		}
	}
}

// healNetwork ends every partition, clog, slowdown and pause at once, for a
// quiet period or the recovery phase.
func (r *Run) HealNetwork() {
	r.Net.HealAll()
	r.partitionSeq++
	for _, n := range r.Nodes {
		if n.Slow > 1 {
			n.Slow = 1
			n.slowSeq++
		}
		n.pausedUntil = 0
	}
}

// DatagramFaults numbers a datagram the node of in sends to the node named
// to, and decides whether it is lost or duplicated: from the schedule on
// replay, otherwise from a stream keyed by the seed, the sender and the
// datagram's number. Quiet periods, the recovery phase and nodes without
// network faults take none.
func (in *Instance) DatagramFaults(to string) (drop, dup bool) {
	r, n := in.Run, in.Node
	op := n.Next(faults.Datagram)
	target := r.NodeByName(to)
	if !n.Spec.NetFaults || (target != nil && !target.Spec.NetFaults) || r.Quiet() {
		return false, false
	}
	if r.Opts.Faults != nil {
		_, drop = r.scheduledOps[opKey{faults.KindUDPDrop, n.Idx, op}]
		_, dup = r.scheduledOps[opKey{faults.KindUDPDup, n.Idx, op}]
	} else {
		var s rng.Stream
		s.Reset(r.SeedOf(bsUDP), "udp", rng.Key(n.Spec.Name), uint64(op))
		drop = s.Chance(r.kindRate(faults.KindUDPDrop))
		dup = !drop && s.Chance(r.kindRate(faults.KindUDPDup))
	}
	for _, k := range []struct {
		on   bool
		kind string
	}{{drop, faults.KindUDPDrop}, {dup, faults.KindUDPDup}} {
		if k.on {
			r.res.Faults = append(r.res.Faults, Fault{At: Dur(r.Now), Kind: k.kind, Node: n.Spec.Name, To: to, Op: op})
			r.Tracef("fault %s: datagram #%d of %s to %s", k.kind, op, in.Name, to)
		}
	}
	return drop, dup
}
