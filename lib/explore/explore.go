// Package explore is sf-run -explore: it runs a world's starting seeds,
// keeps the passing runs that reached something no run had reached before
// (a property first reached or first true, a buggify site first fired, a
// property's margin closer to failing), and branches them (schedule
// branches) at the moments they reached it, keeping in turn the branches
// that reach new states, until a budget of runs is spent. Every failure a
// branch finds is written as a schedule with its branches, which
// sf-run -seed N -faults replays, and every failing run gets the trace and
// history a failing seed of a sweep gets, written by the sweep's code.
package explore

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"sync/atomic"

	"github.com/sf-dst/sf/lib/check"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/margin"
	"github.com/sf-dst/sf/lib/record"
	"github.com/sf-dst/sf/lib/rng"
	"github.com/sf-dst/sf/lib/runner"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/shrink"
	"github.com/sf-dst/sf/lib/sweep"
	"github.com/sf-dst/sf/lib/textfmt"
)

// DefaultRuns is the budget of runs when -explore-runs is not given.
const DefaultRuns = 200

// MaxRuns bounds the budget.
const MaxRuns = 1_000_000

// batch is how many branches are drawn before their results are looked
// at. It is fixed, not -j, so the exploration is the same for any -j.
const batch = 8

// Options tune one exploration.
type Options struct {
	// Seeds are the starting seeds, run plainly first; they count against
	// Runs.
	Seeds []uint64
	// Runs is the budget: every run, starting seeds and branches.
	Runs int
	// Jobs is how many runs go at once; the outcome does not depend on it.
	Jobs int
	// Config, Profile and Set are how the replay lines and the schedules
	// name the world; Tool is the sf-run they call.
	Config  string
	Profile string
	Set     []string
	Tool    string
	// SeedsText is -seeds as given, for the start record.
	SeedsText string
	// Compress writes a failing run's trace and history as zstd files, as
	// sf-run -compress does for a sweep. Defaults to false.
	Compress bool
	// JSON makes Main write JSONL records on stdout (start, a seed record
	// per failing run, summary) and its report on stderr.
	JSON bool
	// PipeNote, with JSON, says on stderr, before the first record, that
	// records go to stdout because it is a pipe (sweep.PipeNote). Defaults
	// to false.
	PipeNote bool
	// Interrupt, when it becomes true, ends the runs at their next step
	// and stops the exploration.
	Interrupt *atomic.Bool
	// NoForks runs every branch from the start. By default the first time
	// a run of the corpus (a starting seed or a branch) is branched, one
	// more run of it, not counted, leaves forks of itself (within
	// runner.ForkBytesMax bytes of guest memory for all the runs), and each
	// of its branches starts from the latest fork before its new branch
	// point, which ends the same and takes less time. Tests compare the
	// two.
	NoForks bool
	// seedForksOnly leaves forks of the starting seeds' runs only, as
	// explore did before branches left forks: BenchmarkExploreForks
	// measures what the forks of branches add.
	seedForksOnly bool
}

// Found is one failure explore found.
type Found struct {
	Run      int // 1-based, in the order explore counts runs
	Seed     uint64
	Branches []schedule.Branch // none for a starting seed that failed
	Result   *engine.Result
	Failure  shrink.Failure
	// Schedule is the schedule written for a branched failure, relative to
	// the working directory when below it; Repro replays it.
	Schedule string
	Repro    string
	// Artifacts are the files written for the run, as for a sweep's failing
	// seed, named explore-<seed>-run-<n>.*: its trace, its history when
	// the world records one, and its schedule (Schedule for a branched run).
	Artifacts *record.Artifacts
}

// Outcome is what an exploration did.
type Outcome struct {
	Runs        int // runs made
	SeedRuns    int // of them, starting seeds
	Passed      int // runs that passed, at the time horizon included
	Horizon     int // of them, runs that reached the time horizon
	GaveUp      int // runs that did not fail but whose history check gave up
	Corpus      int // runs kept because they reached something new
	Found       []Found
	Signals     int // distinct things reached (see reached)
	Interrupted bool
	// Forked counts the branches that started from a fork of a run they
	// branch (Options.NoForks); ForkRuns the uncounted runs that left the
	// forks, one per run of the corpus branched.
	Forked, ForkRuns int
	// Tables sums the properties and buggify sites of every run made, as a
	// sweep's summary sums its seeds'.
	Tables *sweep.Tables
	// cost says where the branches' time went, for BenchmarkExploreForks.
	cost cost
}

// reached is one thing a run can reach for the first time, with when.
type reached struct {
	key string
	at  int64
}

// coverage is everything the runs so far reached.
type coverage struct {
	seen   map[string]bool
	margin map[string]margin.Value // per property, the margin closest to failing (always) or to true (sometimes)
}

// news lists what r reached that no earlier run did, and records it.
func (c *coverage) news(r *engine.Result) []reached {
	var out []reached
	add := func(key string, at int64) {
		if !c.seen[key] {
			c.seen[key] = true
			out = append(out, reached{key, at})
		}
	}
	for _, p := range r.Properties {
		id := p.Kind + "\x00" + p.Message
		if p.Reached {
			add("reached\x00"+id, p.FirstNs)
		}
		if p.True {
			add("true\x00"+id, p.FirstTrueNs)
		}
		if p.Margin == nil {
			continue
		}
		m := *p.Margin
		best, ok := c.margin[id]
		// An always is closer to failing with a smaller margin, a
		// sometimes closer to true with a larger one.
		closer := !ok || (p.Kind == "always" && m.Less(best)) || (p.Kind == "sometimes" && best.Less(m))
		if closer {
			c.margin[id] = m
			out = append(out, reached{"margin\x00" + id + "\x00" + m.String(), p.MarginNs})
		}
	}
	for _, f := range r.Faults {
		if f.Kind == engine.KindBuggify {
			add("fired\x00"+f.Site, int64(f.At))
		}
	}
	return out
}

// entry is a run kept in the corpus: a seed, its branches, the moments it
// reached something new, and the span [from, end) after its last branch
// and before it ended, where its own branches go; its steps and hash are
// what the run that leaves forks of it must come to again.
type entry struct {
	seed      uint64
	branches  []schedule.Branch
	moments   []int64
	from, end int64
	steps     uint64
	hash      uint64
}

// moment draws where to branch e: half the time 1ns after one of the
// moments it reached something new, which keeps that state and draws what
// follows afresh; otherwise anywhere in its span, which explores other
// ways to the states it reached (a Sometimes evaluated once, at the end of
// the run, has no time left after it).
func (e *entry) moment(s *rng.Stream) (at int64, reached bool) {
	if len(e.moments) > 0 && s.Chance(0.5) {
		return e.moments[s.Intn(len(e.moments))], true
	}
	return s.Between(e.from, e.end-1), false
}

// candidate is one run to make: a starting seed (parent -1) or a branch
// of the corpus's entry parent.
type candidate struct {
	seed     uint64
	branches []schedule.Branch
	parent   int
}

// Run explores the prepared world and reports each failure to report as it
// is found (the schedule of a branched one already written).
func Run(p *runner.Prepared, o Options, report func(Found)) (*Outcome, error) {
	if o.Jobs < 1 {
		o.Jobs = 1
	}
	if o.Runs < 1 {
		o.Runs = DefaultRuns
	}
	if o.Tool == "" {
		o.Tool = "sf-run"
	}
	// A world forked at its setup shares the run up to it in every seed:
	// a branch comes after it.
	setupAt, err := p.SetupAtNs()
	if err != nil {
		return nil, err
	}
	out := &Outcome{Tables: sweep.NewTables(p)}
	cov := &coverage{seen: map[string]bool{}, margin: map[string]margin.Value{}}
	var corpus []entry
	var forks *runForks
	if !o.NoForks {
		forks = newRunForks()
		forks.seedsOnly = o.seedForksOnly
		defer forks.release()
	}
	interrupted := func() bool { return o.Interrupt != nil && o.Interrupt.Load() }

	// consider takes the results of a batch in candidate order, so the
	// corpus and the numbering do not depend on which run finished first.
	consider := func(cands []candidate, results []*engine.Result) error {
		for i, r := range results {
			out.Runs++
			out.Tables.Add(r)
			c := cands[i]
			out.cost.ran(c, r)
			switch r.Status {
			case engine.StatusFail:
				f := Found{Run: out.Runs, Seed: c.seed, Branches: c.branches, Result: r, Failure: shrink.FailureOf(r)}
				// A starting seed's run is its plain replay; a branched one is
				// replayed from its schedule, whose trace is the one that
				// replay prints (the run's own also says how the branch
				// redrew the planned faults, which a schedule fixes).
				replayed := r
				if len(c.branches) > 0 {
					sched, err := writeSchedule(p, o, &f)
					if err != nil {
						return err
					}
					if replayed, err = replaySchedule(p, f, sched, o); err != nil {
						return err
					}
				} else {
					f.Repro = sweep.ShellJoin(replayArgs(o, c.seed, ""))
				}
				arts, err := sweep.WriteRunArtifacts(p, sweepOptions(o, f.Schedule), runName(f.Seed, f.Run), replayed)
				if err != nil {
					return fmt.Errorf("writing the artifacts of run %d: %w", f.Run, err)
				}
				f.Artifacts = arts
				out.Found = append(out.Found, f)
				report(f)
			case engine.StatusPass, engine.StatusHorizon:
				switch {
				case r.Check != nil && r.Check.Verdict == check.Unknown:
					out.GaveUp++ // not a pass, as in a sweep; its coverage still counts
				case r.Status == engine.StatusHorizon:
					out.Passed++
					out.Horizon++
				default:
					out.Passed++
				}
				news := cov.news(r)
				if len(news) == 0 {
					continue
				}
				e := entry{seed: c.seed, branches: c.branches, from: setupAt, end: r.AtNs, steps: r.Steps, hash: r.Hash}
				if n := len(c.branches); n > 0 {
					// A branch before the run's last one could not follow
					// it in the list.
					e.from = int64(c.branches[n-1].At)
				}
				seen := map[int64]bool{}
				for _, s := range news {
					if t := s.at + 1; t >= e.from && t < e.end && !seen[t] {
						seen[t] = true
						e.moments = append(e.moments, t)
					}
				}
				sort.Slice(e.moments, func(i, j int) bool { return e.moments[i] < e.moments[j] })
				out.Signals += len(news)
				if e.from < e.end-1 {
					corpus = append(corpus, e)
					out.Corpus++
				}
			}
		}
		return nil
	}

	seeds := o.Seeds
	if len(seeds) > o.Runs {
		seeds = seeds[:o.Runs]
	}
	for from := 0; from < len(seeds) && !interrupted(); from += batch {
		var cands []candidate
		for _, s := range seeds[from:min(from+batch, len(seeds))] {
			cands = append(cands, candidate{seed: s, parent: -1})
		}
		results, err := runAll(p, cands, o, nil)
		if err != nil {
			return nil, err
		}
		if interrupted() {
			break
		}
		if err := consider(cands, results); err != nil {
			return nil, err
		}
	}
	out.SeedRuns = out.Runs
	for out.Runs < o.Runs && len(corpus) > 0 && !interrupted() {
		cands := draw(corpus, out.Runs, min(batch, o.Runs-out.Runs), &out.cost)
		if forks != nil {
			if err := forks.take(p, corpus, cands, o); err != nil {
				return nil, err
			}
			if interrupted() {
				break
			}
		}
		results, err := runAll(p, cands, o, forks.forks())
		if err != nil {
			return nil, err
		}
		if interrupted() {
			break
		}
		if err := consider(cands, results); err != nil {
			return nil, err
		}
	}
	out.Interrupted = interrupted()
	out.Forked = forks.started()
	out.ForkRuns = forks.runs()
	forks.costs(&out.cost)
	return out, nil
}

// draw draws the n branches that will be runs first, first+1, ... Each is
// drawn from the number of the run it will be, so the exploration is a
// function of the flags alone.
func draw(corpus []entry, first, n int, c *cost) []candidate {
	var cands []candidate
	for i := range n {
		s := rng.New(0, "explore", uint64(first+i))
		parent := s.Intn(len(corpus))
		e := corpus[parent]
		at, reached := e.moment(s)
		br := append(append([]schedule.Branch{}, e.branches...), schedule.Branch{At: schedule.Dur(at), Key: s.Uint64()})
		cands = append(cands, candidate{seed: e.seed, branches: br, parent: parent})
		c.drew(at, e.end, reached)
	}
	return cands
}

// runAll makes the runs of a batch, up to o.Jobs at once, each from the
// latest of fs's forks that admits it when fs is set.
func runAll(p *runner.Prepared, cands []candidate, o Options, fs *runner.Forks) ([]*engine.Result, error) {
	jobs := make([]runner.Job, len(cands))
	for i, c := range cands {
		jobs[i] = runner.Job{Seed: c.seed, Options: engine.Options{Branches: c.branches, RedrawAfterBranch: true}, Forks: fs}
	}
	results := make([]*engine.Result, len(cands))
	err := p.Run(jobs, runner.Pool{Workers: o.Jobs, Interrupt: o.Interrupt}, func(out runner.Outcome) error {
		results[out.Index] = out.Result
		return out.Err
	})
	return results, err
}

// writeSchedule writes a branched failure's schedule: its branches and the
// faults that fired, which replay it exactly (a replay fires the faults it
// lists and the branches re-key the rest as the run did).
func writeSchedule(p *runner.Prepared, o Options, f *Found) (*schedule.Schedule, error) {
	r := f.Result
	sched := &schedule.Schedule{Seed: f.Seed, Config: o.Config, Profile: o.Profile, Set: o.Set, Duration: schedule.Dur(r.AtNs),
		Branches: f.Branches, Faults: append([]engine.Fault{}, r.Faults...)}
	sched.Sort()
	dir, err := sweep.MakeArtifactDir(p.World)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, runName(f.Seed, f.Run)+".faults.json")
	if err := sched.WriteFile(path); err != nil {
		return nil, fmt.Errorf("writing the schedule of run %d: %w", f.Run, err)
	}
	f.Schedule = textfmt.Display(path)
	f.Repro = sweep.ShellJoin(replayArgs(o, f.Seed, f.Schedule))
	return sched, nil
}

// replaySchedule runs a branched failure again from the schedule written for
// it, as sf-run -seed N -faults does. It must fail at the same host call with
// the same message; anything else is a bug in sf, since the schedule is the
// run's whole record.
func replaySchedule(p *runner.Prepared, f Found, sched *schedule.Schedule, o Options) (*engine.Result, error) {
	out := p.One(runner.Job{Seed: f.Seed, Options: p.RunOptions(sched)}, o.Interrupt)
	if out.Err != nil {
		return nil, fmt.Errorf("replaying run %d from %s: %w", f.Run, f.Schedule, out.Err)
	}
	r := out.Result
	if r.Status == engine.StatusInterrupted {
		return f.Result, nil // its own result is as good, and the exploration is ending
	}
	if r.Status != engine.StatusFail || r.Message != f.Result.Message || r.Hash != f.Result.Hash {
		return nil, fmt.Errorf("run %d does not replay from %s: the replay ended %s at t=%s (%s, hash %016x), the run failed at t=%s (%s, hash %016x)",
			f.Run, f.Schedule, r.Status, schedule.Time(r.AtNs), r.Message, r.Hash, schedule.Time(f.Result.AtNs), f.Result.Message, f.Result.Hash)
	}
	return r, nil
}

// runName is how the files of a run start: explore-<seed>-run-<n>.
func runName(seed uint64, run int) string { return fmt.Sprintf("explore-%d-run-%d", seed, run) }

// sweepOptions are the sweep's options that write a run's artifacts and
// its seed record as a sweep's failing seed gets them: schedule is the one
// that replays the run, or empty for a starting seed, which draws its own
// faults.
func sweepOptions(o Options, schedule string) sweep.Options {
	return sweep.Options{Config: o.Config, Profile: o.Profile, Set: o.Set, Tool: o.Tool, Compress: o.Compress, Faults: schedule}
}

func replayArgs(o Options, seed uint64, faults string) []string {
	args := []string{o.Tool, "-c", o.Config, "-seed", strconv.FormatUint(seed, 10)}
	if o.Profile != "" {
		args = append(args, "-profile", o.Profile)
	}
	for _, s := range o.Set {
		args = append(args, "-set", s)
	}
	if faults != "" {
		args = append(args, "-faults", faults)
	}
	return args
}

// Print writes the outcome's closing lines for people.
func Print(w io.Writer, out *Outcome) {
	branched, first := 0, 0
	for _, f := range out.Found {
		if len(f.Branches) > 0 {
			branched++
			if first == 0 {
				first = f.Run
			}
		}
	}
	fmt.Fprintf(w, "explore: %s (%s, %s); %s kept for reaching %s\n", textfmt.Plural(out.Runs, "run"),
		textfmt.Plural(out.SeedRuns, "starting seed"), textfmt.Plural(out.Runs-out.SeedRuns, "branch"), textfmt.Plural(out.Corpus, "run"), textfmt.Plural(out.Signals, "new state"))
	switch {
	case out.Interrupted:
		fmt.Fprintf(w, "explore: interrupted after %d runs\n", out.Runs)
	case branched > 0:
		fmt.Fprintf(w, "explore: %s found by branching, the first at run %d\n", textfmt.Plural(branched, "failure"), first)
	default:
		fmt.Fprintln(w, "explore: no failure found by branching")
	}
	if plain := len(out.Found) - branched; plain > 0 {
		fmt.Fprintf(w, "explore: %s failed without branching\n", textfmt.Plural(plain, "starting seed"))
	}
	if out.GaveUp > 0 {
		fmt.Fprintf(w, "explore: GAVE UP on the history check of %s, which neither passed nor failed (see -history-timeout and limits.check_steps)\n", textfmt.Plural(out.GaveUp, "run"))
	}
}
