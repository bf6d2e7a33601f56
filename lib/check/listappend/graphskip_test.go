package listappend

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sf-dst/sf/lib/check/internal/txngen"
	"github.com/sf-dst/sf/lib/history"
)

// fullGraph is the graph c.edges builds, but with every node keeping its
// edges: the dependency graph before any is left out.
func fullGraph(c *listAppend) *graph {
	b := newGraphBuilder(len(c.txns))
	spans := make([]wwSpan, len(c.keys))
	offer := func() {
		c.offerWW(b, spans)
		for t := range int32(len(c.txns)) {
			if c.status[t] != history.StatusOK {
				continue
			}
			for mi := c.txns[t].mop0; mi < c.txns[t].mop1; mi++ {
				m := &c.mops[mi]
				if !m.read || !m.ext || m.n < 0 || c.keys[m.key].bad {
					continue
				}
				x := c.readEdges(t, m)
				if x.wr >= 0 {
					b.add(x.wr, t, m.key, edgeWR)
				}
				if x.rw >= 0 {
					b.add(t, x.rw, m.key, edgeRW)
				}
			}
		}
	}
	offer()
	for v := range b.reach {
		b.reach[v] = int32(len(b.reach)) // covered by a back edge from past the end
	}
	b.placing()
	offer()
	return b.graph()
}

// The graph the checker builds leaves out the edges of nodes that no back
// edge covers (see graphBuilder); on histories whose transactions overlap,
// fail, end unknown and form cycles, the rows it keeps must be those of the
// whole graph, and the cycles found in it, their counts and their examples,
// those found in the whole graph.
func TestGraphSkipSameCycles(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	cyclic, left := 0, 0
	for round := range 300 {
		ops := txngen.Concurrent(rng)
		c := &listAppend{ops: ops, txns: make([]laTxn, len(ops)), keyID: map[string]int32{}, status: make([]history.Status, len(ops))}
		for i := range c.keyCache {
			c.keyCache[i] = -1
		}
		for i := range ops {
			c.status[i] = ops[i].Status
		}
		for i := range ops {
			if err := c.parse(int32(i)); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		c.checkReads()
		c.checkInternal()
		g, full := c.edges(), fullGraph(c)
		if g.edges != len(full.to) {
			t.Fatalf("round %d: %d edges offered, the whole graph has %d", round, g.edges, len(full.to))
		}
		for _, v := range g.kept {
			a, b := full.start[v], full.start[v+1]
			x, y := g.start[v], g.start[v+1]
			if !slices.Equal(g.to[x:y], full.to[a:b]) || !slices.Equal(g.key[x:y], full.key[a:b]) || !slices.Equal(g.kind[x:y], full.kind[a:b]) {
				t.Fatalf("round %d: node %d keeps edges to %v, the whole graph has %v", round, v, g.to[x:y], full.to[a:b])
			}
		}
		left += g.n - len(g.kept)
		before := c.found
		c.findCycles(g)
		skipped := c.found
		c.found = before
		c.findCycles(full)
		for k := range kindCount {
			s, f := skipped[k], c.found[k]
			if s.count != f.count || s.size != f.size || !slices.Equal(s.txns, f.txns) {
				t.Fatalf("round %d, %s: %d found, size %d, %v; in the whole graph %d, %d, %v", round, anomalyKinds[k], s.count, s.size, s.txns, f.count, f.size, f.txns)
			}
			if s.render != nil && s.render() != f.render() {
				t.Fatalf("round %d, %s: example %s; in the whole graph %s", round, anomalyKinds[k], s.render(), f.render())
			}
			if k <= kG2 && k != kG1a && k != kG1b && s.count > 0 {
				cyclic++
			}
		}
	}
	t.Logf("%d cycle anomalies, %d nodes left out", cyclic, left)
	// The test means something only if both happen, often.
	if cyclic < 50 || left < 1000 {
		t.Fatalf("%d cycle anomalies found, %d nodes left out", cyclic, left)
	}
}
