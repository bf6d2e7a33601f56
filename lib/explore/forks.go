package explore

import (
	"fmt"
	"sort"

	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/runner"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/shrink"
)

// This file starts branches from forks of the run they branch instead of
// from t=0. The first time a batch branches a run of the corpus, a starting
// seed's or a branch's, one more run of it, not counted, leaves forks of
// itself on a grid of steps, and every branch starts from the latest fork
// that admits it (engine.Fork.Admits): of its own parent's run before its
// new branch point, or, where the parent left none there, of the runs the
// parent branched in turn. The run that leaves a branch's forks starts from
// its parent's forks too, so a chain of branches pays, at each link, only
// the part of the run after the last fork it shares with its parent. A
// branch started from a fork ends byte for byte as it would from the
// start, so the exploration finds what it would have, only sooner.

// runForks holds the forks of the corpus's runs branched so far, all
// within runner.ForkBytesMax bytes of guest images: when they pass it, the
// grid thins out over every run alike (runner.Forks).
type runForks struct {
	fs    *runner.Forks
	taken map[int]bool // the corpus entries whose run has left its forks
	// seedsOnly takes forks of the starting seeds' runs only
	// (Options.seedForksOnly).
	seedsOnly bool
	// reruns counts the runs that left forks, and rerunStarts those of
	// them that started from a fork, which Outcome.Forked leaves out;
	// rerunSkipped the steps they did not run, rerunSteps those they did.
	reruns, rerunStarts      int
	rerunSkipped, rerunSteps uint64
}

func newRunForks() *runForks {
	return &runForks{taken: map[int]bool{}}
}

// take runs, once each, the corpus entries that cands branch and that no
// run has left forks of yet, leaving forks of them. The grid's spacing
// comes from the first run taken: the runs of a world take a similar
// number of steps, and the bound on bytes spreads the grid out when they
// do not.
func (rf *runForks) take(p *runner.Prepared, corpus []entry, cands []candidate, o Options) error {
	var todo []int
	for _, c := range cands {
		if c.parent < 0 || rf.taken[c.parent] || rf.seedsOnly && len(corpus[c.parent].branches) > 0 {
			continue
		}
		rf.taken[c.parent] = true
		todo = append(todo, c.parent)
		if rf.fs == nil {
			rf.fs = runner.NewForks(0, max(1, corpus[c.parent].steps/shrink.ForkGrid))
		}
	}
	// A run with fewer branches goes first: one that branches it, taken
	// in the same batch, then starts from its forks.
	sort.SliceStable(todo, func(i, j int) bool { return len(corpus[todo[i]].branches) < len(corpus[todo[j]].branches) })
	for len(todo) > 0 {
		n := 1
		for n < len(todo) && len(corpus[todo[n]].branches) == len(corpus[todo[0]].branches) {
			n++
		}
		if err := rf.rerun(p, corpus, todo[:n], o); err != nil {
			return err
		}
		todo = todo[n:]
	}
	return nil
}

// rerun makes the runs of the entries at, which leave forks of themselves,
// and checks that they end as the entries' runs did.
func (rf *runForks) rerun(p *runner.Prepared, corpus []entry, at []int, o Options) error {
	jobs := make([]runner.Job, len(at))
	for i, k := range at {
		e := corpus[k]
		jobs[i] = runner.Job{Seed: e.seed, Options: engine.Options{Branches: e.branches, RedrawAfterBranch: true}, Forks: rf.fs, ForksBeforeNs: e.end}
	}
	started, skipped := rf.fs.Started(), rf.fs.Skipped()
	var steps uint64
	defer func() {
		rf.reruns += len(jobs)
		rf.rerunStarts += rf.fs.Started() - started
		rf.rerunSkipped += rf.fs.Skipped() - skipped
		rf.rerunSteps += steps - (rf.fs.Skipped() - skipped)
	}()
	return p.Run(jobs, runner.Pool{Workers: o.Jobs, Interrupt: o.Interrupt}, func(out runner.Outcome) error {
		b := corpus[at[out.Index]]
		switch {
		case out.Err != nil:
			return fmt.Errorf("running %s again for its forks: %w", b.name(), out.Err)
		case out.Interrupted:
			return nil
		case out.Result.Hash != b.hash || out.Result.AtNs != b.end:
			// The runs are the same seed with the same branches and
			// options: branches started from forks of this one would not
			// be those of the first.
			return fmt.Errorf("%s, run again for its forks, ended at t=%s with hash %016x, its first run at t=%s with hash %016x: the world does not run deterministically (sf-run -check -seed %d shows where)",
				b.name(), schedule.Time(out.Result.AtNs), out.Result.Hash, schedule.Time(b.end), b.hash, b.seed)
		}
		steps += out.Result.Steps
		return nil
	})
}

// name says which run an entry is, for an error.
func (e entry) name() string {
	if len(e.branches) == 0 {
		return fmt.Sprintf("seed %d", e.seed)
	}
	return fmt.Sprintf("seed %d with %d branches (the last at %s)", e.seed, len(e.branches), schedule.Time(int64(e.branches[len(e.branches)-1].At)))
}

// forks is what branches start from: nil before any is taken.
func (rf *runForks) forks() *runner.Forks {
	if rf == nil {
		return nil
	}
	return rf.fs
}

// started counts the branches that started from a fork, the runs that
// left forks left out.
func (rf *runForks) started() int {
	if rf == nil || rf.fs == nil {
		return 0
	}
	return rf.fs.Started() - rf.rerunStarts
}

// release lets go of every fork.
func (rf *runForks) release() {
	if rf != nil && rf.fs != nil {
		rf.fs.Release()
	}
}

// runs counts the uncounted runs that left forks.
func (rf *runForks) runs() int {
	if rf == nil {
		return 0
	}
	return rf.reruns
}

// costs notes in c what the branches skipped and what the runs that left
// forks ran.
func (rf *runForks) costs(c *cost) {
	if rf == nil || rf.fs == nil {
		return
	}
	c.skipped = rf.fs.Skipped() - rf.rerunSkipped
	c.rerunSteps = rf.rerunSteps
	c.forksTaken = rf.fs.Taken()
}
