package listappend

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// buildGraph builds a graph of n nodes from edges given as {from, to, kind}.
func buildGraph(n int, edges [][3]int32) *graph {
	return offerEdges(n, edges).graph()
}

// offerEdges offers edges to a new builder of n nodes in both its rounds,
// counting and placing, and returns the builder before it makes the graph.
func offerEdges(n int, edges [][3]int32) *graphBuilder {
	b := newGraphBuilder(n)
	for round := 0; round < 2; round++ {
		if round == 1 {
			b.placing()
		}
		for i, e := range edges {
			b.add(e[0], e[1], int32(i), uint8(e[2]))
		}
	}
	return b
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
	all := f.sccs(edgeAll, nil, g.kept, false)
	if all[0] < 0 || all[0] != all[1] || all[1] != all[2] || all[3] < 0 || all[3] != all[4] || all[0] == all[3] || all[5] != -1 {
		t.Fatalf("components of every edge, without singletons: %v", all)
	}
	if all[3] > all[0] {
		t.Errorf("components %v: 3 and 4 complete first, so they take the lower number", all)
	}
	var cyclic []int32
	for v, cv := range all {
		if cv >= 0 {
			cyclic = append(cyclic, int32(v))
		}
	}
	for range 2 {
		ww := f.sccs(edgeWW, all, cyclic, true)
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
		wr := f.sccs(edgeWW|edgeWR, all, cyclic, true)
		if wr[0] != wr[1] || wr[1] != wr[2] || wr[3] == wr[4] || wr[5] != -1 {
			t.Fatalf("ww+wr components within %v: %v", all, wr)
		}
	}
	if again := f.sccs(edgeAll, nil, g.kept, false); !slices.Equal(again, all) {
		t.Errorf("asked again: %v, first %v", again, all)
	}
}

// The builder keeps no edges of a node that no back edge covers, and the
// search starts only from the nodes that keep them (see graphBuilder); the
// components must still be those of the whole graph.
// Random graphs with edges mostly forward in node order, a few reaching back
// a short or a long way, against components found from reachability over
// every edge offered.
func TestSCCFinderSkipsAcyclic(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	kinds := []uint8{edgeWW, edgeWR, edgeRW}
	skipped, dropped := 0, 0
	for round := range 300 {
		n := 2 + rng.IntN(40)
		var edges [][3]int32
		for range rng.IntN(3 * n) {
			u := rng.Int32N(int32(n))
			w := u + 1 + rng.Int32N(4)
			switch r := rng.IntN(20); {
			case r == 0:
				w = rng.Int32N(int32(n)) // anywhere
			case r < 3:
				w = u - 1 - rng.Int32N(3) // a little way back
			}
			if w < 0 || w >= int32(n) || w == u {
				continue
			}
			edges = append(edges, [3]int32{u, w, int32(kinds[rng.IntN(3)])})
		}
		b := offerEdges(n, edges)
		// keepsAny answers for a run of nodes what keeps says of each.
		for lo := range int32(n) {
			for hi := lo - 1; hi < int32(n); hi++ {
				some := false
				for v := lo; v <= hi; v++ {
					some = some || b.keeps(v)
				}
				if got := b.keepsAny(lo, hi); got != some {
					t.Fatalf("graph %d (%v): keepsAny(%d, %d) = %v, want %v", round, edges, lo, hi, got, some)
				}
			}
		}
		g := b.graph()
		if g.edges != len(edges) {
			t.Fatalf("graph %d: %d edges counted, %d offered", round, g.edges, len(edges))
		}
		dropped += len(edges) - len(g.to)
		mask := []uint8{edgeAll, edgeWW, edgeWW | edgeWR}[round%3]
		// reach[u][w]: a path of mask's edges from u to w.
		reach := make([][]bool, n)
		for u := range n {
			reach[u] = make([]bool, n)
			queue := []int32{int32(u)}
			for len(queue) > 0 {
				v := queue[0]
				queue = queue[1:]
				for _, e := range edges {
					if w := e[1]; e[0] == v && uint8(e[2])&mask != 0 && !reach[u][w] {
						reach[u][w] = true
						queue = append(queue, w)
					}
				}
			}
		}
		comp := newSCCFinder(g, &stopper{}).sccs(mask, nil, g.kept, false)
		for v := range n {
			if !slices.Contains(g.kept, int32(v)) {
				if reach[v][v] {
					t.Fatalf("graph %d (%v, mask %d): node %d is on a cycle, but keeps no edges", round, edges, mask, v)
				}
				skipped++
			}
			if (comp[v] >= 0) != reach[v][v] {
				t.Fatalf("graph %d (%v, mask %d): node %d in component %d, on a cycle %v", round, edges, mask, v, comp[v], reach[v][v])
			}
			for u := range v {
				if same := comp[u] >= 0 && comp[u] == comp[v]; same != (reach[u][v] && reach[v][u]) {
					t.Fatalf("graph %d (%v, mask %d): nodes %d and %d in components %d and %d", round, edges, mask, u, v, comp[u], comp[v])
				}
			}
		}
	}
	if skipped == 0 || dropped == 0 {
		t.Fatalf("%d nodes left out, %d edges not kept: the test does not test leaving out", skipped, dropped)
	}
}
