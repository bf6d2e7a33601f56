package main

// "fork": "setup" through the built sf-run: a world whose workload loads
// 200 keys into kvlog's server (-ack-before-fsync) before it calls
// sim.SetupComplete, run once, every seed going on from a fork of it.

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/clitest"
)

// setupLoadDir is a folder with copies of lib/runner/testdata/setupload's
// worlds, built once per test binary.
func setupLoadDir(t *testing.T) string {
	t.Helper()
	return tools.Shared(t, "setupload", func(dir string) error {
		src := filepath.Join(tools.Root, "lib", "runner", "testdata", "setupload")
		for _, w := range []string{"seedfall.json", "seedfall.bug.json"} {
			clitest.CopyWorld(t, filepath.Join(src, w), filepath.Join(dir, w))
		}
		return nil
	})
}

// seedLines are the seed records of a sweep, one "seed status hash steps"
// line each, sorted by seed.
func seedLines(t *testing.T, r result) map[float64]string {
	t.Helper()
	out := map[float64]string{}
	for _, rec := range jsonRecords(t, r) {
		if rec["kind"] == "seed" {
			out[rec["seed"].(float64)] = fmt.Sprintf("%v %v %v %v", rec["status"], rec["determinism_hash"], rec["steps"], rec["at_ns"])
		}
	}
	return out
}

// TestForkSetupSweep: the seeds of a world forked at its setup come out the
// same with -j 1, -j 2 and once more; they are different runs; some fail,
// and a failing seed's replay line runs it to the same end; the trace
// shows the seed's branch after the setup; with "fork": "none" the seeds
// run their own setups, and are other runs.
func TestForkSetupSweep(t *testing.T) {
	dir := setupLoadDir(t)
	sweep := func(more ...string) map[float64]string {
		r := sfRun(t, dir, append([]string{"-c", "seedfall.bug.json", "-seeds", "1-8", "-json"}, more...)...)
		r.WantExitClean(t, 1)
		return seedLines(t, r)
	}
	one := sweep("-j", "1")
	if len(one) != 8 {
		t.Fatalf("%d seed records, want 8: %v", len(one), one)
	}
	for name, got := range map[string]map[float64]string{"-j 2": sweep("-j", "2"), "-j 1 again": sweep("-j", "1")} {
		if fmt.Sprint(got) != fmt.Sprint(one) {
			t.Errorf("%s:\n got %v\nwant %v", name, got, one)
		}
	}
	hashes := map[string]bool{}
	var failed float64
	for seed, l := range one {
		f := strings.Fields(l)
		hashes[f[1]] = true
		if f[0] == "fail" && failed == 0 {
			failed = seed
		}
	}
	if len(hashes) != len(one) {
		t.Errorf("%d seeds ran %d different runs: %v", len(one), len(hashes), one)
	}
	if failed == 0 {
		t.Fatalf("no seed of 1-8 failed: %v", one)
	}
	seed := fmt.Sprint(failed)
	r := sfRun(t, dir, "-c", "seedfall.bug.json", "-seed", seed, "-json")
	r.WantExitClean(t, 1)
	if got := seedLines(t, r); got[failed] != one[failed] {
		t.Errorf("sf-run -seed %s: %s, the sweep's %s", seed, got[failed], one[failed])
	}
	trace := clitest.ReadFile(t, filepath.Join(dir, ".seedfall", "seedfall.bug", "seed-"+seed+".trace.log"))
	for _, want := range []string{"setup complete (loader#1)", "branch: re-keyed every stream at", "(key " + seed + ")"} {
		if !strings.Contains(trace, want) {
			t.Errorf("seed %s's trace has no %q", seed, want)
		}
	}
	none := sweep("-j", "2", "-set", "fork=none")
	for s, l := range none {
		if strings.Fields(l)[1] == strings.Fields(one[s])[1] {
			t.Errorf("seed %v ran the same run with and without fork: %s", s, l)
		}
	}
}

// TestForkSetupRefused: an unknown value of fork, or "setup" without
// faults_after_setup, is an input error naming the field and why.
func TestForkSetupRefused(t *testing.T) {
	dir := setupLoadDir(t)
	for _, c := range []struct{ set, want string }{
		{"fork=later", `-set fork=later: unknown value "later" (valid: none, setup)`},
		{"faults_after_setup=false", `fork: "setup" needs faults_after_setup: the setup that every seed shares must run without faults`},
	} {
		r := sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1-2", "-set", c.set)
		r.WantExitClean(t, 2)
		if !strings.Contains(r.Stderr, c.want) {
			t.Errorf("-set %s: stderr\n%s\nwant %q", c.set, r.Stderr, c.want)
		}
	}
}

// TestForkSetupExplore: -explore on a world forked at its setup branches
// after the setup (bugsites -setup calls sim.SetupComplete at 100ms), finds
// branched failures, and each one's schedule replays to the same end.
func TestForkSetupExplore(t *testing.T) {
	dir := t.TempDir()
	clitest.CopyWorld(t, filepath.Join(tools.Root, "lib", "runner", "testdata", "setupfork", "seedfall.json"), filepath.Join(dir, "seedfall.json"))
	r := sfRun(t, dir, "-explore", "-explore-runs", "16", "-seeds", "1-4", "-json")
	r.WantExitClean(t, 1)
	branched := 0
	for _, rec := range clitest.Records(t, r) {
		file, ok := rec["faults_file"].(string)
		if rec["kind"] != "seed" || rec["branches"] == nil || !ok {
			continue
		}
		branched++
		var sched struct {
			Branches []struct{ At string } `json:"branches"`
		}
		if err := json.Unmarshal([]byte(clitest.ReadFile(t, filepath.Join(dir, file))), &sched); err != nil {
			t.Fatal(err)
		}
		for _, b := range sched.Branches {
			if at, err := time.ParseDuration(b.At); err != nil || at <= 100*time.Millisecond {
				t.Errorf("%s: a branch at %s, not after the setup (%v)", file, b.At, err)
			}
		}
		seed := fmt.Sprint(rec["seed"])
		again := sfRun(t, dir, "-seed", seed, "-faults", file, "-json")
		again.WantExitClean(t, 1)
		if l := seedLines(t, again); !strings.Contains(l[rec["seed"].(float64)], "fail") {
			t.Errorf("seed %s with %s: %v, explore's run failed", seed, file, l)
		}
	}
	if branched == 0 {
		t.Fatalf("explore found no branched failure\n%s", r)
	}
}

// TestForkSetupSnapshot: a snapshot of a seed of a world forked at its
// setup continues as that seed (the fork's run is the setup seed's with
// the seed's branch): the same seed number, hash and status as the
// uninterrupted run.
func TestForkSetupSnapshot(t *testing.T) {
	dir := setupLoadDir(t)
	whole := sfRun(t, dir, "-c", "seedfall.json", "-seed", "3", "-json")
	whole.WantExitClean(t, 0)
	snap := filepath.Join(t.TempDir(), "s.snap")
	sfRun(t, dir, "-c", "seedfall.json", "-seed", "3", "-stop-at", "6s", "-snapshot", snap).WantExitClean(t, 0)
	from := sfRun(t, dir, "-c", "seedfall.json", "-from", snap, "-json")
	from.WantExitClean(t, 0)
	want, got := seedLines(t, whole), seedLines(t, from)
	if len(want) != 1 || want[3] == "" || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("continued from the snapshot:\n got %v\nwant %v", got, want)
	}
}
