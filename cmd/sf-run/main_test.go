package main

// CLI scenario tests: they build the real sf-run and sf-build (and sf-check)
// once per test process and run them as a user would, on the kvlog example and on the tiny
// guests in lib/engine/testdata/guests. Nothing is written into the
// repository: every world file is copied into a temporary directory with its
// package paths made absolute, so .seedfall lands there.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/clitest"
)

// tools are sf-run and sf-build, and sf-check for the history tests, built
// once per test process.
var tools clitest.Tools

// cmdTimeout bounds the commands a test starts on its own, so a hang fails
// the test with a message instead of stalling the whole test binary.
const cmdTimeout = 3 * time.Minute

func TestMain(m *testing.M) { os.Exit(tools.Main(m, "sf-run", "sf-build", "sf-check")) }

// result is what one command did.
type result = clitest.Result

// runBin runs one of the built tools by its short name, so that the replay
// lines it prints read as a user's would, with its standard output a file,
// as with "sf-run > out": on a pipe a sweep writes records instead of its
// report (pipe_test.go tests that).
func runBin(t *testing.T, c clitest.Cmd, bin string, args ...string) result {
	t.Helper()
	if c.Timeout == 0 {
		c.Timeout = cmdTimeout
	}
	c.Name, c.StdoutFile = filepath.Base(bin), true
	return clitest.Exec(t, c, append([]string{bin}, args...)...)
}

// sfRun runs sf-run in dir.
func sfRun(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return runBin(t, clitest.Cmd{Dir: dir}, tools.Path("sf-run"), args...)
}

// kvlogDir returns a directory holding copies of the kvlog example's worlds:
// seedfall.json (the planted bug) and seedfall.fixed.json. The tests share
// it, so the example is built and compiled once per test process; the tests
// that use it do not run in parallel.
func kvlogDir(t *testing.T) string {
	t.Helper()
	return tools.Example(t, "kvlog", "seedfall.json", "seedfall.fixed.json")
}

// removeArtifacts deletes the seed artifacts in dir's .seedfall, keeping the
// builds.
func removeArtifacts(t *testing.T, dir string) {
	t.Helper()
	files, _ := filepath.Glob(artifact(t, dir, "seed-*"))
	for _, f := range files {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
}

var (
	failHeaderRE = regexp.MustCompile(`(?m)^FAIL seed (\d+) at t=\S+ \((\d+) scheduler steps, \d+ms real\)$`)
	failLineRE   = regexp.MustCompile(`(?m)^FAIL seed (\d+) at t=`)
	realTimeRE   = regexp.MustCompile(`, \d+ms real\)`)
)

// failedSeeds returns the seeds a human report names as failing, in order.
func failedSeeds(out string) []string {
	var seeds []string
	for _, m := range failLineRE.FindAllStringSubmatch(out, -1) {
		seeds = append(seeds, m[1])
	}
	return seeds
}

// traceSection returns the lines after "trace:" up to the determinism hash
// line (in a replay) or the end (in a trace.log).
func traceSection(t *testing.T, out string) string {
	t.Helper()
	i := strings.Index(out, "\ntrace:\n")
	if i < 0 {
		t.Fatalf("no trace: section in\n%s", out)
	}
	s := out[i+len("\ntrace:\n"):]
	if j := strings.Index(s, "\ndeterminism hash "); j >= 0 {
		s = s[:j+1]
	}
	return strings.TrimRight(s, "\n") + "\n"
}

// failureMessage returns the indented line under a FAIL header.
func failureMessage(t *testing.T, out string) string {
	t.Helper()
	loc := failHeaderRE.FindStringIndex(out)
	if loc == nil {
		if i := strings.Index(out, "FAIL seed "); i >= 0 {
			loc = []int{i, i + strings.IndexByte(out[i:], '\n')}
		} else {
			t.Fatalf("no FAIL seed header in\n%s", out)
		}
	}
	rest := out[loc[1]+1:]
	line, _, _ := strings.Cut(rest, "\n")
	return strings.TrimSpace(line)
}

// TestKvlogBugIsFound is the demo: the planted ack-before-fsync bug fails
// the sweep, with the report and artifacts the issue asks for.
func TestKvlogBugIsFound(t *testing.T) {
	dir := kvlogDir(t)
	removeArtifacts(t, dir)
	r := sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1-20")
	r.WantExit(t, 1)
	for _, want := range []string{"FAIL seed ", "acknowledged write lost", "faults before the failure", "\nreplay: "} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("report lacks %q\n%s", want, r)
		}
	}
	m := failHeaderRE.FindStringSubmatch(r.Stdout)
	if m == nil {
		t.Fatalf("no header like `FAIL seed N at t=3.121302s (867 scheduler steps, 38ms real)`\n%s", r)
	}
	seed := m[1]
	if want := "\nreplay: sf-run -c seedfall.json -seed " + seed + "\n"; !strings.Contains(r.Stdout, want) {
		t.Errorf("report lacks the replay line %q\n%s", strings.TrimSpace(want), r)
	}
	if !regexp.MustCompile(`(?m)^FAIL \d+ of 20 seeds failed \(`).MatchString(r.Stdout) {
		t.Errorf("no summary line `FAIL n of 20 seeds failed (...)`\n%s", r)
	}
	for _, s := range failedSeeds(r.Stdout) {
		trace := artifact(t, dir, "seed-"+s+".trace.log")
		text := clitest.ReadFile(t, trace)
		if !strings.Contains(text, "FAIL seed "+s+" at t=") || !strings.Contains(text, "\ntrace:\n") {
			t.Errorf("%s is not a failure report with a trace:\n%s", trace, clitest.Tail(text, 20))
		}
		faults := artifact(t, dir, "seed-"+s+".faults.json")
		var sched struct {
			Seed   uint64 `json:"seed"`
			Faults []struct {
				At, Kind, Node, Until string
			} `json:"faults"`
		}
		if err := json.Unmarshal([]byte(clitest.ReadFile(t, faults)), &sched); err != nil {
			t.Fatalf("%s: %v", faults, err)
		}
		if fmt.Sprint(sched.Seed) != s || len(sched.Faults) == 0 {
			t.Errorf("%s: seed %d with %d faults, want seed %s with the crash that lost the write", faults, sched.Seed, len(sched.Faults), s)
		}
		for i, f := range sched.Faults {
			if f.Kind != "crash" || f.Node != "server" || f.At == "" || f.Until == "" {
				t.Errorf("%s: faults[%d] = %+v, want a crash of server with at and until", faults, i, f)
			}
		}
	}
}

// TestKvlogFixedPasses: the same world with fsync before the ack passes.
func TestKvlogFixedPasses(t *testing.T) {
	dir := kvlogDir(t)
	r := sfRun(t, dir, "-c", "seedfall.fixed.json", "-seeds", "1-20")
	r.WantExit(t, 0)
	if !regexp.MustCompile(`(?m)^ok  20 seeds passed \(\d+ hit the time horizon\) in \S+$`).MatchString(r.Stdout) {
		t.Errorf("no line `ok  20 seeds passed (N hit the time horizon) in D`\n%s", r)
	}
	if strings.Contains(r.Stdout, "FAIL") {
		t.Errorf("the fixed world reports a failure\n%s", r)
	}
}

// TestKvlogReplayIsIdenticalToSweep: -seed N prints the same trace and the
// same failure as that seed's run in a sweep.
func TestKvlogReplayIsIdenticalToSweep(t *testing.T) {
	dir := kvlogDir(t)
	removeArtifacts(t, dir)
	sweep := sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1-6")
	sweep.WantExit(t, 1)
	seeds := failedSeeds(sweep.Stdout)
	if len(seeds) < 2 {
		t.Fatalf("want at least 2 failing seeds in 1-6\n%s", sweep)
	}
	for _, s := range seeds[:2] {
		// Read the sweep's artifact first: a replay rewrites it.
		logText := clitest.ReadFile(t, artifact(t, dir, "seed-"+s+".trace.log"))
		r := sfRun(t, dir, "-c", "seedfall.json", "-seed", s)
		r.WantExit(t, 1)
		if got, want := traceSection(t, r.Stdout), traceSection(t, logText); got != want {
			t.Errorf("seed %s: the replay's trace differs from the sweep's .seedfall/seed-%s.trace.log\nreplay:\n%s\nsweep:\n%s", s, s, got, want)
		}
		if got, want := failureMessage(t, r.Stdout), failureMessage(t, logText); got != want {
			t.Errorf("seed %s: replay fails with %q, the sweep with %q", s, got, want)
		}
		// The whole failure block, real time aside, is the same too.
		replayBlock, _, _ := strings.Cut(realTimeRE.ReplaceAllString(r.Stdout, ")"), "\ntrace:\n")
		sweepBlock, _, _ := strings.Cut(logText, "\ntrace:\n")
		if strings.TrimSpace(replayBlock) != strings.TrimSpace(sweepBlock) {
			t.Errorf("seed %s: failure report differs\nreplay:\n%s\nsweep:\n%s", s, replayBlock, sweepBlock)
		}
	}
}

// TestKvlogReplayWithFaults: -faults applies a schedule instead of drawing
// faults. The seed's own schedule gives the same failure; the same schedule
// with the crash taken out passes. We observed that without its crash the
// buggy server never loses a write (it loses them only when it dies between
// an OK and the next fsync tick), so the run passes and prints `ok  seed N
// passed` with `faults (0):`.
func TestKvlogReplayWithFaults(t *testing.T) {
	dir := kvlogDir(t)
	removeArtifacts(t, dir)
	sweep := sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1-3")
	sweep.WantExit(t, 1)
	seeds := failedSeeds(sweep.Stdout)
	if len(seeds) == 0 {
		t.Fatalf("no failing seed in 1-3\n%s", sweep)
	}
	s := seeds[0]
	schedPath := artifact(t, dir, "seed-"+s+".faults.json")
	schedText := clitest.ReadFile(t, schedPath)
	sweepLog := clitest.ReadFile(t, artifact(t, dir, "seed-"+s+".trace.log"))
	schedCopy := filepath.Join(t.TempDir(), "seed.faults.json")
	clitest.WriteFile(t, schedCopy, []byte(schedText))

	plain := sfRun(t, dir, "-c", "seedfall.json", "-seed", s)
	plain.WantExit(t, 1)
	withFaults := sfRun(t, dir, "-c", "seedfall.json", "-seed", s, "-faults", schedCopy)
	withFaults.WantExit(t, 1)
	if got, want := failureMessage(t, withFaults.Stdout), failureMessage(t, sweepLog); got != want {
		t.Errorf("with -faults the seed fails with %q, in the sweep with %q", got, want)
	}
	if got, want := traceSection(t, withFaults.Stdout), traceSection(t, plain.Stdout); got != want {
		t.Errorf("the trace with -faults differs from the plain replay\n-faults:\n%s\nplain:\n%s", got, want)
	}

	var sched map[string]any
	if err := json.Unmarshal([]byte(schedText), &sched); err != nil {
		t.Fatal(err)
	}
	var kept []any
	for _, f := range sched["faults"].([]any) {
		if f.(map[string]any)["kind"] != "crash" {
			kept = append(kept, f)
		}
	}
	sched["faults"] = append([]any{}, kept...)
	noCrash := filepath.Join(t.TempDir(), "no-crash.faults.json")
	clitest.WriteJSON(t, noCrash, sched)
	edited := sfRun(t, dir, "-c", "seedfall.json", "-seed", s, "-faults", noCrash)
	edited.WantExit(t, 0)
	// The schedule's duration is when the sweep's run failed, so the replay
	// stops there and says that a pass within it is no proof of a fix.
	if !strings.HasPrefix(edited.Stdout, "ok  seed "+s+" passed within the schedule's duration at t=") ||
		!strings.Contains(edited.Stdout, "\nfaults (0):\n") || !strings.Contains(edited.Stdout, "note: this replay passed, but only ran for the schedule's duration") {
		t.Errorf("without the crash the seed should pass with no faults, within the schedule's duration\n%s", edited)
	}
	if strings.Contains(edited.Stdout, "fault crash") || strings.Contains(edited.Stdout, "restart server#2") {
		t.Errorf("the schedule without crashes still crashed the server\n%s", edited)
	}

	// The bare list form of a schedule works as well.
	bare := filepath.Join(t.TempDir(), "bare.faults.json")
	clitest.WriteJSON(t, bare, sched["faults"])
	r := sfRun(t, dir, "-c", "seedfall.json", "-seed", s, "-faults", bare)
	r.WantExit(t, 0)
}

// jsonRecords returns the records of a sweep run with -json, checking that
// stdout holds nothing but JSONL: a start record, seed records, and a
// summary last.
func jsonRecords(t *testing.T, r result) []map[string]any {
	t.Helper()
	recs := clitest.Records(t, r)
	for i, rec := range recs[1 : len(recs)-1] {
		if rec["kind"] != "seed" {
			t.Errorf("record %d has kind %v, want seed", i+2, rec["kind"])
		}
	}
	return recs
}

// TestKvlogCheck: -check runs every seed twice; nothing in kvlog is
// nondeterministic.
func TestKvlogCheck(t *testing.T) {
	dir := kvlogDir(t)
	for _, tc := range []struct {
		world      string
		wantExit   int
		wantStatus string
	}{
		{"seedfall.fixed.json", 0, "pass"},
		{"seedfall.json", 1, "fail"},
	} {
		t.Run(tc.world, func(t *testing.T) {
			r := sfRun(t, dir, "-c", tc.world, "-seeds", "1-5", "-check", "-json")
			recs := jsonRecords(t, r)
			for _, rec := range recs[1 : len(recs)-1] {
				if rec["status"] == "nondeterministic" {
					t.Errorf("seed %v is nondeterministic: %v", rec["seed"], rec["message"])
				} else if tc.wantStatus == "pass" && rec["status"] != "pass" {
					t.Errorf("seed %v: status %v (%v), want pass", rec["seed"], rec["status"], rec["message"])
				}
			}
			if sum := recs[len(recs)-1]; sum["nondeterministic"] != float64(0) {
				t.Errorf("summary counts %v nondeterministic seeds", sum["nondeterministic"])
			}
			r.WantExit(t, tc.wantExit)
			// The report says that -check found every seed deterministic
			// (issue 29); with -json it is on stderr.
			if want := "\ndeterministic: each of the 5 seeds ran twice alike (the same determinism hash, host calls and trace)\n"; !strings.Contains(r.Stderr, want) {
				t.Errorf("the report lacks %q\n%s", want, r)
			}
		})
	}
	r := sfRun(t, dir, "-c", "seedfall.fixed.json", "-seed", "2", "-check")
	r.WantExitClean(t, 0)
	if want := " host calls\ndeterministic: the seed ran twice alike (the same determinism hash, host calls and trace)\n"; !strings.Contains(r.Stdout, want) {
		t.Errorf("a -check replay lacks %q\n%s", want, r)
	}
}

// TestKvlogJSON: -json writes only JSONL on stdout, with every field the
// issue lists, and -j 1 and -j 2 give the same records apart from real time.
func TestKvlogJSON(t *testing.T) {
	dir := kvlogDir(t)
	var runs [2][]map[string]any
	for i, jobs := range []string{"1", "2"} {
		r := sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1-5", "-json", "-j", jobs)
		r.WantExit(t, 1)
		if !strings.Contains(r.Stderr, "FAIL seed ") {
			t.Errorf("-json: the human report should go to stderr\n%s", r)
		}
		recs := jsonRecords(t, r)
		if len(recs) != 7 {
			t.Fatalf("-j %s: %d records, want start, 5 seeds, summary\n%s", jobs, len(recs), r)
		}
		for k, rec := range recs[1:6] {
			if rec["seed"] != float64(k+1) {
				t.Errorf("-j %s: record %d is seed %v, want %d (records follow the seed order)", jobs, k+2, rec["seed"], k+1)
			}
			fields := []string{"kind", "seed", "status", "at_ns", "steps", "host_calls", "real_ns", "determinism_hash", "repro"}
			if rec["status"] == "fail" {
				fields = append(fields, "class", "message", "node", "artifacts")
			}
			for _, f := range fields {
				if _, ok := rec[f]; !ok {
					t.Errorf("-j %s: seed %v record lacks %q: %v", jobs, rec["seed"], f, rec)
				}
			}
			if h, _ := rec["determinism_hash"].(string); !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(h) {
				t.Errorf("-j %s: seed %v: determinism_hash %q is not 16 hex digits", jobs, rec["seed"], h)
			}
			if want := fmt.Sprintf("sf-run -c seedfall.json -seed %v", rec["seed"]); rec["repro"] != want {
				t.Errorf("-j %s: repro %q, want %q", jobs, rec["repro"], want)
			}
		}
		if recs[0]["jobs"] != float64(i+1) {
			t.Errorf("-j %s: start record says jobs %v", jobs, recs[0]["jobs"])
		}
		runs[i] = recs
	}
	for k := range runs[0] {
		a, b := runs[0][k], runs[1][k]
		if a["kind"] == "seed" && a["determinism_hash"] != b["determinism_hash"] {
			t.Errorf("seed %v: determinism_hash %v with -j 1, %v with -j 2", a["seed"], a["determinism_hash"], b["determinism_hash"])
		}
		for _, m := range []map[string]any{a, b} {
			delete(m, "real_ns")
			delete(m, "determinism_hash")
			if m["kind"] == "start" {
				delete(m, "jobs")
			}
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Errorf("record %d differs between -j 1 and -j 2 (real_ns, jobs and determinism_hash aside):\n-j 1: %s\n-j 2: %s", k+1, ja, jb)
		}
	}
}

// TestReplaySameSeedTwice: two separate runs of one seed print the same
// bytes once the real time is masked.
func TestReplaySameSeedTwice(t *testing.T) {
	dir := kvlogDir(t)
	for _, tc := range []struct{ world, seed string }{
		{"seedfall.json", "3"},
		{"seedfall.fixed.json", "3"},
	} {
		t.Run(tc.world, func(t *testing.T) {
			var outs [2]string
			for i := range outs {
				r := sfRun(t, dir, "-c", tc.world, "-seed", tc.seed)
				if r.Code != 0 && r.Code != 1 {
					t.Fatalf("exit status %d\n%s", r.Code, r)
				}
				outs[i] = realTimeRE.ReplaceAllString(r.Stdout, ", NNms real)")
			}
			if outs[0] != outs[1] {
				t.Errorf("two runs of seed %s differ:\n%s", tc.seed, firstDiff(outs[0], outs[1]))
			}
		})
	}
}

// firstDiff describes the first line where a and b differ.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < min(len(la), len(lb)); i++ {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n  first:  %q\n  second: %q", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("one output has %d lines, the other %d", len(la), len(lb))
}

// TestUsageErrors: bad flags exit 2 with a clear message on stderr, nothing
// on stdout and no stack trace, before any world is loaded. It calls run
// in-process.
func TestUsageErrors(t *testing.T) {
	dir := kvlogDir(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"reversed range", []string{"-seeds", "5-1"}, `-seeds: seed list "5-1": range "5-1" is reversed`},
		{"seed not a number", []string{"-seed", "x"}, `-seed: "x" is not a seed`},
		{"seed and seeds", []string{"-seed", "1", "-seeds", "1-2"}, "give -seed or -seeds, not both"},
		{"faults without seed", []string{"-faults", "f.json"}, "-faults needs -seed N"},
		{"zero jobs", []string{"-seeds", "1", "-j", "0"}, "-j must be at least 1"},
		{"stray argument", []string{"-seeds", "1", "extra"}, `unexpected argument "extra"`},
		{"unknown flag", []string{"-sedes", "1"}, "unknown flag -sedes: did you mean -seeds?"},
		{"missing world file", []string{"-c", "nosuch.json", "-seeds", "1"}, "nosuch.json: no such file or directory"},
		{"empty seeds", []string{"-seeds", ""}, "sf-run: -seeds is empty: give seeds such as 1-100, 7 or 1-5,9 (see sf-run -h)\n"},
		{"blank seeds", []string{"-seeds", " "}, "sf-run: -seeds is empty: give seeds such as 1-100, 7 or 1-5,9 (see sf-run -h)\n"},
		{"negative history timeout", []string{"-seeds", "1", "-history-timeout", "-1s"},
			"sf-run: -history-timeout -1s: must be more than 0, since checking a history may take exponential time (see sf-run -h)\n"},
		{"zero history timeout", []string{"-seeds", "1", "-history-timeout", "0s"},
			"sf-run: -history-timeout 0s: must be more than 0, since checking a history may take exponential time (see sf-run -h)\n"},
		{"unknown flag, exactly", []string{"-sedes", "1"}, "sf-run: unknown flag -sedes: did you mean -seeds? (see sf-run -h)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(dir)
			args := append([]string{"sf-run", "-c", "seedfall.json"}, tc.args...)
			r := clitest.Run(t, run, "", args...)
			if strings.HasSuffix(tc.want, "\n") {
				r.Want(t, 2, tc.want)
			} else if r.Code != 2 || !strings.Contains(r.Stderr, tc.want) {
				t.Errorf("want exit status 2 and %q on stderr\n%s", tc.want, r)
			}
			if r.Stdout != "" {
				t.Errorf("a usage error wrote on stdout\n%s", r)
			}
			r.NoStackTrace(t)
		})
	}
}

// TestErrorsNameTheTool: an error message starts with the tool's name, as
// main.go means it to ("sf-run: ..."), so that in a script's log it is clear
// which command complained.
func TestErrorsNameTheTool(t *testing.T) {
	dir := kvlogDir(t)
	for _, tc := range []struct {
		bin  string
		args []string
	}{
		{tools.Path("sf-run"), []string{"-c", "seedfall.json", "-seeds", "5-1"}},
		{tools.Path("sf-run"), []string{"-c", "nosuch.json", "-seeds", "1"}},
		{tools.Path("sf-build"), []string{"-c", "nosuch.json"}},
		{tools.Path("sf-build"), []string{"-c", "seedfall.json", "extra"}},
	} {
		r := runBin(t, clitest.Cmd{Dir: dir}, tc.bin, tc.args...)
		r.WantExit(t, 2)
		name := filepath.Base(tc.bin) + ": "
		if !strings.HasPrefix(r.Stderr, name) {
			t.Errorf("stderr does not start with %q\n%s", name, r)
		}
	}
}

// TestSfBuildCache: sf-build prints a manifest; a second build is a cache
// hit.
func TestSfBuildCache(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := t.TempDir()
	clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", "kvlog", "seedfall.json"), filepath.Join(dir, "seedfall.json"))
	type manifest struct {
		Modules []struct {
			Node, Wasm, SHA256 string
			Cached             bool
		}
	}
	var mans [2]manifest
	for i := range mans {
		r := runBin(t, clitest.Cmd{Dir: dir}, tools.Path("sf-build"), "-c", "seedfall.json")
		r.WantExit(t, 0)
		if err := json.Unmarshal([]byte(r.Stdout), &mans[i]); err != nil {
			t.Fatalf("stdout is not the manifest: %v\n%s", err, r)
		}
		if len(mans[i].Modules) != 2 {
			t.Fatalf("manifest has %d modules, want server and client\n%s", len(mans[i].Modules), r)
		}
	}
	for i, m := range mans[1].Modules {
		if !m.Cached || m.SHA256 != mans[0].Modules[i].SHA256 {
			t.Errorf("second build of %s: cached %v, sha256 %s then %s", m.Node, m.Cached, mans[0].Modules[i].SHA256, m.SHA256)
		}
		if _, err := os.Stat(m.Wasm); err != nil {
			t.Errorf("module of %s: %v", m.Node, err)
		}
	}
}

// artifact is the path of a seed artifact that sf-run wrote in dir: sweeps
// write them under .seedfall/<world>/, so it looks in every world's folder
// and takes the newest match. When there is none it returns a path that
// does not exist.
func artifact(t *testing.T, dir, name string) string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(dir, ".seedfall", "*", name))
	best, bestTime := filepath.Join(dir, ".seedfall", "no-world", name), time.Time{}
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && fi.ModTime().After(bestTime) {
			best, bestTime = m, fi.ModTime()
		}
	}
	return best
}
