// Package sweep runs a world over many seeds: it loads and builds the world,
// runs each seed on the engine (on parallel workers, with results in seed
// order whatever the number of workers), writes the artifacts of failing
// seeds, and reports in JSONL or for people. sf-run is a thin wrapper
// around it.
package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sf-dst/sf/lib/atomicfile"
	"github.com/sf-dst/sf/lib/check"
	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/exitcode"
	"github.com/sf-dst/sf/lib/pin"
	"github.com/sf-dst/sf/lib/progress"
	"github.com/sf-dst/sf/lib/record"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/stopsignal"
)

// Version is the version the tools report.
const Version = "0.1.0"

// Exit statuses, kept as aliases of lib/exitcode so that older callers
// compile; new code uses lib/exitcode.
const (
	ExitPass        = exitcode.Pass
	ExitProblem     = exitcode.Problem
	ExitUsage       = exitcode.Usage
	ExitInterrupted = exitcode.Interrupted
)

// Options describe one invocation of sf-run.
type Options struct {
	Config    string   // the world file as the user named it
	Seeds     []uint64 // seeds to run, in order
	SeedsText string   // the seeds as the user wrote them, for records
	Replay    bool     // one seed given with -seed: print its trace
	Jobs      int      // parallel workers. Defaults to the number of CPUs
	Check     bool     // run every seed twice and compare
	JSON      bool     // JSONL on stdout, the human summary on stderr
	// PipeNote, with JSON, says on stderr, before the first record, that
	// records go to stdout because it is a pipe (PipeNote). Defaults to
	// false.
	PipeNote bool
	Faults   string   // a schedule file to apply instead of drawing faults
	Profile  string   // a profile of the world file to apply
	Inspect  bool     // with Replay: list each node's disk after the run
	Set      []string // path=value overrides of the world file, applied last
	// Compress writes a seed's trace and history as zstd files
	// (seed-N.trace.log.zst, seed-N.history.jsonl.zst). Defaults to false.
	Compress bool
	// Interrupt, when set, stops the sweep as SIGINT does once it becomes
	// true. Defaults to a flag only the signals set.
	Interrupt *atomic.Bool
	// Shard is "K/N" when Seeds is the K-th of N slices of the seeds that
	// SeedsText names (ShardSeeds); it goes into the start record.
	Shard string
	// HistoryTimeout is the real-time limit of each history check. Defaults
	// to 30s.
	HistoryTimeout time.Duration
	// Pin, with Replay, stores a failing seed's schedule as a pinned
	// regression under .seedfall/pinned/ (lib/pin). Defaults to false.
	Pin bool
	// NoPins leaves out the replay of the world's pins that comes before a
	// sweep; PinsOnly replays them and runs no seeds. simtest uses each.
	// Default to false.
	NoPins, PinsOnly bool
	Tool             string // how the user invoked the tool, for repro lines
	Stdin            io.Reader
	Stdout           io.Writer
	Stderr           io.Writer

	// budget and branches are those of the schedule replayed with -faults,
	// kept in the schedule a failing replay writes.
	budget   int
	branches []schedule.Branch
	// stopAtNs is that schedule's duration: a replay that passes before it
	// (its workloads finished under the budget) passed within it too.
	stopAtNs int64
	// artifactPrefix starts the names of a seed's artifacts: "seed-", or
	// "pin-seed-" for a pin's replay, so that a pin and the sweep's run of
	// the same seed keep their own files.
	artifactPrefix string
	// artifactName, when set, is the whole name of a run's artifacts
	// before their extension (WriteRunArtifacts); artifactPrefix is then
	// unused.
	artifactName string

	// DivergeSecondRunAtCall makes the second run of each -check pair
	// perturb virtual time at that host call. Tests use it to prove the
	// determinism check can fail; no flag sets it.
	DivergeSecondRunAtCall uint64
	// OnResult, when set, is called with each seed's result in seed order,
	// before the seed is reported: sf-mcp takes a replay's trace from it
	// as a list rather than parsing the printed report.
	OnResult func(*engine.Result)
	// stallFirstRun gives each seed's first run a watchdog of 1ns, so that
	// it stalls as on a host that stopped: tests use it to check that a
	// watchdog failure is run again.
	stallFirstRun bool
}

// InputError is an error in what the user gave (exit status 2).
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }

func (e *InputError) Unwrap() error { return e.Err }

// Main runs the sweep and returns the exit status.
func Main(o Options) int {
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	code, err := run(o)
	if err != nil {
		fmt.Fprintf(o.Stderr, "sf-run: %v\n", err)
		if code == ExitInterrupted {
			return code
		}
		return ExitUsage
	}
	return code
}

func run(o Options) (int, error) {
	if len(o.Seeds) == 0 && !o.PinsOnly {
		return 0, errors.New("no seeds to run")
	}
	if o.PinsOnly {
		o.Seeds, o.Replay, o.NoPins = nil, false, false
	}
	if o.Jobs <= 0 {
		o.Jobs = runtime.NumCPU()
	}
	if o.Jobs < runtime.GOMAXPROCS(0) {
		// Only one goroutine of each run executes at a time, so more Ps than
		// workers only add wake-ups of idle threads at every baton handoff.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(o.Jobs))
	}
	if o.Tool == "" {
		o.Tool = "sf-run"
	}
	human := o.Stdout
	if o.JSON {
		human = o.Stderr
	}
	start := time.Now()
	// SIGINT or SIGTERM stops the sweep: no seed starts after it, running
	// seeds end at their next step, and what finished is reported. It is
	// watched from before the world loads, so that a signal while the world
	// builds still ends the sweep with its records (none of its seeds ran).
	interrupt := o.Interrupt
	if interrupt == nil {
		interrupt = new(atomic.Bool)
	}
	defer stopsignal.Watch(interrupt)()
	prep, err := Prepare(o.Config, config.LoadOptions{Profile: o.Profile, Set: o.Set, Stdin: o.Stdin}, o.Stderr)
	if err == nil && o.HistoryTimeout != 0 {
		prep.Spec.HistoryTimeoutNs = int64(o.HistoryTimeout)
	}
	if err != nil {
		if interrupt.Load() {
			// The signal reached the build too (a terminal's Ctrl-C goes to
			// the whole process group), which then failed.
			return ExitInterrupted, fmt.Errorf("interrupted while preparing the world: %w", err)
		}
		return 0, err
	}
	defer prep.Engine.Close()

	var sched *schedule.Schedule
	if o.Faults != "" {
		if sched, err = prep.ReadSchedule(o.Faults, o.Stdin); err != nil {
			return 0, err
		}
		o.budget, o.branches, o.stopAtNs = sched.Budget, sched.Branches, int64(sched.Duration)
		if o.Faults == "-" && len(o.Seeds) == 1 {
			// A schedule read from standard input is kept as a file, so that
			// the replay line and the record's faults_file name something a
			// later command can read again.
			dir, err := MakeArtifactDir(prep.World)
			if err != nil {
				return 0, fmt.Errorf("keeping the schedule read from standard input: %w", err)
			}
			kept := filepath.Join(dir, fmt.Sprintf("seed-%d.stdin.faults.json", o.Seeds[0]))
			if err := sched.WriteFile(kept); err != nil {
				return 0, fmt.Errorf("keeping the schedule read from standard input: %w", err)
			}
			o.Faults = relPath(kept)
		}
	}

	var jw *record.Writer
	if o.JSON {
		if o.PipeNote {
			fmt.Fprintln(o.Stderr, PipeNote)
		}
		jw = record.NewWriter(o.Stdout)
		jw.Write(record.Start{Kind: record.KindStart, Tool: "sf-run", Version: Version, Schema: record.Schema,
			Config: o.Config, Profile: o.Profile, Set: o.Set, Seeds: o.SeedsText, Count: len(o.Seeds), Jobs: o.Jobs, Check: o.Check,
			Shard: o.Shard})
	}

	// A run killed while it wrote an artifact (SIGKILL, a crash of the
	// host) leaves its temporary file; the next sweep of the world removes
	// those an hour old, which no live sweep is still writing.
	if !o.Replay {
		for _, dir := range []string{ArtifactDir(prep.World), pin.Dir(prep.World)} {
			if n, err := atomicfile.RemoveStale(dir, atomicfile.StaleAge, time.Now()); n > 0 && err == nil {
				fmt.Fprintf(o.Stderr, "sf-run: removed %d temporary file(s) left in %s by a run that was killed\n", n, relPath(dir))
			}
		}
	}

	// A sweep replays the world's pinned regressions first (a sharded one
	// in its first shard only, so that the shards' streams together hold
	// each pin once); a replay of one seed does not.
	var pins pinOutcome
	if !o.Replay && !o.NoPins && (o.Shard == "" || strings.HasPrefix(o.Shard, "1/")) {
		if pins, err = replayPins(prep, o, human, jw, interrupt); err != nil {
			return 0, err
		}
	}

	results := make([]chan *outcome, len(o.Seeds))
	for i := range results {
		results[i] = make(chan *outcome, 1)
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(o.Jobs, len(o.Seeds)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if interrupt.Load() {
					results[i] <- &outcome{interrupted: true}
					continue
				}
				results[i] <- runSeed(prep, o, o.Seeds[i], sched, interrupt)
			}
		}()
	}
	go func() {
		for i := range o.Seeds {
			work <- i
		}
		close(work)
	}()

	// A sweep on a terminal shows a progress line on stderr (a replay, one
	// seed, shows none); every line of the report goes through it, so the
	// line is erased first.
	bar := progress.New(o.Stderr, len(o.Seeds), "seeds")
	defer bar.Finish()
	human = bar.Writer(human)
	stderr := bar.Writer(o.Stderr)

	tables := NewTables(prep)
	sum := record.Summary{Kind: record.KindSummary, Tool: "sf-run", Config: o.Config, FailedSeeds: []uint64{}}
	firstFailure := true
	pinned, lastStatus := false, engine.Status("")
	internal := 0
	for i, seed := range o.Seeds {
		out := <-results[i]
		if out.err != nil {
			interrupt.Store(true) // start no more seeds: the sweep is over
			wg.Wait()
			return 0, out.err
		}
		if out.interrupted || out.res.Status == engine.StatusInterrupted {
			sum.Interrupted = true
			continue
		}
		res := out.res
		if o.OnResult != nil {
			o.OnResult(res)
		}
		sum.Seeds++
		if res.Class == engine.ClassInternal {
			internal++
		}
		tables.Add(res)
		rec := seedRecord(o, res)
		if out.hostStall {
			sum.HostStalls++
			rec.HostStall = true
		}
		gaveUp := res.Check != nil && res.Check.Verdict == check.Unknown
		switch {
		case gaveUp && (res.Status == engine.StatusPass || res.Status == engine.StatusHorizon):
			// Neither a pass nor a failure: sf-check exits 1 for the same
			// history, and so does the sweep (Seeds-Passed-Failed counts it).
		case res.Status == engine.StatusPass:
			sum.Passed++
		case res.Status == engine.StatusHorizon:
			sum.Passed++
			sum.Horizon++
		case res.Status == engine.StatusNondeterministic:
			sum.Nondeterministic++
			sum.Failed++
			sum.FailedSeeds = append(sum.FailedSeeds, seed)
		default:
			sum.Failed++
			sum.FailedSeeds = append(sum.FailedSeeds, seed)
		}
		if gaveUp {
			sum.GaveUp++
			sum.GaveUpSeeds = append(sum.GaveUpSeeds, seed)
		}
		// A history whose check gave up is kept too, for sf-check with a
		// larger budget.
		if res.Status == engine.StatusFail || res.Status == engine.StatusNondeterministic || (o.Replay && len(res.History) > 0) || gaveUp {
			arts, err := writeArtifacts(prep, o, res)
			if err != nil {
				fmt.Fprintf(stderr, "sf-run: seed %d: %v\n", seed, err)
			}
			rec.Artifacts = arts
		}
		if o.Pin && o.Replay && res.Status == engine.StatusFail {
			path, err := pin.Write(prep.World, pinSchedule(o, res), res)
			if err != nil {
				wg.Wait()
				return 0, err
			}
			rec.Pinned = relPath(path)
			pinned = true
		}
		lastStatus = res.Status
		if jw != nil {
			jw.Write(rec)
		}
		if o.Replay {
			printReplay(human, o, res, rec.Artifacts)
			if rec.Pinned != "" {
				fmt.Fprintf(human, "pinned seed %d as %s: commit it; sf-run replays it before every sweep\n", seed, rec.Pinned)
			}
		} else if res.Status == engine.StatusFail || res.Status == engine.StatusNondeterministic {
			switch {
			case firstFailure:
				printFailure(human, o, res)
				firstFailure = false
			case sum.Failed <= 1+failureLinesMax:
				fmt.Fprintln(human, FailLine(seed, res.AtNs, res.Message))
			}
		}
		bar.Add(res.Status == engine.StatusFail || res.Status == engine.StatusNondeterministic)
	}
	wg.Wait()
	bar.Finish()

	tables.Fill(&sum)
	sum.Pins, sum.PinsFailed = pins.pins, pins.failed
	sum.Interrupted = sum.Interrupted || pins.interrupted
	sum.RealNs = time.Since(start).Nanoseconds()
	// The status says what the exit status says: a stopped sweep is neither
	// a pass nor a verdict, whatever its finished seeds did.
	switch {
	case sum.Interrupted:
		sum.Status = "interrupted"
	case sum.Failed > 0 || sum.PinsFailed > 0 || len(sum.GaveUpSeeds) > 0 || (!o.Replay && !o.PinsOnly && sum.PropertyFailures > 0):
		sum.Status = "fail"
	default:
		sum.Status = "pass"
	}
	if jw != nil {
		// A stream without its summary reads as cut short: a summary that
		// does not encode is a bug in sf, said as one, never a silence.
		if _, err := json.Marshal(sum); err != nil {
			fmt.Fprintf(o.Stderr, "sf-run: encoding the summary record: %v: please report it\n", err)
			return ExitUsage, nil
		}
		jw.Write(sum)
	}
	switch {
	case o.PinsOnly:
		printPinsSummary(human, sum)
	case !o.Replay || sum.Interrupted:
		printSummary(human, sum, time.Since(start), o.Check)
	}
	if o.Pin && o.Replay && !sum.Interrupted && !pinned {
		// Asked to pin a failure there is none of (or one that does not
		// replay): the user's premise is wrong, which is an input error.
		fmt.Fprintf(o.Stderr, "sf-run: -pin: seed %d did not fail (%s), so there is nothing to pin\n", o.Seeds[0], lastStatus)
		return ExitUsage, nil
	}
	switch {
	case sum.Interrupted:
		return ExitInterrupted, nil
	case internal > 0:
		// A bug in sf, not in the program under test: the sweep's verdict
		// cannot be trusted, so it is an error rather than a finding.
		fmt.Fprintf(o.Stderr, "sf-run: %d seeds hit an internal error in sf (class internal): please report it\n", internal)
		return ExitUsage, nil
	case sum.Status == "fail":
		return ExitProblem, nil
	}
	return ExitPass, nil
}

// failureLinesMax is how many failing seeds after the first get a line of
// their own in the human report; the rest are counted in the summary and
// listed in full in -json.
const failureLinesMax = 10

type outcome struct {
	res         *engine.Result
	err         error
	interrupted bool // never ran, or stopped before it ended
	hostStall   bool // the first run failed with class watchdog, the second did not
}

func runSeed(p *Prepared, o Options, seed uint64, sched *schedule.Schedule, interrupt *atomic.Bool) *outcome {
	opts := p.RunOptions(sched)
	opts.Inspect = o.Inspect
	opts.Interrupt = interrupt
	first := p.Spec
	if o.stallFirstRun {
		s := *p.Spec
		s.WatchdogNs = 1
		first = &s
	}
	a, err := p.Engine.Run(first, seed, opts)
	stalled := false
	if err == nil {
		a, stalled = p.Engine.RecheckWatchdog(p.Spec, seed, opts, a)
	}
	if err != nil || !o.Check {
		return &outcome{res: a, err: err, hostStall: stalled}
	}
	opts2 := opts
	opts2.DivergeAtCall = o.DivergeSecondRunAtCall
	b, err := p.Engine.Run(p.Spec, seed, opts2)
	if err != nil {
		return &outcome{err: err}
	}
	if a.Status == engine.StatusInterrupted || b.Status == engine.StatusInterrupted {
		return &outcome{interrupted: true}
	}
	if a.Hash == b.Hash && a.HostCalls == b.HostCalls && equalLines(a.Trace, b.Trace) {
		return &outcome{res: a, hostStall: stalled}
	}
	a.Status = engine.StatusNondeterministic
	a.Class = engine.ClassNondet
	a.Message = "nondeterministic: " + diagnose(p, seed, opts, opts2, a, b)
	a.Node = ""
	a.Trace = append(a.Trace, fmt.Sprintf("%10s  FAIL  %s", "", a.Message))
	return &outcome{res: a, hostStall: stalled}
}

// diagnose names the first host call where two runs of one seed differ: it
// finds the first window of checkpoints that disagrees and runs the seed
// twice more, recording that window.
func diagnose(p *Prepared, seed uint64, oa, ob engine.Options, a, b *engine.Result) string {
	if a.Hash == b.Hash && a.HostCalls == b.HostCalls {
		for i := 0; i < min(len(a.Trace), len(b.Trace)); i++ {
			if a.Trace[i] != b.Trace[i] {
				return fmt.Sprintf("host calls agree but trace line %d differs: %q vs %q", i+1, a.Trace[i], b.Trace[i])
			}
		}
		return fmt.Sprintf("host calls agree but the traces have %d and %d lines", len(a.Trace), len(b.Trace))
	}
	w := engine.FirstDivergence(a.Checkpoints, b.Checkpoints)
	if w < 0 {
		w = len(a.Checkpoints)
	}
	from := uint64(w) * engine.CheckpointEvery
	window := [2]uint64{from, from + engine.CheckpointEvery}
	oa.RecordCalls, ob.RecordCalls = window, window
	ra, err1 := p.Engine.Run(p.Spec, seed, oa)
	rb, err2 := p.Engine.Run(p.Spec, seed, ob)
	where := fmt.Sprintf("host calls %d-%d", window[0]+1, window[1])
	if err1 != nil || err2 != nil {
		return fmt.Sprintf("the runs differ in %s (the re-runs failed to start)", where)
	}
	if d := engine.DescribeDivergence(from+1, ra.Calls, rb.Calls); d != "" {
		return d + "; " + where
	}
	return fmt.Sprintf("the runs differ in %s, but the re-runs did not reproduce it", where)
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
