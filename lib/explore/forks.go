package explore

import (
	"fmt"

	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/runner"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/shrink"
)

// This file starts branches from forks of their seed's run instead of from
// t=0. The first time a batch branches a seed, one more run of the seed,
// not counted, leaves forks of itself on a grid of its steps, and every
// branch of that seed starts from the latest fork before its first branch
// point (engine.Fork.Admits). A branch started from a fork ends byte for
// byte as it would from the start, so the exploration finds what it would
// have, only sooner.

// baseRun is what the forks of a seed's run are taken by: its steps, which
// space the grid, and its end and hash, which the run that takes the forks
// must reach again.
type baseRun struct {
	steps uint64
	end   int64
	hash  uint64
}

// seedForks holds the forks of the runs of the seeds branched so far, all
// within runner.ForkBytesMax bytes of guest images: when they pass it, the
// grid thins out over every seed alike (runner.Forks).
type seedForks struct {
	fs    *runner.Forks
	bases map[uint64]baseRun // a starting seed's own run, by seed
	taken map[uint64]bool    // the seeds whose run has left its forks
}

func newSeedForks() *seedForks {
	return &seedForks{bases: map[uint64]baseRun{}, taken: map[uint64]bool{}}
}

// remember notes a starting seed's run, which its branches will want forks
// of.
func (sf *seedForks) remember(seed uint64, r *engine.Result) {
	sf.bases[seed] = baseRun{steps: r.Steps, end: r.AtNs, hash: r.Hash}
}

// take runs, once each, the seeds of cands that no run has left forks of
// yet, leaving forks of them. The grid's spacing comes from the first seed
// taken: the seeds of a world run for a similar number of steps, and the
// bound on bytes spreads the grid out when they do not.
func (sf *seedForks) take(p *runner.Prepared, cands []candidate, o Options) error {
	var jobs []runner.Job
	for _, c := range cands {
		b, ok := sf.bases[c.seed]
		if !ok || sf.taken[c.seed] {
			continue
		}
		sf.taken[c.seed] = true
		if sf.fs == nil {
			sf.fs = runner.NewForks(0, max(1, b.steps/shrink.ForkGrid))
		}
		jobs = append(jobs, runner.Job{Seed: c.seed, Options: engine.Options{RedrawAfterBranch: true}, Forks: sf.fs, ForksBeforeNs: b.end})
	}
	if len(jobs) == 0 {
		return nil
	}
	return p.Run(jobs, runner.Pool{Workers: o.Jobs, Interrupt: o.Interrupt}, func(out runner.Outcome) error {
		seed := jobs[out.Index].Seed
		switch b := sf.bases[seed]; {
		case out.Err != nil:
			return fmt.Errorf("running seed %d again for its forks: %w", seed, out.Err)
		case out.Interrupted:
		case out.Result.Hash != b.hash || out.Result.AtNs != b.end:
			// The runs are the same seed with the same options: branches
			// started from forks of this one would not be those of the
			// first.
			return fmt.Errorf("seed %d, run again for its forks, ended at t=%s with hash %016x, its first run at t=%s with hash %016x: the world does not run deterministically (sf-run -check -seed %d shows where)",
				seed, schedule.Time(out.Result.AtNs), out.Result.Hash, schedule.Time(b.end), b.hash, seed)
		}
		return nil
	})
}

// forks is what branches start from: nil before any is taken.
func (sf *seedForks) forks() *runner.Forks {
	if sf == nil {
		return nil
	}
	return sf.fs
}

// started counts the branches that started from a fork.
func (sf *seedForks) started() int {
	if sf == nil || sf.fs == nil {
		return 0
	}
	return sf.fs.Started()
}

// release lets go of every fork.
func (sf *seedForks) release() {
	if sf != nil && sf.fs != nil {
		sf.fs.Release()
	}
}
