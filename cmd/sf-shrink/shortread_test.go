package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestShortReads runs examples/shortread through the built tools: a server
// that trusts one Read to fill its buffer is caught by short_read and
// passes without it; the fix (io.ReadFull) passes with short reads and short
// writes; the schedule of a failure replays it; sf-faults removes the short
// reads and the replay passes, or adds one and the replay applies it with
// its byte count; sf-shrink shrinks a failure to short reads; swarm testing
// switches short_read per seed.
func TestShortReads(t *testing.T) {
	dir := tools.FreshExample(t, "shortread", "seedfall.json", "seedfall.fixed.json")

	s := sweepSummary(t, dir, "seedfall.json", "1-5", 1)
	failed, _ := s["failed_seeds"].([]any)
	if len(failed) == 0 {
		t.Fatalf("the buggy server passed seeds 1-5: %v", s)
	}
	seed := fmt.Sprint(failed[0])
	if s := sweepSummary(t, dir, "seedfall.json", "1-20", 0, "-set", "faults.short_read=0"); s["failed"] != float64(0) {
		t.Errorf("without short reads the buggy server failed %v of 20 seeds, want none: the bug needs a short read", s["failed"])
	}
	if s := sweepSummary(t, dir, "seedfall.fixed.json", "1-20", 0, "-check"); s["failed"] != float64(0) || s["nondeterministic"] != float64(0) {
		t.Errorf("the fixed server: %v failed and %v nondeterministic of 20, want 0 and 0", s["failed"], s["nondeterministic"])
	}

	// The failure, its schedule and the replay of the schedule.
	r := sfRun(t, dir, "-c", "seedfall.json", "-seed", seed)
	r.WantExitClean(t, 1)
	m := failHeaderRE.FindStringSubmatch(r.Stdout)
	if m == nil || !strings.Contains(m[2], "the server answered") {
		t.Fatalf("seed %s: want a failure of the stored blob\n%s", seed, r)
	}
	if !strings.Contains(r.Stdout, "fault short_read server#1 at read call #") {
		t.Errorf("seed %s: the trace names no short read\n%s", seed, r)
	}
	schedule := filepath.Join(".seedfall", "seedfall", "seed-"+seed+".faults.json")
	rep := sfRun(t, dir, "-c", "seedfall.json", "-seed", seed, "-faults", schedule)
	rep.WantExitClean(t, 1)
	if got := failHeaderRE.FindStringSubmatch(rep.Stdout); got == nil || got[2] != m[2] {
		t.Errorf("seed %s: the replay of its schedule fails otherwise\n%s", seed, rep)
	}
	var removes []string
	faults, _ := clitest.ReadJSON(t, filepath.Join(dir, schedule))["faults"].([]any)
	for i, f := range faults {
		f := f.(map[string]any)
		if f["kind"] == "short_read" {
			if f["node"] != "server" || f["op"] == nil || f["bytes"] == nil {
				t.Errorf("seed %s: short read %v, want the server's with its op and bytes", seed, f)
			}
			removes = append(removes, "-remove", strconv.Itoa(i+1))
		}
	}
	if len(removes) == 0 {
		t.Fatalf("seed %s failed without a short read: %v", seed, faults)
	}
	r = runBin(t, dir, "", append([]string{tools.Path("sf-faults"), "-c", "seedfall.json", "-seed", seed,
		"-faults", schedule, "-out", "removed.faults.json"}, removes...)...)
	r.WantExitClean(t, 0)
	r = sfRun(t, dir, "-c", "seedfall.json", "-seed", seed, "-faults", "removed.faults.json")
	r.WantExitClean(t, 0)

	// sf-faults adds a short read of 3 bytes where the first frame's length
	// is read, and the replay cuts it there. That is the server's read call
	// #2: its first read of the connection finds nothing there yet.
	clitest.WriteFile(t, filepath.Join(dir, "empty.faults.json"), `{"seed": `+seed+`, "faults": []}`)
	r = runBin(t, dir, "", tools.Path("sf-faults"), "-c", "seedfall.json", "-seed", seed, "-faults", "empty.faults.json",
		"-add", `{"at":"0s","kind":"short_read","node":"server","op":2,"bytes":3,"until":"0s"}`, "-out", "added.faults.json")
	r.WantExitClean(t, 0)
	if !strings.Contains(r.Stdout+r.Stderr, "short_read server at read call #2: 3 bytes") {
		t.Errorf("sf-faults does not list the added short read\n%s", r)
	}
	r = sfRun(t, dir, "-c", "seedfall.json", "-seed", seed, "-faults", "added.faults.json")
	r.WantExitClean(t, 1)
	if !strings.Contains(r.Stdout, "fault short_read server#1 at read call #2: 3 bytes") {
		t.Errorf("the replay did not apply the added short read\n%s", r)
	}
	r = runBin(t, dir, "", tools.Path("sf-faults"), "-c", "seedfall.json", "-seed", seed, "-faults", "empty.faults.json",
		"-add", `{"at":"0s","kind":"short_read","node":"server","bytes":3,"until":"0s"}`, "-out", "bad.faults.json")
	r.WantExitClean(t, 2)
	if !strings.Contains(r.Stderr, "faults[0].op: a short_read fault fires at a numbered read call, from 1") {
		t.Errorf("want the op error\n%s", r)
	}

	// Shrinking keeps only short reads, and its replay fails the same way.
	r = sfShrink(t, dir, "", "-c", "seedfall.json", "-seed", seed, "-json")
	r.WantExitClean(t, 1)
	shrunk := shrinkRecords(t, r)
	if len(shrunk) != 1 {
		t.Fatalf("want one shrink record\n%s", r)
	}
	sched := checkShrunk(t, dir, shrunk[0], 2)
	faults, _ = sched["faults"].([]any)
	if len(faults) == 0 {
		t.Fatalf("seed %s shrunk to no faults: the bug needs a short read", seed)
	}
	for _, f := range faults {
		if f := f.(map[string]any); f["kind"] != "short_read" {
			t.Errorf("seed %s: shrunk fault %v, want short reads only", seed, f)
		}
	}

	// Swarm testing turns short_read off in some seeds: those pass.
	s = sweepSummary(t, dir, "seedfall.json", "1-20", 1, "-set", "faults.swarm=true")
	if s["passed"] == float64(0) || s["failed"] == float64(0) {
		t.Errorf("with swarm testing %v of 20 seeds passed and %v failed, want some of each", s["passed"], s["failed"])
	}
}
