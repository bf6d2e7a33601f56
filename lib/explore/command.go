package explore

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/exitcode"
	"github.com/sf-dst/sf/lib/record"
	"github.com/sf-dst/sf/lib/runner"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/stopsignal"
	"github.com/sf-dst/sf/lib/sweep"
	"github.com/sf-dst/sf/lib/textfmt"
)

// Main is sf-run -explore: it prepares the world, explores it and reports
// each failure as it is found, for people, or with o.JSON as records on
// stdout and the report on stderr. It returns 0 when no run failed, 1 when
// one did or a property was never reached or never true in any run, 2 when the world could not be prepared or a run could not be
// made, and 130 when SIGINT or SIGTERM stopped it.
func Main(o Options, stdout, stderr io.Writer) int {
	start := time.Now()
	if o.Interrupt == nil {
		o.Interrupt = new(atomic.Bool)
	}
	// Watched from before the world loads, as a sweep does.
	defer stopsignal.Watch(o.Interrupt)()
	p, err := runner.Prepare(o.Config, config.LoadOptions{Profile: o.Profile, Set: o.Set}, stderr)
	if err != nil {
		if o.Interrupt.Load() {
			fmt.Fprintf(stderr, "sf-run: interrupted while preparing the world: %v\n", err)
			return exitcode.Interrupted
		}
		fmt.Fprintf(stderr, "sf-run: %v\n", err)
		return exitcode.Usage
	}
	defer p.Engine.Close()
	human := stdout
	var jw *record.Writer
	if o.JSON {
		human = stderr
		if o.PipeNote {
			fmt.Fprintln(stderr, sweep.PipeNote)
		}
		jw = record.NewWriter(stdout)
		jw.Write(startRecord(o))
	}
	out, err := Run(p, o, func(f Found) {
		if jw != nil {
			jw.Write(seedRecord(o, f))
		}
		how := "starting seed, no branch"
		if n := len(f.Branches); n > 0 {
			how = fmt.Sprintf("%d branches, the last at %s", n, schedule.Time(int64(f.Branches[n-1].At)))
			if n == 1 {
				how = fmt.Sprintf("branched at %s", schedule.Time(int64(f.Branches[0].At)))
			}
		}
		fmt.Fprintf(human, "FAIL run %d: seed %d (%s) at t=%s: %s\n", f.Run, f.Seed, how, schedule.Time(f.Result.AtNs), f.Result.Message)
		if f.Schedule != "" {
			fmt.Fprintf(human, "  wrote %s\n", f.Schedule)
		}
		if a := f.Artifacts; a != nil {
			sched := a.Faults
			if f.Schedule != "" {
				sched = "" // named above
			}
			for _, w := range []struct{ what, path string }{{"schedule", sched}, {"trace", a.Trace}, {"history", a.History}, {"history timeline", a.Timeline}} {
				if w.path != "" {
					fmt.Fprintf(human, "  wrote %s %s\n", w.what, w.path)
				}
			}
		}
		fmt.Fprintf(human, "  replay: %s\n", f.Repro)
	})
	if err != nil {
		fmt.Fprintf(stderr, "sf-run: explore: %v\n", err)
		return exitcode.Usage
	}
	sum := Summary(o, out, time.Since(start))
	if jw != nil {
		jw.Write(sum)
	}
	sweep.PrintTables(human, sum, "runs")
	Print(human, out)
	if sum.PropertyFailures > 0 {
		fmt.Fprintf(human, "explore: %s never reached or never true in %s\n", textfmt.Plural(sum.PropertyFailures, "property"), textfmt.Plural(out.Runs, "run"))
	}
	switch {
	case out.Interrupted:
		return exitcode.Interrupted
	case sum.Status == "fail":
		return exitcode.Problem
	}
	return exitcode.Pass
}

// startRecord opens an exploration's stream. Count is the starting seeds
// that fit the budget; ExploreRuns marks the stream as an exploration.
func startRecord(o Options) record.Start {
	runs := o.Runs
	if runs < 1 {
		runs = DefaultRuns
	}
	return record.Start{Kind: record.KindStart, Tool: "sf-run", Version: sweep.Version, Schema: record.Schema,
		Config: o.Config, Profile: o.Profile, Set: o.Set, Seeds: o.SeedsText, Count: min(len(o.Seeds), runs),
		Jobs: max(o.Jobs, 1), ExploreRuns: runs}
}

// seedRecord is the record of one failing run: the record a sweep writes for
// a seed replayed with the run's schedule (its faults_file and repro name
// it), plus the run's artifacts, number and branches.
func seedRecord(o Options, f Found) record.Seed {
	rec := sweep.SeedRecord(sweepOptions(o, f.Schedule), f.Result)
	rec.Seed, rec.Repro, rec.Artifacts = f.Seed, f.Repro, f.Artifacts
	rec.ExploreRun, rec.Branches = f.Run, len(f.Branches)
	return rec
}

// Summary is the record that closes an exploration's stream: every run
// counts as one seed (record.Summary says how), in the counts and in the
// property and buggify tables. As in a sweep, a property never reached or
// never true fails it.
func Summary(o Options, out *Outcome, took time.Duration) record.Summary {
	runs := o.Runs
	if runs < 1 {
		runs = DefaultRuns
	}
	sum := record.Summary{Kind: record.KindSummary, Tool: "sf-run", Config: o.Config, Seeds: out.Runs,
		Passed: out.Passed, Horizon: out.Horizon, Failed: len(out.Found), GaveUp: out.GaveUp, FailedSeeds: []uint64{},
		Properties: []record.Property{}, RealNs: took.Nanoseconds(), Status: "pass", Interrupted: out.Interrupted,
		Explore: &record.ExploreCounts{Runs: out.Runs, StartingSeeds: out.SeedRuns, Branches: out.Runs - out.SeedRuns,
			Budget: runs, Corpus: out.Corpus, NewStates: out.Signals}}
	listed := map[uint64]bool{}
	for _, f := range out.Found {
		if !listed[f.Seed] {
			listed[f.Seed] = true
			sum.FailedSeeds = append(sum.FailedSeeds, f.Seed)
		}
		if len(f.Branches) > 0 {
			sum.Explore.BranchedFailures++
		}
	}
	if out.Tables != nil {
		out.Tables.Fill(&sum)
	}
	switch {
	case sum.Interrupted:
		sum.Status = "interrupted" // as the exit status, 130, says
	case sum.Failed > 0 || sum.PropertyFailures > 0 || sum.GaveUp > 0:
		sum.Status = "fail"
	}
	return sum
}
