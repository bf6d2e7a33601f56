package main

// CLI scenario tests: they build the real sf-shrink, sf-run and sf-faults
// once per test process and run them as a user would, on copies of the
// example worlds in temporary directories, so nothing is written into the
// repository. The pipelines run through bash exactly as they are typed.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// tools are sf-shrink, sf-run and sf-faults, built once per test process.
var tools = clitest.Tools{NeedBash: true}

func TestMain(m *testing.M) { os.Exit(tools.Main(m, "sf-shrink", "sf-run", "sf-faults", "sf-check")) }

type result = clitest.Result

// runBin runs argv in dir with stdin, the tools first on PATH.
func runBin(t *testing.T, dir, stdin string, argv ...string) result {
	t.Helper()
	return clitest.Exec(t, clitest.Cmd{Dir: dir, Stdin: stdin, Env: []string{tools.OnPath()}}, argv...)
}

// shell runs a command line with bash, as a user would type it.
func shell(t *testing.T, dir, line string) result {
	t.Helper()
	return clitest.Shell(t, clitest.Cmd{Dir: dir, Env: []string{tools.OnPath()}}, line)
}

func sfShrink(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	return runBin(t, dir, stdin, append([]string{tools.Path("sf-shrink")}, args...)...)
}

func sfRun(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return runBin(t, dir, "", append([]string{tools.Path("sf-run")}, args...)...)
}

// kvlogDir returns a directory holding copies of kvlog's seedfall.json and
// seedfall.fixed.json, shared by the tests so the example is built and
// compiled once. The tests do not run in parallel, and each shrinks seeds
// of its own, or reads the schedules it needs before another test runs.
func kvlogDir(t *testing.T) string {
	t.Helper()
	return tools.Example(t, "kvlog", "seedfall.json", "seedfall.fixed.json")
}

// shrinkRecords checks a sf-shrink -json stream and returns its shrink
// records.
func shrinkRecords(t *testing.T, r result) []map[string]any {
	t.Helper()
	recs := clitest.Records(t, r)
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
	sched := clitest.ReadJSON(t, path)
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
	r.WantExitClean(t, 1)
	m := failHeaderRE.FindStringSubmatch(r.Stdout)
	if m == nil || m[1] != fmt.Sprint(seed) {
		t.Fatalf("seed %v: the replay prints no FAIL header of the seed\n%s", seed, r)
	}
	want, _ := rec["message"].(string)
	if got := messageHead(m[2]); got != messageHead(want) {
		t.Errorf("seed %v: the replay fails with %q, the shrunk run with %q", seed, m[2], want)
	}
	rj := shell(t, dir, repro+" -json")
	rj.WantExitClean(t, 1)
	recs := clitest.Records(t, rj)
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
	line := fmt.Sprintf("%s -c seedfall.json -seeds 1-50 -json | %s -json -max %s", tools.Path("sf-run"), tools.Path("sf-shrink"), max)
	r := shell(t, dir, line)
	r.WantExitClean(t, 1)
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
	if !strings.Contains(r.Stderr, "failing seeds not shrunk: past -max "+max+" (-max N takes more)\n") {
		t.Errorf("stderr does not count the seeds past -max\n%s", r)
	}
}

// TestPipelineExamples runs the pipeline on the other examples with planted
// bugs.
func TestPipelineExamples(t *testing.T) {
	t.Parallel()
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
			dir := tools.FreshExample(t, tc.example, "seedfall.json")
			max := max
			if testing.Short() && tc.example == "liveness" {
				max = "1" // each replay runs the 10s recovery phase to its end
			}
			line := fmt.Sprintf("%s -c seedfall.json -seeds %s -json | %s -json -max %s", tools.Path("sf-run"), seeds, tools.Path("sf-shrink"), max)
			r := shell(t, dir, line)
			r.WantExitClean(t, 1)
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
	r.WantExitClean(t, 1)
	shrunk := shrinkRecords(t, r)
	if len(shrunk) != 1 || shrunk[0]["seed"] != float64(1) {
		t.Fatalf("want one shrink record of seed 1\n%s", r)
	}
	checkShrunk(t, dir, shrunk[0], 1)
	if want := "seed 1: 1 fault -> 1 in "; !strings.Contains(r.Stderr, want) {
		t.Errorf("stderr lacks %q\n%s", want, r)
	}

	// A hand-edited schedule: seed 1's own crash plus two more that the
	// failure does not need (a pause of the client long after the loss, and
	// an early crash), written as a user would.
	edited := filepath.Join(dir, "edited.faults.json")
	clitest.WriteFile(t, edited, `{
  "seed": 1,
  "faults": [
    {"at": "100ms", "kind": "crash", "node": "server", "until": "150ms"},
    {"at": "3.112882207s", "kind": "crash", "node": "server", "until": "3.589058928s"},
    {"at": "3.6s", "kind": "pause", "node": "client", "until": "3.7s"}
  ]
}
`)
	r = sfShrink(t, dir, "", "-c", "seedfall.json", "-seed", "1", "-faults", "edited.faults.json", "-json")
	r.WantExitClean(t, 1)
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

// TestProfileAndSetCarried: -profile and -set go into the written schedule
// and the replay line, and that line reproduces the failure.
func TestProfileAndSetCarried(t *testing.T) {
	dir := kvlogDir(t)
	w := clitest.ReadJSON(t, filepath.Join(dir, "seedfall.json"))
	w["profiles"] = map[string]any{"hard": map[string]any{"faults": map[string]any{"crash_per_sec": 1}}}
	clitest.WriteJSON(t, filepath.Join(dir, "profiled.json"), w)
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
			r.WantExitClean(t, 1)
			shrunk := shrinkRecords(t, r)
			if len(shrunk) != 1 {
				t.Fatalf("want one shrink record\n%s", r)
			}
			rec := shrunk[0]
			if repro := fmt.Sprint(rec["repro"]); !strings.Contains(repro, tc.wantRepro) {
				t.Errorf("repro %q lacks %q", repro, tc.wantRepro)
			}
			if !strings.Contains(r.Stderr, "replay: ") || !strings.Contains(r.Stderr, tc.wantRepro) {
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
		r.WantExitClean(t, 1)
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
	r.WantExitClean(t, 1)
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
	if !strings.Contains(r.Stderr, "  "+want+"\n") {
		t.Errorf("stderr lacks %q\n%s", want, r)
	}
	sched := clitest.ReadJSON(t, filepath.Join(dir, fmt.Sprint(rec["schedule"])))
	if sched["budget"] != rec["budget"] {
		t.Errorf("the schedule's budget is %v, the record's %v", sched["budget"], rec["budget"])
	}
	rep := shell(t, dir, fmt.Sprint(rec["repro"]))
	rep.WantExitClean(t, 1)
	if m := budgetRE.FindStringSubmatch(rep.Stdout); m == nil || m[0] != want {
		t.Errorf("the replay's trace lacks %q\n%s", want, rep)
	}
	if rec["faults_after"] != float64(1) {
		t.Fatalf("want seed 2 shrunk to one fault: %v", rec)
	}

	// With its one fault removed the shrunk schedule passes: the client
	// finishes its capped writes before the schedule's duration. The replay
	// says that this shows a missing fault, not a fix.
	f := runBin(t, dir, "", tools.Path("sf-faults"), "-c", "seedfall.json", "-seed", "2", "-faults", fmt.Sprint(rec["schedule"]), "-remove", "1", "-out", "x.json")
	f.WantExitClean(t, 0)
	x := clitest.ReadJSON(t, filepath.Join(dir, "x.json"))
	if faults, _ := x["faults"].([]any); len(faults) != 0 || x["duration"] != sched["duration"] || x["budget"] != sched["budget"] {
		t.Fatalf("x.json: %v, want no faults and the shrunk duration and budget", x)
	}
	pass := sfRun(t, dir, "-c", "seedfall.json", "-seed", "2", "-faults", "x.json")
	pass.WantExitClean(t, 0)
	for _, want := range []string{
		"ok  seed 2 passed within the schedule's duration at t=",
		"\nnote: this replay passed, but ",
		"A pass within it shows that a fault it needs is missing, not that the bug is fixed",
		want,
	} {
		if !strings.Contains(pass.Stdout, want) {
			t.Errorf("the passing replay lacks %q\n%s", want, pass)
		}
	}
	if strings.Contains(pass.Stdout, "FAIL") {
		t.Errorf("the replay without the crash failed\n%s", pass)
	}
}

// nondeterministic is a -check sweep's records in which seeds 1 and 3 ran
// differently twice and seeds 2 and 4 passed.
const nondeterministic = `{"kind":"start","tool":"sf-run","config":"seedfall.json","seeds":"1-4","count":4,"check":true}
{"kind":"seed","seed":1,"config":"seedfall.json","status":"nondeterministic","class":"nondeterministic","message":"nondeterministic: host call 9"}
{"kind":"seed","seed":2,"config":"seedfall.json","status":"pass"}
{"kind":"seed","seed":3,"config":"seedfall.json","status":"nondeterministic","class":"nondeterministic","message":"nondeterministic: host call 7"}
{"kind":"seed","seed":4,"config":"seedfall.json","status":"pass"}
{"kind":"summary","tool":"sf-run","config":"seedfall.json","seeds":4,"passed":2,"failed":2,"nondeterministic":2}
`

// TestErrors: empty and malformed streams, a passing seed, flags that need
// -seed, a stream of passing seeds, and the seeds left alone.
func TestErrors(t *testing.T) {
	dir := kvlogDir(t)
	passing := sfRun(t, dir, "-c", "seedfall.fixed.json", "-seeds", "1-3", "-json")
	passing.WantExitClean(t, 0)
	clitest.WriteFile(t, filepath.Join(dir, "passing.jsonl"), passing.Stdout)
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
		{"only passing seeds", passing.Stdout, nil, 0, "sf-shrink: no failing seeds to shrink"},
		{"passing seeds in a file", "", []string{"passing.jsonl"}, 0, "sf-shrink: no failing seeds to shrink"},
		// Which seeds it left alone, and why, each on a line of its own
		// (issue 29).
		{"nondeterministic seeds", nondeterministic, nil, 0, "sf-shrink: no failing seeds to shrink\n" +
			"sf-shrink: 2 nondeterministic seeds not shrunk: a seed that runs differently twice cannot be cut down by replaying it\n"},
		{"missing file", "", []string{"nosuch.jsonl"}, 2, "nosuch.jsonl: no such file or directory"},
		{"zero max", "", []string{"-max", "0"}, 2, "-max must be at least 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clitest.WriteFile(t, filepath.Join(dir, "empty.jsonl"), "")
			r := sfShrink(t, dir, tc.stdin, tc.args...)
			r.WantExitClean(t, tc.code)
			if !strings.Contains(r.Stderr, tc.want) {
				t.Errorf("stderr lacks %q\n%s", tc.want, r)
			}
			if strings.Contains(r.Stderr, "replay: ") {
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
	sweep.WantExitClean(t, 1)
	clitest.WriteFile(t, filepath.Join(dir, "sweep.jsonl"), sweep.Stdout)
	r := sfShrink(t, dir, "", "-max", "1", "-json", "sweep.jsonl", "sweep.jsonl")
	r.WantExitClean(t, 1)
	shrunk := shrinkRecords(t, r)
	if len(shrunk) != 1 {
		t.Fatalf("want one shrink record with -max 1\n%s", r)
	}
	checkShrunk(t, dir, shrunk[0], 3)
	// Seeds 1-3 all fail: two are past -max, counted once each although the
	// file is given twice.
	if !strings.Contains(r.Stderr, "sf-shrink: 2 failing seeds not shrunk: past -max 1 (-max N takes more)\n") || strings.Contains(r.Stderr, "nondeterministic") {
		t.Errorf("stderr does not count the 2 seeds past -max once each\n%s", r)
	}
}
