package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// raceWorlds are the worlds of examples/race.
var raceWorlds = []string{"seedfall.json", "seedfall.random.json", "seedfall.pct.json", "seedfall.fixed.json"}

// sweepSummary runs sf-run -json over seeds of world and returns its
// summary record, after checking the exit status.
func sweepSummary(t *testing.T, dir, world, seeds string, code int, extra ...string) map[string]any {
	t.Helper()
	r := sfRun(t, dir, append([]string{"-c", world, "-seeds", seeds, "-json"}, extra...)...)
	r.WantExitClean(t, code)
	recs := clitest.Records(t, r)
	return recs[len(recs)-1]
}

// TestIssue16Race runs examples/race through the built tools: the race
// hides without preemption inside the node (strategy none), random and pct
// find it within 50 seeds, the mutex fixes it, every world is deterministic
// under -check, a pct failure shrinks to its preempt faults, and sf-faults
// adds a preempt fault that the replay applies.
func TestIssue16Race(t *testing.T) {
	t.Parallel()
	dir := tools.FreshExample(t, "race", raceWorlds...)

	noneSeeds := "1-1000"
	if testing.Short() {
		noneSeeds = "1-100"
	}
	if s := sweepSummary(t, dir, "seedfall.json", noneSeeds, 0); s["failed"] != float64(0) {
		t.Errorf("strategy none: %v seeds failed, want none", s["failed"])
	}
	// The other strategies find it too: calls, and interleave (random).
	for _, set := range [][]string{{"-set", "preempt.strategy=calls", "-set", "preempt.calls=1000"}, {"-set", "preempt.interleave=true"}} {
		if s := sweepSummary(t, dir, "seedfall.json", "1-3", 1, set...); s["failed"] != float64(3) {
			t.Errorf("%v: %v of 3 seeds failed, want all", set, s["failed"])
		}
	}
	if s := sweepSummary(t, dir, "seedfall.fixed.json", "1-50", 0, "-check"); s["failed"] != float64(0) || s["nondeterministic"] != float64(0) {
		t.Errorf("the fixed program: %v failed and %v nondeterministic of 50, want 0 and 0", s["failed"], s["nondeterministic"])
	}
	if s := sweepSummary(t, dir, "seedfall.random.json", "1-50", 1, "-check"); s["failed"] == float64(0) || s["nondeterministic"] != float64(0) {
		t.Errorf("strategy random: %v failed and %v nondeterministic of 50, want some failures and 0", s["failed"], s["nondeterministic"])
	}
	pct := sweepSummary(t, dir, "seedfall.pct.json", "1-50", 1, "-check")
	failed, _ := pct["failed_seeds"].([]any)
	if len(failed) == 0 || pct["nondeterministic"] != float64(0) {
		t.Fatalf("strategy pct: failed seeds %v and %v nondeterministic of 50, want some failures and 0", failed, pct["nondeterministic"])
	}
	seed := fmt.Sprint(failed[0])

	// The replay's trace ends with the counted calls of each node.
	r := sfRun(t, dir, "-c", "seedfall.pct.json", "-seed", seed)
	r.WantExitClean(t, 1)
	out := r.Stdout + r.Stderr
	lines := regexp.MustCompile(`(?m)^.*pct: counted calls per node: counter=(\d+) \(steps 250000\)$`).FindAllStringSubmatch(out, -1)
	if len(lines) != 1 || lines[0][1] == "0" {
		t.Errorf("seed %s: want one pct: line with the counter's counted calls\n%s", seed, r)
	}
	if !strings.Contains(out, "fault preempt counter#1 at counted call #") {
		t.Errorf("seed %s: the trace names no preempt fault\n%s", seed, r)
	}

	// Shrinking keeps only preempt faults, and its replay fails the same way.
	r = sfShrink(t, dir, "", "-c", "seedfall.pct.json", "-seed", seed, "-json")
	r.WantExitClean(t, 1)
	shrunk := shrinkRecords(t, r)
	if len(shrunk) != 1 {
		t.Fatalf("want one shrink record\n%s", r)
	}
	sched := checkShrunk(t, dir, shrunk[0], 2)
	faults, _ := sched["faults"].([]any)
	if len(faults) == 0 {
		t.Fatalf("seed %s shrunk to no faults: the race needs a preemption", seed)
	}
	for _, f := range faults {
		if f := f.(map[string]any); f["kind"] != "preempt" || f["node"] != "counter" || f["op"] == nil {
			t.Errorf("seed %s: shrunk fault %v, want preempt faults of counter with their op", seed, f)
		}
	}

	// sf-faults adds a preempt fault to an empty schedule, and the replay
	// applies it at that counted call, in the middle of the deposits. A
	// deposit is six counted calls (deposit, read, credit, fee, plus,
	// write); a switch at the last four, the frameless ones included,
	// splits its read-modify-write, and call 100,002 is one of them.
	clitest.WriteFile(t, filepath.Join(dir, "empty.faults.json"), `{"seed": `+seed+`, "faults": []}`)
	r = runBin(t, dir, "", tools.Path("sf-faults"), "-c", "seedfall.pct.json", "-seed", seed,
		"-faults", "empty.faults.json", "-add", `{"at":"0s","kind":"preempt","node":"counter","op":100002,"until":"0s"}`,
		"-out", "added.faults.json")
	r.WantExitClean(t, 0)
	if !strings.Contains(r.Stdout+r.Stderr, "preempt counter at counted call #100002") {
		t.Errorf("sf-faults does not list the added fault\n%s", r)
	}
	r = sfRun(t, dir, "-c", "seedfall.pct.json", "-seed", seed, "-faults", "added.faults.json")
	r.WantExitClean(t, 1)
	if !strings.Contains(r.Stdout+r.Stderr, "fault preempt counter#1 at counted call #100002") {
		t.Errorf("the replay did not apply the added preempt fault\n%s", r)
	}

	// A preempt fault needs strategy pct.
	r = runBin(t, dir, "", tools.Path("sf-faults"), "-c", "seedfall.random.json", "-seed", seed,
		"-faults", "added.faults.json", "-out", "random.faults.json")
	r.WantExitClean(t, 2)
	if !strings.Contains(r.Stderr, "a preempt fault needs preempt.strategy pct in the world") {
		t.Errorf("want the strategy error\n%s", r)
	}
}
