package shrink

import (
	"fmt"
	"sort"
	"sync/atomic"

	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/rng"
	"github.com/sf-dst/sf/lib/runner"
	"github.com/sf-dst/sf/lib/schedule"
)

// Defaults of sf-shrink -cause.
const (
	DefaultCauseMoments  = 10
	DefaultCauseBranches = 10
	// MaxCauseRuns bounds moments × branches: each is one whole run.
	MaxCauseRuns = 100_000
)

// CauseOptions tune one cause analysis.
type CauseOptions struct {
	// Moments is K: the moments spread evenly over [0, failure time) (from
	// the end of the setup in a world forked there), and
	// the number of the latest faults before the failure that get a moment
	// just before and just after them.
	Moments int
	// Branches is M, the branches run at each moment.
	Branches int
	// Jobs is how many branches run at once; the result does not depend
	// on it.
	Jobs      int
	Interrupt *atomic.Bool
	// Base are the branches of the run whose failure is measured, as a run
	// of sf-run -explore made them (every stream re-keyed, the planned
	// faults redrawn): the run is the seed with them, and a branch at a
	// moment keeps those before the moment and drops the rest, which the
	// moment's redraw replaces. Defaults to none, the seed's own run.
	Base []schedule.Branch
	// NoForks runs every branch from the start. By default one more run of
	// the seed, not counted, leaves forks of itself, and a branch starts
	// from the latest before its moment, which ends the same and takes
	// less time. Tests compare the two.
	NoForks bool
}

// CausePoint is the curve at one moment.
type CausePoint struct {
	AtNs int64
	// Same counts the branches, of Runs, that failed the same way as the
	// seed.
	Same, Runs int
	// Kept are the seed's faults that this moment keeps and the moment
	// before it did not: those that fired in [previous moment, AtNs).
	Kept []engine.Fault
}

// Share is the fraction of branches that failed the same way.
func (p CausePoint) Share() float64 {
	if p.Runs == 0 {
		return 0
	}
	return float64(p.Same) / float64(p.Runs)
}

// CauseOutcome is a failing seed's curve.
type CauseOutcome struct {
	Seed     uint64
	Failure  Failure
	FailAtNs int64
	// Faults are the faults that fired in the seed's own run.
	Faults []engine.Fault
	Points []CausePoint
	// Inevitable is the index of the first point from which every point
	// has a share of 100%, or -1.
	Inevitable int
	// Runs counts every run: the seed's own and the branches.
	Runs int
	// Forked counts the branches that started from a fork of the seed's
	// run (CauseOptions.NoForks).
	Forked int
}

// CauseMoments are the moments the curve is measured at, sorted and each
// once: K spread evenly over [from, failAt), and for each of the last K
// fault times in it, that time (a branch there re-randomizes the fault) and
// 1ns later (a branch there keeps it). from is 0 but in a world forked at
// its setup, whose seeds share the run up to it.
func CauseMoments(k int, from, failAt int64, faults []engine.Fault) []int64 {
	seen := map[int64]bool{}
	var out []int64
	add := func(t int64) {
		if t >= from && t < failAt && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for i := range k {
		add(from + int64(float64(failAt-from)*float64(i)/float64(k)))
	}
	var times []int64
	tseen := map[int64]bool{}
	for _, f := range faults {
		if t := int64(f.At); t >= from && t < failAt && !tseen[t] {
			tseen[t] = true
			times = append(times, t)
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	if len(times) > k {
		times = times[len(times)-k:]
	}
	for _, t := range times {
		add(t)
		add(t + 1)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// checkBase says why base cannot be CauseOptions.Base, naming the branch.
func checkBase(base []schedule.Branch) error {
	for i, b := range base {
		if b.Stream != "" {
			return fmt.Errorf("branches[%d] re-keys only the %s stream: -cause takes the branches of sf-run -explore, which re-key every stream", i, b.Stream)
		}
		if i > 0 && b.At < base[i-1].At {
			return fmt.Errorf("branches[%d].at: before the branch above it", i)
		}
	}
	return nil
}

// branchAt is base's branches before at, then a branch at at with key.
func branchAt(base []schedule.Branch, at int64, key uint64) []schedule.Branch {
	var out []schedule.Branch
	for _, b := range base {
		if int64(b.At) < at {
			out = append(out, b)
		}
	}
	return append(out, schedule.Branch{At: schedule.Dur(at), Key: key})
}

// CauseKey is the key of branch i at moment at of seed: drawn from the
// three, so a curve is the same on every machine and for any -j.
func CauseKey(seed uint64, at int64, i int) uint64 {
	return rng.New(seed, "cause", uint64(at), uint64(i)).Uint64()
}

// Cause measures, for a failing seed that draws its own faults, how likely
// its failure is once the run is branched at each moment: everything before
// the moment happens as in the seed (its faults included), everything
// after is drawn again (engine.Options.RedrawAfterBranch), apart from
// which buggify sites are enabled and the swarm's choice of fault types,
// which stay the seed's. With o.Base the run is that of an exploration.
func Cause(p *runner.Prepared, seed uint64, o CauseOptions) (*CauseOutcome, error) {
	if o.Jobs < 1 {
		o.Jobs = 1
	}
	if err := checkBase(o.Base); err != nil {
		return nil, err
	}
	interrupted := func() bool { return o.Interrupt != nil && o.Interrupt.Load() }
	// RedrawAfterBranch is what explore ran its branches with; without
	// branches it changes nothing.
	run := p.One(runner.Job{Seed: seed, Options: engine.Options{Branches: o.Base, RedrawAfterBranch: true}}, o.Interrupt)
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
	out := &CauseOutcome{Seed: seed, Failure: FailureOf(first), FailAtNs: first.AtNs, Faults: first.Faults, Inevitable: -1, Runs: 1}
	from, err := p.SetupAtNs()
	if err != nil {
		return nil, err
	}
	moments := CauseMoments(o.Moments, from, first.AtNs, first.Faults)
	if len(moments)*o.Branches > MaxCauseRuns {
		return nil, fmt.Errorf("%d moments × %d branches is over the limit of %d runs", len(moments), o.Branches, MaxCauseRuns)
	}
	var fs *runner.Forks
	if !o.NoForks {
		// The grid of steps comes from the seed's run, so the forks come
		// from one more.
		fs = runner.NewForks(0, max(1, first.Steps/ForkGrid))
		defer fs.Release()
		base := p.One(runner.Job{Seed: seed, Options: engine.Options{Branches: o.Base, RedrawAfterBranch: true},
			Forks: fs, ForksBeforeNs: first.AtNs}, o.Interrupt)
		if base.Err != nil {
			return nil, base.Err
		}
		if interrupted() {
			return nil, ErrInterrupted
		}
	}
	var jobs []runner.Job
	for _, at := range moments {
		for i := range o.Branches {
			jobs = append(jobs, runner.Job{Seed: seed, Options: engine.Options{RedrawAfterBranch: true,
				Branches: branchAt(o.Base, at, CauseKey(seed, at, i))}, Forks: fs})
		}
	}
	same := make([]int, len(moments))
	err = p.Run(jobs, runner.Pool{Workers: o.Jobs, Interrupt: o.Interrupt}, func(r runner.Outcome) error {
		m, i := r.Index/o.Branches, r.Index%o.Branches
		switch {
		case r.Err != nil:
			return fmt.Errorf("branch %d at %s: %w", i, schedule.Time(moments[m]), r.Err)
		case !r.Interrupted && out.Failure.Same(r.Result):
			same[m]++
		}
		return nil
	})
	if interrupted() {
		return nil, ErrInterrupted
	}
	if err != nil {
		return nil, err
	}
	fi := 0
	faults := append([]engine.Fault{}, first.Faults...)
	sort.SliceStable(faults, func(i, j int) bool { return faults[i].At < faults[j].At })
	for m, at := range moments {
		pt := CausePoint{AtNs: at, Same: same[m], Runs: o.Branches}
		for fi < len(faults) && int64(faults[fi].At) < at {
			pt.Kept = append(pt.Kept, faults[fi])
			fi++
		}
		out.Points = append(out.Points, pt)
		out.Runs += o.Branches
	}
	for i := len(out.Points) - 1; i >= 0 && out.Points[i].Same == out.Points[i].Runs && out.Points[i].Runs > 0; i-- {
		out.Inevitable = i
	}
	if fs != nil {
		out.Forked = fs.Started()
	}
	return out, nil
}
