package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestShrunkScheduleSurvivesASweep: sf-shrink writes the shrunk schedule
// under a name of its own, seed-N.shrunk.faults.json, so the next sweep,
// which rewrites seed-N.faults.json, leaves it alone and the replay line
// sf-shrink printed still replays the shrunk run (issue 29). sf-faults then
// starts from the shrunk schedule and says so.
func TestShrunkScheduleSurvivesASweep(t *testing.T) {
	t.Parallel()
	dir := tools.FreshExample(t, "kvlog", "seedfall.json")
	r := sfShrink(t, dir, "", "-c", "seedfall.json", "-seed", "1", "-json")
	r.WantExitClean(t, 1)
	shrunk := shrinkRecords(t, r)
	if len(shrunk) != 1 {
		t.Fatalf("want one shrink record\n%s", r)
	}
	rec := shrunk[0]
	want := filepath.Join(".seedfall", "seedfall", "seed-1.shrunk.faults.json")
	if rec["schedule"] != want {
		t.Fatalf("the shrunk schedule went to %v, want %s", rec["schedule"], want)
	}
	if repro := rec["repro"].(string); !strings.HasSuffix(repro, " -faults "+want) {
		t.Errorf("the replay line %q does not replay %s", repro, want)
	}
	if !strings.Contains(r.Stderr, "wrote "+want+"\n") || !strings.Contains(r.Stderr, "replay: "+rec["repro"].(string)+"\n") {
		t.Errorf("stderr does not name the shrunk schedule and its replay\n%s", r)
	}
	before := clitest.ReadFile(t, filepath.Join(dir, want))

	// The sweep writes seed 1's raw schedule beside it, and only that.
	r = sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1-2", "-json")
	r.WantExitClean(t, 1)
	raw := filepath.Join(dir, ".seedfall", "seedfall", "seed-1.faults.json")
	if _, err := os.Stat(raw); err != nil {
		t.Fatalf("the sweep wrote no schedule of its own: %v", err)
	}
	if after := clitest.ReadFile(t, filepath.Join(dir, want)); after != before {
		t.Fatalf("the sweep changed the shrunk schedule:\nbefore %s\nafter %s", before, after)
	}
	sched := checkShrunk(t, dir, rec, 1)
	if sched["shrunk_from"] == nil {
		t.Errorf("the shrunk schedule lost shrunk_from: %v", sched)
	}

	// sf-faults starts from the shrunk schedule, with a note that names the
	// other.
	r = runBin(t, dir, "", tools.Path("sf-faults"), "-c", "seedfall.json", "-seed", "1")
	r.WantExitClean(t, 0)
	note := "sf-faults: note: starting from seed 1's shrunk schedule; -faults " +
		filepath.Join(".seedfall", "seedfall", "seed-1.faults.json") + " starts from its run's\n"
	if r.Stderr != note || !strings.HasPrefix(r.Stdout, "seed 1, 1 fault from "+want+", not written\n") {
		t.Errorf("sf-faults -seed 1: want the shrunk schedule and the note\n%s", r)
	}
}
