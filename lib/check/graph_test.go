package check

import (
	"slices"
	"testing"
)

// buildGraph builds a graph of n nodes from edges given as {from, to, kind}.
func buildGraph(n int, edges [][3]int32) *graph {
	b := newGraphBuilder(n)
	for round := 0; round < 2; round++ {
		if round == 1 {
			b.placing()
		}
		for i, e := range edges {
			b.add(e[0], e[1], int32(i), uint8(e[2]))
		}
	}
	return b.graph()
}

// The builder keeps each node's edges in the order they were offered, and
// source finds an edge's node from the rows alone.
func TestGraphBuilder(t *testing.T) {
	edges := [][3]int32{{2, 0, int32(edgeWW)}, {0, 1, int32(edgeRW)}, {2, 1, int32(edgeWR)}, {0, 2, int32(edgeWW)}}
	g := buildGraph(4, edges)
	if want := []int32{0, 2, 2, 4, 4}; !slices.Equal(g.start, want) {
		t.Fatalf("start %v, want %v", g.start, want)
	}
	if want := []int32{1, 2, 0, 1}; !slices.Equal(g.to, want) {
		t.Errorf("to %v, want %v", g.to, want)
	}
	if want := []int32{1, 3, 0, 2}; !slices.Equal(g.key, want) {
		t.Errorf("key %v, want %v (the order offered, per node)", g.key, want)
	}
	for e, want := range []int32{0, 0, 2, 2} {
		if got := g.source(int32(e)); got != want {
			t.Errorf("source(%d) = %d, want %d", e, got, want)
		}
	}
}

// One finder answers several questions about a graph: its arrays are reused,
// and each answer is that of a fresh finder.
func TestSCCFinderReuse(t *testing.T) {
	// 0 -ww-> 1 -ww-> 2 -wr-> 0 is a cycle only with wr edges; 3 <-rw-> 4
	// is one only with rw edges; 5 is alone; 2 -ww-> 3 joins them.
	edges := [][3]int32{
		{0, 1, int32(edgeWW)}, {1, 2, int32(edgeWW)}, {2, 0, int32(edgeWR)},
		{3, 4, int32(edgeRW)}, {4, 3, int32(edgeRW)}, {2, 3, int32(edgeWW)}, {5, 0, int32(edgeWW)},
	}
	g := buildGraph(6, edges)
	f := newSCCFinder(g, &stopper{})
	all := f.sccs(edgeAll, nil, false)
	if all[0] < 0 || all[0] != all[1] || all[1] != all[2] || all[3] < 0 || all[3] != all[4] || all[0] == all[3] || all[5] != -1 {
		t.Fatalf("components of every edge, without singletons: %v", all)
	}
	if all[3] > all[0] {
		t.Errorf("components %v: 3 and 4 complete first, so they take the lower number", all)
	}
	for range 2 {
		ww := f.sccs(edgeWW, all, true)
		// Within the components of every edge, ww edges alone make no
		// cycle: every member is a component of its own; 5 takes no part.
		for v := range 5 {
			for u := range v {
				if ww[u] < 0 || ww[u] == ww[v] {
					t.Fatalf("ww components within %v: %v", all, ww)
				}
			}
		}
		if ww[5] != -1 {
			t.Fatalf("ww components within %v: %v, want node 5 out", all, ww)
		}
		wr := f.sccs(edgeWW|edgeWR, all, true)
		if wr[0] != wr[1] || wr[1] != wr[2] || wr[3] == wr[4] || wr[5] != -1 {
			t.Fatalf("ww+wr components within %v: %v", all, wr)
		}
	}
	if again := f.sccs(edgeAll, nil, false); !slices.Equal(again, all) {
		t.Errorf("asked again: %v, first %v", again, all)
	}
}
