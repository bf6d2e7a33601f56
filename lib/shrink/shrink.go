// Package shrink turns a failing seed into the few faults that matter: it
// replays the seed's schedule with subsets of its faults (delta debugging),
// keeps the smallest subset that still fails the same way, then lowers the
// sim.Budget cap as far as the failure allows, and records when the shrunk
// run fails as the schedule's duration.
package shrink

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/pin"
	"github.com/sf-dst/sf/lib/runner"
	"github.com/sf-dst/sf/lib/schedule"
)

// Failure is what "fails the same way" compares. lib/pin keeps the rule,
// so that a pinned regression's replay compares failures by it too.
type Failure = pin.Failure

// FailureOf is how r failed: see pin.FailureOf.
func FailureOf(r *engine.Result) Failure { return pin.FailureOf(r) }

// Outcome is a shrunk seed.
type Outcome struct {
	Seed     uint64
	Failure  Failure
	Before   int               // faults in the starting schedule
	Schedule schedule.Schedule // the shrunk schedule, ready to write
	Runs     int               // replays that shrinking counts
	// Final is the replay of the shrunk schedule, which fails the same
	// way at Schedule.Duration.
	Final *engine.Result
	// BudgetLines are the trace lines that say how the budget was capped,
	// without their time; none when the budget was not capped.
	BudgetLines []string
	// Forked counts the replays that started from a fork of the starting
	// schedule's run rather than from the start (Options.NoForks).
	Forked int
}

// Options tune one shrink.
type Options struct {
	// Jobs is how many replays run at once. The result does not depend on
	// it. Defaults to 1.
	Jobs int
	// Start, when set, is the schedule to shrink; otherwise the faults the
	// seed draws on its own.
	Start *schedule.Schedule
	// Interrupt, when it becomes true, ends the replays at their next step
	// and Seed returns ErrInterrupted.
	Interrupt *atomic.Bool
	// NoForks replays every candidate from the start. By default the run
	// of the starting schedule leaves forks of itself (within
	// runner.ForkBytesMax bytes of guest memory), and a candidate starts
	// from the latest that its schedule agrees with, which ends the same
	// and takes less time. Tests compare the two.
	NoForks bool
}

// ForkGrid is how many forks the run of the starting schedule leaves, at
// most, spread evenly over its scheduler steps.
const ForkGrid = 32

// ErrInterrupted is returned when Options.Interrupt stopped the shrink.
var ErrInterrupted = errors.New("interrupted")

// ErrPasses is returned when the seed does not fail, so there is nothing
// to shrink.
var ErrPasses = errors.New("the seed does not fail")

// Seed shrinks one seed of a prepared world.
func Seed(p *runner.Prepared, seed uint64, o Options) (*Outcome, error) {
	if o.Jobs < 1 {
		o.Jobs = 1
	}
	s := &shrinker{jobs: o.Jobs, interrupt: o.Interrupt}
	if o.Start != nil {
		s.branches = o.Start.Branches
	}
	s.replay = func(faults []engine.Fault, budget int) (*engine.Result, error) {
		// A seed that fails by spinning is expected to trip the watchdog in
		// every candidate; running those twice would only double the real
		// time each costs.
		out := p.One(runner.Job{Seed: seed, Options: engine.Options{Faults: faults, Budget: budget, Branches: s.branches},
			Recheck: s.target.Class != engine.ClassWatchdog, Forks: s.forks}, o.Interrupt)
		return out.Result, out.Err
	}
	// collect replays the starting schedule, leaving forks of it for the
	// candidates, which are cut from it.
	collect := func(faults []engine.Fault, budget int, steps uint64) (*engine.Result, error) {
		fs := runner.NewForks(0, max(1, steps/ForkGrid))
		out := p.One(runner.Job{Seed: seed, Options: engine.Options{Faults: nonNil(faults), Budget: budget, Branches: s.branches},
			Recheck: s.target.Class != engine.ClassWatchdog, Forks: fs, ForksBeforeNs: math.MaxInt64}, o.Interrupt)
		if out.Err != nil {
			fs.Release()
			return nil, out.Err
		}
		s.forks = fs
		return out.Result, nil
	}
	defer func() {
		if s.forks != nil {
			s.forks.Release()
		}
	}()
	interrupted := func() bool { return o.Interrupt != nil && o.Interrupt.Load() }
	var start []engine.Fault
	var budget int
	if o.Start != nil {
		start, budget = o.Start.Faults, o.Start.Budget
		first, err := s.run(start, budget)
		if err != nil {
			return nil, err
		}
		if interrupted() {
			return nil, ErrInterrupted
		}
		if first.Status != engine.StatusFail {
			return nil, fmt.Errorf("%w with this schedule (%s)", ErrPasses, first.Status)
		}
		s.target = FailureOf(first)
		// Which steps to fork at is known once the schedule has run: one
		// more replay, uncounted, leaves the forks.
		if !o.NoForks {
			if _, err := collect(start, budget, first.Steps); err != nil {
				return nil, err
			}
		}
	} else {
		run := p.One(runner.Job{Seed: seed, Recheck: true}, o.Interrupt)
		if run.Err != nil {
			return nil, run.Err
		}
		first := run.Result
		if interrupted() {
			return nil, ErrInterrupted
		}
		if first.Status != engine.StatusFail {
			return nil, fmt.Errorf("%w (%s)", ErrPasses, first.Status)
		}
		s.target = FailureOf(first)
		start = first.Faults
		// The faults it recorded must reproduce the failure when replayed:
		// every later replay relies on that. That replay leaves the forks.
		var again *engine.Result
		var err error
		if o.NoForks {
			again, err = s.run(start, 0)
		} else {
			s.runs++
			again, err = collect(start, 0, first.Steps)
		}
		if err != nil {
			return nil, err
		}
		if interrupted() {
			return nil, ErrInterrupted
		}
		if !s.target.Same(again) {
			return nil, fmt.Errorf("replaying the %d faults the seed recorded does not fail the same way (%s, then %s: %s): an engine bug, please report it",
				len(start), s.target, again.Status, again.Message)
		}
	}

	kept := s.faults(start, budget)
	budget = s.budget(kept, budget)
	if interrupted() {
		return nil, ErrInterrupted
	}
	if s.err != nil {
		return nil, s.err
	}
	final, err := s.run(kept, budget)
	if err != nil {
		return nil, err
	}
	if !s.target.Same(final) {
		return nil, fmt.Errorf("the shrunk schedule does not fail the same way when replayed (%s: %s): an engine bug, please report it", final.Status, final.Message)
	}
	out := &Outcome{Seed: seed, Failure: s.target, Before: len(start), Runs: s.runs, Final: final}
	if s.forks != nil {
		out.Forked = s.forks.Started()
	}
	out.Schedule = schedule.Schedule{Seed: seed, Duration: schedule.Dur(final.AtNs), Budget: budget,
		Branches: s.branches, ShrunkFrom: len(start), ShrinkRuns: s.runs, Faults: append([]engine.Fault{}, kept...)}
	for _, l := range final.Trace {
		if strings.Contains(l, "sim.Budget capped at") {
			_, rest, _ := strings.Cut(strings.TrimSpace(l), "  ")
			out.BudgetLines = append(out.BudgetLines, strings.TrimSpace(rest))
		}
	}
	return out, nil
}

type shrinker struct {
	// replay runs the seed with exactly these faults (never nil) and
	// budget cap. It is safe to call from several goroutines.
	replay func(faults []engine.Fault, budget int) (*engine.Result, error)
	jobs   int
	// interrupt, when set and true, starts no more replays of candidates.
	interrupt *atomic.Bool
	target    Failure
	branches  []schedule.Branch
	forks     *runner.Forks // of the starting schedule's run, or nil
	runs      int
	err       error // the first replay that failed to run
}

// run replays the seed with exactly these faults and budget cap.
func (s *shrinker) run(faults []engine.Fault, budget int) (*engine.Result, error) {
	s.runs++
	return s.replay(nonNil(faults), budget)
}

// nonNil is faults, or an empty list: a replay's faults are its schedule,
// where nil would draw the seed's own.
func nonNil(faults []engine.Fault) []engine.Fault {
	if faults == nil {
		return []engine.Fault{}
	}
	return faults
}

// firstFailing replays the candidates, up to jobs at a time, and returns
// the index of the first, in order, that fails the same way, or -1. No
// candidate after it starts, and the replays are counted as if they ran
// one after another, stopping at that candidate, so the count does not
// depend on jobs either.
func (s *shrinker) firstFailing(cands [][]engine.Fault, budget int) int {
	found := -1
	pool := runner.Pool{Workers: s.jobs, Interrupt: s.interrupt,
		StopAt: func(o runner.Outcome) bool { return s.target.Same(o.Result) }}
	pool.Each(len(cands), func(i int) runner.Outcome {
		c := cands[i]
		if c == nil {
			c = []engine.Fault{}
		}
		r, err := s.replay(c, budget)
		return runner.Outcome{Result: r, Err: err}
	}, func(o runner.Outcome) error {
		switch {
		case o.Err != nil:
			// A replay that could not run is no answer about its
			// candidate: keep the first such error for Seed to report,
			// rather than shrink on a wrong premise.
			if s.err == nil {
				s.err = fmt.Errorf("replaying a candidate schedule: %w", o.Err)
			}
		case !o.Interrupted && s.target.Same(o.Result):
			found = o.Index
		}
		return nil
	})
	if found >= 0 {
		s.runs += found + 1
	} else {
		s.runs += len(cands)
	}
	return found
}

// faults is delta debugging (ddmin) over the schedule's faults: it tries
// no faults at all, then ever finer subsets and their complements, and
// keeps the first that fails the same way.
func (s *shrinker) faults(start []engine.Fault, budget int) []engine.Fault {
	pick := func(idx []int) []engine.Fault {
		out := make([]engine.Fault, len(idx))
		for i, j := range idx {
			out[i] = start[j]
		}
		return out
	}
	if len(start) == 0 {
		return nil
	}
	if s.firstFailing([][]engine.Fault{{}}, budget) == 0 {
		return nil
	}
	items := make([]int, len(start))
	for i := range items {
		items[i] = i
	}
	n := 2
	for len(items) >= 2 {
		chunks := split(items, n)
		var cands [][]int
		cands = append(cands, chunks...)
		if n > 2 {
			for i := range chunks {
				cands = append(cands, without(items, chunks[i]))
			}
		}
		sets := make([][]engine.Fault, len(cands))
		for i, c := range cands {
			sets[i] = pick(c)
		}
		i := s.firstFailing(sets, budget)
		switch {
		case i >= 0 && i < len(chunks):
			items, n = chunks[i], 2
		case i >= len(chunks):
			items, n = cands[i], max(n-1, 2)
		case n >= len(items):
			return pick(items)
		default:
			n = min(2*n, len(items))
		}
	}
	return pick(items)
}

// split cuts items into n chunks of nearly equal size, in order.
func split(items []int, n int) [][]int {
	out := make([][]int, 0, n)
	for i := range n {
		lo, hi := i*len(items)/n, (i+1)*len(items)/n
		if hi > lo {
			out = append(out, items[lo:hi])
		}
	}
	return out
}

func without(items, drop []int) []int {
	gone := map[int]bool{}
	for _, d := range drop {
		gone[d] = true
	}
	out := make([]int, 0, len(items)-len(drop))
	for _, it := range items {
		if !gone[it] {
			out = append(out, it)
		}
	}
	return out
}

// budget bisects the sim.Budget cap down to the smallest that still fails
// the same way. It returns 0 (no cap) when no node called sim.Budget or no
// cap below what the nodes asked for keeps the failure.
func (s *shrinker) budget(faults []engine.Fault, start int) int {
	r, err := s.run(faults, start)
	if err != nil || !s.target.Same(r) || r.BudgetAsked <= 1 {
		return start
	}
	hi := r.BudgetAsked // known to fail: a cap at what was asked caps nothing
	if start > 0 && start < hi {
		hi = start
	}
	lo := 1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if s.firstFailing([][]engine.Fault{faults}, mid) == 0 {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if hi >= r.BudgetAsked {
		return start
	}
	return hi
}
