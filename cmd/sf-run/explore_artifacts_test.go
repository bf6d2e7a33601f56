package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestExploreHistory: a failing run of an exploration of a world that
// records a history writes what a failing seed of a sweep writes, named
// after the run: its trace, its history and the history's timeline, beside
// its schedule, named in its seed record and in the report. Replaying a
// branched run's schedule prints the same trace and records the same
// history, byte for byte. With -compress the trace and history are zstd
// files and the plain ones an earlier exploration wrote are gone. The
// summary's property table counts the runs.
//
// The maybestale guest serves a stale read in about one run of three, drawn
// from its random stream, and says so with a Sometimes: seed 1 does not,
// and its branches do now and then.
func TestExploreHistory(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := t.TempDir()
	writeHistoryWorld(t, filepath.Join(dir, "w.json"), "maybestale", nil, "kv", nil)
	args := []string{"-c", "w.json", "-seeds", "1", "-explore", "-explore-runs", "8", "-json"}
	r := sfRun(t, dir, args...)
	r.WantExitClean(t, 1)
	recs := decodeExplore(t, r.Stdout)
	if len(recs.seeds) == 0 {
		t.Fatalf("no run failed\n%s", r)
	}
	var branched *exploreSeed
	for i, s := range recs.seeds {
		stem := fmt.Sprintf(".seedfall/w/explore-%d-run-%d", s.Seed, s.ExploreRun)
		a := s.Artifacts
		if a == nil || a.Trace != stem+".trace.log" || a.History != stem+".history.jsonl" || a.Timeline != stem+".history.html" ||
			a.Faults != stem+".faults.json" || s.HistoryCheck != "illegal" {
			t.Fatalf("record %d: artifacts %+v, history_check %q; want the files %s.* and illegal", i, a, s.HistoryCheck, stem)
		}
		if s.Branches > 0 && s.FaultsFile != a.Faults || s.Branches == 0 && s.FaultsFile != "" {
			t.Errorf("record %d: %d branches, faults_file %q, artifacts.faults %q", i, s.Branches, s.FaultsFile, a.Faults)
		}
		for _, p := range []string{a.Trace, a.History, a.Timeline, a.Faults} {
			if !exists(filepath.Join(dir, p)) {
				t.Errorf("record %d names %s, which does not exist", i, p)
			}
			if !strings.Contains(r.Stderr, " "+p+"\n") {
				t.Errorf("the report does not name %s\n%s", p, r.Stderr)
			}
		}
		if branched == nil && s.Branches > 0 {
			branched = &recs.seeds[i]
		}
	}
	if branched == nil {
		t.Fatalf("no branched run failed\n%s", r)
	}

	replay := sfRun(t, dir, "-c", "w.json", "-seed", "1", "-faults", branched.FaultsFile)
	replay.WantExitClean(t, 1)
	trace := clitest.ReadFile(t, filepath.Join(dir, branched.Artifacts.Trace))
	if got, want := tracePart(t, branched.Artifacts.Trace, trace), tracePart(t, "the replay", replay.Stdout); got != want {
		t.Errorf("%s holds another trace than the replay prints:\n%s\nwant:\n%s", branched.Artifacts.Trace, got, want)
	}
	hist := clitest.ReadFile(t, filepath.Join(dir, branched.Artifacts.History))
	if want := clitest.ReadFile(t, artifact(t, dir, "seed-1.history.jsonl")); hist != want {
		t.Errorf("%s is not the history the replay records", branched.Artifacts.History)
	}
	if c, v := sfCheck(t, filepath.Join(dir, branched.Artifacts.History), "kv"); c.Code != 1 || v.Verdict != "illegal" {
		t.Errorf("sf-check on %s: exit %d, verdict %q; want 1 and illegal\n%s", branched.Artifacts.History, c.Code, v.Verdict, c)
	}

	sum := recs.summary
	want := exploreProperty{Kind: "sometimes", Message: "the stale read was served", SeedsReached: sum.Seeds, SeedsTrue: sum.Failed}
	if sum.Seeds != 8 || len(sum.Properties) != 1 || sum.Properties[0] != want || sum.PropertyFailures != 0 {
		t.Errorf("summary of %d runs, %d failed: properties %+v; want the one row %+v", sum.Seeds, sum.Failed, sum.Properties, want)
	}
	if !strings.Contains(r.Stderr, fmt.Sprintf("  sometimes            %12d %11d  the stale read was served\n", sum.Seeds, sum.Failed)) {
		t.Errorf("the report lacks the property table\n%s", r.Stderr)
	}

	// -compress: the same runs, the trace and history as zstd files.
	z := sfRun(t, dir, append(args, "-compress")...)
	z.WantExitClean(t, 1)
	zrecs := decodeExplore(t, z.Stdout)
	if len(zrecs.seeds) != len(recs.seeds) {
		t.Fatalf("-compress: %d failing runs, want %d\n%s", len(zrecs.seeds), len(recs.seeds), z)
	}
	for i, s := range zrecs.seeds {
		plain := recs.seeds[i].Artifacts
		a := s.Artifacts
		if a == nil || a.Trace != plain.Trace+".zst" || a.History != plain.History+".zst" || a.Faults != plain.Faults {
			t.Fatalf("-compress, record %d: artifacts %+v, want %+v with .zst on the trace and history", i, a, plain)
		}
		for _, p := range []string{a.Trace, a.History} {
			data, err := os.ReadFile(filepath.Join(dir, p))
			if err != nil || !bytes.HasPrefix(data, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
				t.Errorf("-compress: %s is not a zstd file (%v)", p, err)
			}
			if exists(filepath.Join(dir, strings.TrimSuffix(p, ".zst"))) {
				t.Errorf("-compress: the plain %s is still there", strings.TrimSuffix(p, ".zst"))
			}
		}
		if !strings.Contains(z.Stderr, "  wrote trace "+a.Trace+"\n") {
			t.Errorf("-compress: the report does not name %s\n%s", a.Trace, z.Stderr)
		}
	}
}

// TestExploreTablesAsSweep: an exploration whose budget is its starting
// seeds makes no branch, so its property and buggify tables are those of a
// sweep of the same seeds, on the buggify example, which enables buggify;
// and a starting seed that fails gets the sweep's artifacts of that seed
// under the run's name: the same trace, and a schedule of its faults.
func TestExploreTablesAsSweep(t *testing.T) {
	dir := tools.Example(t, "buggify", "seedfall.json")
	sweep := sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1-3", "-json")
	explore := sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1-3", "-explore", "-explore-runs", "3", "-json")
	if sweep.Code != explore.Code || sweep.Code > 1 {
		t.Fatalf("sweep exit %d, exploration exit %d\n%s\n%s", sweep.Code, explore.Code, sweep, explore)
	}
	tables := func(r result) (props, sites string) {
		recs := clitest.Records(t, r)
		sum := recs[len(recs)-1]
		p, _ := json.Marshal(sum["properties"])
		s, _ := json.Marshal(sum["buggify_sites"])
		return string(p), string(s)
	}
	sp, ss := tables(sweep)
	ep, es := tables(explore)
	if sp != ep || ss != es || !strings.Contains(ss, `"site":"reply lost after apply"`) || !strings.Contains(sp, `"kind":"sometimes"`) {
		t.Errorf("the exploration's tables\n%s\n%s\nwant the sweep's\n%s\n%s", ep, es, sp, ss)
	}
	if !strings.Contains(explore.Stderr, "\nbuggify   runs reached   runs enabled   runs fired  fired\n") {
		t.Errorf("the exploration's report lacks the buggify table\n%s", explore.Stderr)
	}

	recs := decodeExplore(t, explore.Stdout)
	if len(recs.seeds) == 0 {
		t.Fatalf("no starting seed of 1-3 failed\n%s", explore)
	}
	for _, s := range recs.seeds {
		stem := fmt.Sprintf(".seedfall/seedfall/explore-%d-run-%d", s.Seed, s.ExploreRun)
		a := s.Artifacts
		if s.Branches != 0 || s.FaultsFile != "" || a == nil || a.Trace != stem+".trace.log" || a.Faults != stem+".faults.json" || a.History != "" {
			t.Fatalf("run %d: faults_file %q, artifacts %+v; want a starting seed's, named %s.*", s.ExploreRun, s.FaultsFile, a, stem)
		}
		if !strings.Contains(explore.Stderr, "  wrote schedule "+a.Faults+"\n  wrote trace "+a.Trace+"\n") {
			t.Errorf("the report does not name run %d's files\n%s", s.ExploreRun, explore.Stderr)
		}
		got := clitest.ReadFile(t, filepath.Join(dir, a.Trace))
		want := clitest.ReadFile(t, filepath.Join(dir, fmt.Sprintf(".seedfall/seedfall/seed-%d.trace.log", s.Seed)))
		if got != want {
			t.Errorf("%s is not the sweep's trace of seed %d:\n%s\nwant:\n%s", a.Trace, s.Seed, got, want)
		}
		var sched struct {
			Seed     uint64            `json:"seed"`
			Branches []json.RawMessage `json:"branches"`
			Faults   []json.RawMessage `json:"faults"`
		}
		if err := json.Unmarshal([]byte(clitest.ReadFile(t, filepath.Join(dir, a.Faults))), &sched); err != nil ||
			sched.Seed != s.Seed || len(sched.Branches) != 0 || len(sched.Faults) != s.Faults {
			t.Errorf("%s: seed %d, %d branches, %d faults (%v); want seed %d's %d faults and no branch", a.Faults, sched.Seed, len(sched.Branches), len(sched.Faults), err, s.Seed, s.Faults)
		}
	}
}

// TestExplorePropertyNeverTrue: as in a sweep, a Sometimes that no run of an
// exploration made true fails it, with exit status 1 although no run
// failed, and the report and the summary say so.
func TestExplorePropertyNeverTrue(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := t.TempDir()
	// One run in a million serves the stale read: none of these three.
	writeHistoryWorld(t, filepath.Join(dir, "w.json"), "maybestale", []string{"-one-in", "1000000"}, "kv", nil)
	r := sfRun(t, dir, "-c", "w.json", "-seeds", "1-3", "-explore", "-explore-runs", "3", "-json")
	r.WantExitClean(t, 1)
	recs := decodeExplore(t, r.Stdout)
	sum := recs.summary
	want := exploreProperty{Kind: "sometimes", Message: "the stale read was served", SeedsReached: 3, Verdict: "never true"}
	if len(recs.seeds) != 0 || sum.Failed != 0 || sum.Status != "fail" || sum.PropertyFailures != 1 || len(sum.Properties) != 1 || sum.Properties[0] != want {
		t.Errorf("%d failing runs; summary failed %d, status %q, %d property failures, properties %+v; want none failing, status fail and %+v",
			len(recs.seeds), sum.Failed, sum.Status, sum.PropertyFailures, sum.Properties, want)
	}
	if !strings.Contains(r.Stderr, "  <- never true (") || !strings.Contains(r.Stderr, "\nexplore: 1 property never reached or never true in 3 runs\n") {
		t.Errorf("the report does not say the property failed\n%s", r.Stderr)
	}
}
