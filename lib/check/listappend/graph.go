package listappend

import "sort"

// The dependency graph of list-append transactions, in compressed sparse row
// form: the edges leaving node v are start[v] to start[v+1]. Nodes are
// transaction indices; each edge has a kind and the key that caused it.

const (
	edgeWW  uint8 = 1 << iota // write-write: to appended right after from
	edgeWR                    // write-read: to read from's append
	edgeRW                    // read-write: to appended right after what from read
	edgeAll = edgeWW | edgeWR | edgeRW
)

var edgeNames = [...]string{edgeWW: "ww", edgeWR: "wr", edgeRW: "rw"}

type graph struct {
	n     int
	start []int32
	// An edge's source is not stored: the loops know it, and the few
	// edges a report shows find it with source, which saves 4 bytes an
	// edge (12 MB for a million transactions).
	to   []int32
	key  []int32
	kind []uint8
	// edges is how many edges were offered, of which only those leaving a
	// node that may be on a cycle are kept (see graphBuilder). The search
	// budgets are set from it, as from every edge.
	edges int
	// kept is the nodes that keep their edges, in increasing order: every
	// node on a cycle is one of them.
	kept []int32
}

// graphBuilder builds a graph from the same sequence of edges offered twice:
// a first round only counts each node's edges, a second places them. Edges
// keep their order of arrival within a node. Compared with collecting edge
// records and then sorting them into place, the builder allocates nothing
// but the graph's own arrays: for a million transactions, no slice of
// 16-byte records (it was 80 MB) and no cursor per node.
//
// Call an edge u -> w with w <= u a back edge, and say it covers the nodes
// w to u. Every node y of a cycle is covered by one of the cycle's back
// edges: going round from y, the cycle must come back down to its lowest
// node, so some edge steps from a node at or above y to one below it (or,
// when y is the lowest, the edge into y comes from above). A node that no
// back edge covers is then on no cycle, so it is a component of its own
// whatever edges leave it; Tarjan's search starts only from nodes that keep
// their edges, and the searches after it only from nodes on a cycle, none
// of which needs the edges of a node on no cycle: such a node keeps no
// edges of its own. A history's transactions
// are numbered in the order they were invoked, and its dependencies mostly
// point forward in that order, so most nodes of a big history are such
// nodes: the graph is mostly smaller by far, and a history with no back
// edge at all has an empty one. Where edges reach far back, few nodes are
// left out, and the builder has only cost a comparison an edge. Edges into
// such a node from one that keeps its edges stay, so that a search that
// walks a row counts against its budget what it did before.
type graphBuilder struct {
	g *graph
	// start has two extra slots while building: the first round counts
	// node v's edges at start[v+2], so that after the prefix sums start[v+1]
	// is where v's edges begin; the second round advances it past each edge
	// placed, which leaves it where v's edges end, as a graph wants.
	start []int32
	// reach[w] is, while counting, the highest source of a back edge into
	// w, or -1; once counted, the highest node that a back edge into w or a
	// lower node covers. Node v keeps its edges when reach[v] >= v.
	reach []int32
	fill  bool
}

func newGraphBuilder(n int) *graphBuilder {
	reach := make([]int32, n)
	for i := range reach {
		reach[i] = -1
	}
	return &graphBuilder{g: &graph{n: n}, start: make([]int32, n+2), reach: reach}
}

// add offers the edge from -> to.
func (b *graphBuilder) add(from, to, key int32, kind uint8) {
	if !b.fill {
		b.start[from+2]++
		if to <= from {
			b.reach[to] = max(b.reach[to], from)
		}
		return
	}
	if b.reach[from] < from { // not kept
		return
	}
	g := b.g
	i := b.start[from+1]
	b.start[from+1]++
	g.to[i], g.key[i], g.kind[i] = to, key, kind
}

// keeps reports whether node v keeps its edges; it is known once counting
// is done.
func (b *graphBuilder) keeps(v int32) bool { return b.reach[v] >= v }

// keepsAny reports whether any node from lo to hi keeps its edges; it is
// known once counting is done. The nodes that keep them are those that a
// back edge covers, and a back edge u -> w covers one of lo to hi when
// w <= hi and u >= lo: reach[hi] is the highest such u.
func (b *graphBuilder) keepsAny(lo, hi int32) bool { return lo <= hi && b.reach[hi] >= lo }

// placing ends the counting round: the same edges are to be offered again.
func (b *graphBuilder) placing() {
	g := b.g
	// One pass: the edges offered, the running maximum of reach, and the
	// prefix sums of the counts of the nodes that keep their edges.
	r, m, offered := int32(-1), int32(0), 0 // start[0] and start[1] stay 0
	counts := b.start[2:]
	for v, k := range counts {
		r = max(r, b.reach[v])
		b.reach[v] = r
		offered += int(k)
		if int32(v) <= r {
			m += k
			g.kept = append(g.kept, int32(v))
		}
		counts[v] = m
	}
	g.edges = offered
	g.to, g.key, g.kind = make([]int32, m), make([]int32, m), make([]uint8, m)
	b.fill = true
}

// graph returns the graph once the placing round has offered every edge.
func (b *graphBuilder) graph() *graph {
	b.g.start = b.start[:b.g.n+1]
	return b.g
}

// source returns the node edge e leaves.
func (g *graph) source(e int32) int32 {
	return int32(sort.Search(g.n, func(v int) bool { return g.start[v+1] > e }))
}

// sccFinder finds strongly connected components with Tarjan's algorithm
// (iteratively, so deep graphs do not overflow the stack). Its arrays serve
// every call: a check asks for up to three sets of components of one graph.
type sccFinder struct {
	g *graph
	// index is the order in which the search reached each node (0: not
	// yet), or done once the node is in a component. A node whose index
	// is neither is on the stack, so no separate flag says so, and a done
	// node never lowers another's low link, as Tarjan's algorithm wants.
	index  []int32
	low    []int32
	frames []sccFrame
	stack  []int32
	stop   *stopper
	used   bool // index needs clearing before the next search
}

type sccFrame struct{ v, e int32 }

const sccDone = int32(^uint32(0) >> 1)

func newSCCFinder(g *graph, stop *stopper) *sccFinder {
	return &sccFinder{g: g, index: make([]int32, g.n), low: make([]int32, g.n), stop: stop}
}

// sccs returns the strongly connected components of the subgraph of edges
// whose kind is in mask. The search starts from each node of starts in turn
// (the callers list them in increasing order, and the numbering below
// follows that order) and takes in what it reaches; the others take no part.
// When within is not nil, starts must all have within[v] >= 0, and only
// edges inside one of its components are followed.
//
// Components are numbered in the order Tarjan completes them, which is a
// reverse topological order: an edge between two components always goes from
// a higher number to a lower one. comp[v] is -1 for nodes that did not take
// part, and with singletons false also for a node that is a component of its
// own (the graph has no edge from a node to itself); such components still
// take their number.
//
// It looks at stop's flag every nodesPerLook nodes it reaches, and returns
// nil when stopped.
func (f *sccFinder) sccs(mask uint8, within, starts []int32, singletons bool) (comp []int32) {
	g, index, low, stop := f.g, f.index, f.low, f.stop
	n := g.n
	if f.used {
		clear(index)
	}
	f.used = true
	comp = make([]int32, n)
	for i := range comp {
		comp[i] = -1
	}
	frames, stack := f.frames[:0], f.stack[:0]
	defer func() { f.frames, f.stack = frames[:0], stack[:0] }()
	var counter, ncomp int32
	follow := func(v, e int32) bool {
		if g.kind[e]&mask == 0 {
			return false
		}
		return within == nil || (within[v] >= 0 && within[v] == within[g.to[e]])
	}
	for _, s := range starts {
		if index[s] != 0 {
			continue
		}
		counter++
		if uint32(counter)%nodesPerLook == 0 && stop.seen() {
			return nil
		}
		index[s], low[s] = counter, counter
		stack = append(stack, s)
		frames = append(frames, sccFrame{s, g.start[s]})
		for len(frames) > 0 {
			fr := &frames[len(frames)-1]
			v := fr.v
			if fr.e < g.start[v+1] {
				e := fr.e
				fr.e++
				if !follow(v, e) {
					continue
				}
				w := g.to[e]
				if index[w] == 0 {
					counter++
					if uint32(counter)%nodesPerLook == 0 && stop.seen() {
						return nil
					}
					index[w], low[w] = counter, counter
					stack = append(stack, w)
					frames = append(frames, sccFrame{w, g.start[w]})
				} else if index[w] < low[v] {
					low[v] = index[w] // w is on the stack: done nodes never pass
				}
				continue
			}
			if low[v] == index[v] {
				c := ncomp
				ncomp++
				if !singletons && stack[len(stack)-1] == v {
					stack = stack[:len(stack)-1]
					index[v] = sccDone
				} else {
					for {
						w := stack[len(stack)-1]
						stack = stack[:len(stack)-1]
						index[w] = sccDone
						comp[w] = c
						if w == v {
							break
						}
					}
				}
			}
			frames = frames[:len(frames)-1]
			if len(frames) > 0 {
				if p := frames[len(frames)-1].v; low[v] < low[p] {
					low[p] = low[v]
				}
			}
		}
	}
	return comp
}

// searcher finds short paths by breadth-first search inside one strongly
// connected component, reusing its arrays between searches. Only nodes in
// a component (comp[v] >= 0) take part; they are numbered densely by slot,
// so its arrays are as long as there are such nodes, which in a big history
// are mostly few. A search state is slot*2 + layer, where layer 1 means the
// path has used an rw edge. budget bounds the edges examined over many
// searches; a search that runs out returns nil.
type searcher struct {
	g      *graph
	comp   []int32
	slot   []int32  // per node in a component, its number among them
	node   []int32  // per slot, its node
	seen   []uint32 // stamp per state
	pedge  []int32  // the edge that first reached each state
	pstate []int32  // the state it came from
	stamp  uint32
	queue  []int32
	budget int
	stop   *stopper // polled per node expanded; a stopped search returns nil
}

// newSearcher makes a searcher of paths inside the components comp gives.
// slot is an array of g.n entries it may overwrite.
func newSearcher(g *graph, comp, slot []int32, stop *stopper) *searcher {
	var node []int32
	for v, cv := range comp {
		if cv >= 0 {
			slot[v] = int32(len(node))
			node = append(node, int32(v))
		}
	}
	m := 2 * len(node)
	return &searcher{g: g, comp: comp, slot: slot, node: node, stop: stop, seen: make([]uint32, m), pedge: make([]int32, m), pstate: make([]int32, m)}
}

func (s *searcher) next() uint32 {
	s.stamp++
	if s.stamp == 0 {
		clear(s.seen)
		s.stamp = 1
	}
	return s.stamp
}

// path returns the edges of a shortest path from src to dst that uses only
// edges whose kind is in mask and stays in src's component, or nil.
func (s *searcher) path(src, dst int32, mask uint8) []int32 {
	return s.search(src, dst, mask, false)
}

// pathVia returns the edges of a shortest path from src to dst that uses at
// least one rw edge, stays in src's component and passes through neither src
// nor dst on the way, or nil.
func (s *searcher) pathVia(src, dst int32) []int32 {
	return s.search(src, dst, edgeAll, true)
}

func (s *searcher) search(src, dst int32, mask uint8, viaRW bool) []int32 {
	g, c := s.g, s.comp[src]
	stamp := s.next()
	start := 2 * s.slot[src]
	s.queue = append(s.queue[:0], start)
	s.seen[start] = stamp
	for qi := 0; qi < len(s.queue); qi++ {
		st := s.queue[qi]
		v, layer := s.node[st/2], st%2
		if s.stop.poll() {
			return nil
		}
		for e := g.start[v]; e < g.start[v+1]; e++ {
			s.budget--
			if s.budget < 0 {
				return nil
			}
			k := g.kind[e]
			w := g.to[e]
			if k&mask == 0 || s.comp[w] != c {
				continue
			}
			l := layer
			if viaRW {
				if w == src {
					continue
				}
				if k&edgeRW != 0 {
					l = 1
				}
			}
			ws := 2*s.slot[w] + l
			if s.seen[ws] == stamp {
				continue
			}
			if w == dst && viaRW && l == 0 {
				continue // dst only counts once an rw edge was used
			}
			s.seen[ws] = stamp
			s.pedge[ws], s.pstate[ws] = e, st
			if w == dst {
				return s.trace(start, ws)
			}
			s.queue = append(s.queue, ws)
		}
	}
	return nil
}

func (s *searcher) trace(start, st int32) []int32 {
	var path []int32
	for st != start {
		path = append(path, s.pedge[st])
		st = s.pstate[st]
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}

// simpleCycles splits a closed walk (edges, each starting where the last one
// ended) into simple cycles.
func (g *graph) simpleCycles(walk []int32) [][]int32 {
	var cycles [][]int32
	pos := map[int32]int{g.source(walk[0]): 0} // node -> number of edges on the stack before it
	var stack []int32
	for _, e := range walk {
		w := g.to[e]
		stack = append(stack, e)
		if p, ok := pos[w]; ok {
			cycles = append(cycles, append([]int32(nil), stack[p:]...))
			for _, x := range stack[p:] {
				if g.to[x] != w {
					delete(pos, g.to[x])
				}
			}
			stack = stack[:p]
			continue
		}
		pos[w] = len(stack)
	}
	return cycles
}
