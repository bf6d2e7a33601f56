package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

var exploreFail = regexp.MustCompile(`(?m)^FAIL run (\d+): seed (\d+) \(branched at [^)]+\) at t=\S+: (.*)\n  wrote (\S+)\n  replay: (.*)$`)

// TestExplore: sf-run -explore from httpkv's passing seed 1 finds the lost
// write by branching within a small budget, says so the same way for any -j,
// and every schedule it writes holds its branch and replays with -faults to
// the same failure.
func TestExplore(t *testing.T) {
	tools.Need(t)
	dir := t.TempDir()
	clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", "httpkv", "seedfall.json"), filepath.Join(dir, "seedfall.json"))
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
		{[]string{"-explore", "-json"}, "sf-run: -explore does not take -json (see sf-run -h)\n"},
		{[]string{"-explore", "-seeds", "3-1"}, "sf-run: -seeds: seed list \"3-1\": range \"3-1\" is reversed: 3 > 1 (see sf-run -h)\n"},
	} {
		r := clitest.Run(t, run, "", append([]string{"sf-run", "-c", "seedfall.json"}, tc.args...)...)
		r.Want(t, 2, tc.want)
		r.NoStackTrace(t)
	}
}
