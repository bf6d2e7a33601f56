package engine

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
func (r *run) netNodes() []string {
	var out []string
	for _, n := range r.nodes {
		if n.spec.NetFaults {
			out = append(out, n.spec.Name)
		}
	}
	return out
}

// drawNetFaults plans the network faults of the fault period. Each fault
// type has its own stream, and per-node types one per node, so removing one
// fault never moves another.
func (r *run) drawNetFaults(seed uint64, from int64) []Fault {
	nf := &r.spec.Net
	var out []Fault
	nodes := r.netNodes()
	period := r.spec.DurationNs
	times := func(purpose string, key uint64, rate float64, each func(t int64, s *rng.Stream)) {
		rate = r.rate(purpose, rate)
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
	for _, n := range r.nodes {
		if !n.spec.Faults {
			continue // resets, slowdowns and pauses are per-node faults
		}
		name, key := n.spec.Name, rng.Key(n.spec.Name)
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

func (r *run) drawClog(t int64, nodes []string, s *rng.Stream) Fault {
	nf := &r.spec.Net
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

// netEnd is a network fault that lasts: it is undone at its time.
type netEnd struct {
	at   int64
	seq  uint64
	undo func()
}

func (r *run) schedule(at int64, undo func()) {
	r.endSeq++
	r.ends = append(r.ends, netEnd{at, r.endSeq, undo})
	sort.SliceStable(r.ends, func(i, j int) bool {
		if r.ends[i].at != r.ends[j].at {
			return r.ends[i].at < r.ends[j].at
		}
		return r.ends[i].seq < r.ends[j].seq
	})
}

func (r *run) nextEndAt() int64 {
	if len(r.ends) == 0 {
		return math.MaxInt64
	}
	return r.ends[0].at
}

func (r *run) fireEnds() {
	for len(r.ends) > 0 && r.ends[0].at <= r.now {
		e := r.ends[0]
		r.ends = r.ends[1:]
		e.undo()
	}
}

// applyNet applies one network fault, and reports whether it was one.
func (r *run) applyNet(f Fault) bool {
	switch f.Kind {
	case KindPartition:
		if err := r.net.Partition(f.Groups); err != nil {
			r.tracef("partition not applied: %v", err)
			return true
		}
		r.partitionSeq++
		seq := r.partitionSeq
		r.res.Faults = append(r.res.Faults, f)
		r.tracef("fault partition %s until %s", schedule.GroupsText(f.Groups), fmtTime(int64(f.Until)))
		r.schedule(int64(f.Until), func() {
			if r.partitionSeq == seq { // a newer partition replaced it already
				r.net.Heal()
				r.tracef("partition healed")
			}
		})
	case KindClog:
		c := simnet.Clog{From: f.From, To: f.To, Node: f.Node, Dir: f.Dir, Mode: f.Mode, DelayNs: int64(f.Delay)}
		id, err := r.net.Clog(c)
		if err != nil {
			r.tracef("clog not applied: %v", err)
			return true
		}
		r.res.Faults = append(r.res.Faults, f)
		r.tracef("fault clog %s until %s", schedule.ClogText(f), fmtTime(int64(f.Until)))
		r.schedule(int64(f.Until), func() {
			if r.net.Unclog(id) {
				r.tracef("clog %s lifted", schedule.ClogText(f))
			}
		})
	case KindNetReset:
		n := r.net.ResetNode(f.Node)
		r.res.Faults = append(r.res.Faults, f)
		if n == 1 {
			r.tracef("fault reset 1 connection of %s", r.instanceName(f.Node))
		} else {
			r.tracef("fault reset %d connections of %s", n, r.instanceName(f.Node))
		}
	case KindSlow:
		n := r.nodeByName(f.Node)
		if n == nil {
			return true
		}
		r.net.SetSlow(f.Node, f.Factor)
		n.slow = f.Factor
		n.slowSeq++
		seq := n.slowSeq
		r.res.Faults = append(r.res.Faults, f)
		r.tracef("fault slow %s by %gx until %s", f.Node, f.Factor, fmtTime(int64(f.Until)))
		r.schedule(int64(f.Until), func() {
			if n.slowSeq == seq && n.slow > 1 {
				n.slow = 1
				if n.cur != nil {
					n.cur.slowDeadlines = nil
				}
				r.net.SetSlow(f.Node, 1)
				r.tracef("%s is no longer slow", f.Node)
			}
		})
	case KindPause:
		n := r.nodeByName(f.Node)
		if n == nil {
			return true
		}
		until := int64(f.Until)
		if until <= n.pausedUntil {
			return true
		}
		n.pausedUntil = until
		r.res.Faults = append(r.res.Faults, f)
		r.tracef("fault pause %s until %s", f.Node, fmtTime(until))
		r.schedule(until, func() {
			if n.pausedUntil == until {
				r.tracef("%s resumes", f.Node)
			}
		})
	default:
		return false
	}
	return true
}

// healNetwork ends every partition, clog, slowdown and pause at once, for a
// quiet period or the recovery phase.
func (r *run) healNetwork() {
	r.net.HealAll()
	r.partitionSeq++
	for _, n := range r.nodes {
		if n.slow > 1 {
			n.slow = 1
			n.slowSeq++
		}
		n.pausedUntil = 0
	}
}
