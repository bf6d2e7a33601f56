package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/clitest"
	"github.com/sf-dst/sf/lib/schedule"
)

// snapshotTime reads the virtual time of the snapshot -snapshot wrote from
// its first line.
var snapshotTime = regexp.MustCompile(`^seed \d+: snapshot at step (\d+), t=(\S+),`)

// seedRecord is the seed record of a run with -json.
func seedRecord(t *testing.T, r result) map[string]any {
	t.Helper()
	for _, rec := range clitest.Records(t, r) {
		if rec["kind"] == "seed" {
			return rec
		}
	}
	t.Fatalf("no seed record\n%s", r)
	return nil
}

// TestSnapshotBranch: -from FILE -branch KEY continues kvlog's seed 2 from
// its snapshot at 1s with every random stream re-keyed just after the
// snapshot's time, and that run is the replay of the seed from its start
// with that branch: the schedule its failure writes holds the branch, and
// replaying it gives the same trace and determinism hash. -from -faults
// takes a schedule's branches after the snapshot's time, as a replay of the
// schedule from the seed's start does, and refuses one at or before it, as
// it does -branch without -from.
func TestSnapshotBranch(t *testing.T) {
	tools.Need(t)
	dir := kvlogDir(t)
	const world = "seedfall.json"
	tmp := t.TempDir()
	snap := filepath.Join(tmp, "s2.snap")
	r := sfRun(t, dir, "-c", world, "-seed", "2", "-stop-at", "1s", "-snapshot", snap)
	r.WantExitClean(t, 0)
	m := snapshotTime.FindStringSubmatch(r.Stdout)
	if m == nil {
		t.Fatalf("no snapshot line\n%s", r)
	}
	at, err := time.ParseDuration(m[2])
	if err != nil {
		t.Fatal(err)
	}
	removeArtifacts(t, dir)
	plain := seedRecord(t, sfRun(t, dir, "-c", world, "-from", snap, "-json"))

	// Key 2 still loses a write; the branch moves when.
	r = sfRun(t, dir, "-c", world, "-from", snap, "-branch", "2", "-json")
	r.WantExit(t, 1)
	branched := seedRecord(t, r)
	if want := "sf-run -c " + world + " -from " + snap + " -branch 2"; branched["repro"] != want {
		t.Errorf("the branched run's repro is %q, want %q", branched["repro"], want)
	}
	if branched["determinism_hash"] == plain["determinism_hash"] || branched["at_ns"] == plain["at_ns"] {
		t.Fatalf("the branch changed nothing (%v, %v): the test would prove nothing", branched, plain)
	}
	// The trace file's header names the command that replays it, which is
	// not the same one.
	replayLine := regexp.MustCompile(`(?m)^replay: .*\n`)
	trace := replayLine.ReplaceAllString(clitest.ReadFile(t, artifact(t, dir, "seed-2.trace.log")), "")
	if want := "branch: re-keyed every stream at "; !strings.Contains(trace, want) {
		t.Errorf("the trace lacks %q", want)
	}
	schedFile := artifact(t, dir, "seed-2.faults.json")
	sched, err := schedule.ReadFile(schedFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := (schedule.Branch{At: schedule.Dur(at + 1), Key: 2}); len(sched.Branches) != 1 || sched.Branches[0] != want {
		t.Fatalf("the failure's schedule has branches %v, want %v", sched.Branches, want)
	}
	kept := filepath.Join(tmp, "branched.json")
	if err := os.Rename(schedFile, kept); err != nil {
		t.Fatal(err)
	}
	removeArtifacts(t, dir)
	replay := seedRecord(t, sfRun(t, dir, "-c", world, "-seed", "2", "-faults", kept, "-json"))
	if replay["determinism_hash"] != branched["determinism_hash"] || replay["steps"] != branched["steps"] {
		t.Errorf("the replay of the seed with the branch: %v\nthe branched continuation: %v", replay, branched)
	}
	if got := replayLine.ReplaceAllString(clitest.ReadFile(t, artifact(t, dir, "seed-2.trace.log")), ""); got != trace {
		t.Errorf("the replay of the seed with the branch wrote another trace than the branched continuation: %s", firstDiff(got, trace))
	}

	write := func(name, body string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A schedule's branch after the snapshot acts as in the replay of the
	// schedule from the seed's start.
	later := write("later.json", `{"branches": [{"at": "2s", "key": 5}], "faults": [{"at": "2.75s", "kind": "crash", "node": "server", "until": "3.15s"}]}`)
	withFaults := sfRun(t, dir, "-c", world, "-from", snap, "-faults", later, "-json")
	fromSeed := sfRun(t, dir, "-c", world, "-seed", "2", "-faults", later, "-json")
	a, b := seedRecord(t, withFaults), seedRecord(t, fromSeed)
	if withFaults.Code != fromSeed.Code || a["determinism_hash"] != b["determinism_hash"] {
		t.Errorf("-from -faults with a later branch: exit %d, %v\n-seed -faults: exit %d, %v", withFaults.Code, a, fromSeed.Code, b)
	}
	if want := "sf-run -c " + world + " -from " + snap + " -faults " + later; a["repro"] != want {
		t.Errorf("repro %q, want %q", a["repro"], want)
	}
	both := sfRun(t, dir, "-c", world, "-from", snap, "-faults", later, "-branch", "9", "-json")
	if want := "sf-run -c " + world + " -from " + snap + " -faults " + later + " -branch 9"; seedRecord(t, both)["repro"] != want {
		t.Errorf("repro %q, want %q", seedRecord(t, both)["repro"], want)
	}
	if strings.Count(both.Stderr, "branch: re-keyed every stream at ") != 2 {
		t.Errorf("-faults with a branch and -branch: want two branches in the trace\n%s", both)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-from", snap, "-faults", write("early.json", `{"branches": [{"at": "500ms", "key": 5}], "faults": []}`)},
			"early.json: branches[0].at: 500ms is not after the snapshot's time " + m[2] + " (step " + m[1] + ")"},
		{[]string{"-from", snap, "-faults", write("at.json", `{"branches": [{"at": "`+m[2]+`", "key": 6}], "faults": []}`)},
			"branches[0].at: " + m[2] + " is not after the snapshot's time"},
		{[]string{"-seed", "2", "-branch", "1"}, "-branch needs -from FILE"},
		{[]string{"-from", snap, "-branch", "x"}, `"x" is not a key (a whole number)`},
		{[]string{"-explore", "-branch", "1"}, "-explore does not take -branch"},
	} {
		r := sfRun(t, dir, append([]string{"-c", world}, c.args...)...)
		r.WantExitClean(t, 2)
		if !strings.Contains(r.Stderr, c.want) {
			t.Errorf("%q: stderr lacks %q\n%s", c.args, c.want, r)
		}
	}
}
