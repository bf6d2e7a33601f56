// Package mutate measures whether a world's checks catch the bugs they exist
// for. It runs the world's seeds once with no change (the baseline, which
// must pass) and then once per mutant: a runtime mutant weakens one
// guarantee of the simulated disk, network or clock (engine.Mutants), and a
// source mutant (app.go) changes one line of a node package and rebuilds it
// with go build -overlay. Each mutant is killed (some seed failed),
// survived (every seed passed), not exercised (a runtime mutant whose
// operation never happened) or did not build (a source mutant). sf-mutate
// is a thin wrapper around Main.
package mutate

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sf-dst/sf/lib/check"
	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/exitcode"
	"github.com/sf-dst/sf/lib/progress"
	"github.com/sf-dst/sf/lib/record"
	"github.com/sf-dst/sf/lib/runner"
	"github.com/sf-dst/sf/lib/stopsignal"
	"github.com/sf-dst/sf/lib/sweep"
)

// DefaultAppMutants is how many source mutants -app picks.
const DefaultAppMutants = 10

// Command is one invocation of sf-mutate.
type Command struct {
	Config    string
	Profile   string
	Set       []string
	Seeds     []uint64
	SeedsText string
	// Only picks runtime mutants by name. Defaults to all of them.
	Only []string
	// App runs source mutants of the node packages instead of the runtime
	// mutants, AppMutants of them (defaults to DefaultAppMutants). It
	// cannot be combined with Only.
	App        bool
	AppMutants int
	Jobs       int
	JSON       bool
	// Markdown, when set, is a file that gets the result as a Markdown
	// table.
	Markdown string
	// Tool and RunTool are how repro lines call sf-mutate and sf-run.
	// Default to "sf-mutate" and "sf-run".
	Tool, RunTool string
	Stdin         io.Reader
	Stdout        io.Writer
	Stderr        io.Writer

	// Interrupt, when set, stops sf-mutate as SIGINT does once it becomes
	// true. Defaults to a flag only the signals set.
	Interrupt *atomic.Bool

	interrupt  *atomic.Bool  // Interrupt, or the signals' own flag
	hostStalls *atomic.Int64 // seeds whose watchdog failure did not come back on a second run
}

// Verdict is the outcome for one mutant.
type Verdict struct {
	record.Mutant
	// Breaks says what the mutant changes, for people.
	Breaks string
	// SharedPkg says the source mutant's package runs on other nodes too,
	// so that people are told which node's build was changed.
	SharedPkg bool
}

// ValidateOnly checks -only names against the runtime mutants; its error
// names the first that is none, for the caller to say after the flag's
// name.
func ValidateOnly(names []string) error {
	for _, n := range names {
		if _, ok := engine.LookupMutant(n); !ok {
			return fmt.Errorf("%q is not a runtime mutant; the runtime mutants are %s", n, strings.Join(engine.MutantNames(), ", "))
		}
	}
	return nil
}

// Main runs the command and returns the exit status: 0 when every exercised
// mutant was killed, 1 when one survived or the baseline failed, 2 on usage
// or input errors.
func Main(c Command) int {
	if c.Stdout == nil {
		c.Stdout = os.Stdout
	}
	if c.Stderr == nil {
		c.Stderr = os.Stderr
	}
	if c.Jobs <= 0 {
		c.Jobs = runtime.NumCPU()
	}
	if c.Tool == "" {
		c.Tool = "sf-mutate"
	}
	if c.RunTool == "" {
		c.RunTool = "sf-run"
	}
	if c.AppMutants <= 0 {
		c.AppMutants = DefaultAppMutants
	}
	// SIGINT or SIGTERM stops sf-mutate: running seeds end at their next
	// step, the mutant they belong to is not judged, and the summary says so.
	c.interrupt = c.Interrupt
	if c.interrupt == nil {
		c.interrupt = new(atomic.Bool)
	}
	c.hostStalls = new(atomic.Int64)
	defer stopsignal.Watch(c.interrupt)()
	code, err := c.run()
	if err != nil {
		fmt.Fprintf(c.Stderr, "sf-mutate: %v\n", err)
		if c.interrupt.Load() {
			// A build the signal stopped, or a world read it cut short.
			return exitcode.Interrupted
		}
		return exitcode.Usage
	}
	return code
}

// errInterrupted is returned by sweep when the command was interrupted.
var errInterrupted = errors.New("interrupted")

func (c *Command) run() (int, error) {
	if len(c.Seeds) == 0 {
		return 0, fmt.Errorf("no seeds to run")
	}
	if err := ValidateOnly(c.Only); err != nil {
		return 0, err
	}
	if c.App && len(c.Only) > 0 {
		return 0, fmt.Errorf("-only picks runtime mutants and cannot be combined with -app")
	}
	defer runner.LimitProcs(c.Jobs)()
	start := time.Now()
	load := config.LoadOptions{Profile: c.Profile, Set: c.Set, Stdin: c.Stdin}
	prep, err := runner.Prepare(c.Config, load, c.Stderr)
	if err != nil {
		return 0, err
	}
	defer prep.Engine.Close()

	var jw *record.Writer
	if c.JSON {
		jw = record.NewWriter(c.Stdout)
		jw.Write(record.Start{Kind: record.KindStart, Tool: "sf-mutate", Version: sweep.Version, Schema: record.Schema,
			Config: c.Config, Profile: c.Profile, Set: c.Set, Seeds: c.SeedsText, Count: len(c.Seeds), Jobs: c.Jobs})
	}
	sum := record.MutateSummary{Kind: record.KindSummary, Tool: "sf-mutate", Config: c.Config}
	// On a terminal, one progress line counts the baseline and the mutants
	// judged so far, with the survivors as its failures; the report goes
	// through it so the line is erased before each verdict.
	planned := 1 + len(c.runtimeMutants())
	if c.App {
		planned = 1 + c.AppMutants
		if c.AppMutants <= 0 {
			planned = 1 + DefaultAppMutants
		}
	}
	bar := progress.New(c.Stderr, planned, "mutants")
	defer bar.Finish()
	w := bar.Writer(c.Stderr)

	// stopped ends the command after SIGINT or SIGTERM: the summary counts
	// the mutants judged so far and says it was interrupted.
	var verdicts []Verdict
	stopped := func() (int, error) {
		bar.Finish()
		fmt.Fprintf(w, "interrupted: %d mutants judged before the stop\n", len(verdicts))
		sum.Interrupted, sum.Status = true, "interrupted"
		count(&sum, verdicts)
		sum.RealNs = time.Since(start).Nanoseconds()
		sum.HostStalls = int(c.hostStalls.Load())
		if jw != nil {
			jw.Write(sum)
		}
		return exitcode.Interrupted, nil
	}
	base, err := c.sweep(prep, nil, "")
	if errors.Is(err, errInterrupted) {
		return stopped()
	}
	if err != nil {
		return 0, err
	}
	if base.failed != nil {
		f := base.failed
		sum.Baseline, sum.Status = "fail", "baseline_failed"
		sum.BaselineSeed, sum.BaselineReason = f.Seed, f.Message
		sum.BaselineRepro = c.runRepro(f.Seed)
		fmt.Fprintf(w, "baseline: seed %d fails with no mutant: %s\n", f.Seed, f.Message)
		fmt.Fprintf(w, "replay: %s\n", sum.BaselineRepro)
		fmt.Fprintln(w, "no mutant judged: fix the world first, or every mutant would be killed by the bug it already has")
		sum.RealNs = time.Since(start).Nanoseconds()
		sum.HostStalls = int(c.hostStalls.Load())
		if jw != nil {
			jw.Write(sum)
		}
		if c.Markdown != "" {
			if err := writeMarkdown(c.Markdown, c, sum, nil); err != nil {
				return 0, err
			}
		}
		return exitcode.Problem, nil
	}
	sum.Baseline = "pass"
	bar.Add(false)
	if base.gaveUp > 0 {
		sum.BaselineGaveUp = base.gaveUp
		fmt.Fprintf(w, "baseline: no seed of %s fails, but %d gave up checking their history (seed %d: %s): there, only the other checks can kill a mutant\n\n",
			c.SeedsText, base.gaveUp, base.firstGaveUp.Seed, base.firstGaveUp.Check.Summary)
	} else {
		fmt.Fprintf(w, "baseline: seeds %s pass\n\n", c.SeedsText)
	}

	emit := func(v Verdict) {
		bar.Add(v.Verdict == record.VerdictSurvived)
		verdicts = append(verdicts, v)
		printVerdict(w, v, len(c.Seeds))
		if jw != nil {
			jw.Write(v.Mutant)
		}
	}
	if !c.App {
		for _, m := range c.runtimeMutants() {
			out, err := c.sweep(prep, nil, m.Name)
			if errors.Is(err, errInterrupted) {
				return stopped()
			}
			if err != nil {
				return 0, err
			}
			v := Verdict{Mutant: record.Mutant{Kind: record.KindMutant, Name: m.Name, Source: "runtime",
				SeedsPassed: out.passed, Hits: out.hits, Operation: m.Operation}, Breaks: m.Breaks}
			out.noteGaveUp(&v.Mutant)
			switch {
			case out.failed != nil:
				v.Verdict, v.KilledBySeed, v.Reason = record.VerdictKilled, out.failed.Seed, out.failed.Message
				v.Repro = sweep.ShellJoin(c.mutateRepro(out.failed.Seed, m.Name))
			case out.hits == 0:
				v.Verdict = record.VerdictNotExercised
			default:
				v.Verdict = record.VerdictSurvived
			}
			emit(v)
		}
	}
	if c.App {
		if err := c.appMutants(prep, emit); errors.Is(err, errInterrupted) {
			return stopped()
		} else if err != nil {
			return 0, err
		}
	}
	count(&sum, verdicts)
	sum.Status = "pass"
	if sum.Survived > 0 {
		sum.Status = "survived"
	}
	sum.RealNs = time.Since(start).Nanoseconds()
	sum.HostStalls = int(c.hostStalls.Load())
	printSummary(w, sum)
	if jw != nil {
		jw.Write(sum)
	}
	if c.Markdown != "" {
		if err := writeMarkdown(c.Markdown, c, sum, verdicts); err != nil {
			return 0, err
		}
	}
	if sum.Survived > 0 {
		return exitcode.Problem, nil
	}
	return exitcode.Pass, nil
}

// runtimeMutants are the runtime mutants to run: those of -only, in the
// order engine.Mutants lists them, or all.
func (c *Command) runtimeMutants() []engine.MutantInfo {
	if len(c.Only) == 0 {
		return engine.Mutants
	}
	var out []engine.MutantInfo
	for _, m := range engine.Mutants {
		for _, o := range c.Only {
			if o == m.Name {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

// outcome is what a sweep of the seeds with one mutant found.
type outcome struct {
	failed *engine.Result // the first seed (in seed order) that failed; nil if none
	passed int            // seeds that passed before it, or all that passed
	hits   int            // operations weakened in the seeds counted
	// gaveUp counts the seeds, among those counted, that neither passed
	// nor failed because their history check gave up (nothing in the
	// history completed, or it was too long to check), and firstGaveUp is
	// the first of them in seed order.
	gaveUp      int
	firstGaveUp *engine.Result
}

// sweep runs the seeds with the mutant (none when empty) on c.Jobs workers,
// in spec's world (nil: the prepared one's). It stops early at a failure:
// no seed after the first failing one starts, and every seed before it
// runs, so the outcome does not depend on the number of workers.
func (c *Command) sweep(p *runner.Prepared, spec *engine.Spec, mutant string) (outcome, error) {
	jobs := make([]runner.Job, len(c.Seeds))
	for i, seed := range c.Seeds {
		jobs[i] = runner.Job{Seed: seed, Options: engine.Options{Mutant: mutant}, Spec: spec, Recheck: true}
	}
	var out outcome
	pool := runner.Pool{Workers: c.Jobs, Interrupt: c.interrupt, StopAt: func(o runner.Outcome) bool { return failed(o.Result) }}
	err := p.Run(jobs, pool, func(o runner.Outcome) error {
		if o.Err != nil {
			return o.Err
		}
		if o.Interrupted {
			return nil
		}
		res := o.Result
		if o.HostStall && c.hostStalls != nil {
			c.hostStalls.Add(1)
		}
		out.hits += res.MutantHits
		if res.Class == engine.ClassInternal {
			return fmt.Errorf("seed %d hit an internal error in sf: %s", res.Seed, res.Message)
		}
		if failed(res) {
			out.failed = res
			return nil
		}
		if res.Check != nil && res.Check.Verdict == check.Unknown {
			out.gaveUp++
			if out.firstGaveUp == nil {
				out.firstGaveUp = res
			}
			return nil
		}
		out.passed++
		return nil
	})
	if c.interrupted() {
		return outcome{}, errInterrupted
	}
	return out, err
}

// noteGaveUp puts the seeds whose history check gave up into m.
func (o outcome) noteGaveUp(m *record.Mutant) {
	if o.gaveUp == 0 {
		return
	}
	m.SeedsGaveUp, m.GaveUpSeed, m.GaveUpReason = o.gaveUp, o.firstGaveUp.Seed, o.firstGaveUp.Check.Summary
}

// failed says whether the seed's run is a failure that kills a mutant.
func failed(r *engine.Result) bool {
	return r.Status == engine.StatusFail || r.Status == engine.StatusNondeterministic
}

func (c *Command) interrupted() bool { return c.interrupt != nil && c.interrupt.Load() }

func (c *Command) worldArgs(args []string) []string {
	args = append(args, "-c", c.Config)
	if c.Profile != "" {
		args = append(args, "-profile", c.Profile)
	}
	for _, s := range c.Set {
		args = append(args, "-set", s)
	}
	return args
}

// runRepro is the sf-run line that replays a seed with no mutant.
func (c *Command) runRepro(seed uint64) string {
	return sweep.ShellJoin(append(c.worldArgs([]string{c.RunTool}), "-seed", strconv.FormatUint(seed, 10)))
}

// mutateRepro is the sf-mutate line that runs one seed with one runtime
// mutant.
func (c *Command) mutateRepro(seed uint64, name string) []string {
	return append(c.worldArgs([]string{c.Tool}), "-seeds", strconv.FormatUint(seed, 10), "-only", name)
}

// count adds the verdicts to the summary's counts and score.
func count(sum *record.MutateSummary, verdicts []Verdict) {
	for _, v := range verdicts {
		sum.Mutants++
		switch v.Verdict {
		case record.VerdictKilled:
			sum.Killed++
		case record.VerdictSurvived:
			sum.Survived++
		case record.VerdictNotExercised:
			sum.NotExercised++
		case record.VerdictDidNotBuild:
			sum.DidNotBuild++
		}
	}
	if sum.Killed+sum.Survived > 0 {
		sum.Score = float64(sum.Killed) / float64(sum.Killed+sum.Survived)
	}
}
