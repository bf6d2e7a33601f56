package shrink

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sf-dst/sf/lib/compressed"
	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/echo"
	"github.com/sf-dst/sf/lib/exitcode"
	"github.com/sf-dst/sf/lib/pin"
	"github.com/sf-dst/sf/lib/progress"
	"github.com/sf-dst/sf/lib/record"
	"github.com/sf-dst/sf/lib/runner"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/stopsignal"
	"github.com/sf-dst/sf/lib/sweep"
	"github.com/sf-dst/sf/lib/textfmt"
)

// MaxStreamBytes bounds a record stream sf-shrink reads: a sweep of a
// million seeds writes about 500 MB of records.
const MaxStreamBytes = 1 << 30

// DefaultMax is how many failing seeds of a stream sf-shrink takes.
const DefaultMax = 10

// Command is one invocation of sf-shrink.
type Command struct {
	// One seed: Config and Seed (HasSeed), with Profile, Set and Faults.
	Config  string
	Seed    uint64
	HasSeed bool
	Profile string
	Set     []string
	Faults  string
	// A record stream: the files to read ("-" for stdin) when no seed is
	// given.
	Inputs []string
	// Max is how many failing seeds of a stream to shrink. Defaults to
	// DefaultMax.
	Max  int
	Jobs int
	JSON bool
	// Pin also stores each shrunk schedule as a pinned regression under
	// .seedfall/pinned/ (lib/pin). Defaults to false.
	Pin bool
	// Cause draws each seed's cause curve (cause.go) instead of shrinking
	// it, with CauseMoments moments and CauseBranches branches at each.
	Cause         bool
	CauseMoments  int
	CauseBranches int
	// RunTool is how the replay lines call sf-run. Defaults to "sf-run".
	RunTool string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	// Interrupt, when set, stops sf-shrink as SIGINT does once it becomes
	// true. Defaults to a flag only the signals set.
	Interrupt *atomic.Bool
	// Confine, when set, is asked about the world file of each seed to
	// shrink before any is shrunk (the shrunk schedules are written next
	// to it); an error ends the command with status 2. sf-mcp keeps its
	// tools inside its folder with it. Defaults to nil, every world.
	Confine func(config string) error
}

// job is one seed to shrink.
type job struct {
	world   worldKey
	seed    uint64
	faults  string // a schedule to start from, if the seed ran with -faults
	message string
	// exploreRun is the run of sf-run -explore that failed, 0 for a sweep's
	// seed: an exploration fails one seed in several runs, each with its
	// own schedule, so each is shrunk on its own and into its own file.
	exploreRun int
}

type worldKey struct {
	config, profile, set string
}

func (k worldKey) setList() []string {
	if k.set == "" {
		return nil
	}
	return strings.Split(k.set, "\x00")
}

// Main runs the command and returns the exit status: 0 when there was
// nothing to shrink, 1 when failing seeds were shrunk (the failures are
// real), 2 on usage or input errors or when a seed could not be shrunk.
func Main(c Command) int {
	c.defaults()
	start := time.Now()
	var jobs []job
	var skip skipped
	if c.HasSeed {
		jobs = []job{{world: worldKey{c.Config, c.Profile, strings.Join(c.Set, "\x00")}, seed: c.Seed, faults: c.Faults}}
	} else {
		var err error
		jobs, skip, err = c.readStreams()
		if err != nil {
			fmt.Fprintf(c.Stderr, "sf-shrink: %v\n", err)
			return exitcode.Usage
		}
	}
	if c.Confine != nil {
		for _, j := range jobs {
			if err := c.Confine(j.world.config); err != nil {
				fmt.Fprintf(c.Stderr, "sf-shrink: %v\n", err)
				return exitcode.Usage
			}
		}
	}
	// Shrinking a stream's seeds on a terminal shows a progress line on
	// stderr (one seed shows none); all output goes through it, so the
	// line is erased before each report line.
	bar := progress.New(c.Stderr, len(jobs), "seeds")
	defer bar.Finish()
	c.Stdout, c.Stderr = bar.Writer(c.Stdout), bar.Writer(c.Stderr)
	var jw *record.Writer
	if c.JSON {
		jw = record.NewWriter(c.Stdout)
		st := record.Start{Kind: record.KindStart, Tool: "sf-shrink", Version: sweep.Version, Schema: record.Schema,
			Count: len(jobs), Jobs: c.Jobs}
		if c.HasSeed {
			st.Config, st.Profile, st.Set, st.Seeds = c.Config, c.Profile, c.Set, strconv.FormatUint(c.Seed, 10)
		}
		jw.Write(st)
	}
	sum := record.ShrinkSummary{Kind: record.KindSummary, Tool: "sf-shrink", Skipped: skip.pastMax + skip.nondeterministic,
		SkippedPastMax: skip.pastMax, SkippedNondeterministic: skip.nondeterministic}
	// SIGINT or SIGTERM stops the shrink: the seed being shrunk ends at its
	// next step and is dropped, no other starts, and the summary says so.
	interrupt := c.Interrupt
	if interrupt == nil {
		interrupt = new(atomic.Bool)
	}
	defer stopsignal.Watch(interrupt)()
	prepared := map[worldKey]*runner.Prepared{}
	defer func() {
		for _, p := range prepared {
			p.Engine.Close()
		}
	}()
	for _, j := range jobs {
		if interrupt.Load() || !c.do(j, prepared, interrupt, bar, jw, &sum) {
			sum.Interrupted = true
			break
		}
	}
	bar.Finish()
	return c.finish(len(jobs), skip, start, jw, &sum)
}

// defaults fills in what c leaves unset.
func (c *Command) defaults() {
	if c.Stdin == nil {
		c.Stdin = os.Stdin
	}
	if c.Stdout == nil {
		c.Stdout = os.Stdout
	}
	if c.Stderr == nil {
		c.Stderr = os.Stderr
	}
	if c.Max <= 0 {
		c.Max = DefaultMax
	}
	if c.RunTool == "" {
		c.RunTool = "sf-run"
	}
}

// do shrinks the seed of j, or draws its cause curve with -cause, and
// writes and counts what came of it; false when a signal stopped it.
func (c *Command) do(j job, prepared map[worldKey]*runner.Prepared, interrupt *atomic.Bool, bar *progress.Bar, jw *record.Writer, sum *record.ShrinkSummary) bool {
	var recs []any
	var err error
	if c.Cause {
		var curve []record.Cause
		curve, err = c.causeOne(j, prepared, interrupt)
		for _, r := range curve {
			recs = append(recs, r)
		}
	} else {
		var rec record.Shrink
		rec, err = c.shrinkOne(j, prepared, interrupt)
		recs = append(recs, rec)
	}
	// An error after a signal is the signal's (a build it stopped).
	if errors.Is(err, ErrInterrupted) || (err != nil && interrupt.Load()) {
		return false
	}
	if err != nil {
		sum.Errors++
		fmt.Fprintf(c.Stderr, "sf-shrink: seed %d of %s: %v\n", j.seed, j.world.config, err)
		if jw != nil && !c.Cause {
			jw.Write(record.Shrink{Kind: record.KindShrink, Seed: j.seed, Config: j.world.config, Profile: j.world.profile,
				Set: j.world.setList(), Error: err.Error(), ExploreRun: j.exploreRun})
		}
		bar.Add(true)
		return true
	}
	if c.Cause {
		sum.Caused++
	} else {
		sum.Shrunk++
	}
	if jw != nil {
		for _, r := range recs {
			jw.Write(r)
		}
	}
	bar.Add(false)
	return true
}

// finish says what was left alone and why, writes the summary and returns
// the exit status.
func (c *Command) finish(jobs int, skip skipped, start time.Time, jw *record.Writer, sum *record.ShrinkSummary) int {
	if jobs == 0 {
		fmt.Fprintln(c.Stderr, "sf-shrink: no failing seeds to shrink")
	}
	if skip.pastMax > 0 {
		fmt.Fprintf(c.Stderr, "sf-shrink: %s not shrunk: past -max %d (-max N takes more)\n", textfmt.Plural(skip.pastMax, "failing seed"), c.Max)
	}
	if skip.nondeterministic > 0 {
		fmt.Fprintf(c.Stderr, "sf-shrink: %s not shrunk: a seed that runs differently twice cannot be cut down by replaying it\n",
			textfmt.Plural(skip.nondeterministic, "nondeterministic seed"))
	}
	sum.RealNs = time.Since(start).Nanoseconds()
	switch {
	case sum.Interrupted:
		sum.Status = "interrupted"
		fmt.Fprintf(c.Stderr, "sf-shrink: interrupted after %d seeds\n", sum.Shrunk+sum.Errors)
	case sum.Errors > 0:
		sum.Status = "error"
	case sum.Shrunk > 0:
		sum.Status = "shrunk"
	case sum.Caused > 0:
		sum.Status = "caused"
	default:
		sum.Status = "nothing"
	}
	if jw != nil {
		jw.Write(*sum)
	}
	switch sum.Status {
	case "interrupted":
		return exitcode.Interrupted
	case "error":
		return exitcode.Usage
	case "shrunk", "caused":
		return exitcode.Problem
	}
	return exitcode.Pass
}

// skipped counts the failing seeds of a stream sf-shrink leaves alone, by
// why.
type skipped struct {
	pastMax          int // failing seeds after the first -max
	nondeterministic int // seeds that ran differently twice under -check
}

// readStreams collects the failing seeds of the record streams, each once,
// at most c.Max of them.
func (c *Command) readStreams() ([]job, skipped, error) {
	inputs := c.Inputs
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	seen := map[string]bool{}
	var jobs []job
	var skip skipped
	for _, in := range inputs {
		var r io.Reader
		name := in
		if in == "-" {
			r, name = c.Stdin, "<stdin>"
		} else {
			f, err := os.Open(in)
			if err != nil {
				return nil, skip, err
			}
			defer f.Close()
			r = f
		}
		// The cap counts decompressed bytes.
		r, err := compressed.Open(r)
		if err != nil {
			return nil, skip, fmt.Errorf("%s: %w", name, err)
		}
		rd := record.NewReader(record.Capped(r, MaxStreamBytes), name)
		records := 0
		for {
			a, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, skip, err
			}
			if records == 0 && a.Kind != record.KindStart {
				// What comes first shows what the input is: not sf-run's
				// records, though each line may be JSON (sf-check -json, a
				// summary cut from its stream).
				return nil, skip, fmt.Errorf("%s:%d: a %s record before any start record: give sf-shrink the records of sf-run -json whole, from their start record", name, rd.Line(), echo.Cut(a.Kind))
			}
			records++
			if a.Seed == nil {
				continue
			}
			s := a.Seed
			if s.Status == "nondeterministic" {
				skip.nondeterministic++
				continue
			}
			if s.Status != "fail" {
				continue
			}
			if s.Config == "" {
				return nil, skip, fmt.Errorf("%s: the seed record of seed %d has no config", name, s.Seed)
			}
			w := worldKey{s.Config, s.Profile, strings.Join(s.Set, "\x00")}
			key := fmt.Sprintf("%v/%d/%d", w, s.Seed, s.ExploreRun)
			if seen[key] {
				continue
			}
			seen[key] = true
			if len(jobs) >= c.Max {
				skip.pastMax++
				continue
			}
			faults := s.FaultsFile
			if faults == "-" {
				faults = ""
			}
			jobs = append(jobs, job{world: w, seed: s.Seed, faults: faults, message: s.Message, exploreRun: s.ExploreRun})
		}
		if records == 0 {
			return nil, skip, fmt.Errorf("%s: no records: pipe sf-run -json into sf-shrink, or give -c and -seed", name)
		}
	}
	return jobs, skip, nil
}

func (c *Command) shrinkOne(j job, prepared map[worldKey]*runner.Prepared, interrupt *atomic.Bool) (record.Shrink, error) {
	p := prepared[j.world]
	if p == nil {
		var err error
		p, err = runner.Prepare(j.world.config, config.LoadOptions{Profile: j.world.profile, Set: j.world.setList()}, c.Stderr)
		if err != nil {
			return record.Shrink{}, err
		}
		prepared[j.world] = p
	}
	var start *schedule.Schedule
	if j.faults != "" {
		var err error
		if start, err = p.ReadSchedule(j.faults, c.Stdin); err != nil {
			return record.Shrink{}, err
		}
	}
	out, err := Seed(p, j.seed, Options{Jobs: c.Jobs, Start: start, Interrupt: interrupt})
	if err != nil {
		if errors.Is(err, ErrPasses) {
			return record.Shrink{}, fmt.Errorf("%v: nothing to shrink", err)
		}
		return record.Shrink{}, err
	}
	sched := out.Schedule
	sched.Config, sched.Profile, sched.Set = j.world.config, j.world.profile, j.world.setList()
	dir, err := sweep.MakeArtifactDir(p.World)
	if err != nil {
		return record.Shrink{}, err
	}
	path := filepath.Join(dir, sweep.ShrunkName(j.seed, j.exploreRun))
	if err := sched.WriteFile(path); err != nil {
		return record.Shrink{}, fmt.Errorf("writing the shrunk schedule: %w", err)
	}
	shown := textfmt.Display(path)
	hist, timeline, err := sweep.WriteShrunkHistory(p, j.seed, j.exploreRun, out.Final)
	if err != nil {
		return record.Shrink{}, fmt.Errorf("writing the shrunk run's history: %w", err)
	}
	args := []string{c.RunTool, "-c", j.world.config, "-seed", strconv.FormatUint(j.seed, 10)}
	if j.world.profile != "" {
		args = append(args, "-profile", j.world.profile)
	}
	for _, s := range j.world.setList() {
		args = append(args, "-set", s)
	}
	args = append(args, "-faults", shown)
	repro := sweep.ShellJoin(args)

	w := c.Stderr
	faults := "faults"
	if out.Before == 1 {
		faults = "fault"
	}
	what := fmt.Sprintf("seed %d", j.seed)
	if j.exploreRun > 0 {
		what += fmt.Sprintf(" (explore run %d)", j.exploreRun)
	}
	fmt.Fprintf(w, "%s: %d %s -> %d in %d replays (%s)\n", what, out.Before, faults, len(sched.Faults), out.Runs, out.Failure)
	for _, l := range schedule.Lines(sched.Faults) {
		fmt.Fprintln(w, l)
	}
	for _, l := range out.BudgetLines {
		fmt.Fprintf(w, "  %s\n", l)
	}
	fmt.Fprintf(w, "duration %s, wrote %s\n", schedule.RoundedDuration(int64(sched.Duration)), shown)
	for _, a := range []struct{ what, path string }{{"history", hist}, {"history timeline", timeline}} {
		if a.path != "" {
			fmt.Fprintf(w, "wrote %s %s\n", a.what, a.path)
		}
	}
	pinned := ""
	if c.Pin {
		path, err := pin.Write(p.World, &sched, out.Final)
		if err != nil {
			return record.Shrink{}, err
		}
		pinned = textfmt.Display(path)
		fmt.Fprintf(w, "pinned %s: commit it; sf-run replays it before every sweep\n", pinned)
	}
	fmt.Fprintf(w, "replay: %s\n\n", repro)

	return record.Shrink{Kind: record.KindShrink, Seed: j.seed, Config: j.world.config, Profile: j.world.profile,
		Set: j.world.setList(), Class: out.Final.Class, Message: out.Final.Message, Node: out.Final.Node,
		FaultsBefore: out.Before, FaultsAfter: len(sched.Faults), ShrinkRuns: out.Runs,
		Duration: time.Duration(sched.Duration).String(), DurationNs: int64(sched.Duration), Budget: sched.Budget,
		Schedule: shown, History: hist, Timeline: timeline, Repro: repro, Pinned: pinned, ExploreRun: j.exploreRun}, nil
}
