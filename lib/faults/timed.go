package faults

import (
	"math"
	"sort"

	"github.com/sf-dst/sf/lib/rng"
	"github.com/sf-dst/sf/lib/simnet"
)

// scope says what one generator of a timed kind draws for.
type scope uint8

const (
	perNode    scope = iota + 1 // each node that takes per-node faults
	perNetNode                  // each node that takes per-node faults, drawn after the world's network faults
	perWorld                    // the world, when at least two programs take network faults
)

// planOrder lists a plan's generators in the order their faults come when
// two fall at one time: for each node its crashes, bit rot and clock
// jumps; then the world's partitions, clogs and swizzles; then for each
// node its connection resets, slowdowns and pauses. A kind whose rate is 0
// has none.
func planOrder(p *Plan, seed uint64, from int64) []Gen {
	var gens []Gen
	add := func(k int, node string, key uint64) {
		kd := registry[k]
		if !kd.drawn(p) {
			return
		}
		g := Gen{Kind: k, Node: node, T: from}
		g.S.Reset(seed, kd.stream, key)
		gens = append(gens, g)
	}
	timed := make([]int, 0, len(registry))
	for i, k := range registry {
		if k.scope != 0 {
			timed = append(timed, i)
		}
	}
	sort.SliceStable(timed, func(a, b int) bool { return registry[timed[a]].drawOrder < registry[timed[b]].drawOrder })
	for _, sc := range []scope{perNode, perWorld, perNetNode} {
		switch sc {
		case perWorld:
			if len(p.netNodes()) < 2 {
				continue
			}
			for _, i := range timed {
				if registry[i].scope == sc {
					add(i, "", 0)
				}
			}
		default:
			for _, n := range p.Nodes {
				if !n.Faults {
					continue
				}
				for _, i := range timed {
					if registry[i].scope == sc {
						add(i, n.Name, rng.Key(n.Name))
					}
				}
			}
		}
	}
	return gens
}

// drawn reports whether the kind draws anything at all in plan p.
func (k *Kind) drawn(p *Plan) bool {
	return k.Draw != nil && p.KindRate(k) > 0 && (k.enabled == nil || k.enabled(p.Values))
}

// next is the time of g's next event, or false when it passes the fault
// period: one exponential gap at the kind's rate after g.T.
func (k *Kind) next(p *Plan, g *Gen) (int64, bool) {
	t := g.T + g.S.ExpNs(p.KindRate(k))
	if t >= p.Until || t < 0 {
		g.Done = true
		return 0, false
	}
	g.T = t
	return t, true
}

func drawCrash(p *Plan, g *Gen, k *Kind) []Fault {
	t, ok := k.next(p, g)
	if !ok {
		return nil
	}
	ra := p.Values.Range("restart_after")
	down := g.S.Between(ra[0], ra[1])
	g.T = t + down // a node is not crashed again while it is down
	return []Fault{{At: Dur(t), Kind: KindCrash, Node: g.Node, Until: Dur(t + down)}}
}

func drawBitrot(p *Plan, g *Gen, k *Kind) []Fault {
	t, ok := k.next(p, g)
	if !ok {
		return nil
	}
	return []Fault{{At: Dur(t), Kind: KindBitrot, Node: g.Node, Until: Dur(t)}}
}

func drawClockJump(p *Plan, g *Gen, k *Kind) []Fault {
	t, ok := k.next(p, g)
	if !ok {
		return nil
	}
	m := p.Values.Duration("clock_jump_max")
	d := g.S.Between(-m, m)
	if d == 0 {
		return nil // a jump by 0 does nothing, and a schedule may not hold one
	}
	return []Fault{{At: Dur(t), Kind: KindClockJump, Node: g.Node, Until: Dur(t), Delta: Dur(d)}}
}

func drawPartition(p *Plan, g *Gen, k *Kind) []Fault {
	t, ok := k.next(p, g)
	if !ok {
		return nil
	}
	topo := "half"
	if topos := p.Values.Choices("partition_topologies"); len(topos) > 0 {
		topo = topos[g.S.Intn(len(topos))]
	}
	pf := p.Values.Range("partition_for")
	d := g.S.Between(pf[0], pf[1])
	return []Fault{{At: Dur(t), Kind: KindPartition, Groups: PartitionGroups(topo, p.netNodes(), &g.S), Until: Dur(t + d)}}
}

// PartitionGroups splits nodes (at least two) into the groups of a
// topology, drawing from s. Two nodes can talk only if some group holds
// both.
func PartitionGroups(topo string, nodes []string, s *rng.Stream) [][]string {
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
		// Each node talks to the r nodes on either side of it on the ring:
		// 2r+1 nodes, the smallest odd count that is a majority. Windows of
		// r+1 consecutive nodes hold exactly the pairs at most r apart. A
		// window of a whole majority would let every pair talk, since a
		// majority spans every distance up to n/2. For n >= 4, 2r+1 < n,
		// so no two nodes see the same set.
		r := (n/2 + 1) / 2
		var groups [][]string
		for i := range perm {
			var g []string
			for k := 0; k <= r; k++ {
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

func drawClog(p *Plan, g *Gen, k *Kind) []Fault {
	t, ok := k.next(p, g)
	if !ok {
		return nil
	}
	s, nodes := &g.S, p.netNodes()
	f := Fault{At: Dur(t), Kind: KindClog}
	modes := p.Values.Choices("clog_modes")
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
		cd := p.Values.Range("clog_delay")
		f.Delay = Dur(s.Between(cd[0], cd[1]))
	}
	cf := p.Values.Range("clog_for")
	f.Until = Dur(t + s.Between(cf[0], cf[1]))
	if f.Mode == simnet.ClogSlow && f.Delay == 0 {
		return nil // nor does a slow clog without a delay
	}
	return []Fault{f}
}

// drawSwizzle is FoundationDB's swizzle-clogging: a random subset of nodes
// is clogged one node at a time, then unclogged in another random order.
// Each node's clog is an ordinary stop clog of both directions.
func drawSwizzle(p *Plan, g *Gen, k *Kind) []Fault {
	t, ok := k.next(p, g)
	if !ok {
		return nil
	}
	s, nodes := &g.S, p.netNodes()
	n := int(s.Between(1, int64(len(nodes))))
	perm := append([]string(nil), nodes...)
	for i := len(perm) - 1; i > 0; i-- {
		j := s.Intn(i + 1)
		perm[i], perm[j] = perm[j], perm[i]
	}
	chosen := perm[:n]
	forNs := p.Values.Range("clog_for")
	total := s.Between(forNs[0], forNs[1])
	step := total / int64(2*n)
	unclog := append([]string(nil), chosen...)
	for i := len(unclog) - 1; i > 0; i-- {
		j := s.Intn(i + 1)
		unclog[i], unclog[j] = unclog[j], unclog[i]
	}
	end := map[string]int64{}
	for i, node := range unclog {
		end[node] = t + int64(n+i+1)*step
	}
	var out []Fault
	for i, node := range chosen {
		out = append(out, Fault{At: Dur(t + int64(i)*step), Kind: KindClog, Node: node, Dir: simnet.DirBoth, Mode: simnet.ClogStop, Until: Dur(end[node])})
	}
	return out
}

func drawReset(p *Plan, g *Gen, k *Kind) []Fault {
	t, ok := k.next(p, g)
	if !ok {
		return nil
	}
	return []Fault{{At: Dur(t), Kind: KindNetReset, Node: g.Node, Until: Dur(t)}}
}

func drawSlow(p *Plan, g *Gen, k *Kind) []Fault {
	t, ok := k.next(p, g)
	if !ok {
		return nil
	}
	sf := p.Values.Range("slow_for")
	d := g.S.Between(sf[0], sf[1])
	factor := 1 + g.S.Float64()*(max(p.Values.Float("slow_factor"), 1)-1)
	factor = math.Round(factor*100) / 100
	return []Fault{{At: Dur(t), Kind: KindSlow, Node: g.Node, Factor: factor, Until: Dur(t + d)}}
}

func drawPause(p *Plan, g *Gen, k *Kind) []Fault {
	t, ok := k.next(p, g)
	if !ok {
		return nil
	}
	pf := p.Values.Range("pause_for")
	d := g.S.Between(pf[0], pf[1])
	return []Fault{{At: Dur(t), Kind: KindPause, Node: g.Node, Until: Dur(t + d)}}
}
