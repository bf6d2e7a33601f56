package main

// CLI scenario tests: they build the real sf-shrink, sf-run and sf-faults
// once per test process and run them as a user would, on copies of the
// example worlds in temporary directories, so nothing is written into the
// repository. The pipelines run through bash exactly as they are typed.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var tools struct {
	root     string // the repository root
	bin      string // the directory of the built tools
	sfShrink string
	sfRun    string
	sfFaults string
	skip     string // why the CLI tests cannot run, when they cannot
}

const cmdTimeout = 5 * time.Minute

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err == nil {
		_, err = os.Stat(filepath.Join(root, "go.mod"))
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "sf-shrink tests: cannot find the repository root: %v\n", err)
		return 1
	}
	tools.root = root
	goCmd, err := exec.LookPath("go")
	if err != nil {
		tools.skip = "no Go toolchain on PATH: the CLI tests build the tools, and sf-run builds the guests, with `go`"
		return m.Run()
	}
	if _, err := exec.LookPath("bash"); err != nil {
		tools.skip = "no bash on PATH: the tests run pipelines and replay lines as a user types them"
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "sf-shrink-test-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "sf-shrink tests: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	tools.bin = filepath.Join(dir, "bin")
	tools.sfShrink = filepath.Join(tools.bin, "sf-shrink")
	tools.sfRun = filepath.Join(tools.bin, "sf-run")
	tools.sfFaults = filepath.Join(tools.bin, "sf-faults")
	for out, pkg := range map[string]string{tools.sfShrink: "./cmd/sf-shrink", tools.sfRun: "./cmd/sf-run", tools.sfFaults: "./cmd/sf-faults"} {
		cmd := exec.Command(goCmd, "build", "-o", out, pkg)
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "sf-shrink tests: go build %s: %v\n%s", pkg, err, b)
			return 1
		}
	}
	return m.Run()
}

type result struct {
	code           int
	stdout, stderr string
	cmdline        string
}

func (r result) String() string {
	return fmt.Sprintf("$ %s\nexit status %d\nstdout:\n%s\nstderr:\n%s", r.cmdline, r.code, tail(r.stdout, 30), tail(r.stderr, 30))
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("... (%d lines before)", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// wantExit fails the test unless the command exited with code and printed
// no Go stack trace.
func (r result) wantExit(t *testing.T, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit status %d, want %d\n%s", r.code, code, r)
	}
	for _, s := range []string{r.stdout, r.stderr} {
		if strings.Contains(s, "goroutine ") || strings.Contains(s, "panic:") {
			t.Fatalf("output holds a Go stack trace or panic:\n%s", r)
		}
	}
}

// run runs argv in dir with stdin, the tools first on PATH.
func runBin(t *testing.T, dir, stdin string, argv ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = append(os.Environ(), "PATH="+tools.bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String(), cmdline: strings.Join(argv, " ")}
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish in %s\n%s", r.cmdline, cmdTimeout, r)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("%s: %v", r.cmdline, err)
	}
	return r
}

// shell runs a command line with bash, as a user would type it.
func shell(t *testing.T, dir, line string) result {
	t.Helper()
	r := runBin(t, dir, "", "bash", "-c", line)
	r.cmdline = line
	return r
}

func sfShrink(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	return runBin(t, dir, stdin, append([]string{tools.sfShrink}, args...)...)
}

func sfRun(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return runBin(t, dir, "", append([]string{tools.sfRun}, args...)...)
}

// copyWorld copies a world file of the repository to dst with every pkg and
// wasm (of the nodes, the workload and the finally check) made absolute.
func copyWorld(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var w map[string]any
	if err := json.Unmarshal(data, &w); err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	abs := func(n any) {
		node, ok := n.(map[string]any)
		if !ok {
			return
		}
		for _, k := range []string{"pkg", "wasm"} {
			if p, ok := node[k].(string); ok && !filepath.IsAbs(p) {
				node[k] = filepath.Join(filepath.Dir(src), p)
			}
		}
	}
	if nodes, ok := w["nodes"].([]any); ok {
		for _, n := range nodes {
			abs(n)
		}
	}
	abs(w["workload"])
	abs(w["finally"])
	writeJSON(t, dst, w)
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// exampleDir copies worlds of examples/<name> into a new temporary
// directory and returns it.
func exampleDir(t *testing.T, name string, worlds ...string) string {
	t.Helper()
	if tools.skip != "" {
		t.Skip(tools.skip)
	}
	dir := t.TempDir()
	for _, w := range worlds {
		copyWorld(t, filepath.Join(tools.root, "examples", name, w), filepath.Join(dir, w))
	}
	return dir
}

var kvlogOnce struct {
	sync.Once
	dir string
}

// kvlogDir returns a directory holding copies of kvlog's seedfall.json and
// seedfall.fixed.json, shared by the tests so the example is built and
// compiled once. The tests do not run in parallel, and each shrinks seeds
// of its own, or reads the schedules it needs before another test runs.
func kvlogDir(t *testing.T) string {
	t.Helper()
	if tools.skip != "" {
		t.Skip(tools.skip)
	}
	kvlogOnce.Do(func() {
		dir := filepath.Join(filepath.Dir(tools.bin), "kvlog")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, w := range []string{"seedfall.json", "seedfall.fixed.json"} {
			copyWorld(t, filepath.Join(tools.root, "examples", "kvlog", w), filepath.Join(dir, w))
		}
		kvlogOnce.dir = dir
	})
	if kvlogOnce.dir == "" {
		t.Fatal("could not set up the kvlog worlds")
	}
	return kvlogOnce.dir
}

// records parses a JSONL stream: a start record first, a summary last.
func records(t *testing.T, r result) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for i, line := range strings.Split(strings.TrimRight(r.stdout, "\n"), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("stdout line %d is not a JSON object (%v): %q\n%s", i+1, err, line, r)
		}
		recs = append(recs, rec)
	}
	if len(recs) < 2 || recs[0]["kind"] != "start" || recs[len(recs)-1]["kind"] != "summary" {
		t.Fatalf("want a start record first and a summary last\n%s", r)
	}
	return recs
}

// shrinkRecords checks a sf-shrink -json stream and returns its shrink
// records.
func shrinkRecords(t *testing.T, r result) []map[string]any {
	t.Helper()
	recs := records(t, r)
	if recs[0]["tool"] != "sf-shrink" {
		t.Errorf("start record of tool %v, want sf-shrink", recs[0]["tool"])
	}
	sum := recs[len(recs)-1]
	if sum["tool"] != "sf-shrink" {
		t.Errorf("summary of tool %v, want sf-shrink: %v", sum["tool"], sum)
	}
	var out []map[string]any
	for _, rec := range recs[1 : len(recs)-1] {
		if rec["kind"] != "shrink" {
			t.Errorf("record of kind %v between start and summary, want shrink: %v", rec["kind"], rec)
			continue
		}
		if e, ok := rec["error"]; ok {
			t.Errorf("seed %v could not be shrunk: %v", rec["seed"], e)
			continue
		}
		out = append(out, rec)
	}
	if n, _ := sum["shrunk"].(float64); int(n) != len(out) {
		t.Errorf("summary says %v shrunk, the stream holds %d shrink records", sum["shrunk"], len(out))
	}
	if len(out) > 0 && sum["status"] != "shrunk" {
		t.Errorf("summary status %v, want shrunk", sum["status"])
	}
	return out
}

var instanceRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+#\d+: `)

// messageHead is what makes two failures the same: the message without its
// node instance prefix, up to its first ": ".
func messageHead(msg string) string {
	msg = instanceRE.ReplaceAllString(msg, "")
	head, _, _ := strings.Cut(msg, ": ")
	return head
}

var failHeaderRE = regexp.MustCompile(`(?m)^FAIL seed (\d+) at t=\S+ \(\d+ scheduler steps, \d+ms real\)\n  (.*)$`)

// checkShrunk checks one shrink record: its schedule file exists and holds
// shrunk_from and shrink_runs, and its repro line, run by bash, fails the
// same way. It returns the schedule.
func checkShrunk(t *testing.T, dir string, rec map[string]any, maxFaults int) map[string]any {
	t.Helper()
	seed := rec["seed"]
	after, _ := rec["faults_after"].(float64)
	if after < 0 || int(after) > maxFaults {
		t.Errorf("seed %v: faults_after %v, want 0 to %d", seed, rec["faults_after"], maxFaults)
	}
	path, _ := rec["schedule"].(string)
	if path == "" {
		t.Fatalf("seed %v: no schedule path: %v", seed, rec)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	sched := readJSON(t, path)
	if sched["shrunk_from"] != rec["faults_before"] || sched["shrink_runs"] != rec["shrink_runs"] {
		t.Errorf("seed %v: schedule has shrunk_from %v and shrink_runs %v, the record faults_before %v and shrink_runs %v",
			seed, sched["shrunk_from"], sched["shrink_runs"], rec["faults_before"], rec["shrink_runs"])
	}
	if faults, _ := sched["faults"].([]any); len(faults) != int(after) {
		t.Errorf("seed %v: schedule holds %d faults, the record says %v", seed, len(faults), after)
	}
	if sched["seed"] != seed {
		t.Errorf("schedule of seed %v says seed %v", seed, sched["seed"])
	}
	repro, _ := rec["repro"].(string)
	if !strings.Contains(repro, " -faults ") {
		t.Errorf("seed %v: repro %q does not replay the schedule", seed, repro)
	}
	r := shell(t, dir, repro)
	r.wantExit(t, 1)
	m := failHeaderRE.FindStringSubmatch(r.stdout)
	if m == nil || m[1] != fmt.Sprint(seed) {
		t.Fatalf("seed %v: the replay prints no FAIL header of the seed\n%s", seed, r)
	}
	want, _ := rec["message"].(string)
	if got := messageHead(m[2]); got != messageHead(want) {
		t.Errorf("seed %v: the replay fails with %q, the shrunk run with %q", seed, m[2], want)
	}
	rj := shell(t, dir, repro+" -json")
	rj.wantExit(t, 1)
	recs := records(t, rj)
	if got := recs[1]; got["class"] != rec["class"] || messageHead(fmt.Sprint(got["message"])) != messageHead(want) {
		t.Errorf("seed %v: the replay fails with class %v %q, the shrunk run with class %v %q", seed, got["class"], got["message"], rec["class"], want)
	}
	return sched
}

// TestPipelineKvlog is the pipeline as a user types it: a sweep piped into
// sf-shrink. Every failing seed of kvlog loses a write to one crash of the
// server, so each shrinks to a crash or few.
func TestPipelineKvlog(t *testing.T) {
	dir := kvlogDir(t)
	max := "10"
	if testing.Short() {
		max = "3"
	}
	line := fmt.Sprintf("%s -c seedfall.json -seeds 1-50 -json | %s -json -max %s", tools.sfRun, tools.sfShrink, max)
	r := shell(t, dir, line)
	r.wantExit(t, 1)
	shrunk := shrinkRecords(t, r)
	if n, _ := strconv.Atoi(max); len(shrunk) != n {
		t.Fatalf("%d shrink records, want -max %s (most of seeds 1-50 fail)\n%s", len(shrunk), max, r)
	}
	for _, rec := range shrunk {
		if rec["class"] != "assert" || !strings.Contains(fmt.Sprint(rec["message"]), "acknowledged write lost") {
			t.Errorf("seed %v shrunk to %v %v, want the lost write", rec["seed"], rec["class"], rec["message"])
		}
		if after, _ := rec["faults_after"].(float64); after < 1 {
			t.Errorf("seed %v shrunk to no faults; the lost write needs a crash", rec["seed"])
		}
		checkShrunk(t, dir, rec, 3)
	}
	if !strings.Contains(r.stderr, "failing seeds not shrunk (past -max "+max) {
		t.Errorf("stderr does not count the seeds past -max\n%s", r)
	}
}

// TestPipelineExamples runs the pipeline on the other examples with planted
// bugs.
func TestPipelineExamples(t *testing.T) {
	seeds, max := "1-20", "3"
	if testing.Short() {
		seeds, max = "1-5", "2"
	}
	for _, tc := range []struct {
		example string
		check   func(t *testing.T, rec, sched map[string]any)
	}{
		{"buggify", func(t *testing.T, rec, sched map[string]any) {
			// The bug needs the buggify site that loses a reply after applying
			// it, and nothing else.
			faults, _ := sched["faults"].([]any)
			if len(faults) != 1 {
				t.Fatalf("seed %v: %d faults, want the one buggify firing: %v", rec["seed"], len(faults), faults)
			}
			if f := faults[0].(map[string]any); f["kind"] != "buggify" || f["site"] == nil {
				t.Errorf("seed %v: shrunk to %v, want a buggify fault with its site", rec["seed"], f)
			}
		}},
		{"liveness", func(t *testing.T, rec, sched map[string]any) {
			if rec["class"] != "liveness" || rec["node"] != "client" {
				t.Errorf("seed %v: class %v node %v, want liveness of client", rec["seed"], rec["class"], rec["node"])
			}
		}},
		{"symswap", func(t *testing.T, rec, sched map[string]any) {
			if rec["class"] != "assert" || !strings.Contains(fmt.Sprint(rec["message"]), "current points at") {
				t.Errorf("seed %v: shrunk to %v %v, want the torn current pointer", rec["seed"], rec["class"], rec["message"])
			}
		}},
	} {
		t.Run(tc.example, func(t *testing.T) {
			dir := exampleDir(t, tc.example, "seedfall.json")
			max := max
			if testing.Short() && tc.example == "liveness" {
				max = "1" // each replay runs the 10s recovery phase to its end
			}
			line := fmt.Sprintf("%s -c seedfall.json -seeds %s -json | %s -json -max %s", tools.sfRun, seeds, tools.sfShrink, max)
			r := shell(t, dir, line)
			r.wantExit(t, 1)
			shrunk := shrinkRecords(t, r)
			if len(shrunk) == 0 {
				t.Fatalf("nothing shrunk\n%s", r)
			}
			for _, rec := range shrunk {
				sched := checkShrunk(t, dir, rec, 3)
				tc.check(t, rec, sched)
			}
		})
	}
}

// TestSeedMode shrinks one seed given with -c and -seed, and one from a
// hand-edited schedule with -faults.
func TestSeedMode(t *testing.T) {
	dir := kvlogDir(t)
	r := sfShrink(t, dir, "", "-c", "seedfall.json", "-seed", "1", "-json")
	r.wantExit(t, 1)
	shrunk := shrinkRecords(t, r)
	if len(shrunk) != 1 || shrunk[0]["seed"] != float64(1) {
		t.Fatalf("want one shrink record of seed 1\n%s", r)
	}
	checkShrunk(t, dir, shrunk[0], 1)
	if want := "seed 1: 1 fault -> 1 in "; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q\n%s", want, r)
	}

	// A hand-edited schedule: seed 1's own crash plus two more that the
	// failure does not need (a pause of the client long after the loss, and
	// an early crash), written as a user would.
	edited := filepath.Join(dir, "edited.faults.json")
	writeFile(t, edited, `{
  "seed": 1,
  "faults": [
    {"at": "100ms", "kind": "crash", "node": "server", "until": "150ms"},
    {"at": "3.112882207s", "kind": "crash", "node": "server", "until": "3.589058928s"},
    {"at": "3.6s", "kind": "pause", "node": "client", "until": "3.7s"}
  ]
}
`)
	r = sfShrink(t, dir, "", "-c", "seedfall.json", "-seed", "1", "-faults", "edited.faults.json", "-json")
	r.wantExit(t, 1)
	shrunk = shrinkRecords(t, r)
	if len(shrunk) != 1 {
		t.Fatalf("want one shrink record\n%s", r)
	}
	rec := shrunk[0]
	if rec["faults_before"] != float64(3) {
		t.Errorf("faults_before %v, want the 3 of the edited schedule", rec["faults_before"])
	}
	// Either crash alone loses a write; the pause is never needed.
	sched := checkShrunk(t, dir, rec, 1)
	faults, _ := sched["faults"].([]any)
	if len(faults) != 1 || faults[0].(map[string]any)["kind"] != "crash" {
		t.Errorf("shrunk to %v, want one of the crashes alone", faults)
	}
	if b, err := os.ReadFile(edited); err != nil || !strings.Contains(string(b), `"100ms"`) {
		t.Errorf("sf-shrink changed the schedule it started from: %s %v", b, err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestProfileAndSetCarried: -profile and -set go into the written schedule
// and the replay line, and that line reproduces the failure.
func TestProfileAndSetCarried(t *testing.T) {
	dir := kvlogDir(t)
	w := readJSON(t, filepath.Join(dir, "seedfall.json"))
	w["profiles"] = map[string]any{"hard": map[string]any{"faults": map[string]any{"crash_per_sec": 1}}}
	writeJSON(t, filepath.Join(dir, "profiled.json"), w)
	for _, tc := range []struct {
		name, world string
		args        []string
		wantRepro   string
	}{
		{"set", "seedfall.json", []string{"-set", "faults.crash_per_sec=1"}, " -set faults.crash_per_sec=1 "},
		{"profile", "profiled.json", []string{"-profile", "hard"}, " -profile hard "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"-c", tc.world, "-seed", "2", "-json"}, tc.args...)
			r := sfShrink(t, dir, "", args...)
			r.wantExit(t, 1)
			shrunk := shrinkRecords(t, r)
			if len(shrunk) != 1 {
				t.Fatalf("want one shrink record\n%s", r)
			}
			rec := shrunk[0]
			if repro := fmt.Sprint(rec["repro"]); !strings.Contains(repro, tc.wantRepro) {
				t.Errorf("repro %q lacks %q", repro, tc.wantRepro)
			}
			if !strings.Contains(r.stderr, "replay: ") || !strings.Contains(r.stderr, tc.wantRepro) {
				t.Errorf("the report's replay line lacks %q\n%s", tc.wantRepro, r)
			}
			sched := checkShrunk(t, dir, rec, 3)
			switch tc.name {
			case "set":
				if set, _ := sched["set"].([]any); len(set) != 1 || set[0] != "faults.crash_per_sec=1" {
					t.Errorf("the schedule's set is %v, want [faults.crash_per_sec=1]", sched["set"])
				}
				if set, _ := rec["set"].([]any); len(set) != 1 || set[0] != "faults.crash_per_sec=1" {
					t.Errorf("the record's set is %v", rec["set"])
				}
			case "profile":
				if sched["profile"] != "hard" || rec["profile"] != "hard" {
					t.Errorf("profile %v in the schedule, %v in the record, want hard", sched["profile"], rec["profile"])
				}
			}
			if sched["config"] != tc.world {
				t.Errorf("the schedule's config is %v, want %s", sched["config"], tc.world)
			}
		})
	}
}

// TestJobsDoNotChangeTheSchedule: -j 1 and -j 2 write the same bytes.
func TestJobsDoNotChangeTheSchedule(t *testing.T) {
	dir := kvlogDir(t)
	var got [2][]byte
	var runs [2]string
	for i, j := range []string{"1", "2"} {
		r := sfShrink(t, dir, "", "-c", "seedfall.json", "-seed", "3", "-j", j, "-json")
		r.wantExit(t, 1)
		shrunk := shrinkRecords(t, r)
		if len(shrunk) != 1 {
			t.Fatalf("want one shrink record\n%s", r)
		}
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprint(shrunk[0]["schedule"])))
		if err != nil {
			t.Fatal(err)
		}
		got[i], runs[i] = b, fmt.Sprint(shrunk[0]["shrink_runs"])
	}
	if !bytes.Equal(got[0], got[1]) {
		t.Errorf("the shrunk schedule differs between -j 1 and -j 2:\n-j 1:\n%s\n-j 2:\n%s", got[0], got[1])
	}
	if runs[0] != runs[1] {
		t.Errorf("shrink_runs %s with -j 1, %s with -j 2", runs[0], runs[1])
	}
}

var budgetRE = regexp.MustCompile(`client#1: sim\.Budget capped at (\d+) of 200 operations`)

// TestBudget: kvlog's client calls sim.Budget, so the shrunk schedule caps
// its writes, sf-shrink says so, and the replay applies the same cap. The
// schedule with its fault removed (sf-faults -remove 1) passes, and the
// replay says what such a pass means.
func TestBudget(t *testing.T) {
	dir := kvlogDir(t)
	r := sfShrink(t, dir, "", "-c", "seedfall.json", "-seed", "2", "-json")
	r.wantExit(t, 1)
	shrunk := shrinkRecords(t, r)
	if len(shrunk) != 1 {
		t.Fatalf("want one shrink record\n%s", r)
	}
	rec := shrunk[0]
	budget, _ := rec["budget"].(float64)
	if budget <= 0 || budget >= 200 {
		t.Fatalf("budget %v, want a cap below the client's 200 writes", rec["budget"])
	}
	want := fmt.Sprintf("client#1: sim.Budget capped at %d of 200 operations", int(budget))
	if !strings.Contains(r.stderr, "  "+want+"\n") {
		t.Errorf("stderr lacks %q\n%s", want, r)
	}
	sched := readJSON(t, filepath.Join(dir, fmt.Sprint(rec["schedule"])))
	if sched["budget"] != rec["budget"] {
		t.Errorf("the schedule's budget is %v, the record's %v", sched["budget"], rec["budget"])
	}
	rep := shell(t, dir, fmt.Sprint(rec["repro"]))
	rep.wantExit(t, 1)
	if m := budgetRE.FindStringSubmatch(rep.stdout); m == nil || m[0] != want {
		t.Errorf("the replay's trace lacks %q\n%s", want, rep)
	}
	if rec["faults_after"] != float64(1) {
		t.Fatalf("want seed 2 shrunk to one fault: %v", rec)
	}

	// With its one fault removed the shrunk schedule passes: the client
	// finishes its capped writes before the schedule's duration. The replay
	// says that this shows a missing fault, not a fix.
	f := runBin(t, dir, "", tools.sfFaults, "-c", "seedfall.json", "-seed", "2", "-faults", fmt.Sprint(rec["schedule"]), "-remove", "1", "-out", "x.json")
	f.wantExit(t, 0)
	x := readJSON(t, filepath.Join(dir, "x.json"))
	if faults, _ := x["faults"].([]any); len(faults) != 0 || x["duration"] != sched["duration"] || x["budget"] != sched["budget"] {
		t.Fatalf("x.json: %v, want no faults and the shrunk duration and budget", x)
	}
	pass := sfRun(t, dir, "-c", "seedfall.json", "-seed", "2", "-faults", "x.json")
	pass.wantExit(t, 0)
	for _, want := range []string{
		"ok  seed 2 passed within the schedule's duration at t=",
		"\nnote: this replay passed, but ",
		"A pass within it shows that a fault it needs is missing, not that the bug is fixed",
		want,
	} {
		if !strings.Contains(pass.stdout, want) {
			t.Errorf("the passing replay lacks %q\n%s", want, pass)
		}
	}
	if strings.Contains(pass.stdout, "FAIL") {
		t.Errorf("the replay without the crash failed\n%s", pass)
	}
}

// TestErrors: empty and malformed streams, a passing seed, flags that need
// -seed, and a stream of passing seeds.
func TestErrors(t *testing.T) {
	dir := kvlogDir(t)
	passing := sfRun(t, dir, "-c", "seedfall.fixed.json", "-seeds", "1-3", "-json")
	passing.wantExit(t, 0)
	writeFile(t, filepath.Join(dir, "passing.jsonl"), passing.stdout)
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"empty stream", "", nil, 2, "sf-shrink: <stdin>: no records: pipe sf-run -json into sf-shrink, or give -c and -seed"},
		{"empty file", "", []string{"empty.jsonl"}, 2, "sf-shrink: empty.jsonl: no records"},
		{"malformed line", "{\"kind\":\"start\"}\nnot json\n", nil, 2, "sf-shrink: <stdin>:2: not a JSON record"},
		{"passing seed", "", []string{"-c", "seedfall.fixed.json", "-seed", "1"}, 2, "nothing to shrink"},
		{"-c without -seed", "", []string{"-c", "seedfall.json"}, 2, "-c needs -seed N; reading records, the world comes from them"},
		{"-faults without -seed", "", []string{"-faults", "x.json"}, 2, "-faults needs -seed N"},
		{"only passing seeds", passing.stdout, nil, 0, "sf-shrink: no failing seeds to shrink"},
		{"passing seeds in a file", "", []string{"passing.jsonl"}, 0, "sf-shrink: no failing seeds to shrink"},
		{"missing file", "", []string{"nosuch.jsonl"}, 2, "nosuch.jsonl: no such file or directory"},
		{"zero max", "", []string{"-max", "0"}, 2, "-max must be at least 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeFile(t, filepath.Join(dir, "empty.jsonl"), "")
			r := sfShrink(t, dir, tc.stdin, tc.args...)
			r.wantExit(t, tc.code)
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr lacks %q\n%s", tc.want, r)
			}
			if strings.Contains(r.stderr, "replay: ") {
				t.Errorf("nothing should have been shrunk\n%s", r)
			}
		})
	}
}

// TestRecordsFile: records given as a file argument are shrunk like a
// stream on stdin, and a seed already shrunk is taken once.
func TestRecordsFile(t *testing.T) {
	dir := kvlogDir(t)
	sweep := sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1-3", "-json")
	sweep.wantExit(t, 1)
	writeFile(t, filepath.Join(dir, "sweep.jsonl"), sweep.stdout)
	r := sfShrink(t, dir, "", "-max", "1", "-json", "sweep.jsonl", "sweep.jsonl")
	r.wantExit(t, 1)
	shrunk := shrinkRecords(t, r)
	if len(shrunk) != 1 {
		t.Fatalf("want one shrink record with -max 1\n%s", r)
	}
	checkShrunk(t, dir, shrunk[0], 3)
	// Seeds 1-3 all fail: two are past -max, counted once each although the
	// file is given twice.
	if !strings.Contains(r.stderr, "sf-shrink: 2 failing seeds not shrunk (past -max 1, or nondeterministic)") {
		t.Errorf("stderr does not count the 2 seeds past -max once each\n%s", r)
	}
}
