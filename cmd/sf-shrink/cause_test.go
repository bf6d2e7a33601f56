package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestCause: sf-shrink -cause on a failing kvlog seed draws a curve whose
// records are consistent with each other and with the seed's faults, the
// same for any -j, and refuses a seed that passes.
func TestCause(t *testing.T) {
	dir := kvlogDir(t)
	args := []string{"-c", "seedfall.json", "-seed", "10", "-cause", "-cause-moments", "3", "-cause-branches", "3", "-json"}
	r := sfShrink(t, dir, "", append(args, "-j", "2")...)
	r.WantExitClean(t, 1)
	recs := clitest.Records(t, r)
	sum := recs[len(recs)-1]
	if sum["tool"] != "sf-shrink" || sum["caused"] != float64(1) || sum["status"] != "caused" {
		t.Errorf("summary %v, want sf-shrink's with caused 1 and status caused", sum)
	}
	points := recs[1 : len(recs)-1]
	if len(points) < 3 {
		t.Fatalf("want at least the 3 evenly spread moments, got %d points\n%s", len(points), r)
	}
	last := int64(-1)
	var faultAt []int64
	inevitableSeen := false
	for i, p := range points {
		if p["kind"] != "cause" || p["seed"] != float64(10) || p["failure"] != "assert: acknowledged write lost" {
			t.Fatalf("point %d: %v, want a cause record of seed 10 failing with the lost write", i, p)
		}
		at := int64(p["at_ns"].(float64))
		failAt := int64(p["fail_at_ns"].(float64))
		if at <= last || at >= failAt {
			t.Errorf("point %d at %d: want moments increasing and before the failure at %d", i, at, failAt)
		}
		last = at
		same, branches := p["same"].(float64), p["branches"].(float64)
		if branches != 3 || same < 0 || same > branches || p["share"] != same/branches {
			t.Errorf("point %d: same %v of %v branches, share %v", i, same, branches, p["share"])
		}
		inev, _ := p["inevitable"].(bool)
		if inevitableSeen && !inev {
			t.Errorf("point %d is not inevitable after an inevitable one", i)
		}
		if inev && same != branches {
			t.Errorf("point %d is inevitable with %v of %v", i, same, branches)
		}
		inevitableSeen = inevitableSeen || inev
		fl, _ := p["faults"].([]any)
		for _, f := range fl {
			if !strings.Contains(f.(string), "crash server") {
				t.Errorf("point %d keeps %q, want kvlog's server crashes", i, f)
			}
			faultAt = append(faultAt, at)
		}
	}
	if len(faultAt) == 0 {
		t.Fatalf("no point lists a fault of the seed\n%s", r)
	}
	// Every fault gets a moment 1ns after it, which keeps it, and one at it,
	// which does not.
	for _, at := range faultAt {
		found := false
		for _, p := range points {
			if int64(p["at_ns"].(float64)) == at-1 {
				found = true
			}
		}
		if !found {
			t.Errorf("no moment just before the fault kept at %d", at)
		}
	}
	if !strings.Contains(r.Stderr, "seed 10: assert: acknowledged write lost at ") ||
		!(strings.Contains(r.Stderr, "inevitable from ") || strings.Contains(r.Stderr, "never inevitable")) ||
		!strings.Contains(r.Stderr, "fault: crash server") {
		t.Errorf("stderr lacks the curve for people\n%s", r)
	}

	// The curve does not depend on -j.
	again := sfShrink(t, dir, "", append(args, "-j", "1")...)
	again.WantExitClean(t, 1)
	strip := func(s string) string {
		lines := strings.Split(strings.TrimSpace(s), "\n")
		return strings.Join(lines[1:len(lines)-1], "\n") // the start (jobs) and summary (real time) differ
	}
	if strip(again.Stdout) != strip(r.Stdout) {
		t.Errorf("-j 1 drew another curve:\n%s\nwant:\n%s", again.Stdout, r.Stdout)
	}

	// A seed that passes has no failure to find the cause of.
	pass := sfShrink(t, dir, "", "-c", "seedfall.fixed.json", "-seed", "10", "-cause", "-cause-moments", "2", "-cause-branches", "2")
	pass.WantExitClean(t, 2)
	if !strings.Contains(pass.Stderr, "sf-shrink: seed 10 of seedfall.fixed.json: the seed does not fail (pass): no failure to find the cause of") {
		t.Errorf("want the passing seed named\n%s", pass)
	}
}

// TestCauseExploreRun: sf-shrink -cause on the records of sf-run -explore
// draws the curve of a failing run from the run's own schedule: the run is
// the seed with the schedule's branches, so the curve fails where the run
// failed although the seed alone passes, and its records name the run and
// replay its schedule. A sweep's seed that ran with a schedule is still
// refused, since a schedule fixes every fault there.
//
// The maybestale guest serves a stale read, which fails the history check,
// in about one run of three; seed 1 does not.
func TestCauseExploreRun(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := t.TempDir()
	clitest.WriteJSON(t, filepath.Join(dir, "w.json"), map[string]any{
		"workload": map[string]any{"name": "client", "pkg": filepath.Join(tools.Root, "lib", "sweep", "testdata", "guests", "maybestale")},
		"checker":  map[string]any{"model": "kv"},
		"duration": "30s",
	})
	plain := sfShrink(t, dir, "", "-c", "w.json", "-seed", "1", "-cause", "-cause-moments", "2", "-cause-branches", "1")
	if plain.Code != 2 || !strings.Contains(plain.Stderr, "the seed does not fail (pass)") {
		t.Fatalf("seed 1 on its own: want it to pass\n%s", plain)
	}
	run := sfRun(t, dir, "-c", "w.json", "-seeds", "1", "-explore", "-explore-runs", "8", "-json")
	run.WantExitClean(t, 1)
	var failed map[string]any
	for _, rec := range clitest.Records(t, run) {
		if rec["kind"] == "seed" && rec["branches"] != nil {
			failed = rec
			break
		}
	}
	if failed == nil {
		t.Fatalf("no branched run failed\n%s", run)
	}
	exploreRun, sched := failed["explore_run"].(float64), failed["faults_file"].(string)

	r := sfShrink(t, dir, run.Stdout, "-cause", "-max", "1", "-cause-moments", "3", "-cause-branches", "2", "-j", "2", "-json")
	r.WantExitClean(t, 1)
	recs := clitest.Records(t, r)
	if sum := recs[len(recs)-1]; sum["caused"] != float64(1) || sum["status"] != "caused" {
		t.Fatalf("summary %v, want one curve drawn\n%s", sum, r)
	}
	points := recs[1 : len(recs)-1]
	const failure = "linearizability: history of N operations is not linearizable (model kv)"
	if len(points) != 3 {
		t.Fatalf("%d points, want the 3 moments of a run without faults\n%s", len(points), r)
	}
	for i, p := range points {
		if p["kind"] != "cause" || p["seed"] != float64(1) || p["explore_run"] != exploreRun || p["fail_at_ns"] != failed["at_ns"] ||
			p["failure"] != failure || !strings.HasSuffix(p["repro"].(string), "sf-run -c w.json -seed 1 -faults "+sched) {
			t.Errorf("point %d: %v; want run %v of seed 1 failing at %v, replayed from %s", i, p, exploreRun, failed["at_ns"], sched)
		}
	}
	if !strings.Contains(r.Stderr, fmt.Sprintf("seed 1 (explore run %d): %s at ", int(exploreRun), failure)) {
		t.Errorf("stderr lacks the run's curve\n%s", r)
	}

	// A branch of the schedule that re-keys one stream is not explore's: the
	// error names the schedule and the branch.
	schedPath := filepath.Join(dir, sched)
	text := clitest.ReadFile(t, schedPath)
	edited := strings.Replace(text, `"key":`, `"stream": "sched", "key":`, 1)
	if edited == text {
		t.Fatalf("%s has no branch key to edit:\n%s", sched, text)
	}
	clitest.WriteFile(t, schedPath, []byte(edited))
	r = sfShrink(t, dir, run.Stdout, "-cause", "-max", "1", "-cause-moments", "2", "-cause-branches", "1")
	if r.Code != 2 || !strings.Contains(r.Stderr, "sf-shrink: seed 1 of w.json: "+sched+": branches[0] re-keys only the sched stream") {
		t.Errorf("want the edited schedule refused, naming it\n%s", r)
	}
	clitest.WriteFile(t, schedPath, []byte(text))

	// A sweep's seed replayed from that schedule is not a run of its own.
	replay := sfRun(t, dir, "-c", "w.json", "-seed", "1", "-faults", sched, "-json")
	replay.WantExitClean(t, 1)
	r = sfShrink(t, dir, replay.Stdout, "-cause", "-cause-moments", "2", "-cause-branches", "1")
	if r.Code != 2 || !strings.Contains(r.Stderr, "sf-shrink: seed 1 of w.json: it ran with the schedule "+sched+": -cause branches a seed that draws its own faults\n") {
		t.Errorf("want the replay's schedule refused\n%s", r)
	}
}
