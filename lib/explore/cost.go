package explore

import "github.com/sf-dst/sf/lib/engine"

// cost is what the branches of an exploration ran and skipped, in steps.
type cost struct {
	seedSteps   uint64  // the steps of the starting seeds' runs
	branchSteps uint64  // the steps of the branches' runs, from t=0
	skipped     uint64  // of them, the steps before the forks they started from
	rerunSteps  uint64  // the steps the runs that left forks ran (from their own forks)
	pointFrac   float64 // the sum over branches of new branch point / parent run's end
	// Of them, the branches 1ns after a moment their parent reached
	// something new, and their sum.
	atReached   int
	reachedFrac float64
	forksTaken  int // the forks the runs that left forks took
	// The real time the branches took, and of it their history checks':
	// a check costs as much after a fork as after a run from t=0.
	realNs, checkNs int64
}

// drew notes a branch drawn at `at` in a run that ended at end, 1ns after a
// moment the run reached something new when reached.
func (c *cost) drew(at, end int64, reached bool) {
	c.pointFrac += float64(at) / float64(end)
	if reached {
		c.atReached++
		c.reachedFrac += float64(at) / float64(end)
	}
}

// ran notes the run r of cand.
func (c *cost) ran(cand candidate, r *engine.Result) {
	if cand.parent < 0 {
		c.seedSteps += r.Steps
		return
	}
	c.branchSteps += r.Steps
	c.realNs += r.RealNs
	if r.Check != nil {
		c.checkNs += r.Check.Elapsed.Nanoseconds()
	}
}
