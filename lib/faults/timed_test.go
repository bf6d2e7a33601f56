package faults

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/rng"
)

// reach is, for each node, the nodes it can talk to under groups (itself
// included): two nodes talk when some group holds both.
func reach(nodes []string, groups [][]string) map[string][]string {
	out := map[string][]string{}
	for _, a := range nodes {
		for _, b := range nodes {
			for _, g := range groups {
				if slices.Contains(g, a) && slices.Contains(g, b) {
					out[a] = append(out[a], b)
					break
				}
			}
		}
	}
	return out
}

// TestMajoritiesRingCuts is issue 27's: a majorities_ring partition must cut
// something. For every ring drawn, some pair of nodes cannot talk, every node
// reaches a majority, and no two nodes reach the same set.
func TestMajoritiesRingCuts(t *testing.T) {
	for n := 4; n <= 12; n++ {
		nodes := make([]string, n)
		for i := range nodes {
			nodes[i] = fmt.Sprintf("n%d", i+1)
		}
		for seed := uint64(1); seed <= 50; seed++ {
			s := rng.New(seed, "partition", 0)
			groups := PartitionGroups("majorities_ring", nodes, s)
			r := reach(nodes, groups)
			cut := false
			seen := map[string]string{}
			for _, a := range nodes {
				if len(r[a]) < n/2+1 {
					t.Fatalf("n=%d seed %d: %s reaches %v, not a majority (groups %v)", n, seed, a, r[a], groups)
				}
				if len(r[a]) < n {
					cut = true
				}
				key := strings.Join(r[a], ",")
				if b, ok := seen[key]; ok {
					t.Fatalf("n=%d seed %d: %s and %s both reach %s (groups %v)", n, seed, a, b, key, groups)
				}
				seen[key] = a
			}
			if !cut {
				t.Fatalf("n=%d seed %d: every pair can talk (groups %v)", n, seed, groups)
			}
		}
	}
}

// TestRingOfFourIsNeighbourPairs: with four nodes the ring is the spec's
// example, a group per pair of neighbours.
func TestRingOfFourIsNeighbourPairs(t *testing.T) {
	groups := PartitionGroups("majorities_ring", []string{"a", "b", "c", "d"}, rng.New(7, "partition", 0))
	if len(groups) != 4 {
		t.Fatalf("groups %v: want 4", groups)
	}
	for _, g := range groups {
		if len(g) != 2 {
			t.Fatalf("groups %v: want pairs", groups)
		}
	}
}

// TestNoOpsAreNotDrawn: a clock jump by 0 or a slow clog without a delay
// would do nothing, and a schedule that holds one is refused (issue 27),
// so a seed never draws one, whatever the ranges allow.
func TestNoOpsAreNotDrawn(t *testing.T) {
	nodes := []PlanNode{{Name: "a", Faults: true, NetFaults: true}, {Name: "b", Faults: true, NetFaults: true}}
	for _, set := range []map[string]any{
		{"clock_jump_per_sec": 20.0, "clock_jump_max": int64(1)},
		{"clog_per_sec": 20.0, "clog_modes": []string{"slow"}, "clog_delay": [2]int64{0, 1}, "clog_for": [2]int64{1e6, 1e8}},
	} {
		v := Defaults()
		for name, x := range set {
			v[name] = x
		}
		p := &Plan{Values: v, Nodes: nodes, Until: 10e9}
		pl := NewPlanner(p, 1, 0)
		n := 0
		for {
			f, ok := pl.Pop(p)
			if !ok {
				break
			}
			n++
			k, _ := Lookup(f.Kind)
			if err := k.Check(f, Context{}); err != nil {
				t.Fatalf("drew %+v: %v", f, err)
			}
		}
		if n < 50 {
			t.Fatalf("%v: only %d faults drawn", set, n)
		}
	}
}
