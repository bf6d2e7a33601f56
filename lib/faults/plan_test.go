package faults

import (
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/sf-dst/sf/lib/rng"
)

// settings are the shapes of the timed kinds, as the engine held them
// before the registry's fields did: the reference draw reads them.
type settings struct {
	RestartAfter   [2]int64
	ClockJumpMaxNs int64

	PartitionForNs      [2]int64
	PartitionTopologies []string
	ClogForNs           [2]int64
	ClogModes           []string
	ClogDelayNs         [2]int64
	SlowForNs           [2]int64
	SlowFactor          float64
	PauseForNs          [2]int64
}

// values are s and rates as the kinds' fields.
func (s settings) values(rates map[string]float64) Values {
	v := Values{"restart_after": s.RestartAfter, "clock_jump_max": s.ClockJumpMaxNs,
		"partition_for": s.PartitionForNs, "partition_topologies": s.PartitionTopologies, "clog_for": s.ClogForNs,
		"clog_modes": s.ClogModes, "clog_delay": s.ClogDelayNs, "slow_for": s.SlowForNs, "slow_factor": s.SlowFactor,
		"pause_for": s.PauseForNs}
	for k, r := range rates {
		v[k] = r
	}
	return v
}

// eager draws every timed fault of p up front, the way the engine did before
// planning went lazy: for each node its crashes, bit rot and clock jumps,
// then the world's partitions, clogs and swizzles, then each node's resets,
// slowdowns and pauses, all sorted by time, ties in that order. It is the
// reference the Planner must match fault for fault, so that every seed keeps
// its schedule.
func eager(p *Plan, s *settings, rates map[string]float64, seed uint64, from int64) []Fault {
	var out []Fault
	loop := func(st *rng.Stream, rate float64, each func(t int64) int64) {
		if rate <= 0 {
			return
		}
		for t := from; ; {
			t += st.ExpNs(rate)
			if t >= p.Until || t < 0 {
				return
			}
			t = each(t)
		}
	}
	for _, n := range p.Nodes {
		if !n.Faults {
			continue
		}
		st := rng.New(seed, "crash", rng.Key(n.Name))
		loop(st, p.Rate(KindCrash, rates["crash_per_sec"]), func(t int64) int64 {
			down := st.Between(s.RestartAfter[0], s.RestartAfter[1])
			out = append(out, Fault{At: Dur(t), Kind: KindCrash, Node: n.Name, Until: Dur(t + down)})
			return t + down
		})
		st = rng.New(seed, "bitrot/when", rng.Key(n.Name))
		loop(st, p.Rate(KindBitrot, rates["bitrot_per_sec"]), func(t int64) int64 {
			out = append(out, Fault{At: Dur(t), Kind: KindBitrot, Node: n.Name, Until: Dur(t)})
			return t
		})
		if s.ClockJumpMaxNs > 0 {
			st = rng.New(seed, "clockjump", rng.Key(n.Name))
			loop(st, p.Rate(KindClockJump, rates["clock_jump_per_sec"]), func(t int64) int64 {
				if d := st.Between(-s.ClockJumpMaxNs, s.ClockJumpMaxNs); d != 0 {
					out = append(out, Fault{At: Dur(t), Kind: KindClockJump, Node: n.Name, Until: Dur(t), Delta: Dur(d)})
				}
				return t
			})
		}
	}
	nodes := p.netNodes()
	times := func(purpose string, key uint64, rate float64, each func(t int64, st *rng.Stream)) {
		st := rng.New(seed, purpose, key)
		loop(st, p.Rate(purpose, rate), func(t int64) int64 { each(t, st); return t })
	}
	if len(nodes) >= 2 {
		times(KindPartition, 0, rates["partition_per_sec"], func(t int64, st *rng.Stream) {
			g := &Gen{S: *st}
			f := drawPartitionAt(p, s, g, t)
			*st = g.S
			out = append(out, f)
		})
		times(KindClog, 0, rates["clog_per_sec"], func(t int64, st *rng.Stream) {
			if f := refClog(t, nodes, s, st); f.Mode != "slow" || f.Delay != 0 {
				out = append(out, f)
			}
		})
		times(Swizzle, 0, rates["swizzle_per_sec"], func(t int64, st *rng.Stream) {
			out = append(out, refSwizzle(t, nodes, s.ClogForNs, st)...)
		})
	}
	for _, n := range p.Nodes {
		if !n.Faults {
			continue
		}
		key := rng.Key(n.Name)
		times(KindNetReset, key, rates["reset_per_sec"], func(t int64, st *rng.Stream) {
			out = append(out, Fault{At: Dur(t), Kind: KindNetReset, Node: n.Name, Until: Dur(t)})
		})
		times(KindSlow, key, rates["slow_per_sec"], func(t int64, st *rng.Stream) {
			d := st.Between(s.SlowForNs[0], s.SlowForNs[1])
			factor := math.Round((1+st.Float64()*(max(s.SlowFactor, 1)-1))*100) / 100
			out = append(out, Fault{At: Dur(t), Kind: KindSlow, Node: n.Name, Factor: factor, Until: Dur(t + d)})
		})
		times(KindPause, key, rates["pause_per_sec"], func(t int64, st *rng.Stream) {
			d := st.Between(s.PauseForNs[0], s.PauseForNs[1])
			out = append(out, Fault{At: Dur(t), Kind: KindPause, Node: n.Name, Until: Dur(t + d)})
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out
}

func drawPartitionAt(p *Plan, s *settings, g *Gen, t int64) Fault {
	topo := "half"
	if len(s.PartitionTopologies) > 0 {
		topo = s.PartitionTopologies[g.S.Intn(len(s.PartitionTopologies))]
	}
	d := g.S.Between(s.PartitionForNs[0], s.PartitionForNs[1])
	return Fault{At: Dur(t), Kind: KindPartition, Groups: PartitionGroups(topo, p.netNodes(), &g.S), Until: Dur(t + d)}
}

func refClog(t int64, nodes []string, set *settings, s *rng.Stream) Fault {
	f := Fault{At: Dur(t), Kind: KindClog}
	modes := set.ClogModes
	if len(modes) == 0 {
		modes = []string{"stop", "slow", "jam"}
	}
	f.Mode = modes[s.Intn(len(modes))]
	switch shape := s.Intn(4); shape {
	case 0:
		i := s.Intn(len(nodes))
		j := (i + 1 + s.Intn(len(nodes)-1)) % len(nodes)
		f.From, f.To = nodes[i], nodes[j]
	default:
		f.Node = nodes[s.Intn(len(nodes))]
		f.Dir = []string{"in", "out", "both"}[shape-1]
	}
	if f.Mode == "slow" {
		f.Delay = Dur(s.Between(set.ClogDelayNs[0], set.ClogDelayNs[1]))
	}
	f.Until = Dur(t + s.Between(set.ClogForNs[0], set.ClogForNs[1]))
	return f
}

func refSwizzle(t int64, nodes []string, forNs [2]int64, s *rng.Stream) []Fault {
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
		out = append(out, Fault{At: Dur(t + int64(i)*step), Kind: KindClog, Node: node, Dir: "both", Mode: "stop", Until: Dur(end[node])})
	}
	return out
}

func TestPlannerMatchesTheEagerDraw(t *testing.T) {
	if raceEnabled {
		t.Skip("one goroutine: nothing for -race to watch; the run without -race does it")
	}
	nodes := func(n int) []PlanNode {
		var out []PlanNode
		for i := range n {
			out = append(out, PlanNode{Name: fmt.Sprintf("n%d", i+1), Faults: i != 2, NetFaults: true})
		}
		return out
	}
	type world struct {
		s     settings
		rates map[string]float64
	}
	settings := []world{
		{settings{RestartAfter: [2]int64{1e6, 5e8}}, map[string]float64{"crash_per_sec": 2}},
		{settings{RestartAfter: [2]int64{1e7, 1e9}, ClockJumpMaxNs: 5e9}, map[string]float64{"crash_per_sec": 0.5, "bitrot_per_sec": 3, "clock_jump_per_sec": 4}},
		{settings{PartitionForNs: [2]int64{5e7, 2e9}, PartitionTopologies: []string{"half", "one", "majority", "majorities_ring", "random_groups"},
			ClogForNs: [2]int64{1e8, 2e9}, ClogDelayNs: [2]int64{1e7, 2e8}}, map[string]float64{"partition_per_sec": 3, "clog_per_sec": 3, "swizzle_per_sec": 2}},
		{settings{RestartAfter: [2]int64{1e6, 1e8}, ClogForNs: [2]int64{1e8, 4e9}, SlowForNs: [2]int64{5e8, 5e9}, SlowFactor: 10,
			PauseForNs: [2]int64{1e8, 3e9}, ClockJumpMaxNs: 1e10}, map[string]float64{"crash_per_sec": 1, "swizzle_per_sec": 5,
			"reset_per_sec": 2, "slow_per_sec": 2, "pause_per_sec": 3, "clock_jump_per_sec": 1, "bitrot_per_sec": 1}},
		{settings{ClockJumpMaxNs: 0}, map[string]float64{"clock_jump_per_sec": 5}},
	}
	for si, w := range settings {
		for _, n := range []int{1, 2, 3, 5} {
			for _, swarm := range []map[string]float64{nil, {"crash": 1.5, "clog": 0, "swizzle": 1.9, "pause": 0.3, "partition": 1, "slow": 2, "net_reset": 1, "bitrot": 0.5, "clock_jump": 1}} {
				for seed := uint64(1); seed <= 8; seed++ {
					for _, from := range []int64{0, 3e9} {
						s := w.s
						p := &Plan{Values: s.values(w.rates), Nodes: nodes(n), Until: 30e9, Swarm: swarm}
						want := eager(p, &s, w.rates, seed, from)
						pl := NewPlanner(p, seed, from)
						if c := pl.Count(p); c != len(want) {
							t.Fatalf("settings %d, %d nodes, seed %d: Count says %d faults, want %d", si, n, seed, c, len(want))
						}
						var got []Fault
						for {
							if peek, ok := pl.Peek(); ok {
								f, _ := pl.Pop(p)
								if fmt.Sprint(f) != fmt.Sprint(peek) {
									t.Fatalf("Pop gave %v after Peek gave %v", f, peek)
								}
								got = append(got, f)
								continue
							}
							break
						}
						if fmt.Sprint(got) != fmt.Sprint(want) {
							t.Fatalf("settings %d, %d nodes, seed %d, from %d: the planner's %d faults differ from the eager draw's %d:\n%v\nwant\n%v", si, n, seed, from, len(got), len(want), got, want)
						}
					}
				}
			}
		}
	}
}
