package shrink

import (
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/sf-dst/sf/lib/engine"
)

// fakeFaults are n crashes at distinct times, so each is recognisable.
func fakeFaults(n int) []engine.Fault {
	out := make([]engine.Fault, n)
	for i := range out {
		out[i] = engine.Fault{At: engine.Dur(i + 1), Kind: engine.KindCrash, Node: "server", Until: engine.Dur(i + 2)}
	}
	return out
}

// needs is a replay that fails (assert, "lost") exactly when every fault at
// the given times is present, and counts how often it ran.
func needs(runs *atomic.Int64, times ...int) func([]engine.Fault, int) (*engine.Result, error) {
	return func(faults []engine.Fault, _ int) (*engine.Result, error) {
		runs.Add(1)
		have := map[int]bool{}
		for _, f := range faults {
			have[int(f.At)] = true
		}
		for _, t := range times {
			if !have[t] {
				return &engine.Result{Status: engine.StatusPass}, nil
			}
		}
		return &engine.Result{Status: engine.StatusFail, Class: engine.ClassAssert, Message: "client#1: lost: k1"}, nil
	}
}

func TestFaultsFindsTheNeededOnes(t *testing.T) {
	for _, tc := range []struct {
		n     int
		times []int
	}{{30, []int{7, 23}}, {30, []int{1, 30}}, {30, []int{15, 16}}, {1, []int{1}}, {5, nil}, {12, []int{2, 5, 11}}} {
		for _, jobs := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%d/%v/j%d", tc.n, tc.times, jobs), func(t *testing.T) {
				var runs atomic.Int64
				s := &shrinker{replay: needs(&runs, tc.times...), jobs: jobs, target: Failure{Class: "assert", Head: "lost"}}
				got := s.faults(fakeFaults(tc.n), 0)
				var at []int
				for _, f := range got {
					at = append(at, int(f.At))
				}
				if !reflect.DeepEqual(at, tc.times) {
					t.Fatalf("kept faults at %v, want %v", at, tc.times)
				}
				if jobs == 1 && int64(s.runs) != runs.Load() {
					t.Fatalf("counted %d replays, ran %d", s.runs, runs.Load())
				}
			})
		}
	}
}

// TestRunsDoNotDependOnJobs: the count a schedule records is the same
// whatever -j is, although more candidates run at once.
func TestRunsDoNotDependOnJobs(t *testing.T) {
	var counts []int
	for _, jobs := range []int{1, 2, 3, 8} {
		var runs atomic.Int64
		s := &shrinker{replay: needs(&runs, 4, 19), jobs: jobs, target: Failure{Class: "assert", Head: "lost"}}
		s.faults(fakeFaults(30), 0)
		counts = append(counts, s.runs)
	}
	for _, c := range counts[1:] {
		if c != counts[0] {
			t.Fatalf("replay counts by -j 1, 2, 3, 8: %v", counts)
		}
	}
}

// TestTwoOfThirtyCost: the cost bound, for every pair of positions.
func TestTwoOfThirtyCost(t *testing.T) {
	worst := 0
	for a := 1; a <= 30; a++ {
		for b := a + 1; b <= 30; b++ {
			var runs atomic.Int64
			s := &shrinker{replay: needs(&runs, a, b), jobs: 1, target: Failure{Class: "assert", Head: "lost"}}
			if got := s.faults(fakeFaults(30), 0); len(got) != 2 {
				t.Fatalf("pair %d,%d: kept %d faults", a, b, len(got))
			}
			worst = max(worst, s.runs)
		}
	}
	if worst > 60 {
		t.Fatalf("a 30-fault schedule needing 2 took up to %d replays, over 60", worst)
	}
	t.Logf("worst case %d replays", worst)
}

func TestFailureOf(t *testing.T) {
	tests := []struct {
		r    engine.Result
		want Failure
	}{
		{engine.Result{Class: "assert", Message: "client#1: acknowledged write lost: k138=v138"}, Failure{Class: "assert", Head: "acknowledged write lost", Node: ""}},
		{engine.Result{Class: "assert", Message: "client#3: acknowledged write lost: k6=v6"}, Failure{Class: "assert", Head: "acknowledged write lost", Node: ""}},
		{engine.Result{Class: "assert", Message: "counter is 136 after 100 acknowledged increments"}, Failure{Class: "assert", Head: "counter is N after N acknowledged increments", Node: ""}},
		{engine.Result{Class: "assert", Message: `no add is applied twice {"left":3}`, Property: "no add is applied twice"}, Failure{Class: "assert", Head: "no add is applied twice", Node: ""}},
		{engine.Result{Class: "liveness", Node: "client#2", Message: "liveness: client did not finish within 10s"}, Failure{Class: "liveness", Head: "liveness", Node: "client"}},
	}
	for _, tt := range tests {
		if got := FailureOf(&tt.r); got != tt.want {
			t.Errorf("FailureOf(%q) = %+v, want %+v", tt.r.Message, got, tt.want)
		}
	}
	a := FailureOf(&engine.Result{Class: "assert", Message: "x: lost"})
	if a.Same(&engine.Result{Status: engine.StatusFail, Class: "panic", Message: "x: lost"}) {
		t.Fatal("a panic with the same message counts as the same failure")
	}
	if a.Same(&engine.Result{Status: engine.StatusPass, Class: "assert", Message: "x: lost"}) {
		t.Fatal("a pass counts as the same failure")
	}
}

func TestBudgetBisects(t *testing.T) {
	var runs atomic.Int64
	replay := func(faults []engine.Fault, budget int) (*engine.Result, error) {
		runs.Add(1)
		if budget > 0 && budget < 63 {
			return &engine.Result{Status: engine.StatusPass, BudgetAsked: 200}, nil
		}
		return &engine.Result{Status: engine.StatusFail, Class: "assert", Message: "lost", BudgetAsked: 200}, nil
	}
	s := &shrinker{replay: replay, jobs: 2, target: Failure{Class: "assert", Head: "lost"}}
	if got := s.budget(nil, 0); got != 63 {
		t.Fatalf("budget = %d, want 63", got)
	}
	if s.runs > 10 {
		t.Fatalf("bisecting 200 took %d replays", s.runs)
	}
	never := func([]engine.Fault, int) (*engine.Result, error) {
		return &engine.Result{Status: engine.StatusFail, Class: "assert", Message: "lost"}, nil
	}
	s = &shrinker{replay: never, jobs: 1, target: Failure{Class: "assert", Head: "lost"}}
	if got := s.budget(nil, 0); got != 0 {
		t.Fatalf("no sim.Budget call: budget = %d, want 0", got)
	}
}

// BenchmarkShrinkTwoOfThirty reports how many replays delta debugging
// needs for a 30-fault schedule whose failure needs 2 of them, over every
// pair of positions: the mean and the worst case (the goal is at most 60).
func BenchmarkShrinkTwoOfThirty(b *testing.B) {
	for range b.N {
		total, worst, pairs := 0, 0, 0
		for a := 1; a <= 30; a++ {
			for c := a + 1; c <= 30; c++ {
				var runs atomic.Int64
				s := &shrinker{replay: needs(&runs, a, c), jobs: 1, target: Failure{Class: "assert", Head: "lost"}}
				s.faults(fakeFaults(30), 0)
				total += s.runs
				worst = max(worst, s.runs)
				pairs++
			}
		}
		b.ReportMetric(float64(total)/float64(pairs), "replays/mean")
		b.ReportMetric(float64(worst), "replays/worst")
	}
}
