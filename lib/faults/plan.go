// Package faults is what sf knows about each kind of fault, kind by kind:
// the world-file fields that turn it on (with their types and defaults),
// how a seed draws it or at which numbered event it fires, how a run
// applies it, how swarm testing rescales it, how it is described and what
// a schedule must say of it. A kind is one value, registered once
// (kinds.go); the world file's loader, the engine, the schedule checks and
// the docs ask the registry rather than list kinds of their own. The
// package also holds the fault itself, the entry a schedule lists
// (fault.go), and the planner that draws a seed's timed faults.
package faults

import (
	"sort"

	"github.com/sf-dst/sf/lib/rng"
)

// Plan is what the timed kinds draw from: the settings of the kinds'
// fields, the nodes they may strike, and the window of virtual time. It
// does not change while a run draws from it.
type Plan struct {
	// Values are the world's settings of the kinds' fields (rates, ranges,
	// choices).
	Values Values
	// Nodes are every program of the world, in world order.
	Nodes []PlanNode
	// Until is the end of the fault period: nothing is drawn at or after
	// it.
	Until int64
	// Swarm holds, with swarm testing, each kind's rate factor for this
	// seed (0 is off); nil without it.
	Swarm map[string]float64
}

// KindRate is kind k's rate for this seed: its first field's value, after
// swarm testing.
func (p *Plan) KindRate(k *Kind) float64 { return p.Rate(k.Name, p.Values.Float(k.Fields[0].Name)) }

// Rate is a kind's rate for this seed, after swarm testing, given the
// configured one; the kind is named as swarm testing names it.
func (p *Plan) Rate(kind string, configured float64) float64 {
	if p.Swarm == nil {
		return configured
	}
	return configured * p.Swarm[kind]
}

// PlanNode is one program of the world as the plan sees it.
type PlanNode struct {
	Name string
	// Faults says the node takes the per-node faults; NetFaults that
	// partitions and clogs cut its links.
	Faults, NetFaults bool
}

// netNodes are the programs network faults may cut, in world order.
func (p *Plan) netNodes() []string {
	var out []string
	for _, n := range p.Nodes {
		if n.NetFaults {
			out = append(out, n.Name)
		}
	}
	return out
}

// Gen is the state of one drawing of one timed kind, for one node or for
// the whole world: where its stream stands and what it drew ahead. It is
// plain data, so a run's state copies with it.
type Gen struct {
	// Kind is the index of the kind in the registry; Node the node it
	// draws for, "" for a kind of the whole world.
	Kind int
	Node string
	// S is the stream the draws come from, T the time drawn up to.
	S rng.Stream
	T int64
	// Ahead holds faults drawn and not yet handed out, by time: a kind
	// whose one draw makes several faults (a swizzle) keeps here those that
	// a later draw may come before.
	Ahead []Fault
	Done  bool
}

// Planner hands out a seed's timed faults in order of time, drawing each
// only when it is next: memory in proportion to what the run reaches, not
// to its duration. Faults at the same time come in the order of their
// generators, and of drawing within one, which is the order the kinds and
// nodes are registered in (planOrder).
type Planner struct {
	Gens []Gen
	// heads are, per generator, its next fault, drawn; ok false once the
	// generator is done.
	heads []head
	// list, when not nil, is a fixed list of faults (a schedule being
	// replayed), handed out from next on.
	list []Fault
	next int
}

type head struct {
	f  Fault
	ok bool
}

// NewPlanner starts drawing the timed faults of p from seed, after from.
func NewPlanner(p *Plan, seed uint64, from int64) *Planner {
	pl := &Planner{Gens: planOrder(p, seed, from)}
	pl.heads = make([]head, len(pl.Gens))
	for i := range pl.Gens {
		pl.heads[i] = pl.draw(p, i)
	}
	return pl
}

// ListPlanner hands out faults, a schedule's timed ones, in order of time,
// keeping the order of faults at one time.
func ListPlanner(faults []Fault) *Planner {
	return &Planner{list: sortedByTime(faults)}
}

// Peek returns the next fault without taking it.
func (pl *Planner) Peek() (Fault, bool) {
	if pl.list != nil {
		if pl.next < len(pl.list) {
			return pl.list[pl.next], true
		}
		return Fault{}, false
	}
	i := pl.first()
	if i < 0 {
		return Fault{}, false
	}
	return pl.heads[i].f, true
}

// Pop takes the next fault, drawing the one after it from the same
// generator.
func (pl *Planner) Pop(p *Plan) (Fault, bool) {
	if pl.list != nil {
		f, ok := pl.Peek()
		if ok {
			pl.next++
		}
		return f, ok
	}
	i := pl.first()
	if i < 0 {
		return Fault{}, false
	}
	f := pl.heads[i].f
	pl.heads[i] = pl.draw(p, i)
	return f, true
}

// Count draws everything that is left, on a copy, and says how many faults
// that is.
func (pl *Planner) Count(p *Plan) int {
	c := pl.Clone()
	n := 0
	for {
		if _, ok := c.Pop(p); !ok {
			return n
		}
		n++
	}
}

// first is the generator whose head comes first: the earliest, and of
// those the first registered.
func (pl *Planner) first() int {
	best := -1
	for i, h := range pl.heads {
		if h.ok && (best < 0 || h.f.At < pl.heads[best].f.At) {
			best = i
		}
	}
	return best
}

// draw returns generator i's next fault.
func (pl *Planner) draw(p *Plan, i int) head {
	g := &pl.Gens[i]
	k := registry[g.Kind]
	for {
		// A fault drawn ahead is final once no later draw can come
		// before it: a draw at T makes faults at T or later.
		if len(g.Ahead) > 0 && (g.Done || g.Ahead[0].At <= Dur(g.T)) {
			f := g.Ahead[0]
			g.Ahead = g.Ahead[1:]
			return head{f, true}
		}
		if g.Done {
			return head{}
		}
		drawn := k.Draw(p, g, k)
		if len(drawn) == 0 {
			continue
		}
		if len(drawn) == 1 && len(g.Ahead) == 0 {
			return head{drawn[0], true}
		}
		g.Ahead = append(g.Ahead, drawn...)
		g.Ahead = sortedByTime(g.Ahead)
	}
}

// Clone returns a copy of the planner that goes on apart from it.
func (pl *Planner) Clone() *Planner {
	c := &Planner{next: pl.next, list: pl.list} // a schedule's list is never changed
	c.Gens = make([]Gen, len(pl.Gens))
	for i, g := range pl.Gens {
		g.Ahead = append([]Fault(nil), g.Ahead...)
		c.Gens[i] = g
	}
	c.heads = append([]head(nil), pl.heads...)
	return c
}

// sortedByTime sorts faults by at, keeping the order of faults at one time.
func sortedByTime(fs []Fault) []Fault {
	out := append([]Fault(nil), fs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out
}
