package listappend

import (
	"errors"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/sf-dst/sf/lib/check/internal/txngen"
)

// TestInterruptListAppend stops the list-append checker at chosen polls of
// its work, from the first to the last, on a history with anomalies (so that
// the cycle search runs too): each stop is ErrInterrupted, and a flag that
// stays unset changes nothing. pollHook makes the point of the stop exact,
// where a timer would race with the check.
func TestInterruptListAppend(t *testing.T) {
	n := 100_000
	if testing.Short() {
		n = 20_000
	}
	ops := txngen.ListAppend(n, true, 1)
	want, err := Check(ops, nil)
	if err != nil || len(want) == 0 {
		t.Fatalf("the generated history with anomalies: %v, %v", want, err)
	}

	polls := 0
	pollHook = func() { polls++ }
	t.Cleanup(func() { pollHook = nil })
	got, err := Check(ops, new(atomic.Bool))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("with an interrupt never set: %+v\nwant %+v", got, want)
	}
	// Four passes over the transactions look at the flag every
	// itemsPerPoll*pollEvery transactions; Tarjan and the search look too.
	if polls < 4*n/(itemsPerPoll*pollEvery) {
		t.Fatalf("%d polls of the flag for %d transactions", polls, n)
	}

	for _, at := range []int{1, polls / 4, polls / 2, 3 * polls / 4, polls} {
		flag := new(atomic.Bool)
		seen := 0
		pollHook = func() {
			if seen++; seen == at {
				flag.Store(true)
			}
		}
		found, err := Check(ops, flag)
		if !errors.Is(err, ErrInterrupted) || found != nil {
			t.Errorf("interrupted at poll %d of %d: anomalies %v, error %v", at, polls, found, err)
		}
		if seen != at {
			t.Errorf("interrupted at poll %d of %d: it polled %d times, want it to stop at once", at, polls, seen)
		}
	}
}

// TestInterruptSearch: a path search and Tarjan's algorithm on the
// dependency graph stop at their first look at a set flag, and finish
// without one.
func TestInterruptSearch(t *testing.T) {
	// A ring of n transactions joined by ww edges: one component, and the
	// path from 1 back to 0 goes all the way round.
	const n = 10_000
	b := newGraphBuilder(n)
	for round := 0; round < 2; round++ {
		if round == 1 {
			b.placing()
		}
		for i := range int32(n) {
			b.add(i, (i+1)%n, 0, edgeWW)
		}
	}
	g := b.graph()
	comp := make([]int32, n) // all in component 0
	for _, set := range []bool{false, true} {
		flag := new(atomic.Bool)
		flag.Store(set)
		stop := &stopper{flag: flag}
		s := newSearcher(g, comp, make([]int32, n), stop)
		s.budget = n
		p := s.path(1, 0, edgeWW)
		switch {
		case !set && len(p) != n-1:
			t.Errorf("without an interrupt: a path of %d edges, want %d", len(p), n-1)
		case set && (p != nil || !stop.stopped):
			t.Errorf("interrupted: a path of %d edges, stopped %v", len(p), stop.stopped)
		}
		stop = &stopper{flag: flag}
		comp := newSCCFinder(g, stop).sccs(edgeAll, nil, g.kept, false)
		one := len(comp) == n
		for _, cv := range comp {
			one = one && cv == comp[0] && cv >= 0
		}
		switch {
		case !set && !one:
			t.Errorf("without an interrupt: components %v..., want the ring as one", comp[:min(len(comp), 4)])
		case set && (comp != nil || !stop.stopped):
			t.Errorf("interrupted: components of %d nodes, stopped %v", len(comp), stop.stopped)
		}
	}
}
