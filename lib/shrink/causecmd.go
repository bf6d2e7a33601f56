package shrink

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/record"
	"github.com/sf-dst/sf/lib/runner"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/sweep"
)

// causeBarWidth is the width of a share's bar in the text curve.
const causeBarWidth = 20

// causeOne draws one seed's cause curve, prints it and returns its records.
func (c *Command) causeOne(j job, prepared map[worldKey]*runner.Prepared, interrupt *atomic.Bool) ([]record.Cause, error) {
	if j.faults != "" && j.exploreRun == 0 {
		// A schedule fixes every fault, so there is nothing after a moment
		// to draw again: the curve is only defined for the seed's own plan.
		return nil, fmt.Errorf("it ran with the schedule %s: -cause branches a seed that draws its own faults", j.faults)
	}
	p := prepared[j.world]
	if p == nil {
		var err error
		p, err = runner.Prepare(j.world.config, config.LoadOptions{Profile: j.world.profile, Set: j.world.setList()}, c.Stderr)
		if err != nil {
			return nil, err
		}
		prepared[j.world] = p
	}
	// An explore run drew its own faults too, along its branches: its
	// schedule is where they are, and the run is the seed with them.
	var base []schedule.Branch
	if j.faults != "" {
		sched, err := p.ReadSchedule(j.faults, c.Stdin)
		if err != nil {
			return nil, err
		}
		if sched.Seed != j.seed {
			return nil, fmt.Errorf("%s is the schedule of seed %d, not of explore run %d of seed %d", j.faults, sched.Seed, j.exploreRun, j.seed)
		}
		if err := checkBase(sched.Branches); err != nil {
			return nil, fmt.Errorf("%s: %w", j.faults, err)
		}
		base = sched.Branches
	}
	k, m := c.CauseMoments, c.CauseBranches
	if k < 1 {
		k = DefaultCauseMoments
	}
	if m < 1 {
		m = DefaultCauseBranches
	}
	out, err := Cause(p, j.seed, CauseOptions{Moments: k, Branches: m, Jobs: c.Jobs, Interrupt: interrupt, Base: base})
	if err != nil {
		if errors.Is(err, ErrPasses) {
			return nil, fmt.Errorf("%v: no failure to find the cause of", err)
		}
		return nil, err
	}
	PrintCause(c.Stderr, out, j.exploreRun)
	args := []string{c.RunTool, "-c", j.world.config, "-seed", strconv.FormatUint(j.seed, 10)}
	if j.world.profile != "" {
		args = append(args, "-profile", j.world.profile)
	}
	for _, s := range j.world.setList() {
		args = append(args, "-set", s)
	}
	if j.faults != "" {
		args = append(args, "-faults", j.faults)
	}
	repro := sweep.ShellJoin(args)
	var recs []record.Cause
	for i, pt := range out.Points {
		rec := record.Cause{Kind: record.KindCause, Seed: j.seed, Config: j.world.config, Profile: j.world.profile,
			Set: j.world.setList(), Failure: out.Failure.String(), FailAtNs: out.FailAtNs,
			At: time.Duration(pt.AtNs).String(), AtNs: pt.AtNs, Branches: pt.Runs, Same: pt.Same, Share: pt.Share(),
			Inevitable: out.Inevitable >= 0 && i >= out.Inevitable, Repro: repro, ExploreRun: j.exploreRun}
		for _, f := range pt.Kept {
			rec.Faults = append(rec.Faults, time.Duration(f.At).String()+" "+f.Describe())
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// PrintCause writes a seed's curve for people: one line per moment with its
// share and a bar, the seed's faults between the moments they fall between,
// and where the failure became inevitable. exploreRun, when not 0, is the
// run of sf-run -explore the curve is of.
func PrintCause(w io.Writer, out *CauseOutcome, exploreRun int) {
	what := fmt.Sprintf("seed %d", out.Seed)
	if exploreRun > 0 {
		what += fmt.Sprintf(" (explore run %d)", exploreRun)
	}
	fmt.Fprintf(w, "%s: %s at %s; %d branches at each of %d moments (%d runs)\n",
		what, out.Failure, schedule.Time(out.FailAtNs), pointRuns(out), len(out.Points), out.Runs)
	fmt.Fprintf(w, "  %12s  %9s  %5s\n", "branch at", "same way", "share")
	for i, pt := range out.Points {
		for _, f := range pt.Kept {
			fmt.Fprintf(w, "  %12s  fault: %s\n", time.Duration(f.At), f.Describe())
		}
		filled := int(pt.Share()*causeBarWidth + 0.5)
		mark := ""
		if i == out.Inevitable {
			mark = "  <- inevitable from here"
		}
		fmt.Fprintf(w, "  %12s  %9s  %4.0f%%  %s%s%s\n", time.Duration(pt.AtNs), fmt.Sprintf("%d/%d", pt.Same, pt.Runs),
			100*pt.Share(), strings.Repeat("#", filled), strings.Repeat(".", causeBarWidth-filled), mark)
	}
	if out.Inevitable >= 0 {
		fmt.Fprintf(w, "inevitable from %s: every branch from there on fails the same way\n\n", time.Duration(out.Points[out.Inevitable].AtNs))
		return
	}
	if n := len(out.Points); n > 0 {
		last := out.Points[n-1]
		fmt.Fprintf(w, "never inevitable: at the last moment, %s, %d of %d branches fail the same way\n\n", time.Duration(last.AtNs), last.Same, last.Runs)
	}
}

func pointRuns(out *CauseOutcome) int {
	if len(out.Points) == 0 {
		return 0
	}
	return out.Points[0].Runs
}
