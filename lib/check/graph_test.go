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
