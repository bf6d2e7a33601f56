// Package simtest runs sf's deterministic simulations from go test.
//
//	func TestKVLog(t *testing.T)       { simtest.Run(t, "seedfall.json", simtest.Seeds("1-100")) }
//	func TestKVLogPinned(t *testing.T) { simtest.Pinned(t, "seedfall.json") }
//
// Run sweeps a world over seeds as sf-run -seeds does and gives each failing
// seed a subtest of its own, seed-N, that fails with sf-run's line for that
// seed, the seed's artifacts and the sf-run command that replays it. Pinned
// replays the world's pinned regressions (.seedfall/pinned/<world>/, written
// by sf-run -pin and sf-shrink -pin) with one subtest per pin. Both work
// with -v, -run (go test -run '^TestKVLog$/^seed-7$' runs seed 7 alone),
// -short and -json.
//
// The world file is read relative to the test's working directory, which
// go test sets to the package's folder, so a test next to its seedfall.json
// names it as "seedfall.json". The world's Go packages are built for
// wasip1 exactly as sf-build and sf-run build them, with the go command on
// PATH, into the world's .seedfall/build folder; the engine runs inside the
// test process. Artifacts go where sf-run writes them, so the replay line
// of a failing subtest works from the same folder.
package simtest

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/exitcode"
	"github.com/sf-dst/sf/lib/record"
	"github.com/sf-dst/sf/lib/sweep"
)

// DefaultSeeds are the seeds Run sweeps when no Seeds option is given, as
// sf-run does.
const DefaultSeeds = "1-100"

// An Option changes how Run or Pinned loads and runs a world.
type Option func(*options)

type options struct {
	seeds, short string
	profile      string
	set          []string
	jobs         int
}

// Seeds sets the seeds Run sweeps, written as for sf-run -seeds: "1-100",
// "7" or "1-5,9". Defaults to DefaultSeeds.
func Seeds(seeds string) Option { return func(o *options) { o.seeds = seeds } }

// ShortSeeds sets the seeds Run sweeps under go test -short. Defaults to
// none: under -short, Run skips its sweep (pins, which Pinned replays, are
// the quick part).
func ShortSeeds(seeds string) Option { return func(o *options) { o.short = seeds } }

// Profile applies a named profile of the world file, as sf-run -profile
// does. Defaults to none.
func Profile(name string) Option { return func(o *options) { o.profile = name } }

// Set overrides world-file fields, each written path=value as for sf-run
// -set, after everything else. Defaults to none.
func Set(pathValues ...string) Option {
	return func(o *options) { o.set = append(o.set, pathValues...) }
}

// Jobs sets how many seeds run at once. Defaults to the number of CPUs, as
// for sf-run -j.
func Jobs(n int) Option { return func(o *options) { o.jobs = n } }

// Run sweeps the world file over seeds, as sf-run -seeds does (without the
// pinned regressions: Pinned replays those), and fails a subtest seed-N for
// each failing seed. The test also fails when a property is never reached
// or never true over the sweep, as the sweep does, and logs sf-run's whole
// report (shown with -v or when the test fails). A world that does not
// load or build stops the test with sf-run's error.
func Run(t *testing.T, world string, opts ...Option) {
	t.Helper()
	o := options{seeds: DefaultSeeds}
	for _, opt := range opts {
		opt(&o)
	}
	text := o.seeds
	if testing.Short() {
		if o.short == "" {
			t.Skipf("simtest: -short skips the sweep of %s over seeds %s (simtest.ShortSeeds sets seeds for -short)", world, o.seeds)
		}
		text = o.short
	}
	seeds, err := config.ParseSeeds(text)
	if err != nil {
		t.Fatalf("simtest: seeds %q: %v", text, err)
	}
	pattern := ""
	if f := flag.Lookup("test.run"); f != nil {
		pattern = f.Value.String()
	}
	chosen, whole := selectSeeds(pattern, t.Name(), seeds)
	if len(chosen) == 0 {
		t.Logf("simtest: -run selects none of the seeds %s", text)
		return
	}
	shown := text
	if !whole {
		shown = config.FormatSeeds(chosen)
	}
	args := []string{"sf-run", "-c", world, "-seeds", shown}
	if o.profile != "" {
		args = append(args, "-profile", o.profile)
	}
	for _, s := range o.set {
		args = append(args, "-set", s)
	}
	if o.jobs > 0 {
		args = append(args, "-j", strconv.Itoa(o.jobs))
	}
	t.Logf("simtest: seeds %s of %s, as %s runs them (after the pins, which Pinned replays)", shown, world, sweep.ShellJoin(args))
	recs, report := sweepWorld(t, world, o, sweep.Options{Seeds: chosen, SeedsText: shown, NoPins: true})
	t.Log("sf-run report:\n" + report)
	for _, a := range recs {
		s := a.Seed
		if s == nil {
			continue
		}
		failed := s.Status == string(engine.StatusFail) || s.Status == string(engine.StatusNondeterministic)
		// A seed whose history check gave up neither passed nor failed:
		// sf-run exits 1 for it, and so does its subtest.
		gaveUp := !failed && s.HistoryCheck == "unknown"
		if !failed && !gaveUp {
			continue
		}
		name := "seed-" + strconv.FormatUint(s.Seed, 10)
		t.Run(name, func(t *testing.T) {
			t.Helper()
			var b strings.Builder
			if gaveUp {
				fmt.Fprintf(&b, "GAVE UP seed %d at t=%s: its history check gave up, so the seed neither passed nor failed (see -history-timeout and limits.check_steps)",
					s.Seed, time.Duration(s.AtNs))
			} else {
				b.WriteString(sweep.FailLine(s.Seed, s.AtNs, s.Message))
			}
			b.WriteByte('\n')
			writeArtifacts(&b, s.Artifacts)
			fmt.Fprintf(&b, "  replay: %s\n", s.Repro)
			fmt.Fprintf(&b, "  go test -run '%s'\n", RunPattern(t.Name()))
			t.Error(b.String())
		})
	}
	if !whole {
		// A property's verdict is over the whole sweep: over the seeds -run
		// picked it says nothing.
		return
	}
	for _, a := range recs {
		if a.Summary == nil {
			continue
		}
		for _, p := range a.Summary.Properties {
			if p.Verdict == "" {
				continue
			}
			where := ""
			if p.Location != "" {
				where = " (" + p.Location + ")"
			}
			t.Errorf("property %s %q: %s in %d seeds%s", p.Kind, p.Message, p.Verdict, a.Summary.Seeds, where)
		}
	}
}

// Pinned replays every pinned regression of the world file
// (.seedfall/pinned/<world>/seed-N.json next to it), in order of seed, and
// fails a subtest seed-N for each pin that fails: the failure, naming the
// pin and its original seed, with the pinned failure and a replay line, as
// sf-run reports it. A pin that passes is a regression test kept: its
// subtest passes and logs so. With no pins, the test is skipped. -short
// does not change it.
func Pinned(t *testing.T, world string, opts ...Option) {
	t.Helper()
	o := options{}
	for _, opt := range opts {
		opt(&o)
	}
	recs, report := sweepWorld(t, world, o, sweep.Options{PinsOnly: true})
	var pins []*record.Pin
	for _, a := range recs {
		if a.Pin != nil {
			pins = append(pins, a.Pin)
		}
	}
	if len(pins) == 0 {
		t.Skipf("simtest: %s has no pinned regressions (sf-run -pin -seed N or sf-shrink -pin writes them under .seedfall/pinned/)", world)
	}
	t.Log("sf-run report:\n" + report)
	for _, p := range pins {
		t.Run(strings.TrimSuffix(filepath.Base(p.Pin), ".json"), func(t *testing.T) {
			t.Helper()
			msg := sweep.PinReport(*p)
			if p.Status == string(engine.StatusFail) || p.Status == string(engine.StatusNondeterministic) {
				t.Error(msg)
				return
			}
			t.Log(msg)
		})
	}
}

// sweepWorld runs sf-run's sweep in this process, with records, and
// returns them with the human report. An error of the world (it does not
// load, build or fit its pins) or an interruption stops the test.
func sweepWorld(t *testing.T, world string, o options, so sweep.Options) ([]*record.Any, string) {
	t.Helper()
	var out, report bytes.Buffer
	so.Config, so.Profile, so.Set, so.Jobs = world, o.profile, o.set, o.jobs
	so.JSON, so.Tool, so.Stdin, so.Stdout, so.Stderr = true, "sf-run", strings.NewReader(""), &out, &report
	code := sweep.Main(so)
	switch code {
	case exitcode.Pass, exitcode.Problem:
	case exitcode.Interrupted:
		t.Fatalf("simtest: the sweep of %s was interrupted\n%s", world, report.String())
	default:
		t.Fatalf("simtest: %s\n%s", world, strings.TrimSpace(report.String()))
	}
	var recs []*record.Any
	r := record.NewReader(&out, "sf-run records")
	for {
		a, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("simtest: %v", err)
		}
		recs = append(recs, a)
	}
	return recs, report.String()
}

func writeArtifacts(b *strings.Builder, a *record.Artifacts) {
	if a == nil {
		return
	}
	for _, f := range []struct{ what, path string }{{"trace", a.Trace}, {"schedule", a.Faults}, {"history", a.History}, {"timeline", a.Timeline}} {
		if f.path != "" {
			fmt.Fprintf(b, "  %s: %s\n", f.what, f.path)
		}
	}
}

// selectSeeds returns the seeds whose subtest, seed-N under the test
// named parent, go test's -run pattern lets through, so that
// -run 'TestX/seed-7$' runs seed 7 alone; whole says no seed was left out.
// It splits the pattern by the rules of the testing package (a "/" or "|"
// inside brackets or parentheses does not split); a pattern it cannot
// compile selects every seed, and testing itself reports it.
func selectSeeds(pattern, parent string, seeds []uint64) (chosen []uint64, whole bool) {
	if pattern == "" {
		return seeds, true
	}
	names := strings.Split(parent, "/")
	var levels []*regexp.Regexp // the patterns of the seed level
	for _, alt := range splitPattern(pattern) {
		ok := true
		for i, name := range names {
			if i >= len(alt) {
				break
			}
			re, err := regexp.Compile(alt[i])
			if err != nil {
				return seeds, true
			}
			if !re.MatchString(name) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		if len(alt) <= len(names) {
			return seeds, true
		}
		re, err := regexp.Compile(alt[len(names)])
		if err != nil {
			return seeds, true
		}
		levels = append(levels, re)
	}
	for _, s := range seeds {
		name := "seed-" + strconv.FormatUint(s, 10)
		for _, re := range levels {
			if re.MatchString(name) {
				chosen = append(chosen, s)
				break
			}
		}
	}
	return chosen, len(chosen) == len(seeds)
}

// splitPattern splits a -run pattern into its alternatives, split by "|",
// and each into its levels, split by "/", outside brackets and parentheses.
func splitPattern(s string) [][]string {
	var alts [][]string
	var cur []string
	brackets, parens, start := 0, 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			brackets++
		case ']':
			if brackets > 0 {
				brackets--
			}
		case '(':
			if brackets == 0 {
				parens++
			}
		case ')':
			if brackets == 0 {
				parens--
			}
		case '\\':
			i++
		case '/', '|':
			if brackets == 0 && parens == 0 {
				cur = append(cur, s[start:i])
				start = i + 1
				if s[i] == '|' {
					alts = append(alts, cur)
					cur = nil
				}
			}
		}
	}
	cur = append(cur, s[start:])
	return append(alts, cur)
}

// RunPattern is the go test -run pattern that selects the test named name
// ("TestKV/seed-7") and nothing else: each level of the name is quoted and
// anchored at both ends ("^TestKV$/^seed-7$"), since go test matches each
// level as an unanchored regular expression, so that "TestKV/seed-7$" also
// runs TestKVFixed/seed-7 and TestKVPinned/seed-7.
func RunPattern(name string) string {
	levels := strings.Split(name, "/")
	for i, l := range levels {
		levels[i] = "^" + regexp.QuoteMeta(l) + "$"
	}
	return strings.Join(levels, "/")
}
