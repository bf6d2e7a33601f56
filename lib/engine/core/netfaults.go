package core

import (
	"math"
	"sort"

	"github.com/sf-dst/sf/lib/rng"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/simnet"
)

// NetFaults are the world's network fault settings.
type NetFaults struct {
	Links               []simnet.Link
	PartitionPerSec     float64
	PartitionForNs      [2]int64
	PartitionTopologies []string
	ClogPerSec          float64
	ClogForNs           [2]int64
	ClogModes           []string
	ClogDelayNs         [2]int64
	SwizzlePerSec       float64
	ResetPerSec         float64
	SlowPerSec          float64
	SlowForNs           [2]int64
	SlowFactor          float64
	PausePerSec         float64
	PauseForNs          [2]int64
	UDPLoss, UDPDup     float64
}

// netNodes are the programs network faults may cut: those whose network
// faults are on, in world order.
func (r *Run) netNodes() []string {
	var out []string
	for _, n := range r.Nodes {
		if n.Spec.NetFaults {
			out = append(out, n.Spec.Name)
		}
	}
	return out
}

// drawNetFaults plans the network faults of the fault period. Each fault
// type has its own stream, and per-node types one per node, so removing one
// fault never moves another.
func (r *Run) drawNetFaults(seed uint64, from int64) []Fault {
	nf := &r.Spec.Net
	var out []Fault
	nodes := r.netNodes()
	period := r.Spec.DurationNs
	times := func(purpose string, key uint64, rate float64, each func(t int64, s *rng.Stream)) {
		rate = r.Rate(purpose, rate)
		if rate <= 0 {
			return
		}
		s := rng.New(seed, purpose, key)
		for t := from; ; {
			t += s.ExpNs(rate)
			if t >= period || t < 0 {
				return
			}
			each(t, s)
		}
	}
	if len(nodes) >= 2 {
		times(KindPartition, 0, nf.PartitionPerSec, func(t int64, s *rng.Stream) {
			topo := "half"
			if len(nf.PartitionTopologies) > 0 {
				topo = nf.PartitionTopologies[s.Intn(len(nf.PartitionTopologies))]
			}
			d := s.Between(nf.PartitionForNs[0], nf.PartitionForNs[1])
			out = append(out, Fault{At: Dur(t), Kind: KindPartition, Groups: partitionGroups(topo, nodes, s), Until: Dur(t + d)})
		})
		times(KindClog, 0, nf.ClogPerSec, func(t int64, s *rng.Stream) {
			out = append(out, r.drawClog(t, nodes, s))
		})
		times("swizzle", 0, nf.SwizzlePerSec, func(t int64, s *rng.Stream) {
			out = append(out, drawSwizzle(t, nodes, nf.ClogForNs, s)...)
		})
	}
	for _, n := range r.Nodes {
		if !n.Spec.Faults {
			continue // resets, slowdowns and pauses are per-node faults
		}
		name, key := n.Spec.Name, rng.Key(n.Spec.Name)
		times(KindNetReset, key, nf.ResetPerSec, func(t int64, s *rng.Stream) {
			out = append(out, Fault{At: Dur(t), Kind: KindNetReset, Node: name, Until: Dur(t)})
		})
		times(KindSlow, key, nf.SlowPerSec, func(t int64, s *rng.Stream) {
			d := s.Between(nf.SlowForNs[0], nf.SlowForNs[1])
			factor := 1 + s.Float64()*(max(nf.SlowFactor, 1)-1)
			factor = math.Round(factor*100) / 100
			out = append(out, Fault{At: Dur(t), Kind: KindSlow, Node: name, Factor: factor, Until: Dur(t + d)})
		})
		times(KindPause, key, nf.PausePerSec, func(t int64, s *rng.Stream) {
			d := s.Between(nf.PauseForNs[0], nf.PauseForNs[1])
			out = append(out, Fault{At: Dur(t), Kind: KindPause, Node: name, Until: Dur(t + d)})
		})
	}
	return out
}

// partitionGroups splits nodes (at least two) into the groups of a
// topology. Two nodes can talk only if some group holds both.
func partitionGroups(topo string, nodes []string, s *rng.Stream) [][]string {
	perm := append([]string(nil), nodes...)
	for i := len(perm) - 1; i > 0; i-- {
		j := s.Intn(i + 1)
		perm[i], perm[j] = perm[j], perm[i]
	}
	n := len(perm)
	sorted := func(g []string) []string {
		g = append([]string(nil), g...)
		sort.Strings(g)
		return g
	}
	switch topo {
	case "one":
		return [][]string{sorted(perm[:1]), sorted(perm[1:])}
	case "majority":
		m := n/2 + 1
		return [][]string{sorted(perm[:m]), sorted(perm[m:])}
	case "majorities_ring":
		m := n/2 + 1
		var groups [][]string
		for i := range perm {
			var g []string
			for k := 0; k < m; k++ {
				g = append(g, perm[(i+k)%n])
			}
			groups = append(groups, sorted(g))
		}
		return groups
	case "random_groups":
		k := int(s.Between(2, int64(n)))
		buckets := make([][]string, k)
		for i, node := range perm {
			b := i % k // every group gets at least one node
			if i >= k {
				b = s.Intn(k)
			}
			buckets[b] = append(buckets[b], node)
		}
		var groups [][]string
		for _, b := range buckets {
			groups = append(groups, sorted(b))
		}
		return groups
	}
	// half: two random non-empty sides.
	cut := int(s.Between(1, int64(n-1)))
	return [][]string{sorted(perm[:cut]), sorted(perm[cut:])}
}

func (r *Run) drawClog(t int64, nodes []string, s *rng.Stream) Fault {
	nf := &r.Spec.Net
	f := Fault{At: Dur(t), Kind: KindClog}
	modes := nf.ClogModes
	if len(modes) == 0 {
		modes = []string{simnet.ClogStop, simnet.ClogSlow, simnet.ClogJam}
	}
	f.Mode = modes[s.Intn(len(modes))]
	switch shape := s.Intn(4); shape {
	case 0: // one link, one direction
		i := s.Intn(len(nodes))
		j := (i + 1 + s.Intn(len(nodes)-1)) % len(nodes)
		f.From, f.To = nodes[i], nodes[j]
	default:
		f.Node = nodes[s.Intn(len(nodes))]
		f.Dir = []string{simnet.DirIn, simnet.DirOut, simnet.DirBoth}[shape-1]
	}
	if f.Mode == simnet.ClogSlow {
		f.Delay = Dur(s.Between(nf.ClogDelayNs[0], nf.ClogDelayNs[1]))
	}
	f.Until = Dur(t + s.Between(nf.ClogForNs[0], nf.ClogForNs[1]))
	return f
}

// drawSwizzle is FoundationDB's swizzle-clogging: a random subset of nodes is
// clogged one node at a time, then unclogged in another random order. Each
// node's clog is an ordinary stop clog of both directions.
func drawSwizzle(t int64, nodes []string, forNs [2]int64, s *rng.Stream) []Fault {
	k := int(s.Between(1, int64(len(nodes))))
	perm := append([]string(nil), nodes...)
	for i := len(perm) - 1; i > 0; i-- {
		j := s.Intn(i + 1)
		perm[i], perm[j] = perm[j], perm[i]
	}
	chosen := perm[:k]
	total := s.Between(forNs[0], forNs[1])
	step := total / int64(2*k)
	unclog := append([]string(nil), chosen...)
	for i := len(unclog) - 1; i > 0; i-- {
		j := s.Intn(i + 1)
		unclog[i], unclog[j] = unclog[j], unclog[i]
	}
	end := map[string]int64{}
	for i, node := range unclog {
		end[node] = t + int64(k+i+1)*step
	}
	var out []Fault
	for i, node := range chosen {
		out = append(out, Fault{At: Dur(t + int64(i)*step), Kind: KindClog, Node: node, Dir: simnet.DirBoth, Mode: simnet.ClogStop, Until: Dur(end[node])})
	}
	return out
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
	case KindPartition:
		if r.partitionSeq == e.gen { // a newer partition replaced it already
			r.Net.Heal()
			r.Tracef("partition healed")
		}
	case KindClog:
		if r.Net.Unclog(e.clog) {
			r.Tracef("clog %s lifted", schedule.ClogText(f))
		}
	case KindSlow:
		n := r.NodeByName(f.Node)
		if n.slowSeq == e.gen && n.Slow > 1 {
			n.Slow = 1
			if n.Cur != nil {
				n.Cur.slowDeadlines = nil
			}
			r.Net.SetSlow(f.Node, 1)
			r.Tracef("%s is no longer slow", f.Node)
		}
	case KindPause:
		if n := r.NodeByName(f.Node); n.pausedUntil == int64(f.Until) {
			r.Tracef("%s resumes", f.Node)
		}
	}
}

// applyNet applies one network fault, and reports whether it was one.
func (r *Run) applyNet(f Fault) bool {
	switch f.Kind {
	case KindPartition:
		if err := r.Net.Partition(f.Groups); err != nil {
			r.Tracef("partition not applied: %v", err)
			return true
		}
		r.partitionSeq++
		seq := r.partitionSeq
		r.res.Faults = append(r.res.Faults, f)
		r.Tracef("fault partition %s until %s", schedule.GroupsText(f.Groups), fmtTime(int64(f.Until)))
		r.schedule(netEnd{at: int64(f.Until), fault: f, gen: seq})
	case KindClog:
		c := simnet.Clog{From: f.From, To: f.To, Node: f.Node, Dir: f.Dir, Mode: f.Mode, DelayNs: int64(f.Delay)}
		id, err := r.Net.Clog(c)
		if err != nil {
			r.Tracef("clog not applied: %v", err)
			return true
		}
		r.res.Faults = append(r.res.Faults, f)
		r.Tracef("fault clog %s until %s", schedule.ClogText(f), fmtTime(int64(f.Until)))
		r.schedule(netEnd{at: int64(f.Until), fault: f, clog: id})
	case KindNetReset:
		n := r.Net.ResetNode(f.Node)
		r.res.Faults = append(r.res.Faults, f)
		if n == 1 {
			r.Tracef("fault reset 1 connection of %s", r.instanceName(f.Node))
		} else {
			r.Tracef("fault reset %d connections of %s", n, r.instanceName(f.Node))
		}
	case KindSlow:
		n := r.NodeByName(f.Node)
		if n == nil {
			return true
		}
		r.Net.SetSlow(f.Node, f.Factor)
		n.Slow = f.Factor
		n.slowSeq++
		seq := n.slowSeq
		r.res.Faults = append(r.res.Faults, f)
		r.Tracef("fault slow %s by %gx until %s", f.Node, f.Factor, fmtTime(int64(f.Until)))
		r.schedule(netEnd{at: int64(f.Until), fault: f, gen: seq})
	case KindPause:
		n := r.NodeByName(f.Node)
		if n == nil {
			return true
		}
		until := int64(f.Until)
		if until <= n.pausedUntil {
			return true
		}
		n.pausedUntil = until
		r.res.Faults = append(r.res.Faults, f)
		r.Tracef("fault pause %s until %s", f.Node, fmtTime(until))
		r.schedule(netEnd{at: until, fault: f})
	default:
		return false
	}
	return true
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
	n.Datagrams++
	op := n.Datagrams
	target := r.NodeByName(to)
	if !n.Spec.NetFaults || (target != nil && !target.Spec.NetFaults) || r.Quiet() {
		return false, false
	}
	if r.Opts.Faults != nil {
		drop = r.scheduledOps[opKey{KindUDPDrop, n.Idx, op}]
		dup = r.scheduledOps[opKey{KindUDPDup, n.Idx, op}]
	} else {
		var s rng.Stream
		s.Reset(r.SeedOf(bsUDP), "udp", rng.Key(n.Spec.Name), uint64(op))
		drop = s.Chance(r.Rate(KindUDPDrop, r.Spec.Net.UDPLoss))
		dup = !drop && s.Chance(r.Rate(KindUDPDup, r.Spec.Net.UDPDup))
	}
	for _, k := range []struct {
		on   bool
		kind string
	}{{drop, KindUDPDrop}, {dup, KindUDPDup}} {
		if k.on {
			r.res.Faults = append(r.res.Faults, Fault{At: Dur(r.Now), Kind: k.kind, Node: n.Spec.Name, To: to, Op: op})
			r.Tracef("fault %s: datagram #%d of %s to %s", k.kind, op, in.Name, to)
		}
	}
	return drop, dup
}
