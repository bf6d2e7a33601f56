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
	"github.com/sf-dst/sf/lib/runner"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/stopsignal"
	"github.com/sf-dst/sf/lib/textfmt"
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
	// StopAt and Snapshot, with Replay, stop the seed's run at the first
	// scheduler step at or after virtual time StopAt where it can be forked
	// and write the world's snapshot to the file Snapshot (snapshot.go).
	StopAt   time.Duration
	Snapshot string
	// From continues the snapshot in that file instead of running seeds:
	// a replay of the seed it was taken from (snapshot.go).
	From string
	// Branch, with From and Branched, re-keys every random stream of the
	// continued run with that key just after the snapshot's moment, as a
	// schedule's branch there would (branchFork).
	Branch   uint64
	Branched bool
	// OnSnapshot, when set, is called with the snapshot Snapshot wrote:
	// sf-mcp's sf_fork returns it.
	OnSnapshot func(SnapshotWritten)
	Tool       string // how the user invoked the tool, for repro lines
	Stdin      io.Reader
	Stdout     io.Writer
	Stderr     io.Writer

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

// sweeper is one sweep under way: what run sets up, and what each seed's
// report adds to.
type sweeper struct {
	o         Options
	p         *runner.Prepared
	sched     *schedule.Schedule // the schedule of -faults; nil when each seed draws its faults
	fork      *engine.Fork       // the snapshot -from continues; nil otherwise
	interrupt *atomic.Bool
	start     time.Time
	jw        *record.Writer // the records, with -json
	// human gets the report (stdout, or stderr with -json) and stderr the
	// errors; both go through the progress line once the seeds run.
	human, stderr io.Writer
	bar           *progress.Bar
	tables        *Tables
	sum           record.Summary
	reported      bool          // the first failing seed's report is printed
	pinned        bool          // -pin wrote a pin
	lastStatus    engine.Status // the status of the last seed reported
	internal      int           // seeds that failed with class internal
}

func run(o Options) (int, error) {
	var snap *snapshotFile
	if o.From != "" {
		var err error
		if snap, err = readSnapshot(&o); err != nil {
			return 0, err
		}
	}
	if len(o.Seeds) == 0 && !o.PinsOnly {
		return 0, errors.New("no seeds to run")
	}
	if o.PinsOnly {
		o.Seeds, o.Replay, o.NoPins = nil, false, false
	}
	if o.Jobs <= 0 {
		o.Jobs = runtime.NumCPU()
	}
	defer runner.LimitProcs(o.Jobs)()
	if o.Tool == "" {
		o.Tool = "sf-run"
	}
	s := &sweeper{o: o, start: time.Now(), human: o.Stdout, stderr: o.Stderr, interrupt: o.Interrupt,
		sum: record.Summary{Kind: record.KindSummary, Tool: "sf-run", Config: o.Config, FailedSeeds: []uint64{}}}
	if o.JSON {
		s.human = o.Stderr
	}
	// SIGINT or SIGTERM stops the sweep: no seed starts after it, running
	// seeds end at their next step, and what finished is reported. It is
	// watched from before the world loads, so that a signal while the world
	// builds still ends the sweep with its records (none of its seeds ran).
	if s.interrupt == nil {
		s.interrupt = new(atomic.Bool)
	}
	defer stopsignal.Watch(s.interrupt)()
	prep, err := runner.Prepare(o.Config, config.LoadOptions{Profile: o.Profile, Set: o.Set, Stdin: o.Stdin}, o.Stderr)
	if err != nil {
		if s.interrupt.Load() {
			// The signal reached the build too (a terminal's Ctrl-C goes to
			// the whole process group), which then failed.
			return ExitInterrupted, fmt.Errorf("interrupted while preparing the world: %w", err)
		}
		return 0, err
	}
	defer prep.Engine.Close()
	if o.HistoryTimeout != 0 {
		prep.Spec.HistoryTimeoutNs = int64(o.HistoryTimeout)
	}
	s.p = prep
	if err := s.readSchedule(); err != nil {
		return 0, err
	}
	if o.Snapshot != "" {
		return s.snapshot()
	}
	if snap != nil {
		if s.fork, err = snap.fork(o, prep); err != nil {
			return 0, err
		}
		if err := s.branchFork(); err != nil {
			return 0, err
		}
	}
	s.begin()

	// A sweep replays the world's pinned regressions first (a sharded one
	// in its first shard only, so that the shards' streams together hold
	// each pin once); a replay of one seed does not.
	var pins pinOutcome
	if !o.Replay && !o.NoPins && (o.Shard == "" || strings.HasPrefix(o.Shard, "1/")) {
		if pins, err = s.replayPins(); err != nil {
			return 0, err
		}
	}
	if err := s.runSeeds(); err != nil {
		return 0, err
	}
	return s.finish(pins)
}

// readSchedule reads the schedule of -faults, which every seed replays.
func (s *sweeper) readSchedule() error {
	o := &s.o
	if o.Faults == "" {
		return nil
	}
	sched, err := s.p.ReadSchedule(o.Faults, o.Stdin)
	if err != nil {
		return err
	}
	s.sched = sched
	o.budget, o.branches, o.stopAtNs = sched.Budget, sched.Branches, int64(sched.Duration)
	if o.Faults == "-" && len(o.Seeds) == 1 {
		// A schedule read from standard input is kept as a file, so that
		// the replay line and the record's faults_file name something a
		// later command can read again.
		dir, err := MakeArtifactDir(s.p.World)
		if err != nil {
			return fmt.Errorf("keeping the schedule read from standard input: %w", err)
		}
		kept := filepath.Join(dir, fmt.Sprintf("seed-%d.stdin.faults.json", o.Seeds[0]))
		if err := sched.WriteFile(kept); err != nil {
			return fmt.Errorf("keeping the schedule read from standard input: %w", err)
		}
		o.Faults = textfmt.Display(kept)
	}
	return nil
}

// begin writes the start record and clears what killed sweeps left.
func (s *sweeper) begin() {
	o := s.o
	if o.JSON {
		if o.PipeNote {
			fmt.Fprintln(o.Stderr, PipeNote)
		}
		s.jw = record.NewWriter(o.Stdout)
		s.jw.Write(record.Start{Kind: record.KindStart, Tool: "sf-run", Version: Version, Schema: record.Schema,
			Config: o.Config, Profile: o.Profile, Set: o.Set, Seeds: o.SeedsText, Count: len(o.Seeds), Jobs: o.Jobs, Check: o.Check,
			Shard: o.Shard})
	}
	// A run killed while it wrote an artifact (SIGKILL, a crash of the
	// host) leaves its temporary file; the next sweep of the world removes
	// those an hour old, which no live sweep is still writing.
	if !o.Replay {
		for _, dir := range []string{ArtifactDir(s.p.World), pin.Dir(s.p.World)} {
			if n, err := atomicfile.RemoveStale(dir, atomicfile.StaleAge, time.Now()); n > 0 && err == nil {
				fmt.Fprintf(o.Stderr, "sf-run: removed %d temporary file(s) left in %s by a run that was killed\n", n, textfmt.Display(dir))
			}
		}
	}
}

// runSeeds runs the seeds on the pool and reports each in seed order.
func (s *sweeper) runSeeds() error {
	o := s.o
	// A sweep on a terminal shows a progress line on stderr (a replay, one
	// seed, shows none); every line of the report goes through it, so the
	// line is erased first.
	s.bar = progress.New(o.Stderr, len(o.Seeds), "seeds")
	defer s.bar.Finish()
	s.human, s.stderr = s.bar.Writer(s.human), s.bar.Writer(o.Stderr)
	s.tables = NewTables(s.p)
	job := func(i int) runner.Job { return s.job(o.Seeds[i], s.sched) }
	return s.p.RunN(len(o.Seeds), job, runner.Pool{Workers: o.Jobs, Interrupt: s.interrupt}, s.report)
}

// job is the run of seed with sched (nil: the seed draws its own faults),
// as sf-run makes it: run again when it fails on the watchdog, and twice
// with -check.
func (s *sweeper) job(seed uint64, sched *schedule.Schedule) runner.Job {
	opts := s.p.RunOptions(sched)
	opts.Inspect = s.o.Inspect
	if s.fork != nil {
		opts.Branches = s.o.branches
		return runner.Job{Seed: seed, Options: opts, Continue: s.fork}
	}
	return runner.Job{Seed: seed, Options: opts, Recheck: true, Check: s.o.Check,
		DivergeAtCall: s.o.DivergeSecondRunAtCall, StallFirstRun: s.o.stallFirstRun}
}

// report adds one seed's outcome to the sweep: its counts, its artifacts,
// its record and its lines in the report.
func (s *sweeper) report(out runner.Outcome) error {
	o := s.o
	if out.Err != nil {
		s.interrupt.Store(true) // end the running seeds: the sweep is over
		return out.Err
	}
	if out.Interrupted {
		s.sum.Interrupted = true
		return nil
	}
	res, sum := out.Result, &s.sum
	seed := res.Seed
	if o.OnResult != nil {
		o.OnResult(res)
	}
	sum.Seeds++
	if res.Class == engine.ClassInternal {
		s.internal++
	}
	s.tables.Add(res)
	rec := seedRecord(o, res)
	if out.HostStall {
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
	failed := res.Status == engine.StatusFail || res.Status == engine.StatusNondeterministic
	if gaveUp {
		sum.GaveUp++
		sum.GaveUpSeeds = append(sum.GaveUpSeeds, seed)
	}
	// A history whose check gave up is kept too, for sf-check with a
	// larger budget.
	if failed || (o.Replay && len(res.History) > 0) || gaveUp {
		arts, err := writeArtifacts(s.p, o, res)
		if err != nil {
			fmt.Fprintf(s.stderr, "sf-run: seed %d: %v\n", seed, err)
		}
		rec.Artifacts = arts
	}
	if o.Pin && o.Replay && res.Status == engine.StatusFail {
		path, err := pin.Write(s.p.World, pinSchedule(o, res), res)
		if err != nil {
			return err
		}
		rec.Pinned = textfmt.Display(path)
		s.pinned = true
	}
	s.lastStatus = res.Status
	if s.jw != nil {
		s.jw.Write(rec)
	}
	switch {
	case o.Replay:
		printReplay(s.human, o, res, rec.Artifacts)
		if rec.Pinned != "" {
			fmt.Fprintf(s.human, "pinned seed %d as %s: commit it; sf-run replays it before every sweep\n", seed, rec.Pinned)
		}
	case failed && !s.reported:
		printFailure(s.human, o, res)
		s.reported = true
	case failed && sum.Failed <= 1+failureLinesMax:
		fmt.Fprintln(s.human, FailLine(seed, res.AtNs, res.Message))
	}
	s.bar.Add(failed)
	return nil
}

// finish writes the summary and returns the sweep's exit status.
func (s *sweeper) finish(pins pinOutcome) (int, error) {
	o, sum := s.o, &s.sum
	s.bar.Finish()
	s.tables.Fill(sum)
	sum.Pins, sum.PinsFailed = pins.pins, pins.failed
	sum.Interrupted = sum.Interrupted || pins.interrupted
	sum.RealNs = time.Since(s.start).Nanoseconds()
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
	if s.jw != nil {
		// A stream without its summary reads as cut short: a summary that
		// does not encode is a bug in sf, said as one, never a silence.
		if _, err := json.Marshal(sum); err != nil {
			fmt.Fprintf(o.Stderr, "sf-run: encoding the summary record: %v: please report it\n", err)
			return ExitUsage, nil
		}
		s.jw.Write(*sum)
	}
	switch {
	case o.PinsOnly:
		printPinsSummary(s.human, *sum)
	case !o.Replay || sum.Interrupted:
		printSummary(s.human, *sum, time.Since(s.start), o.Check)
	}
	if o.Pin && o.Replay && !sum.Interrupted && !s.pinned {
		// Asked to pin a failure there is none of (or one that does not
		// replay): the user's premise is wrong, which is an input error.
		fmt.Fprintf(o.Stderr, "sf-run: -pin: seed %d did not fail (%s), so there is nothing to pin\n", o.Seeds[0], s.lastStatus)
		return ExitUsage, nil
	}
	switch {
	case sum.Interrupted:
		return ExitInterrupted, nil
	case s.internal > 0:
		// A bug in sf, not in the program under test: the sweep's verdict
		// cannot be trusted, so it is an error rather than a finding.
		fmt.Fprintf(o.Stderr, "sf-run: %d seeds hit an internal error in sf (class internal): please report it\n", s.internal)
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
