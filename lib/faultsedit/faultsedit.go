// Package faultsedit is sf-faults: it loads one seed's fault schedule,
// removes, shifts or adds faults, checks the result against the world and
// writes it, so that a changed schedule can be replayed with sf-run to test
// an explanation of a failure.
package faultsedit

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/echo"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/exitcode"
	"github.com/sf-dst/sf/lib/runner"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/sweep"
	"github.com/sf-dst/sf/lib/textfmt"
)

// Options describe one invocation of sf-faults.
type Options struct {
	Config  string   // the world file as the user named it
	Seed    uint64   // the seed the schedule belongs to
	Faults  string   // the schedule to start from, "-" for stdin; empty for the seed's own
	Profile string   // a profile of the world file to apply
	Set     []string // path=value overrides of the world file, applied last
	Remove  []string // -remove values: positions, counting from 1
	Shift   []string // -shift values: N=AMOUNT
	Add     []string // -add values: one fault each, as JSON
	Out     string   // where to write the result; empty for where it came from
	// JSON writes the resulting schedule on stdout and the report on
	// stderr, so the result can go down a pipe.
	JSON bool
	// RunTool is how the printed replay line calls sf-run. Defaults to
	// "sf-run".
	RunTool string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
}

// Main runs sf-faults and returns the exit status: 0 when the schedule is
// listed (and written), 2 for any error of usage or input.
func Main(o Options) int {
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if o.RunTool == "" {
		o.RunTool = "sf-run"
	}
	if err := run(o); err != nil {
		fmt.Fprintf(o.Stderr, "sf-faults: %v\n", err)
		return exitcode.Usage
	}
	return exitcode.Pass
}

// shift is one parsed -shift.
type shift struct {
	arg    string
	pos    int
	amount string
}

// edits are the parsed edit flags.
type edits struct {
	remove []int
	shift  []shift
	add    [][]byte
}

func (e edits) any() bool { return len(e.remove)+len(e.shift)+len(e.add) > 0 }

// parseEdits checks the syntax of every edit flag, before anything is built
// or run.
func parseEdits(o Options) (edits, error) {
	var e edits
	for _, a := range o.Remove {
		n, err := position(a)
		if err != nil {
			return e, fmt.Errorf("-remove %s: %v", echo.Cut(a), err)
		}
		e.remove = append(e.remove, n)
	}
	for _, a := range o.Shift {
		p, amount, ok := strings.Cut(a, "=")
		if !ok || strings.TrimSpace(amount) == "" {
			return e, fmt.Errorf("-shift %s: expected N=AMOUNT, such as 2=-50ms for a fault in time or 1=+2 for one at a disk op", echo.Cut(a))
		}
		n, err := position(p)
		if err != nil {
			return e, fmt.Errorf("-shift %s: %v", echo.Cut(a), err)
		}
		e.shift = append(e.shift, shift{arg: a, pos: n, amount: strings.TrimSpace(amount)})
	}
	for _, a := range o.Add {
		if _, err := schedule.ParseFault([]byte(a)); err != nil {
			return e, fmt.Errorf("-add %s: %v", echo.Cut(a), err)
		}
		e.add = append(e.add, []byte(a))
	}
	return e, nil
}

// otherWorld describes the world a schedule says it was written for when
// that is not the one given (another world file, profile or -set values),
// and is "" when it is the same or the schedule does not say.
func otherWorld(s *schedule.Schedule, o Options) string {
	if s.Config == "" {
		return "" // written by hand, or a bare list
	}
	same := filepath.Base(s.Config) == filepath.Base(o.Config) && s.Profile == o.Profile && slices.Equal(s.Set, o.Set)
	if same {
		return ""
	}
	return worldText(s.Config, s.Profile, s.Set)
}

// worldText names a world as a command line would: the file, -profile and
// each -set.
func worldText(config, profile string, set []string) string {
	args := []string{filepath.Base(config)}
	if profile != "" {
		args = append(args, "-profile", profile)
	}
	for _, v := range set {
		args = append(args, "-set", v)
	}
	return sweep.ShellJoin(args)
}

func position(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a position: faults are numbered from 1 as listed", s)
	}
	return n, nil
}

// source is where the schedule came from.
type source int

const (
	fromFile     source = iota // -faults FILE
	fromStdin                  // -faults -
	fromArtifact               // the seed's .seedfall/<world>/seed-N.shrunk.faults.json or seed-N.faults.json
	fromRun                    // the faults the seed draws on its own
)

// start is the schedule an invocation starts from, and where it came from.
type start struct {
	sched    *schedule.Schedule
	from     source
	name     string // the input, as the header shows it
	note     string // what the header says of a run
	artifact string // the seed's artifact: read from, or written to
}

func run(o Options) error {
	ed, err := parseEdits(o)
	if err != nil {
		return err
	}
	if o.Faults == "-" && ed.any() && o.Out == "" && !o.JSON {
		return errors.New("-faults -: the schedule came from stdin, so there is no file to write the edit back to: give -out FILE (or -json to print it)")
	}
	// A schedule file is read before the world is built, so that a
	// mistake in it or in an edit is reported at once.
	var st start
	if o.Faults != "" {
		if st, err = readGiven(o, ed); err != nil {
			return err
		}
	}

	prep, err := runner.Prepare(o.Config, config.LoadOptions{Profile: o.Profile, Set: o.Set, Stdin: o.Stdin}, o.Stderr)
	if err != nil {
		return err
	}
	defer prep.Engine.Close()
	if err := st.fromSeed(o, prep); err != nil {
		return err
	}
	st.notes(o)

	edited, err := applyEdits(st.sched, ed, o)
	if err != nil {
		return err
	}
	if err := edited.Check(prep.ScheduleWorld()); err != nil {
		if ed.any() {
			return fmt.Errorf("the edited schedule: %w", err)
		}
		return fmt.Errorf("%s: %w", st.name, err)
	}
	target := st.target(o, ed)
	if target != "" {
		if err := edited.WriteFile(target); err != nil {
			return fmt.Errorf("writing the schedule: %w", err)
		}
	}
	return st.report(o, prep, ed, edited, target)
}

// readGiven reads the schedule -faults names and tries the edits on it.
func readGiven(o Options, ed edits) (start, error) {
	st := start{from: fromFile, name: o.Faults}
	if o.Faults == "-" {
		st.from, st.name = fromStdin, "<stdin>"
	}
	var err error
	if st.sched, err = schedule.ReadFile(o.Faults, o.Stdin); err != nil {
		return st, fmt.Errorf("-faults: %w", err)
	}
	if _, err := applyEdits(st.sched, ed, o); err != nil {
		return st, err
	}
	return st, nil
}

// fromSeed finds the seed's artifact and, when no -faults was given, starts
// from it, or from a run of the seed when there is none.
func (st *start) fromSeed(o Options, prep *runner.Prepared) error {
	// The seed's artifact: the schedule sf-shrink cut it down to when there
	// is one, since that is the one a user works on after shrinking, else
	// the one its failing run wrote.
	dir := sweep.ArtifactDir(prep.World)
	st.artifact = filepath.Join(dir, fmt.Sprintf("seed-%d.faults.json", o.Seed))
	if shrunk := filepath.Join(dir, sweep.ShrunkName(o.Seed, 0)); st.sched == nil && exists(shrunk) {
		if exists(st.artifact) {
			fmt.Fprintf(o.Stderr, "sf-faults: note: starting from seed %d's shrunk schedule; -faults %s starts from its run's\n",
				o.Seed, textfmt.Display(st.artifact))
		}
		st.artifact = shrunk
	}
	var err error
	switch {
	case st.sched != nil:
	case exists(st.artifact):
		st.from, st.name = fromArtifact, textfmt.Display(st.artifact)
		if st.sched, err = schedule.ReadFile(st.artifact, nil); err != nil {
			return err
		}
		// The folder is the world's, but a file can still come from
		// another: one an older sf wrote there for every -set variant, or
		// one copied in. Its faults and duration are that world's.
		if other := otherWorld(st.sched, o); other != "" {
			return fmt.Errorf("%s was written for %s, not for %s as given: give the same -profile and -set, or -faults FILE to start from it anyway",
				st.name, other, worldText(o.Config, o.Profile, o.Set))
		}
	default:
		st.from, st.name = fromRun, "a run of the seed"
		run := prep.One(runner.Job{Seed: o.Seed}, nil)
		if run.Err != nil {
			return fmt.Errorf("seed %d: %w", o.Seed, run.Err)
		}
		res := run.Result
		st.sched = &schedule.Schedule{Seed: o.Seed, Config: o.Config, Profile: o.Profile, Set: o.Set, Faults: res.Faults}
		if res.Status == engine.StatusFail || res.Status == engine.StatusNondeterministic {
			st.sched.Duration = schedule.Dur(res.AtNs)
			st.note = fmt.Sprintf(" (it fails at %s)", time.Duration(res.AtNs))
		} else {
			st.note = " (it passes)"
		}
	}
	return nil
}

// notes says when the schedule was written for another world or seed than
// the one given, and takes the given seed for a schedule that names none.
func (st *start) notes(o Options) {
	if other := otherWorld(st.sched, o); st.from == fromFile && other != "" {
		fmt.Fprintf(o.Stderr, "sf-faults: note: %s was written for %s, not for %s as given\n", st.name, other, worldText(o.Config, o.Profile, o.Set))
	}
	if st.sched.Seed == 0 {
		st.sched.Seed = o.Seed
	} else if st.sched.Seed != o.Seed {
		fmt.Fprintf(o.Stderr, "sf-faults: note: %s was written for seed %d; the replay below runs seed %d\n", st.name, st.sched.Seed, o.Seed)
	}
}

// target is where the result goes: -out; else back where it came from when
// it was edited; else, unedited, only the seed's own faults are written, to
// the artifact path, so that there is a file to edit next. "" is nowhere.
func (st *start) target(o Options, ed edits) string {
	switch {
	case o.Out != "":
		return o.Out
	case ed.any() && st.from == fromFile:
		return o.Faults
	case ed.any() && st.from == fromArtifact, st.from == fromRun:
		return st.artifact
	}
	return ""
}

// report lists the resulting schedule under a header saying where it came
// from, what was done to it and where it went, with the line that replays
// it; with -json the schedule goes to stdout and the list to stderr.
func (st *start) report(o Options, prep *runner.Prepared, ed edits, edited *schedule.Schedule, target string) error {
	human := o.Stdout
	if o.JSON {
		human = o.Stderr
		if _, err := o.Stdout.Write(edited.Marshal()); err != nil {
			return err
		}
	}
	header := fmt.Sprintf("seed %d, %s from %s%s", o.Seed, count(len(edited.Faults), "fault"), st.name, st.note)
	if did := editSummary(len(ed.remove), len(ed.shift), len(ed.add)); len(did) > 0 {
		header += " (" + strings.Join(did, ", ") + ")"
	}
	if target != "" {
		header += ", wrote " + textfmt.Display(target)
	} else {
		header += ", not written"
	}
	fmt.Fprintln(human, header)
	for _, l := range schedule.Lines(edited.Faults) {
		fmt.Fprintln(human, l)
	}
	if edited.Duration > 0 {
		fmt.Fprintf(human, "duration %s\n", schedule.RoundedDuration(int64(edited.Duration)))
	} else {
		fmt.Fprintf(human, "duration %s (the world's)\n", schedule.RoundedDuration(prep.Spec.DurationNs))
	}
	replayFaults := target
	if replayFaults == "" {
		replayFaults = o.Faults
		if st.from == fromArtifact {
			replayFaults = st.artifact
		}
	}
	fmt.Fprintf(human, "replay: %s\n", replayLine(o, textfmt.Display(replayFaults)))
	return nil
}

// applyEdits returns the edited schedule, sorted; it does not check it
// against the world.
func applyEdits(sched *schedule.Schedule, ed edits, o Options) (*schedule.Schedule, error) {
	// Positions count in the list sf-faults prints, which is sorted by at:
	// a hand-written schedule in another order is sorted first, so that
	// -remove 1 removes the fault listed first.
	sorted := *sched
	sorted.Faults = append([]schedule.Fault(nil), sched.Faults...)
	sorted.Sort()
	if !ed.any() {
		return &sorted, nil
	}
	e := schedule.NewEditor(&sorted)
	for _, p := range ed.remove {
		if err := e.Remove(p); err != nil {
			return nil, fmt.Errorf("-remove %d: %w", p, err)
		}
	}
	for _, s := range ed.shift {
		if err := e.Shift(s.pos, s.amount); err != nil {
			return nil, fmt.Errorf("-shift %s: %w", echo.Cut(s.arg), err)
		}
	}
	for i, a := range ed.add {
		if err := e.Add(a); err != nil {
			return nil, fmt.Errorf("-add %s: %w", echo.Cut(o.Add[i]), err)
		}
	}
	return e.Result(), nil
}

func editSummary(removed, shifted, added int) []string {
	var out []string
	if removed > 0 {
		out = append(out, fmt.Sprintf("removed %d", removed))
	}
	if shifted > 0 {
		out = append(out, fmt.Sprintf("shifted %d", shifted))
	}
	if added > 0 {
		out = append(out, fmt.Sprintf("added %d", added))
	}
	return out
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func exists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// replayLine is the sf-run command that replays the schedule at faults,
// with the world, profile and overrides this run used.
func replayLine(o Options, faults string) string {
	args := []string{o.RunTool, "-c", o.Config, "-seed", strconv.FormatUint(o.Seed, 10)}
	if o.Profile != "" {
		args = append(args, "-profile", o.Profile)
	}
	for _, s := range o.Set {
		args = append(args, "-set", s)
	}
	args = append(args, "-faults", faults)
	for i, a := range args {
		args[i] = shellQuote(a)
	}
	return strings.Join(args, " ")
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
