package listappend

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sf-dst/sf/lib/history"
)

func (c *listAppend) id(t int32) int64 { return c.ops[t].ID }

func (c *listAppend) failed(t int32) bool { return c.status[t] == history.StatusFailed }

func (c *listAppend) read(m *laMop) []int32 {
	if m.own {
		return c.elems[m.val : m.val+m.n]
	}
	return c.keys[m.key].seq[:m.n]
}

func (c *listAppend) txnOfMop(mi int32) int32 {
	return int32(sort.Search(len(c.txns), func(t int) bool { return c.txns[t].mop1 > mi }))
}

// checkReads checks every read of a committed transaction on its own:
// duplicate elements, garbage, aborted reads (G1a), intermediate reads
// (G1b), and whether it is a prefix of its key's longest read.
func (c *listAppend) checkReads() {
	stamp := make([]int32, len(c.vals))
	seq := int32(0)
	// facts[k] holds, for key k's longest read, the first positions at
	// which a duplicate, a garbage element and an aborted one show; a read
	// that is a prefix of it has those it reaches. Most reads are such
	// prefixes, and are then checked without a pass over their elements.
	facts := make([]prefixFacts, len(c.keys))
	for ti := range c.txns {
		if uint(ti)%itemsPerPoll == 0 && c.stop.poll() {
			return
		}
		t := int32(ti)
		if c.status[t] != history.StatusOK {
			continue
		}
		txn := &c.txns[t]
		for mi := txn.mop0; mi < txn.mop1; mi++ {
			m := &c.mops[mi]
			if !m.read || m.n <= 0 {
				continue
			}
			r := c.read(m)
			kk := &c.keys[m.key]
			lm := &c.mops[kk.longest]
			order := c.read(lm)
			mismatch := -1 // the first position where r and order differ
			// Two reads stored as prefixes of the key's seq agree as far as
			// the shorter goes, and r is not longer than the longest read.
			if m.own || lm.own {
				for i, v := range r {
					if order[i] != v {
						mismatch = i
						break
					}
				}
			}
			if mismatch < 0 {
				f := &facts[m.key]
				if !f.known {
					seq++
					c.prefixFacts(order, stamp, seq, f)
				}
				n := int32(len(r))
				if f.dup < n {
					kk.bad = true
					v := r[f.dup]
					c.note(kDuplicateElements, 0, []int32{t}, func() string {
						return fmt.Sprintf("T%d read %s %s, which has %q twice; %s", c.id(t), kk.name, c.list(r), c.str(v), c.describeTxn(t))
					})
				}
				if f.garbage < n {
					v := r[f.garbage]
					c.note(kGarbageRead, 0, []int32{t}, func() string {
						return fmt.Sprintf("T%d read %s %s, but nobody appended %q to %s; %s", c.id(t), kk.name, c.list(r), c.str(v), kk.name, c.describeTxn(t))
					})
				}
				if f.aborted < n {
					v := r[f.aborted]
					w := c.vals[v].writer
					c.note(kG1a, 0, []int32{t, w}, func() string {
						return fmt.Sprintf("T%d read %s %s, including %q appended by T%d, which failed; %s; %s",
							c.id(t), kk.name, c.list(r), c.str(v), c.id(w), c.describeTxn(t), c.describeTxn(w))
					})
				}
			} else {
				seq++
				for _, v := range r {
					if stamp[v] == seq {
						kk.bad = true
						c.note(kDuplicateElements, 0, []int32{t}, func() string {
							return fmt.Sprintf("T%d read %s %s, which has %q twice; %s", c.id(t), kk.name, c.list(r), c.str(v), c.describeTxn(t))
						})
						break
					}
					stamp[v] = seq
				}
				garbage, aborted := false, false
				for _, v := range r {
					w := c.vals[v].writer
					switch {
					case w < 0 && !garbage:
						garbage = true
						c.note(kGarbageRead, 0, []int32{t}, func() string {
							return fmt.Sprintf("T%d read %s %s, but nobody appended %q to %s; %s", c.id(t), kk.name, c.list(r), c.str(v), kk.name, c.describeTxn(t))
						})
					case w >= 0 && w != t && c.failed(w) && !aborted:
						aborted = true
						c.note(kG1a, 0, []int32{t, w}, func() string {
							return fmt.Sprintf("T%d read %s %s, including %q appended by T%d, which failed; %s; %s",
								c.id(t), kk.name, c.list(r), c.str(v), c.id(w), c.describeTxn(t), c.describeTxn(w))
						})
					}
				}
			}
			if last := r[len(r)-1]; c.vals[last].writer >= 0 && c.vals[last].writer != t && c.vals[last].next >= 0 && !c.failed(c.vals[last].writer) {
				w, next := c.vals[last].writer, c.vals[last].next
				c.note(kG1b, 0, []int32{t, w}, func() string {
					return fmt.Sprintf("T%d read %s %s, ending in %q, an intermediate append of T%d, which appended %q to %s after it; %s; %s",
						c.id(t), kk.name, c.list(r), c.str(last), c.id(w), c.str(next), kk.name, c.describeTxn(t), c.describeTxn(w))
				})
			}
			if i := mismatch; i >= 0 {
				kk.bad = true
				u := c.txnOfMop(kk.longest)
				v := r[i]
				c.note(kIncompatibleOrder, 0, []int32{u, t}, func() string {
					return fmt.Sprintf("T%d read %s %s and T%d read %s %s: neither is a prefix of the other (element %d is %q and %q); %s; %s",
						c.id(u), kk.name, c.list(order), c.id(t), kk.name, c.list(r), i, c.str(order[i]), c.str(v), c.describeTxn(u), c.describeTxn(t))
				})
			}
		}
	}
}

// prefixFacts is what checkReads finds in one key's longest read: the first
// position of an element seen before in it, of one nobody appended and of
// one a failed transaction appended; the read's length where there is none.
type prefixFacts struct {
	known                 bool
	dup, garbage, aborted int32
}

func (c *listAppend) prefixFacts(order []int32, stamp []int32, seq int32, f *prefixFacts) {
	n := int32(len(order))
	*f = prefixFacts{known: true, dup: n, garbage: n, aborted: n}
	for i, v := range order {
		if stamp[v] == seq && f.dup == n {
			f.dup = int32(i)
		}
		stamp[v] = seq
		// A committed reader never appended what a failed transaction did,
		// so the failed writer is never the reader itself.
		switch w := c.vals[v].writer; {
		case w < 0 && f.garbage == n:
			f.garbage = int32(i)
		case w >= 0 && c.failed(w) && f.aborted == n:
			f.aborted = int32(i)
		}
	}
}

// internalState is what a transaction knows of one key from its own
// micro-ops: the list its last read returned (if it read the key) and what
// it appended since.
type internalState struct {
	read     bool
	base     []int32
	appended []int32
}

// checkInternal checks that each committed transaction's reads agree with its
// own earlier reads and appends, and marks its external reads: the first
// access to a key, when it is a read.
func (c *listAppend) checkInternal() {
	entStamp := make([]int32, len(c.keys))
	entIdx := make([]int32, len(c.keys))
	var ents []internalState
	for ti := range c.txns {
		if uint(ti)%itemsPerPoll == 0 && c.stop.poll() {
			return
		}
		t := int32(ti)
		if c.status[t] != history.StatusOK {
			continue
		}
		txn := &c.txns[t]
		if ms := c.mops[txn.mop0:txn.mop1]; len(ms) <= distinctKeysMax && distinctKeys(ms) {
			// Each micro-op is the first and only access to its key: a
			// read is external, and there is nothing of the transaction's
			// own for it to disagree with.
			for i := range ms {
				if ms[i].read {
					ms[i].ext = true
					c.extReads++
				}
			}
			continue
		}
		ents = ents[:0]
		reported := false
		for mi := txn.mop0; mi < txn.mop1; mi++ {
			m := &c.mops[mi]
			var e *internalState
			if entStamp[m.key] == t+1 {
				e = &ents[entIdx[m.key]]
			} else {
				entStamp[m.key] = t + 1
				entIdx[m.key] = int32(len(ents))
				if len(ents) < cap(ents) {
					ents = ents[:len(ents)+1]
					e = &ents[len(ents)-1]
					e.read, e.base, e.appended = false, nil, e.appended[:0]
				} else {
					ents = append(ents, internalState{})
					e = &ents[len(ents)-1]
				}
				if m.read {
					m.ext = true
					c.extReads++
				}
			}
			if !m.read {
				e.appended = append(e.appended, m.val)
				continue
			}
			r := c.read(m)
			if !reported {
				if msg := c.internalMismatch(t, mi, m, e, r); msg != "" {
					reported = true
					c.note(kInternal, 0, []int32{t}, func() string { return msg + "; " + c.describeTxn(t) })
				}
			}
			e.read, e.base, e.appended = true, r, e.appended[:0]
		}
	}
}

// distinctKeysMax is the most micro-ops for which checkInternal compares
// every pair's keys to find a transaction that touches each key once; most
// transactions have a few micro-ops, and a pair costs a comparison where
// the general path costs a hundred instructions a micro-op.
const distinctKeysMax = 8

// distinctKeys reports whether no two of ms name the same key.
func distinctKeys(ms []laMop) bool {
	for i := 1; i < len(ms); i++ {
		for j := range i {
			if ms[i].key == ms[j].key {
				return false
			}
		}
	}
	return true
}

func (c *listAppend) internalMismatch(t, mi int32, m *laMop, e *internalState, r []int32) string {
	name := c.keys[m.key].name
	switch {
	case m.ext:
		// What t appends only later is what its later appends to this key
		// appended first: look for those few ids in r, rather than look up
		// the writer of every element.
		var buf [4]int32
		later := buf[:0]
		for mj := mi + 1; mj < c.txns[t].mop1; mj++ {
			if o := &c.mops[mj]; !o.read && o.key == m.key && c.vals[o.val].writer == t && c.vals[o.val].mop > mi {
				later = append(later, o.val)
			}
		}
		if len(later) == 0 {
			break
		}
		for _, v := range r {
			if slices.Contains(later, v) {
				return fmt.Sprintf("T%d read %s %s, including %q, which it appends only later", c.id(t), name, c.list(r), c.str(v))
			}
		}
	case e.read:
		want := append(slices.Clip(e.base), e.appended...)
		if !slices.Equal(r, want) {
			return fmt.Sprintf("T%d read %s %s, but its own earlier read and appends make it %s", c.id(t), name, c.list(r), c.list(want))
		}
	case len(e.appended) > 0:
		n := len(e.appended)
		if len(r) < n || !slices.Equal(r[len(r)-n:], e.appended) {
			return fmt.Sprintf("T%d read %s %s after appending %s to it, so the list should end in %s", c.id(t), name, c.list(r), c.list(e.appended), c.list(e.appended))
		}
	}
	return ""
}

// edges infers the dependency edges and returns their graph, or nil when
// stopped. For each key with a trusted version order (its longest read): ww
// from each append's writer to the next different writer; for each external
// read of it, wr from the writer of the last element read and rw to the
// writer of the element after what was read.
//
// The edges are offered twice, first to be counted and then to be placed
// (see graphBuilder), in the same order. The ww edges are cheap to infer
// again; what each external read gives is kept from the first round in 12
// bytes, where a list of edge records would take 16 bytes an edge.
func (c *listAppend) edges() *graph {
	b := newGraphBuilder(len(c.txns))
	spans := make([]wwSpan, len(c.keys))
	c.offerWW(b, spans)
	exts := make([]extEdges, 0, c.extReads)
	for ti := range c.txns {
		if uint(ti)%itemsPerPoll == 0 && c.stop.poll() {
			return nil
		}
		t := int32(ti)
		if c.status[t] != history.StatusOK {
			continue
		}
		txn := &c.txns[t]
		for mi := txn.mop0; mi < txn.mop1; mi++ {
			m := &c.mops[mi]
			if !m.read || !m.ext || m.n < 0 || c.keys[m.key].bad {
				continue
			}
			x := c.readEdges(t, m)
			if x.wr < 0 && x.rw < 0 {
				continue
			}
			x.mop = mi
			exts = append(exts, x)
			if x.wr >= 0 {
				b.add(x.wr, t, m.key, edgeWR)
			}
			if x.rw >= 0 {
				b.add(t, x.rw, m.key, edgeRW)
			}
		}
	}
	b.placing()
	c.offerWW(b, spans)
	t := int32(0)
	for i := range exts {
		if uint(i)%itemsPerPoll == 0 && c.stop.poll() {
			return nil
		}
		x := &exts[i]
		for c.txns[t].mop1 <= x.mop {
			t++
		}
		// Most edges are not kept: look up the key only for those that are.
		wr, rw := x.wr >= 0 && b.keeps(x.wr), x.rw >= 0 && b.keeps(t)
		if !wr && !rw {
			continue
		}
		k := c.mops[x.mop].key
		if wr {
			b.add(x.wr, t, k, edgeWR)
		}
		if rw {
			b.add(t, x.rw, k, edgeRW)
		}
	}
	return b.graph()
}

// extEdges is what an external read micro-op gives: the transaction of a wr
// edge into its reader and of an rw edge out of it, or -1 for none.
type extEdges struct {
	mop, wr, rw int32
}

// wwSpan is the lowest and highest source of one key's ww edges.
type wwSpan struct{ lo, hi int32 }

// offerWW offers the ww edges of every key with a trusted version order.
// Counting, it notes in spans where each key's edges start; placing, it
// passes over a key none of whose edges the graph keeps.
func (c *listAppend) offerWW(b *graphBuilder, spans []wwSpan) {
	for ki := range c.keys {
		kk := &c.keys[ki]
		if kk.bad || kk.longest < 0 {
			continue
		}
		sp := &spans[ki]
		if b.fill && !b.keepsAny(sp.lo, sp.hi) {
			continue
		}
		*sp = wwSpan{lo: int32(b.g.n), hi: -1}
		prev := int32(-1)
		for _, v := range c.read(&c.mops[kk.longest]) {
			w := c.vals[v].writer
			if w < 0 || c.failed(w) {
				continue
			}
			if prev >= 0 && prev != w {
				b.add(prev, w, int32(ki), edgeWW)
				sp.lo, sp.hi = min(sp.lo, prev), max(sp.hi, prev)
			}
			prev = w
		}
	}
}

// readEdges returns the edges of m, transaction t's external read of a key
// with a trusted version order: wr from the writer of the last element it
// read, rw to the writer of the first element after those.
func (c *listAppend) readEdges(t int32, m *laMop) extEdges {
	x := extEdges{wr: -1, rw: -1}
	order := c.read(&c.mops[c.keys[m.key].longest])
	n := int(m.n)
	if n > 0 {
		if w := c.vals[order[n-1]].writer; w >= 0 && w != t && !c.failed(w) {
			x.wr = w
		}
	}
	for _, v := range order[n:] {
		w := c.vals[v].writer
		if w < 0 || c.failed(w) {
			continue
		}
		if w != t {
			x.rw = w
		}
		break
	}
	return x
}

// searchBudget is how many edges the budgeted searches of one kind may
// examine in a history with m edges.
func searchBudget(m int) int { return max(searchBudgetMin, 8*m) }

// findCycles finds the strongly connected components of the dependency graph
// and, inside each one with a cycle, one short cycle of each kind.
func (c *listAppend) findCycles(g *graph) {
	if len(g.to) == 0 {
		return // no node may be on a cycle (see graphBuilder)
	}
	// Only nodes in a component with a cycle take part from here on; the
	// component ids of the others would only be compared and never match.
	f := newSCCFinder(g, &c.stop)
	within := f.sccs(edgeAll, nil, g.kept, false)
	if c.stop.stopped {
		return
	}
	// The nodes in a component with a cycle, in increasing order; all keep
	// their edges.
	var cyclic []int32
	for _, v := range g.kept {
		if within[v] >= 0 {
			cyclic = append(cyclic, v)
		}
	}
	if len(cyclic) == 0 {
		return
	}
	wwComp := f.sccs(edgeWW, within, cyclic, true)
	wrComp := f.sccs(edgeWW|edgeWR, within, cyclic, true)
	if c.stop.stopped {
		return
	}
	cs := &cycleSearch{g: g, s: newSearcher(g, within, f.low, &c.stop), // Tarjan is done with low
		within: within, wwComp: wwComp, wrComp: wrComp,
		budgetSingle: searchBudget(g.edges), budgetG2: searchBudget(g.edges)}

	// Members of each component, components in the order of their first node.
	members := map[int32][]int32{}
	var order []int32
	for _, v := range cyclic {
		cv := within[v]
		if _, ok := members[cv]; !ok {
			order = append(order, cv)
		}
		members[cv] = append(members[cv], v)
	}
	for _, cv := range order {
		if c.stop.stopped {
			return
		}
		c.componentCycles(cs, members[cv])
	}
}

// cycleSearch is what findCycles's searches of the components share: the
// graph; its components of all edges, of ww edges and of ww and wr edges;
// the path searcher; and the budgets left for the G-single and G2 searches,
// which every component draws on in turn.
type cycleSearch struct {
	g                      *graph
	s                      *searcher
	within, wwComp, wrComp []int32
	budgetSingle, budgetG2 int
}

// componentCycles finds one short cycle of each kind inside the component
// whose nodes, in increasing order, are nodes.
func (c *listAppend) componentCycles(cs *cycleSearch, nodes []int32) {
	g, s, within, wwComp, wrComp := cs.g, cs.s, cs.within, cs.wwComp, cs.wrComp
	const unlimited = int(^uint(0) >> 1)
	inside := func(v, e int32) bool { return within[g.to[e]] == within[v] }
	var found [kindCount]bool
	record := func(cycle []int32) {
		k := c.classify(g, cycle)
		if !found[k] {
			found[k] = true
			c.note(k, len(cycle), c.cycleTxns(g, cycle), func() string { return c.describeCycle(g, cycle) })
		}
	}
	// G0: a ww edge inside a ww component closes a ww cycle.
	s.budget = unlimited
g0:
	for _, v := range nodes {
		for e := g.start[v]; e < g.start[v+1]; e++ {
			if g.kind[e] == edgeWW && inside(v, e) && wwComp[v] == wwComp[g.to[e]] {
				if p := s.path(g.to[e], v, edgeWW); p != nil {
					record(append([]int32{e}, p...))
					break g0
				}
			}
		}
	}
	// G1c: a wr edge inside a ww+wr component.
g1c:
	for _, v := range nodes {
		for e := g.start[v]; e < g.start[v+1]; e++ {
			if g.kind[e] == edgeWR && inside(v, e) && wrComp[v] == wrComp[g.to[e]] {
				if p := s.path(g.to[e], v, edgeWW|edgeWR); p != nil {
					record(append([]int32{e}, p...))
					break g1c
				}
			}
		}
	}
	// G-single: an rw edge u->v and a ww/wr path back from v to u. It
	// surely exists when both are in one ww+wr component; otherwise v's
	// component must come no later than u's in topological order.
	single := false
sure:
	for _, v := range nodes {
		for e := g.start[v]; e < g.start[v+1]; e++ {
			if g.kind[e] == edgeRW && inside(v, e) && wrComp[v] == wrComp[g.to[e]] {
				if p := s.path(g.to[e], v, edgeWW|edgeWR); p != nil {
					record(append([]int32{e}, p...))
					single = true
					break sure
				}
			}
		}
	}
	if !single && cs.budgetSingle > 0 {
		s.budget = cs.budgetSingle
	maybe:
		for _, v := range nodes {
			for e := g.start[v]; e < g.start[v+1]; e++ {
				if g.kind[e] == edgeRW && inside(v, e) && wrComp[g.to[e]] >= wrComp[v] {
					if p := s.path(g.to[e], v, edgeWW|edgeWR); p != nil {
						record(append([]int32{e}, p...))
						break maybe
					}
					if s.budget <= 0 {
						break maybe
					}
				}
			}
		}
		cs.budgetSingle = s.budget
	}
	// G2: an rw edge u->v and a path back from v to u with another rw
	// edge. A closed walk found that way may repeat a node; split it into
	// simple cycles and keep one with two or more rw edges.
	if cs.budgetG2 > 0 {
		s.budget = cs.budgetG2
	g2:
		for _, v := range nodes {
			for e := g.start[v]; e < g.start[v+1]; e++ {
				if g.kind[e] != edgeRW || !inside(v, e) {
					continue
				}
				p := s.pathVia(g.to[e], v)
				if p == nil {
					if s.budget <= 0 {
						break g2
					}
					continue
				}
				for _, cyc := range g.simpleCycles(append([]int32{e}, p...)) {
					if c.classify(g, cyc) == kG2 {
						record(cyc)
						break g2
					}
				}
			}
		}
		cs.budgetG2 = s.budget
	}
	// Every component has a cycle; if the budgets ran out before any was
	// found, report the one a plain search finds.
	if found == [kindCount]bool{} {
		s.budget = unlimited
	any:
		for _, v := range nodes {
			for e := g.start[v]; e < g.start[v+1]; e++ {
				if inside(v, e) {
					if p := s.path(g.to[e], v, edgeAll); p != nil {
						record(append([]int32{e}, p...))
						break any
					}
				}
			}
		}
	}
}

// classify names a simple cycle by its edges: ww only is G0; ww and wr with
// at least one wr is G1c; exactly one rw is G-single; more is G2.
func (c *listAppend) classify(g *graph, cycle []int32) int {
	rw, wr := 0, 0
	for _, e := range cycle {
		switch g.kind[e] {
		case edgeRW:
			rw++
		case edgeWR:
			wr++
		}
	}
	switch {
	case rw >= 2:
		return kG2
	case rw == 1:
		return kGSingle
	case wr > 0:
		return kG1c
	}
	return kG0
}

func (c *listAppend) cycleTxns(g *graph, cycle []int32) []int32 {
	txns := make([]int32, len(cycle))
	for i, e := range cycle {
		txns[i] = g.source(e)
	}
	return txns
}

// cycleShownMax is the most edges an example cycle shows; a longer cycle shows
// its first and last few edges.
const cycleShownMax = 12

// describeCycle renders a cycle as "T4 -rw z-> T0 -wr z-> T4; T4 (...) [...]; T0 (...) [...]".
func (c *listAppend) describeCycle(g *graph, cycle []int32) string {
	shown := cycle
	head, tail := len(cycle), 0
	if len(cycle) > cycleShownMax {
		head, tail = cycleShownMax-4, 4
		shown = append(append([]int32(nil), cycle[:head]...), cycle[len(cycle)-tail:]...)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "T%d", c.id(g.source(cycle[0])))
	for i, e := range shown {
		if i == head && tail > 0 {
			fmt.Fprintf(&b, " ...%d more edges... T%d", len(cycle)-len(shown), c.id(g.source(e)))
		}
		fmt.Fprintf(&b, " -%s %s-> T%d", edgeNames[g.kind[e]], c.keys[g.key[e]].name, c.id(g.to[e]))
	}
	for _, e := range shown {
		b.WriteString("; ")
		b.WriteString(c.describeTxn(g.source(e)))
	}
	return b.String()
}

// describeTxn renders a transaction as "T4 (client 4, ok) [r z ["4-0"], append y "4-1"]".
func (c *listAppend) describeTxn(t int32) string {
	op := &c.ops[t]
	var b strings.Builder
	fmt.Fprintf(&b, "T%d (client %d, %s) [", op.ID, op.Process, op.Status)
	txn := &c.txns[t]
	for mi := txn.mop0; mi < txn.mop1; mi++ {
		if mi > txn.mop0 {
			b.WriteString(", ")
		}
		if int(mi-txn.mop0) == txnShownMax {
			fmt.Fprintf(&b, "... %d more", txn.mop1-mi)
			break
		}
		m := &c.mops[mi]
		name := c.keys[m.key].name
		switch {
		case !m.read:
			fmt.Fprintf(&b, "append %s %s", name, strconv.Quote(c.str(m.val)))
		case m.n < 0:
			fmt.Fprintf(&b, "r %s nil", name)
		default:
			fmt.Fprintf(&b, "r %s %s", name, c.list(c.read(m)))
		}
	}
	b.WriteByte(']')
	return b.String()
}

// list renders values as ["a" "b"], eliding the middle of long lists.
func (c *listAppend) list(vals []int32) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range vals {
		if len(vals) > txnShownMax && i == 3 {
			fmt.Fprintf(&b, " ...%d more...", len(vals)-txnShownMax)
			i = len(vals) - (txnShownMax - 3)
			for _, v := range vals[i:] {
				b.WriteString(" " + strconv.Quote(c.str(v)))
			}
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Quote(c.str(v)))
	}
	b.WriteByte(']')
	return b.String()
}
