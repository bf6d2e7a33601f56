package main

// CLI scenario tests: they build sf-run and sf-report and run them as a
// user would, in a shell pipeline, on the kvlog example copied into a
// temporary directory.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// tools are sf-run, sf-report and sf-shrink, built once per test process.
var tools clitest.Tools

func TestMain(m *testing.M) { os.Exit(tools.Main(m, "sf-run", "sf-report", "sf-shrink")) }

// world copies examples/kvlog's worlds, seedfall.json (the planted bug) and
// seedfall.fixed.json, into a new folder, and returns the folder.
func world(t *testing.T) string {
	t.Helper()
	return tools.FreshExample(t, "kvlog", "seedfall.json", "seedfall.fixed.json")
}

type result = clitest.Result

// shell runs a command line with bash in dir, the tools first on PATH; a
// pipeline fails when any of its commands does.
func shell(t *testing.T, dir, line string) result {
	t.Helper()
	return clitest.Shell(t, clitest.Cmd{Dir: dir, Env: []string{tools.OnPath(), "SOURCE_DATE_EPOCH=1767225600"}, Pipefail: true}, line)
}

// TestPipeline runs the pipeline as written: sf-run's stdout is a
// pipe, so it writes records, and sf-report reads them.
func TestPipeline(t *testing.T) {
	t.Parallel()
	dir := world(t)
	r := shell(t, dir, "sf-run -seeds 1-6 | sf-report -html r.html -md r.md")
	// pipefail: sf-run's status 1 (seeds failed) is the pipeline's.
	if r.Code != 1 || !strings.Contains(r.Stdout, "findings (1):") || !strings.Contains(r.Stdout, "assert · acknowledged write lost  [new]") {
		t.Fatalf("the pipeline did not report the planted bug:\n%s", r)
	}
	// The human report still reached stderr.
	if !strings.Contains(r.Stderr, "FAIL seed 1 at t=") {
		t.Errorf("sf-run's report did not reach stderr:\n%s", r)
	}
	for _, f := range []string{"r.html", "r.md", ".seedfall/findings.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	page, _ := os.ReadFile(filepath.Join(dir, "r.html"))
	if regexp.MustCompile(`(src|href)="https?:`).Match(page) {
		t.Errorf("the page links out")
	}
	// Run again: the finding is ongoing.
	r = shell(t, dir, "sf-run -seeds 1-6 | sf-report")
	if !strings.Contains(r.Stdout, "[ongoing, first seen 2026-01-01T00:00:00Z]") {
		t.Errorf("second run:\n%s", r)
	}
	// -json=false keeps the report on a pipe, and sf-report says what it got.
	r = shell(t, dir, "sf-run -seeds 1-2 -json=false | sf-report -findings ''")
	if r.Code != 2 || !strings.Contains(r.Stderr, "sf-report: <stdin>:1: not a JSON record (this is sf-run's report for people") {
		t.Errorf("human text into sf-report:\n%s", r)
	}
}

// TestCausePipeline: the cause records of sf-shrink -cause -json join the
// sweep's finding of their seed, in the text report and as a chart and
// table in the HTML page.
func TestCausePipeline(t *testing.T) {
	t.Parallel()
	dir := world(t)
	r := shell(t, dir, "sf-run -seeds 10 -json > run.jsonl; sf-shrink -c seedfall.json -seed 10 -cause -cause-moments 2 -cause-branches 2 -j 2 -json > cause.jsonl 2>/dev/null; "+
		"sf-report -findings '' -html r.html run.jsonl cause.jsonl")
	if r.Code != 1 || !strings.Contains(r.Stdout, "findings (1):") ||
		!regexp.MustCompile(`(?m)^    cause of seed 10 \(2 branches per moment\): (inevitable from|never inevitable)`).MatchString(r.Stdout) ||
		!regexp.MustCompile(`(?m)^ +0s +\d/2 +\d+%  [#.]{20}$`).MatchString(r.Stdout) {
		t.Fatalf("the report does not show seed 10's cause curve under its finding:\n%s", r)
	}
	page, err := os.ReadFile(filepath.Join(dir, "r.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `id="sweep-1-finding-1-cause-chart"`) || !strings.Contains(string(page), `<td>0s</td>`) {
		t.Errorf("the page has no cause chart and table for finding 1")
	}
}

// TestShards runs the kvlog sweep as 4 shards in parallel and checks that
// sf-report's merged report equals its report of the whole sweep, real
// times aside.
func TestShards(t *testing.T) {
	t.Parallel()
	dir := world(t)
	// Build once, so the five runs below do not race to build.
	if r := shell(t, dir, "sf-run -seeds 1 -json > /dev/null"); r.Code != 1 && r.Code != 0 {
		t.Fatalf("%s", r)
	}
	seeds := "1-40"
	if testing.Short() {
		seeds = "1-16"
	}
	var wg sync.WaitGroup
	results := make([]result, 5)
	for k := 0; k <= 4; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if k == 0 {
				results[0] = shell(t, dir, fmt.Sprintf("sf-run -seeds %s -j 1 -json > whole.jsonl", seeds))
				return
			}
			results[k] = shell(t, dir, fmt.Sprintf("sf-run -seeds %s -shard %d/4 -j 1 -json > shard-%d.jsonl", seeds, k, k))
		}()
	}
	wg.Wait()
	for _, r := range results {
		if r.Code != 1 {
			t.Fatalf("want exit 1 (the planted bug):\n%s", r)
		}
	}
	whole := shell(t, dir, "sf-report -findings '' -md whole.md whole.jsonl")
	merged := shell(t, dir, "sf-report -findings '' -md merged.md shard-3.jsonl shard-1.jsonl shard-4.jsonl shard-2.jsonl")
	if whole.Code != 1 || merged.Code != 1 {
		t.Fatalf("exit statuses %d and %d, want 1\n%s\n%s", whole.Code, merged.Code, whole, merged)
	}
	norm := func(s string) string {
		s = regexp.MustCompile(`(?m)^real time .*\n`).ReplaceAllString(s, "")
		s = regexp.MustCompile(` \(real time [^)]*\)`).ReplaceAllString(s, "")
		return strings.ReplaceAll(s, ", 4 shards", "")
	}
	if norm(whole.Stdout) != norm(merged.Stdout) {
		t.Errorf("merged report differs from the whole sweep's:\n--- whole\n%s\n--- merged\n%s", whole.Stdout, merged.Stdout)
	}
	wmd, _ := os.ReadFile(filepath.Join(dir, "whole.md"))
	mmd, _ := os.ReadFile(filepath.Join(dir, "merged.md"))
	if norm(string(wmd)) != norm(string(mmd)) {
		t.Errorf("merged Markdown differs:\n--- whole\n%s\n--- merged\n%s", wmd, mmd)
	}
	// A missing shard is named, and the report says the sweep is incomplete.
	part := shell(t, dir, "sf-report -findings '' shard-1.jsonl shard-2.jsonl shard-4.jsonl")
	if !strings.Contains(part.Stdout, "warning: missing shards: 3/4") {
		t.Errorf("missing shard not named:\n%s", part)
	}
	// Shards must be of one world.
	other := shell(t, dir, `sed 's/"config":"seedfall.json"/"config":"other.json"/' shard-2.jsonl > other-2.jsonl && sf-report -findings '' shard-1.jsonl other-2.jsonl`)
	if other.Code != 2 || !strings.Contains(other.Stderr, "shards of one sweep run one world") {
		t.Errorf("shards of two worlds:\n%s", other)
	}
}

// TestUsage pins what sf-report does with bad invocations and inputs.
func TestUsage(t *testing.T) {
	dir := world(t)
	for _, tc := range []struct{ line, stderr string }{
		{"sf-report < /dev/null", "sf-report: <stdin>: no records: pipe sf-run"},
		{"echo '{\"kind\":' > bad.jsonl && sf-report bad.jsonl", "sf-report: bad.jsonl:1: not a JSON record"},
		// Nested deeper than gjson's validator can recurse: an error, not a crash.
		{"head -c 8000000 /dev/zero | tr '\\0' '[' > deep.jsonl && sf-report deep.jsonl", "sf-report: deep.jsonl:1: not a JSON record"},
		{"sf-report missing.jsonl", "sf-report: open missing.jsonl: no such file or directory"},
		{"sf-report -md - -html - x", "sf-report: -md - and -html - cannot both write stdout (see sf-report -h)"},
		{"sf-report -nope x", "sf-report: unknown flag -nope (see sf-report -h)"},
		{"sf-run -seeds 1-3 -shard 5/4", "sf-run: -shard: \"5/4\": K must be between 1 and N, and N at least 1 (see sf-run -h)"},
		{"sf-run -seed 3 -shard 1/4", "sf-run: -shard slices a sweep (-seeds), not one seed (see sf-run -h)"},
	} {
		r := shell(t, dir, tc.line)
		if r.Code != 2 || !strings.Contains(r.Stderr, tc.stderr) {
			t.Errorf("want exit 2 and %q:\n%s", tc.stderr, r)
		}
	}
}

// TestDevStdout: flags may follow the files, and -md /dev/stdout with
// stdout redirected to a file puts the Markdown after the text report in
// that file rather than replacing the file.
func TestDevStdout(t *testing.T) {
	dir := t.TempDir()
	records := filepath.Join(tools.Root, "lib", "report", "testdata", "pins.jsonl")
	r := shell(t, dir, "sf-report -findings '' "+records+" -md /dev/stdout > out.txt; echo status $?")
	if r.Stdout != "status 1\n" {
		t.Fatalf("%s", r)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out.txt"))
	if err != nil {
		t.Fatal(err)
	}
	text, md := strings.Index(string(b), "sweep kvlog.json, seeds 1-3\n"), strings.Index(string(b), "## ")
	if text != 0 || md <= text {
		t.Errorf("out.txt does not hold the text report and then the Markdown:\n%s", b)
	}
	if fi, err := os.Lstat("/dev/stdout"); err == nil && fi.Mode().IsRegular() {
		t.Errorf("/dev/stdout is now a regular file")
	}
}

// TestPins: a sweep replays the world's pinned regressions first and writes
// a pin record for each; sf-report lists them, makes a finding of a pin that
// fails (and fails the report), counts the pins of a sharded sweep once,
// and passes a sweep whose pins all pass.
func TestPins(t *testing.T) {
	t.Parallel()
	dir := world(t)
	pins := filepath.Join(".seedfall", "pinned", "seedfall")
	// Seed 3 of kvlog's buggy world pinned as it fails; seed 1 pinned by
	// hand with no faults, which passes.
	if r := shell(t, dir, "sf-run -seed 3 -pin > /dev/null 2>&1; echo '{\"seed\": 1, \"faults\": []}' > "+filepath.Join(pins, "seed-1.json")); r.Code != 0 {
		t.Fatalf("%s", r)
	}
	if _, err := os.Stat(filepath.Join(dir, pins, "seed-3.json")); err != nil {
		t.Fatal(err)
	}
	r := shell(t, dir, "sf-run -seeds 1-2 -json 2>/dev/null | tee run.jsonl | sf-report -findings '' -md r.md -html r.html")
	if r.Code != 1 {
		t.Errorf("want exit status 1:\n%s", r)
	}
	for _, want := range []string{
		"; 1 of 2 pinned regressions failed\n",
		"\npinned regressions (2 replayed, 1 failed):\n",
		"\n  ok   " + filepath.Join(pins, "seed-1.json") + " (original seed 1) passed\n",
		"\n  FAIL " + filepath.Join(pins, "seed-3.json") + " (original seed 3) failed again at t=",
		// The pin fails as the seeds do: one finding holds them all.
		"\nfindings (1):\n 1. assert · acknowledged write lost\n    2 seeds: 1-2\n",
		"\n    pin " + filepath.Join(pins, "seed-3.json") + " (original seed 3) failed again at t=",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("the report lacks %q\n%s", want, r)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "r.md"))
	for _, want := range []string{"### Pinned regressions (2 replayed, 1 failed)", "| `" + filepath.Join(pins, "seed-3.json") + "` | 3 | ❌ failed again | at t="} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the Markdown lacks %q\n%s", want, md)
		}
	}
	page, _ := os.ReadFile(filepath.Join(dir, "r.html"))
	for _, want := range []string{`id="sweep-1-pins">2<`, `id="sweep-1-pins-failed">1<`, `id="sweep-1-finding-1-pin-count">1<`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %s", want)
		}
	}

	// Shards: the first replays the pins; merged, each counts once, and a
	// report without shard 1 says that it has no pins.
	r = shell(t, dir, "sf-run -seeds 1-2 -shard 1/2 -json > s1.jsonl 2>/dev/null; sf-run -seeds 1-2 -shard 2/2 -json > s2.jsonl 2>/dev/null; sf-report -findings '' s2.jsonl s1.jsonl")
	if r.Code != 1 || !strings.Contains(r.Stdout, "\npinned regressions (2 replayed, 1 failed):\n") {
		t.Errorf("merged shards: want exit status 1 and 2 pins replayed, 1 failed\n%s", r)
	}
	r = shell(t, dir, "sf-report -findings '' s2.jsonl")
	if r.Code != 1 || strings.Contains(r.Stdout, "pinned regressions (") ||
		!strings.Contains(r.Stdout, "warning: shard 1 replays the world's pinned regressions: without it the report has none\n") {
		t.Errorf("shard 2 alone: want a warning that the pins are in shard 1\n%s", r)
	}

	// The fixed world with seed 3's pin: it passes, and so does the report.
	fixedPins := filepath.Join(".seedfall", "pinned", "seedfall.fixed")
	r = shell(t, dir, "mkdir -p "+fixedPins+" && cp "+filepath.Join(pins, "seed-3.json")+" "+fixedPins+"/ && "+
		"sf-run -c seedfall.fixed.json -seeds 3 -json 2>/dev/null | sf-report -findings ''")
	if r.Code != 0 || !strings.Contains(r.Stdout, "; 1 pinned regression passed\n") ||
		!strings.Contains(r.Stdout, "\n  ok   "+filepath.Join(fixedPins, "seed-3.json")+" (original seed 3) passed\n") {
		t.Errorf("a pin that stays fixed: want exit status 0 and the pin listed as passed\n%s", r)
	}
	if r = shell(t, dir, "sf-report help manual"); r.Code != 0 || !strings.Contains(r.Stdout, "Before the findings come the world's pinned\nregressions") {
		t.Errorf("the manual does not tell of pinned regressions\n%s", r)
	}
}

// TestFindingsBesideTheWorld: sf-report keeps a world's findings in the
// .seedfall folder next to its world file, with its artifacts, not in the
// current folder's (issue 29); a world read from stdin keeps them in the
// current folder's, as its artifacts; records whose world's folder is not
// here are an input error unless -findings names a file.
func TestFindingsBesideTheWorld(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", "kvlog", "seedfall.json"), filepath.Join(dir, "kv", "seedfall.json"))
	r := shell(t, dir, "sf-run -c kv/seedfall.json -seeds 1-2 | tee run.jsonl | sf-report")
	if r.Code != 1 || !strings.Contains(r.Stdout, "assert · acknowledged write lost  [new]") {
		t.Fatalf("the sweep's finding is not new:\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "kv", ".seedfall", "findings.json")); err != nil {
		t.Errorf("no findings next to the world: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".seedfall", "findings.json")); err == nil {
		t.Errorf("sf-report wrote findings into the current folder")
	}
	if r := shell(t, dir, "sf-report run.jsonl"); !strings.Contains(r.Stdout, "[ongoing, first seen 2026-01-01T00:00:00Z]") {
		t.Errorf("the second report did not read the findings next to the world:\n%s", r)
	}

	r = shell(t, dir, "sf-run -c - -seeds 1 < kv/seedfall.json | sf-report")
	if r.Code != 1 || !strings.Contains(r.Stdout, "[new]") {
		t.Fatalf("the sweep of a world on stdin:\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(dir, ".seedfall", "findings.json")); err != nil {
		t.Errorf("a world from stdin keeps no findings in the current folder: %v", err)
	}

	// From inside kv/, the records' kv/seedfall.json is not here.
	r = shell(t, filepath.Join(dir, "kv"), "sf-report ../run.jsonl")
	want := `sf-report: findings of kv/seedfall.json: its folder kv is not here, so there is no .seedfall beside it: ` +
		`run sf-report where sf-run ran, or name a findings file (-findings FILE, or "" for none)` + "\n"
	r.Want(t, 2, want)
	if r := shell(t, filepath.Join(dir, "kv"), "sf-report -findings '' ../run.jsonl"); r.Code != 1 || !strings.Contains(r.Stdout, "acknowledged write lost") {
		t.Errorf("-findings '' reports without a findings file:\n%s", r)
	}
}
