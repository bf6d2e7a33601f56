package report

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// exploreStream is an sf-run -explore stream of 14 runs: runs 6 and 13 of
// seed 1 lose a write, run 9 of seed 2 (a starting seed, no branch) fails
// another way.
const exploreStream = `{"kind":"start","tool":"sf-run","version":"0.1.0","schema":1,"config":"w.json","seeds":"1-2","count":2,"jobs":2,"explore_runs":14}
{"kind":"seed","seed":1,"config":"w.json","faults_file":".seedfall/w/explore-1-run-6.faults.json","status":"fail","class":"assert","message":"client#1: write lost: k25","property":"write lost: k25","node":"client#1","at_ns":2000000000,"steps":3,"host_calls":5,"real_ns":1,"determinism_hash":"00000000000000aa","faults":4,"repro":"sf-run -c w.json -seed 1 -faults .seedfall/w/explore-1-run-6.faults.json","explore_run":6,"branches":1}
{"kind":"seed","seed":2,"config":"w.json","status":"fail","class":"panic","message":"server#1: panic: nil map","node":"server#1","at_ns":1000000000,"steps":3,"host_calls":5,"real_ns":1,"determinism_hash":"00000000000000bb","faults":2,"repro":"sf-run -c w.json -seed 2","explore_run":9}
{"kind":"seed","seed":1,"config":"w.json","faults_file":".seedfall/w/explore-1-run-13.faults.json","status":"fail","class":"assert","message":"client#1: write lost: k6","property":"write lost: k6","node":"client#1","at_ns":1000000000,"steps":3,"host_calls":5,"real_ns":1,"determinism_hash":"00000000000000cc","faults":7,"repro":"sf-run -c w.json -seed 1 -faults .seedfall/w/explore-1-run-13.faults.json","explore_run":13,"branches":2}
{"kind":"summary","tool":"sf-run","config":"w.json","seeds":14,"passed":11,"failed":3,"horizon":1,"nondeterministic":0,"failed_seeds":[1,2],"properties":[],"property_failures":0,"real_ns":5000000000,"status":"fail","explore":{"runs":14,"starting_seeds":2,"branches":12,"budget":14,"corpus":3,"new_states":4,"branched_failures":2}}
`

// exploreShrinks shrank run 13 of seed 1.
const exploreShrinks = `{"kind":"start","tool":"sf-shrink","version":"0.1.0","schema":1,"config":"","seeds":"","count":1,"jobs":2}
{"kind":"shrink","seed":1,"config":"w.json","class":"assert","message":"client#1: write lost: k3","node":"client#1","faults_before":7,"faults_after":1,"shrink_runs":9,"duration":"1s","duration_ns":1000000000,"schedule":".seedfall/w/explore-1-run-13.shrunk.faults.json","repro":"sf-run -c w.json -seed 1 -faults .seedfall/w/explore-1-run-13.shrunk.faults.json","explore_run":13}
{"kind":"summary","tool":"sf-shrink","shrunk":1,"errors":0,"skipped":0,"real_ns":1,"status":"shrunk"}
`

// TestExploreStream: an exploration's counts are its runs, from its
// summary; two failing runs of one seed are two runs of one finding, not
// merged into one seed; the finding's replay is its first run's schedule,
// or the shrunk schedule of one of its runs.
func TestExploreStream(t *testing.T) {
	sweeps, err := Build([]Input{{Name: "explore.jsonl", R: strings.NewReader(exploreStream)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sweeps) != 1 {
		t.Fatalf("%d sweeps", len(sweeps))
	}
	sw := sweeps[0]
	if sw.ExploreBudget != 14 || sw.Explore == nil || sw.Ran != 14 || sw.Passed != 11 || sw.Horizon != 1 || sw.Failed != 3 || sw.Status() != "fail" {
		t.Errorf("counts: budget %d, ran %d, passed %d, horizon %d, failed %d, status %s", sw.ExploreBudget, sw.Ran, sw.Passed, sw.Horizon, sw.Failed, sw.Status())
	}
	if len(sw.Findings) != 2 {
		t.Fatalf("%d findings, want 2", len(sw.Findings))
	}
	// Runs 6 and 13 of seed 1 and run 9 of seed 2 failed: two seeds.
	if fmt.Sprint(sw.FailedSeeds) != "[1 2]" {
		t.Errorf("failed seeds %v, want [1 2]", sw.FailedSeeds)
	}
	lost := sw.Findings[0]
	if lost.Title() != "assert · write lost" || fmt.Sprint(lost.Runs) != "[6 13]" || fmt.Sprint(lost.Seeds) != "[1]" || lost.size() != 2 ||
		lost.First.ExploreRun != 6 || lost.Repro() != "sf-run -c w.json -seed 1 -faults .seedfall/w/explore-1-run-6.faults.json" {
		t.Errorf("first finding %s: runs %v, seeds %v, first run %d, repro %q", lost.Title(), lost.Runs, lost.Seeds, lost.First.ExploreRun, lost.Repro())
	}
	if got := lost.SeedsText(); got != "runs 6 13 (seed 1)" {
		t.Errorf("SeedsText %q", got)
	}
	var b strings.Builder
	Text(&b, sweeps)
	for _, want := range []string{
		"exploration w.json, explored from seeds 1-2 with a budget of 14 runs\n",
		"FAIL 3 of 14 runs failed, 2 of them branched (2 starting seeds, 12 branches; 11 passed, 1 hit the time horizon); 2 findings; 3 runs kept for reaching 4 new states\n",
		" 1. assert · write lost\n    2 runs: runs 6 13 (seed 1)\n    run 6, seed 1 (1 branch) at t=2s: client#1: write lost: k25\n    schedule: .seedfall/w/explore-1-run-6.faults.json\n    repro: sf-run -c w.json -seed 1 -faults .seedfall/w/explore-1-run-6.faults.json\n",
		" 2. panic · panic\n    1 run: run 9 (seed 2)\n    run 9, seed 2 (0 branches) at t=1s: server#1: panic: nil map\n    repro: sf-run -c w.json -seed 2\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report lacks %q\n%s", want, b.String())
		}
	}
	b.Reset()
	Markdown(&b, sweeps)
	if !strings.Contains(b.String(), "| 2: runs 6 13 (seed 1) |") || !strings.Contains(b.String(), "Run 6 (seed 1, 1 branch, schedule `.seedfall/w/explore-1-run-6.faults.json`) failed at t=2s:") {
		t.Errorf("the Markdown report does not list the runs\n%s", b.String())
	}
	b.Reset()
	if err := HTML(&b, sweeps, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `<span id="sweep-1-finding-1-count">2</span> runs`) || !strings.Contains(b.String(), `<p>Runs: <code id="sweep-1-finding-1-seeds">runs 6 13 (seed 1)</code>`) {
		t.Errorf("the page does not count the runs")
	}

	sweeps, err = Build([]Input{{Name: "explore.jsonl", R: strings.NewReader(exploreStream)}, {Name: "shrink.jsonl", R: strings.NewReader(exploreShrinks)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sweeps) != 1 {
		t.Fatalf("%d sweeps with the shrink records, want them joined to the exploration", len(sweeps))
	}
	lost = sweeps[0].Findings[0]
	if lost.Shrunk == nil || lost.Shrunk.ExploreRun != 13 || lost.Repro() != "sf-run -c w.json -seed 1 -faults .seedfall/w/explore-1-run-13.shrunk.faults.json" {
		t.Errorf("want run 13's shrunk schedule on the finding, repro %q", lost.Repro())
	}
	b.Reset()
	Text(&b, sweeps)
	if !strings.Contains(b.String(), "    shrunk: run 13 (seed 1) from 7 faults to 1, fails at 1s: .seedfall/w/explore-1-run-13.shrunk.faults.json\n") {
		t.Errorf("no shrunk line\n%s", b.String())
	}
}

// TestExploreStreamCut: an exploration cut before its summary counts the
// failing runs it holds and says the stream ended early.
func TestExploreStreamCut(t *testing.T) {
	cut := exploreStream[:strings.Index(exploreStream, `{"kind":"summary"`)]
	sweeps, err := Build([]Input{{Name: "cut.jsonl", R: strings.NewReader(cut)}})
	if err != nil {
		t.Fatal(err)
	}
	sw := sweeps[0]
	if sw.Explore != nil || sw.Failed != 3 || sw.Status() != "fail" || len(sw.Unfinished) != 1 {
		t.Errorf("failed %d, status %s, unfinished %v", sw.Failed, sw.Status(), sw.Unfinished)
	}
	if got := sw.Counts(); got != "3 failing runs before the stream ended; 2 findings" {
		t.Errorf("counts %q", got)
	}
}

// TestExploreFindings: in the findings file an exploration's finding is
// never resolved, neither by an exploration that does not fail that way
// (its passing runs have no records) nor by a sweep whose run of the seed
// passes (the failure was a branch's).
func TestExploreFindings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "findings.json")
	update := func(now string, sweeps []*Sweep) *Store {
		t.Helper()
		store, err := LoadStore(path)
		if err != nil {
			t.Fatal(err)
		}
		store.Update(sweeps, now)
		if err := store.Save(); err != nil {
			t.Fatal(err)
		}
		return store
	}
	explore, err := Build([]Input{{Name: "explore.jsonl", R: strings.NewReader(exploreStream)}})
	if err != nil {
		t.Fatal(err)
	}
	update("2026-01-01T00:00:00Z", explore)
	// Only run 9 fails now: seed 2's panic, not seed 1's lost write.
	var onlyPanic strings.Builder
	for _, l := range strings.SplitAfter(exploreStream, "\n") {
		if !strings.Contains(l, `"class":"assert"`) {
			onlyPanic.WriteString(l)
		}
	}
	again, err := Build([]Input{{Name: "again.jsonl", R: strings.NewReader(onlyPanic.String())}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(again[0].Findings); n != 1 {
		t.Fatalf("%d findings in the second exploration, want the panic alone", n)
	}
	update("2026-01-02T00:00:00Z", again)
	if n := len(again[0].Resolved); n != 0 {
		t.Errorf("an exploration resolved %d findings", n)
	}
	// A sweep of seeds 1-4 of the same world that all pass.
	sweep := sweepOf(t, "w.json")
	update("2026-01-03T00:00:00Z", sweep)
	for _, f := range sweep[0].Resolved {
		if f.Head == "write lost" {
			t.Errorf("a sweep whose seed 1 passed resolved the lost write that a branch of it found")
		}
	}

	// A sweep's finding of seed 2, then an exploration in which seed 2
	// fails another way: its runs of seed 2 say nothing of the sweep's.
	update("2026-01-04T00:00:00Z", sweepOf(t, "w.json", 2))
	update("2026-01-05T00:00:00Z", again)
	for _, f := range again[0].Resolved {
		t.Errorf("an exploration resolved %s", f.Title())
	}
}

// TestExploreStreamTables: an exploration's summary carries the property and
// buggify tables summed over its runs, which the report shows as a sweep's,
// a property never true among them counted as failed; and the cause curve
// of one of its runs (sf-shrink -cause) goes to the finding of that run.
func TestExploreStreamTables(t *testing.T) {
	stream := strings.Replace(exploreStream, `"properties":[],"property_failures":0,`,
		`"properties":[{"kind":"sometimes","message":"failed over","seeds_reached":11,"seeds_true":0,"verdict":"never true"},`+
			`{"kind":"reachable","message":"client finished","seeds_reached":11,"seeds_true":11}],"property_failures":1,`+
			`"buggify_sites":[{"site":"slow apply","seeds_reached":14,"seeds_enabled":5,"seeds_fired":4,"fired":9}],`, 1)
	causes := `{"kind":"start","tool":"sf-shrink","version":"0.1.0","schema":1,"config":"","seeds":"","count":1,"jobs":2}
{"kind":"cause","seed":1,"config":"w.json","failure":"assert: write lost","fail_at_ns":1000000000,"at":"0s","at_ns":0,"branches":2,"same":0,"share":0,"repro":"sf-run -c w.json -seed 1 -faults .seedfall/w/explore-1-run-13.faults.json","explore_run":13}
{"kind":"cause","seed":1,"config":"w.json","failure":"assert: write lost","fail_at_ns":1000000000,"at":"500ms","at_ns":500000000,"branches":2,"same":2,"share":1,"inevitable":true,"repro":"sf-run -c w.json -seed 1 -faults .seedfall/w/explore-1-run-13.faults.json","explore_run":13}
{"kind":"summary","tool":"sf-shrink","shrunk":0,"caused":1,"errors":0,"skipped":0,"real_ns":1,"status":"caused"}
`
	sweeps, err := Build([]Input{{Name: "explore.jsonl", R: strings.NewReader(stream)}, {Name: "cause.jsonl", R: strings.NewReader(causes)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sweeps) != 1 {
		t.Fatalf("%d sweeps, want the curve joined to the exploration", len(sweeps))
	}
	sw := sweeps[0]
	if len(sw.Properties) != 2 || sw.PropertyFailures != 1 || len(sw.Buggify) != 1 || sw.Status() != "fail" {
		t.Errorf("%d properties (%d failed), %d buggify sites, status %s", len(sw.Properties), sw.PropertyFailures, len(sw.Buggify), sw.Status())
	}
	if c := sw.Findings[0].Cause; c == nil || c.ExploreRun != 13 {
		t.Errorf("the lost write's finding has curve %+v, want run 13's", c)
	}
	var b strings.Builder
	Text(&b, sweeps)
	for _, want := range []string{
		"; 3 runs kept for reaching 4 new states; 1 property failed\n",
		"    cause of run 13 (seed 1) (2 branches per moment): inevitable from 500ms\n",
		"\nproperties:\n",
		"  sometimes                       11           0            failed over  <- never true\n",
		"\nbuggify sites:\n",
		"             14              5            4       9  slow apply\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report lacks %q\n%s", want, b.String())
		}
	}
}

// TestExploreHTMLLabels: without a browser, the page of an exploration
// heads its tables and names its runs as runs, and a sweep's page on the
// same page keeps its seeds (the browser test checks the same in
// Chromium).
func TestExploreHTMLLabels(t *testing.T) {
	var b strings.Builder
	if err := HTML(&b, build(t, "run.jsonl", "explore.jsonl", "explore-shrink.jsonl"), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	sweep, explore, ok := strings.Cut(page, `<section class="sweep" id="sweep-2"`)
	if !ok {
		t.Fatal("no second sweep on the page")
	}
	for _, want := range []string{
		`<span id="sweep-2-ran-label">runs</span>`,
		`<th>runs reached</th><th>runs true</th>`,
		`<th>runs reached</th><th>runs enabled</th><th>runs fired</th>`,
		`<p>Run 6 (seed 1, 1 branch) failed at t=2.143799s:</p>`,
		`<p>Shrunk run 13 (seed 1) from 7 faults`,
		`<h3>Cause of run 13 (seed 1) <span`,
		`<p id="sweep-2-gave-up">2 runs neither passed`,
		`<p class="muted" id="sweep-2-counts">3 of 14 runs failed, 2 of them branched`,
	} {
		if !strings.Contains(explore, want) {
			t.Errorf("the exploration's page lacks %q", want)
		}
	}
	for _, unwanted := range []string{"seeds reached", "seeds enabled", "seeds fired", "seeds true", "seeds ran", "Shrunk seed", "Cause of seed"} {
		if strings.Contains(explore, unwanted) {
			t.Errorf("the exploration's page says %q", unwanted)
		}
	}
	for _, want := range []string{`<span id="sweep-1-ran-label">seeds ran</span>`, `<th>seeds reached</th><th>seeds true</th>`, `<p>Seed 1 failed at t=`} {
		if !strings.Contains(sweep, want) {
			t.Errorf("the sweep's page lacks %q", want)
		}
	}
}
