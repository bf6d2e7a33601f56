package check

import (
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
	"time"
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
	ops := genListAppend(n, true, 1)
	want := mustCheck(t, ops, Options{Model: ListAppend})
	if want.Verdict != Illegal {
		t.Fatalf("the generated history with anomalies: %s", want.Summary)
	}

	polls := 0
	pollHook = func() { polls++ }
	t.Cleanup(func() { pollHook = nil })
	got := mustCheck(t, ops, Options{Model: ListAppend, Interrupt: new(atomic.Bool)})
	got.Elapsed = want.Elapsed
	if !reflect.DeepEqual(got, want) {
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
		r, err := Check(ops, Options{Model: ListAppend, Interrupt: flag})
		if !errors.Is(err, ErrInterrupted) || r != nil {
			t.Errorf("interrupted at poll %d of %d: report %v, error %v", at, polls, r, err)
		}
		if seen != at {
			t.Errorf("interrupted at poll %d of %d: it polled %d times, want it to stop at once", at, polls, seen)
		}
	}
}

// TestInterruptLinearizable stops the linearizability search on a history
// it would take hours on, with and without a step limit: the check returns
// ErrInterrupted soon after the flag is set. The test asserts the error;
// the minute it waits only keeps a broken stop from hanging it.
func TestInterruptLinearizable(t *testing.T) {
	for _, steps := range []int64{0, 1 << 40} {
		flag := new(atomic.Bool)
		type result struct {
			r   *Report
			err error
		}
		done := make(chan result, 1)
		go func() {
			r, err := Check(hardHistory(40), Options{Model: "kv", Timeout: -1, MaxSteps: steps, Interrupt: flag})
			done <- result{r, err}
		}()
		time.Sleep(50 * time.Millisecond) // most likely mid-search; anywhere must do
		flag.Store(true)
		select {
		case res := <-done:
			if !errors.Is(res.err, ErrInterrupted) || res.r != nil {
				t.Errorf("max steps %d: report %+v, error %v; want ErrInterrupted", steps, res.r, res.err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("max steps %d: the check went on a minute after the interrupt", steps)
		}
	}
	// Set before the check starts, the interrupt stops it too.
	flag := new(atomic.Bool)
	flag.Store(true)
	if r, err := Check(hardHistory(40), Options{Model: "kv", Timeout: -1, Interrupt: flag}); !errors.Is(err, ErrInterrupted) {
		t.Errorf("interrupted before it started: report %+v, error %v", r, err)
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
