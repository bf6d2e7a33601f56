package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/clitest"
	"github.com/sf-dst/sf/lib/sweep"
)

// httpkvDir returns the folder, shared by the explore tests, that holds a
// copy of examples/httpkv's world, so that it is built once.
func httpkvDir(t *testing.T) string {
	t.Helper()
	return tools.Example(t, "httpkv", "seedfall.json")
}

// exploreFail is the report of a branched failure of httpkv, which records
// no history: its schedule, then its trace.
var exploreFail = regexp.MustCompile(`(?m)^FAIL run (\d+): seed (\d+) \(branched at [^)]+\) at t=\S+: (.*)\n  wrote (\S+)\n  wrote trace (\S+)\n  replay: (.*)$`)

// tracePart is what follows the line "trace:" in a trace file or a replay's
// report, up to the first blank line: the trace itself.
func tracePart(t *testing.T, what, s string) string {
	t.Helper()
	_, after, ok := strings.Cut(s, "\ntrace:\n")
	if !ok {
		t.Fatalf("%s has no trace\n%s", what, s)
	}
	body, _, _ := strings.Cut(after, "\n\n")
	return strings.TrimSuffix(body, "\n") // a trace file ends with its last line
}

// TestExplore: sf-run -explore from httpkv's passing seed 1 finds the lost
// write by branching within a small budget, says so the same way for any -j,
// and every schedule it writes holds its branch and replays with -faults to
// the same failure, printing the trace written for the run byte for byte.
func TestExplore(t *testing.T) {
	// Parallel: the other tests of the shared httpkv folder run one after
	// the other, before any parallel test starts.
	t.Parallel()
	dir := httpkvDir(t)
	args := []string{"-c", "seedfall.json", "-seeds", "1", "-explore", "-explore-runs", "8"}
	r := sfRun(t, dir, append(args, "-j", "2")...)
	r.WantExit(t, 1)
	found := exploreFail.FindAllStringSubmatch(r.Stdout, -1)
	if len(found) == 0 {
		t.Fatalf("no failure found by branching in 8 runs\n%s", r)
	}
	if !strings.Contains(r.Stdout, "explore: 8 runs (1 starting seed, 7 branches)") ||
		!strings.Contains(r.Stdout, " found by branching, the first at run "+found[0][1]+"\n") {
		t.Errorf("want the closing lines to count the runs and name the first failure's run\n%s", r)
	}
	for _, f := range found {
		path := filepath.Join(dir, f[4])
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var sched struct {
			Seed     uint64 `json:"seed"`
			Branches []struct {
				At  string `json:"at"`
				Key uint64 `json:"key"`
			} `json:"branches"`
		}
		if err := json.Unmarshal(data, &sched); err != nil || sched.Seed != 1 || len(sched.Branches) == 0 {
			t.Fatalf("%s: want seed 1's schedule with its branches (%v)\n%s", f[4], err, data)
		}
		replay := sfRun(t, dir, "-c", "seedfall.json", "-seed", "1", "-faults", f[4])
		replay.WantExit(t, 1)
		if got := failureMessage(t, replay.Stdout); got != f[3] || !strings.Contains(replay.Stdout, "branch: re-keyed every stream") {
			t.Errorf("replaying %s: failed with %q, want %q and the branch in the trace\n%s", f[4], got, f[3], replay)
		}
		if want := strings.TrimSuffix(f[4], ".faults.json") + ".trace.log"; f[5] != want {
			t.Errorf("run %s: wrote the trace %s, want %s beside its schedule", f[1], f[5], want)
		}
		trace := clitest.ReadFile(t, filepath.Join(dir, f[5]))
		if !strings.HasPrefix(trace, "FAIL seed 1 at t=") || !strings.Contains(trace, "\nreplay: sf-run -c seedfall.json -seed 1 -faults "+f[4]+"\n") {
			t.Errorf("%s: want the failure block with the replay of the schedule\n%s", f[5], trace)
		}
		if got, want := tracePart(t, f[5], trace), tracePart(t, "the replay", replay.Stdout); got != want {
			t.Errorf("%s holds another trace than the replay of %s prints:\n%s\nwant:\n%s", f[5], f[4], got, want)
		}
	}

	// Same flags, same exploration, whatever -j.
	again := sfRun(t, dir, append(args, "-j", "1")...)
	again.WantExit(t, 1)
	if again.Stdout != r.Stdout {
		t.Errorf("-j 1 explored differently:\n%s\nwant:\n%s", again.Stdout, r.Stdout)
	}
}

// TestExploreUsage: -explore's flags are checked before anything runs.
func TestExploreUsage(t *testing.T) {
	dir := kvlogDir(t)
	t.Chdir(dir)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-explore-runs", "5"}, "sf-run: -explore-runs needs -explore (see sf-run -h)\n"},
		{[]string{"-explore", "-explore-runs", "0"}, "sf-run: -explore-runs 0: must be between 1 and 1000000 (see sf-run -h)\n"},
		{[]string{"-explore", "-seed", "1"}, "sf-run: -explore does not take -seed (see sf-run -h)\n"},
		{[]string{"-explore", "-check"}, "sf-run: -explore does not take -check (see sf-run -h)\n"},
		{[]string{"-explore", "-pin"}, "sf-run: -explore does not take -pin (see sf-run -h)\n"},
		{[]string{"-explore", "-seeds", "3-1"}, "sf-run: -seeds: seed list \"3-1\": range \"3-1\" is reversed: 3 > 1 (see sf-run -h)\n"},
	} {
		r := clitest.Run(t, run, "", append([]string{"sf-run", "-c", "seedfall.json"}, tc.args...)...)
		r.Want(t, 2, tc.want)
		r.NoStackTrace(t)
	}
}

// exploreSeed is a seed record of an exploration.
type exploreSeed struct {
	Seed            uint64 `json:"seed"`
	Status          string `json:"status"`
	Class           string `json:"class"`
	Message         string `json:"message"`
	Property        string `json:"property"`
	Node            string `json:"node"`
	AtNs            int64  `json:"at_ns"`
	Steps           uint64 `json:"steps"`
	Faults          int    `json:"faults"`
	DeterminismHash string `json:"determinism_hash"`
	FaultsFile      string `json:"faults_file"`
	Repro           string `json:"repro"`
	ExploreRun      int    `json:"explore_run"`
	Branches        int    `json:"branches"`
	HistoryCheck    string `json:"history_check"`
	Artifacts       *struct {
		Trace    string `json:"trace"`
		Faults   string `json:"faults"`
		History  string `json:"history"`
		Timeline string `json:"timeline"`
	} `json:"artifacts"`
}

// exploreProperty is a row of an exploration summary's property table.
type exploreProperty struct {
	Kind         string `json:"kind"`
	Message      string `json:"message"`
	SeedsReached int    `json:"seeds_reached"`
	SeedsTrue    int    `json:"seeds_true"`
	Verdict      string `json:"verdict"`
}

// exploreRecords are the records of sf-run -explore -json, decoded.
type exploreRecords struct {
	start struct {
		Tool        string `json:"tool"`
		Config      string `json:"config"`
		Seeds       string `json:"seeds"`
		Count       int    `json:"count"`
		ExploreRuns int    `json:"explore_runs"`
	}
	seeds   []exploreSeed
	summary struct {
		Tool             string            `json:"tool"`
		Seeds            int               `json:"seeds"`
		Passed           int               `json:"passed"`
		Failed           int               `json:"failed"`
		Horizon          int               `json:"horizon"`
		FailedSeeds      []uint64          `json:"failed_seeds"`
		Status           string            `json:"status"`
		Interrupted      bool              `json:"interrupted"`
		Properties       []exploreProperty `json:"properties"`
		PropertyFailures int               `json:"property_failures"`
		BuggifySites     []json.RawMessage `json:"buggify_sites"`
		Explore          *struct {
			Runs             int `json:"runs"`
			StartingSeeds    int `json:"starting_seeds"`
			Branches         int `json:"branches"`
			Budget           int `json:"budget"`
			Corpus           int `json:"corpus"`
			BranchedFailures int `json:"branched_failures"`
		} `json:"explore"`
	}
}

// decodeExplore decodes an exploration's stream: a start record, seed
// records, and a summary last.
func decodeExplore(t *testing.T, stdout string) exploreRecords {
	t.Helper()
	var out exploreRecords
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	for i, l := range lines {
		var kind struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal([]byte(l), &kind); err != nil {
			t.Fatalf("line %d is not a record (%v): %q", i+1, err, l)
		}
		var err error
		switch {
		case i == 0 && kind.Kind == "start":
			err = json.Unmarshal([]byte(l), &out.start)
		case i == len(lines)-1 && kind.Kind == "summary":
			err = json.Unmarshal([]byte(l), &out.summary)
		case i > 0 && i < len(lines)-1 && kind.Kind == "seed":
			var rec exploreSeed
			err = json.Unmarshal([]byte(l), &rec)
			out.seeds = append(out.seeds, rec)
		default:
			t.Fatalf("line %d: a %q record where it does not belong\n%s", i+1, kind.Kind, stdout)
		}
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
	}
	return out
}

// TestExploreJSON: sf-run -explore -json writes a start record that says it
// is an exploration, a seed record per failing run that names its schedule,
// replays it and names the run's trace as a sweep's record does, and a
// summary whose counts add up over the runs, with the property table summed
// over them; the report goes to stderr and finds what the records hold.
func TestExploreJSON(t *testing.T) {
	dir := httpkvDir(t)
	// Runs 6 and 13 of seed 1 fail (TestExplore finds the first): two runs
	// of one seed, each its own record.
	r := sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1", "-explore", "-explore-runs", "14", "-j", "2", "-json")
	r.WantExitClean(t, 1)
	recs := decodeExplore(t, r.Stdout)
	if s := recs.start; s.Tool != "sf-run" || s.Config != "seedfall.json" || s.Seeds != "1" || s.Count != 1 || s.ExploreRuns != 14 {
		t.Errorf("start record %+v", s)
	}
	found := exploreFail.FindAllStringSubmatch(r.Stderr, -1)
	if len(recs.seeds) < 2 || len(found) != len(recs.seeds) {
		t.Fatalf("%d seed records, %d failures in the report on stderr; want at least 2 and as many\n%s", len(recs.seeds), len(found), r)
	}
	for i, s := range recs.seeds {
		f := found[i]
		if fmt.Sprint(s.ExploreRun) != f[1] || s.Seed != 1 || s.FaultsFile != f[4] || s.Message != f[3] {
			t.Errorf("record %d: run %d, seed %d, schedule %q, %q; the report says run %s, seed %s, %s, %q", i, s.ExploreRun, s.Seed, s.FaultsFile, s.Message, f[1], f[2], f[4], f[3])
		}
		if s.Status != "fail" || s.Class != "assert" || s.Property == "" || s.Node != "client#1" || s.AtNs <= 0 || s.Steps == 0 ||
			s.Faults == 0 || len(s.DeterminismHash) != 16 || s.Branches != 1 {
			t.Errorf("record %d: %+v", i, s)
		}
		if a := s.Artifacts; a == nil || a.Faults != s.FaultsFile || a.Trace != f[5] || a.History != "" ||
			a.Trace != fmt.Sprintf(".seedfall/seedfall/explore-1-run-%d.trace.log", s.ExploreRun) {
			t.Errorf("record %d: artifacts %+v, want the run's schedule and its trace %s, as the report says", i, a, f[5])
		} else if _, err := os.Stat(filepath.Join(dir, a.Trace)); err != nil {
			t.Errorf("record %d: %v", i, err)
		}
		if want := "sf-run -c seedfall.json -seed 1 -faults " + s.FaultsFile; s.Repro != want || s.Repro != f[6] {
			t.Errorf("record %d: repro %q, want %q, as the report says", i, s.Repro, want)
		}
		if _, err := os.Stat(filepath.Join(dir, s.FaultsFile)); err != nil {
			t.Errorf("record %d: %v", i, err)
		}
	}
	if recs.seeds[0].ExploreRun == recs.seeds[1].ExploreRun {
		t.Errorf("two records of run %d", recs.seeds[0].ExploreRun)
	}
	sum, e := recs.summary, recs.summary.Explore
	if e == nil || sum.Tool != "sf-run" || sum.Seeds != 14 || sum.Passed+sum.Failed != 14 || sum.Failed != len(recs.seeds) ||
		fmt.Sprint(sum.FailedSeeds) != "[1]" || sum.Status != "fail" || sum.Interrupted {
		t.Fatalf("summary %+v (explore %+v)", sum, e)
	}
	if e.Runs != 14 || e.StartingSeeds != 1 || e.Branches != 13 || e.Budget != 14 || e.Corpus < 1 || e.BranchedFailures != len(recs.seeds) {
		t.Errorf("summary's explore %+v", *e)
	}
	// httpkv's client says it failed over at the end of a run that passes;
	// a failing run ends before it. httpkv does not enable buggify.
	want := exploreProperty{Kind: "sometimes", Message: "the client failed over to the backup", SeedsReached: sum.Passed, SeedsTrue: sum.Passed}
	if len(sum.Properties) != 1 || sum.Properties[0] != want || sum.PropertyFailures != 0 || sum.BuggifySites != nil {
		t.Errorf("summary's tables: properties %+v (%d failed), buggify %s; want the one row %+v", sum.Properties, sum.PropertyFailures, sum.BuggifySites, want)
	}
	if !strings.Contains(r.Stderr, fmt.Sprintf("\nproperty                runs reached   runs true\n  sometimes            %12d %11d  the client failed over to the backup\n", sum.Passed, sum.Passed)) {
		t.Errorf("the report on stderr lacks the property table\n%s", r)
	}
	if !strings.Contains(r.Stderr, "explore: 14 runs (1 starting seed, 13 branches)") {
		t.Errorf("the closing lines did not reach stderr\n%s", r)
	}
}

// TestExplorePipe: on a pipe -explore writes records as a sweep does, and
// -json=false keeps its report there.
func TestExplorePipe(t *testing.T) {
	dir := httpkvDir(t)
	c := clitest.Cmd{Dir: dir, Env: []string{tools.OnPath()}, Timeout: cmdTimeout}
	r := clitest.Shell(t, c, "sf-run -seeds 1 -explore -explore-runs 6 | cat")
	recs := decodeExplore(t, r.Stdout)
	if recs.start.ExploreRuns != 6 || recs.summary.Seeds != 6 || len(recs.seeds) != 1 || recs.seeds[0].ExploreRun != 6 {
		t.Errorf("want the stream of 6 runs, run 6 failing\n%s", r)
	}
	if !strings.Contains(r.Stderr, "FAIL run 6: seed 1") {
		t.Errorf("the report did not reach stderr\n%s", r)
	}
	if strings.Count(r.Stderr, sweep.PipeNote+"\n") != 1 {
		t.Errorf("stderr does not start by saying why records went to the pipe\n%s", r)
	}
	r = clitest.Shell(t, c, "sf-run -seeds 1 -explore -explore-runs 6 -json=false | cat")
	if !strings.HasPrefix(r.Stdout, "FAIL run 6: seed 1") || strings.Contains(r.Stdout, `"kind"`) {
		t.Errorf("-json=false: want the report on the pipe\n%s", r)
	}
}

// TestExploreInterrupted: SIGINT stops an exploration with a summary marked
// interrupted whose counts cover the runs made, and exit status 130.
func TestExploreInterrupted(t *testing.T) {
	dir := httpkvDir(t)
	cmd := exec.Command(tools.Path("sf-run"), "-c", "seedfall.json", "-seeds", "1", "-explore", "-explore-runs", "1000000", "-j", "1", "-json")
	cmd.Dir = dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(cmdTimeout, func() { cmd.Process.Kill() })
	defer timer.Stop()
	// Interrupt once the first failure (run 6) is out: the start record
	// and that seed record are read, so some runs are done and most of the
	// budget is not.
	rd := bufio.NewReader(stdout)
	var first string
	for !strings.Contains(first, `"kind":"seed"`) {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("no seed record: %v\n%s\n%s", err, first, stderr.String())
		}
		first += line
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var rest strings.Builder
	if _, err := rd.WriteTo(&rest); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want status 130\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "goroutine ") {
		t.Fatalf("a Go stack trace\n%s", stderr.String())
	}
	recs := decodeExplore(t, first+rest.String())
	sum := recs.summary
	if !sum.Interrupted || sum.Status != "interrupted" || sum.Explore == nil || sum.Seeds < 6 || sum.Seeds >= 1000000 || sum.Passed+sum.Failed != sum.Seeds ||
		sum.Explore.Runs != sum.Seeds || sum.Failed != len(recs.seeds) {
		t.Errorf("summary %+v with %d seed records", sum, len(recs.seeds))
	}
	if !strings.Contains(stderr.String(), "explore: interrupted after") {
		t.Errorf("the report does not say it was interrupted\n%s", stderr.String())
	}
}
