package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/textfmt"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// build reads the named testdata files into sweeps, with their shrunk
// schedules.
func build(t *testing.T, files ...string) []*Sweep {
	t.Helper()
	var ins []Input
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, Input{Name: f, R: bytes.NewReader(data)})
	}
	sweeps, err := Build(ins)
	if err != nil {
		t.Fatal(err)
	}
	Schedules(sweeps, ".")
	return sweeps
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s changed (go test -update rewrites it):\n%s\nwant:\n%s", name, got, want)
	}
}

// TestGolden pins the text and Markdown reports of a sweep with every
// section (findings of each kind, a shrunk schedule, a history timeline,
// margins, buggify sites, a history check that gave up), and of a sharded
// sweep with a shard missing, and of a sweep whose pinned regressions
// failed (one as a seed of the sweep does, one differently) and passed;
// and of an exploration with its shrunk run and cause curve, whose tables,
// shrink, curve and history checks count runs where a sweep's count seeds.
func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		store bool
	}{
		{"sweep", []string{"run.jsonl", "shrink.jsonl"}, true},
		{"shards", []string{"shard-3-of-3.jsonl", "shard-1-of-3.jsonl"}, false},
		{"shrink-only", []string{"shrink.jsonl"}, false},
		{"pins", []string{"pins.jsonl"}, true},
		{"explore", []string{"explore.jsonl", "explore-shrink.jsonl"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sweeps := build(t, tc.files...)
			if tc.store {
				s, err := LoadStore(filepath.Join(t.TempDir(), "findings.json"))
				if err != nil {
					t.Fatal(err)
				}
				s.Update(sweeps, "2026-01-02T03:04:05Z")
			}
			var txt, md bytes.Buffer
			Text(&txt, sweeps)
			Markdown(&md, sweeps)
			golden(t, tc.name+".txt", txt.Bytes())
			golden(t, tc.name+".md", md.Bytes())
		})
	}
}

func TestGroup(t *testing.T) {
	for _, tc := range []struct {
		name, class, message, property, node string
		head, nodeName                       string
	}{
		{"instance dropped", "assert", "client#3: acknowledged write lost: k7=v7", "", "client#3", "acknowledged write lost", ""},
		{"property wins", "assert", "client#1: lost: k1", "acknowledged write lost: k1=v1", "client#1", "acknowledged write lost", ""},
		{"numbers masked", "assert", "client#1: counter is 136 after 100 increments", "", "client#1", "counter is N after N increments", ""},
		{"instance inside", "fail", "client#2: server#3 went away", "", "client#2", "server went away", ""},
		{"liveness by node", "liveness", "server#2: did not finish within 10s", "", "server#2", "", "server"},
		{"no message", "exit", "", "", "server#1", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			head, node := Group(tc.class, tc.message, tc.property, tc.node)
			if head != tc.head || node != tc.nodeName {
				t.Errorf("Group = %q, %q; want %q, %q", head, node, tc.head, tc.nodeName)
			}
		})
	}
}

// TestBadInput pins the errors of inputs that are not a report's: each
// names the file and line, or says what is wrong with the shards.
func TestBadInput(t *testing.T) {
	run, _ := os.ReadFile("testdata/run.jsonl")
	shard1, _ := os.ReadFile("testdata/shard-1-of-3.jsonl")
	other := strings.Replace(string(shard1), `"config":"seedfall.json","seeds"`, `"config":"other.json","seeds"`, 1)
	for _, tc := range []struct {
		name   string
		inputs []Input
		want   string
	}{
		{"malformed line", []Input{{"a.jsonl", strings.NewReader(string(run[:200]) + "\n{\"kind\":\"seed\",\n")}},
			"a.jsonl:2: not a JSON record"},
		{"malformed later", []Input{{"a.jsonl", strings.NewReader(string(run) + "{\"kind\":\"seed\",\n")}},
			"a.jsonl:11: not a JSON record"},
		{"human report", []Input{{"<stdin>", strings.NewReader("FAIL seed 1 at t=3.6s (994 scheduler steps)\n")}},
			"<stdin>:1: not a JSON record (this is sf-run's report for people: run sf-run with -json, or pipe it, to get records)"},
		{"empty stream", []Input{{"<stdin>", strings.NewReader("")}},
			"<stdin>: no records: pipe sf-run (with -json, or into a pipe) or sf-shrink -json into sf-report, or name their record files"},
		{"seed before start", []Input{{"b.jsonl", strings.NewReader(strings.SplitN(string(run), "\n", 2)[1])}},
			"b.jsonl:1: a seed record before any start record: give each stream whole, from its start record"},
		{"shards of different worlds", []Input{{"s1.jsonl", bytes.NewReader(shard1)}, {"s2.jsonl", strings.NewReader(strings.Replace(other, `"shard":"1/3"`, `"shard":"2/3"`, 1))}},
			"s2.jsonl:1: shard 2/3 is of world other.json, and shard 1/3 (s1.jsonl:1) of seedfall.json: shards of one sweep run one world"},
		{"shard twice", []Input{{"s1.jsonl", bytes.NewReader(shard1)}, {"again.jsonl", bytes.NewReader(shard1)}},
			"again.jsonl:1: shard 1/3 was given twice, first at s1.jsonl:1"},
		{"bad shard", []Input{{"s.jsonl", strings.NewReader(strings.Replace(string(shard1), `"shard":"1/3"`, `"shard":"4/3"`, 1))}},
			`s.jsonl:1: shard: "4/3" is not K/N with 1 <= K <= N`},
		{"no sweep", []Input{{"x.jsonl", strings.NewReader(`{"kind":"start","tool":"sf-mutate"}` + "\n")}},
			"no sf-run or sf-shrink records in the input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Build(tc.inputs)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v\nwant        %s", err, tc.want)
			}
		})
	}
}

// TestShardsMerge checks that the shards of a sweep, merged, report what
// the whole sweep reports, whatever order they come in.
func TestShardsMerge(t *testing.T) {
	whole := build(t, "run.jsonl")[0]
	merged := build(t, "shard-3-of-3.jsonl", "shard-1-of-3.jsonl")[0]
	if merged.Shards != 3 || len(merged.Missing) != 1 || merged.Missing[0] != 2 {
		t.Fatalf("shards %d, missing %v; want 3 and [2]", merged.Shards, merged.Missing)
	}
	if merged.Status() != "fail" {
		t.Errorf("status %s", merged.Status())
	}
	// The seeds of shard 2 (2, 5, 8) are missing; the rest match.
	if got := textfmt.SeedList(merged.FailedSeeds, 20, "seeds in all"); got != "1 3-4 6-7" {
		t.Errorf("failed seeds %s; the whole sweep's are %s", got, textfmt.SeedList(whole.FailedSeeds, 20, "seeds in all"))
	}
	if len(merged.Findings) != len(whole.Findings) {
		t.Errorf("%d findings, want %d", len(merged.Findings), len(whole.Findings))
	}
}

// TestShrinkErrorsAreShown: a seed sf-shrink could not shrink is listed
// with its reason, and makes the report incomplete rather than vanishing.
func TestShrinkErrorsAreShown(t *testing.T) {
	stream := `{"kind":"start","tool":"sf-shrink","version":"0.1.0","schema":1,"config":"","seeds":"","count":1,"jobs":1}
{"kind":"shrink","seed":4,"config":"seedfall.json","class":"","message":"","faults_before":0,"faults_after":0,"shrink_runs":0,"duration":"","duration_ns":0,"schedule":"","repro":"","error":"the seed does not fail (pass): nothing to shrink"}
{"kind":"summary","tool":"sf-shrink","shrunk":0,"errors":1,"skipped":0,"real_ns":1,"status":"error"}
`
	sweeps, err := Build([]Input{{Name: "shrink.jsonl", R: strings.NewReader(stream)}})
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	Text(&text, sweeps)
	if !strings.Contains(text.String(), "seed 4: the seed does not fail (pass): nothing to shrink") {
		t.Fatalf("the shrink error is not in the report\n%s", text.String())
	}
	if st := sweeps[len(sweeps)-1].Status(); st == "pass" {
		t.Fatalf("a report with a seed that could not be shrunk has status %s", st)
	}
	var md bytes.Buffer
	Markdown(&md, sweeps)
	if !strings.Contains(md.String(), "Seeds sf-shrink could not shrink") {
		t.Fatalf("Markdown lacks the shrink error\n%s", md.String())
	}
}

// TestCauseCurve: sf-shrink -cause records join the finding of their seed,
// or make a sweep of their own, and every format shows the curve's numbers.
func TestCauseCurve(t *testing.T) {
	sweeps := build(t, "run.jsonl", "shrink.jsonl", "cause.jsonl")
	if len(sweeps) != 2 {
		t.Fatalf("%d sweeps, want the run's and one for other.json's curve", len(sweeps))
	}
	c := sweeps[0].Findings[0].Cause
	if c == nil || c.Seed != 1 || len(c.Points) != 4 || c.Inevitable() != 3 || c.Branches() != 10 {
		t.Fatalf("finding 1's curve: %+v, want seed 1's 4 points, inevitable from the 4th", c)
	}
	if c.Verdict() != "inevitable from 3.112882208s" {
		t.Errorf("verdict %q", c.Verdict())
	}
	o := sweeps[1]
	if o.Title() != "other.json: seeds sf-shrink -cause branched" || len(o.Findings) != 1 || o.Findings[0].Title() != "liveness · server" ||
		o.Findings[0].Repro() != "sf-run -c other.json -seed 4" {
		t.Errorf("the curve of a seed no sweep holds: %q, %d findings", o.Title(), len(o.Findings))
	}
	if v := o.Findings[0].Cause.Verdict(); v != "never inevitable: 3 of 4 branches at the last moment, 1s" {
		t.Errorf("verdict %q", v)
	}
	var txt, md strings.Builder
	Text(&txt, sweeps)
	Markdown(&md, sweeps)
	for _, want := range []string{
		"    cause of seed 1 (10 branches per moment): inevitable from 3.112882208s\n",
		"                  0s       3/10    30%  ######..............\n",
		"                      fault 3.112882s crash server, restart at 3.589059s\n        3.112882208s      10/10   100%  ####################\n",
	} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text lacks %q\n%s", want, txt.String())
		}
	}
	for _, want := range []string{
		"Cause of seed 1, 10 branches per moment: **inevitable from 3.112882208s**",
		"| 3.112882208s | 10/10 | 100% | 3.112882s crash server, restart at 3.589059s |",
		"| 1s | 3/4 | 75% |  |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q\n%s", want, md.String())
		}
	}
	p := BuildPage(sweeps, ".")
	pc := p.Sweeps[0].Findings[0].Curve
	if pc == nil || len(pc.Points) != 4 || pc.Points[0].X != 0 || pc.Points[0].Y != chartBottom-(chartBottom-chartTop)*0.3 ||
		pc.Points[3].Y != chartTop || pc.InevitableX != pc.Points[3].X {
		t.Errorf("chart layout: %+v", pc)
	}
}

// TestPins: the pin records of a sweep are read, a failing pin is a
// finding (with the seeds that fail its way, or of its own) and fails the
// sweep, a passing one is only listed, and the shards of one sweep count
// each pin file once.
func TestPins(t *testing.T) {
	sw := build(t, "pins.jsonl")[0]
	if len(sw.Pins) != 3 || sw.PinsFailed != 2 || sw.Status() != "fail" || sw.PinsCount() != "2 of 3 pinned regressions failed" {
		t.Fatalf("%d pins, %d failed, status %s, %q; want 3, 2, fail", len(sw.Pins), sw.PinsFailed, sw.Status(), sw.PinsCount())
	}
	if len(sw.Findings) != 2 {
		t.Fatalf("%d findings, want 2", len(sw.Findings))
	}
	lost, live := sw.Findings[0], sw.Findings[1]
	if lost.Title() != "assert · acknowledged write lost" || textfmt.SeedList(lost.Seeds, 9, "seeds in all") != "2" || len(lost.Pins) != 1 ||
		lost.Pins[0].Pin != ".seedfall/pinned/kvlog/seed-3.json" || lost.Repro() != "sf-run -c kvlog.json -seed 2" {
		t.Errorf("finding 1: %q, seeds %v, pins %v, repro %q; want seed 2 and pin seed-3.json", lost.Title(), lost.Seeds, lost.Pins, lost.Repro())
	}
	if live.Title() != "liveness · server" || len(live.Seeds) != 0 || len(live.Pins) != 1 ||
		live.Repro() != "sf-run -c kvlog.json -seed 5 -faults .seedfall/pinned/kvlog/seed-5.json" || PinOutcome(live.Pins[0]) != "failed differently" {
		t.Errorf("finding 2: %q, seeds %v, pins %v, repro %q; want pin seed-5.json alone", live.Title(), live.Seeds, live.Pins, live.Repro())
	}

	merged := build(t, "pins-shard-2-of-2.jsonl", "pins-shard-1-of-2.jsonl")[0]
	if len(merged.Pins) != 2 || merged.PinsFailed != 1 || len(merged.Findings) != 1 || len(merged.Findings[0].Pins) != 1 {
		t.Errorf("merged shards: %d pins, %d failed, %d findings; want each pin once: 2, 1, 1", len(merged.Pins), merged.PinsFailed, len(merged.Findings))
	}

	// Only passing pins: the sweep passes, and says so.
	in, _ := os.ReadFile("testdata/pins.jsonl")
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(string(in)), "\n") {
		if !strings.Contains(l, `"status":"fail"`) || strings.Contains(l, `"kind":"summary"`) {
			keep = append(keep, strings.NewReplacer(`"pins":3,"pins_failed":2`, `"pins":1`, `"failed":1,`, `"failed":0,`, `"failed_seeds":[2]`, `"failed_seeds":[]`, `"status":"fail"`, `"status":"pass"`).Replace(l))
		}
	}
	sweeps, err := Build([]Input{{Name: "pass.jsonl", R: strings.NewReader(strings.Join(keep, "\n"))}})
	if err != nil {
		t.Fatal(err)
	}
	if sw := sweeps[0]; sw.Status() != "pass" || len(sw.Pins) != 1 || sw.PinsCount() != "1 pinned regression passed" {
		t.Errorf("passing pins: status %s, %d pins, %q", sw.Status(), len(sw.Pins), sw.PinsCount())
	}

	// A summary that counts pins the stream does not hold: incomplete.
	cut := strings.Join(keep, "\n")
	cut = strings.Replace(cut, `"pins":1`, `"pins":2`, 1)
	sweeps, err = Build([]Input{{Name: "cut.jsonl", R: strings.NewReader(cut)}})
	if err != nil {
		t.Fatal(err)
	}
	if sw := sweeps[0]; sw.Status() != "incomplete" || len(sw.Warnings()) != 1 ||
		sw.Warnings()[0] != "the stream starting at cut.jsonl:1 counts 2 pinned regressions in its summary and holds 1 pin records: the report cannot say how the others came out" {
		t.Errorf("pins missing from the stream: status %s, warnings %q", sw.Status(), sw.Warnings())
	}
}

// TestPinFindingResolves: a finding of a failing pin is resolved in the
// findings file once a sweep of its world replays the pin and it passes.
func TestPinFindingResolves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "findings.json")
	store, err := LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	store.Update(build(t, "pins.jsonl"), "2026-01-01T00:00:00Z")
	if err := store.Save(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile("testdata/pins.jsonl")
	// The next sweep: seed 2 and every pin pass.
	next := strings.NewReplacer(`"status":"fail"`, `"status":"pass"`).Replace(string(data))
	sweeps, err := Build([]Input{{Name: "next.jsonl", R: strings.NewReader(next)}})
	if err != nil {
		t.Fatal(err)
	}
	store, err = LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	store.Update(sweeps, "2026-01-02T00:00:00Z")
	var txt strings.Builder
	Text(&txt, sweeps)
	want := "  liveness · server  (first seen 2026-01-01T00:00:00Z, last seen 2026-01-01T00:00:00Z; pins .seedfall/pinned/kvlog/seed-5.json)\n"
	if len(sweeps[0].Resolved) != 2 || !strings.Contains(txt.String(), want) {
		t.Errorf("%d resolved, want 2, and the report to have %q:\n%s", len(sweeps[0].Resolved), want, txt.String())
	}
}

// TestOneFaultAndTheFaultList (issue 29): a schedule shrunk from one fault
// says "1 fault" in every format, and the HTML page's numbered list of
// faults gives each one's time and what it did, without the number the
// text listing puts first ("1. 0.9s crash server", not "1. 1 0.9s ...").
func TestOneFaultAndTheFaultList(t *testing.T) {
	const stream = `{"kind":"start","tool":"sf-shrink","version":"0.1.0","schema":1,"count":1,"jobs":1}
{"kind":"shrink","seed":3,"config":"seedfall.json","class":"assert","message":"client#3: acknowledged write lost: k7=v7","node":"client#3","faults_before":1,"faults_after":1,"shrink_runs":3,"duration":"1.3s","duration_ns":1300000000,"schedule":"testdata/seed-3.faults.json","repro":"sf-run -c seedfall.json -seed 3 -faults testdata/seed-3.faults.json"}
{"kind":"summary","tool":"sf-shrink","shrunk":1,"errors":0,"skipped":0,"real_ns":9000000000,"status":"shrunk"}
`
	sweeps, err := Build([]Input{{Name: "shrink.jsonl", R: strings.NewReader(stream)}})
	if err != nil {
		t.Fatal(err)
	}
	Schedules(sweeps, ".")
	var txt, md, page bytes.Buffer
	Text(&txt, sweeps)
	Markdown(&md, sweeps)
	if err := HTML(&page, sweeps, HTMLOptions{Dir: "."}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ what, got, want string }{
		{"text", txt.String(), "    shrunk: seed 3 from 1 fault to 1, fails at 1.3s: testdata/seed-3.faults.json\n"},
		{"markdown", md.String(), "\nShrunk seed 3 from 1 fault to 1; it fails at 1.3s ("},
		{"html", page.String(), "Shrunk seed 3 from 1 fault to <b "},
		{"html", page.String(), `<ol class="faults"><li>900ms  crash server, restart at 1.1s</li></ol>`},
	} {
		if !strings.Contains(c.got, c.want) {
			t.Errorf("%s lacks %q:\n%s", c.what, c.want, c.got)
		}
	}
	for _, s := range []string{txt.String(), md.String(), page.String()} {
		if i := strings.Index(s, " 1 faults"); i >= 0 {
			t.Errorf("a report says \"1 faults\": %q", s[max(0, i-80):min(len(s), i+40)])
		}
	}
}
