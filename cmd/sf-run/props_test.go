package main

// Property and BUGGIFY scenario tests: the real sf-run on small guests of
// lib/engine/testdata/propguests, each written for one part of
// properties.md and buggify.md. Every property form has a world where it
// must fail and one where it must pass; the buggify rates are checked over
// many seeds against generous statistical bounds; schedules are replayed
// with -faults. World files go into t.TempDir() with absolute package paths
// (see pgDir); the subtests of one test share that directory.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// pgGuest is the absolute directory of a guest in propguests.
func pgGuest(name string) string {
	return filepath.Join(tools.Root, "lib", "engine", "testdata", "propguests", name)
}

// pgDir returns a new temporary directory for a test's world files. Its
// .seedfall/cache, where sf-run keeps compiled modules, is a link to one
// cache shared by every test of the process, so that each guest is
// compiled once (about a second each) rather than once per test; the
// builds and artifacts stay the directory's own. The cache writes each
// entry to a temporary file and renames it, so parallel runs may share it.
func pgDir(t *testing.T) string {
	t.Helper()
	shared := tools.Shared(t, "propguests-cache", func(string) error { return nil })
	dir := t.TempDir()
	clitest.SeedfallLinks(t, dir, map[string]string{"cache": shared})
	return dir
}

// pgProg is a node, workload or finally check of a world file.
func pgProg(name, guest string, args ...string) map[string]any {
	p := map[string]any{"name": name, "pkg": pgGuest(guest)}
	if len(args) > 0 {
		p["args"] = args
	}
	return p
}

// pgWorld writes a world file into dir and returns its base name.
func pgWorld(t *testing.T, dir, name string, w map[string]any) string {
	t.Helper()
	clitest.WriteJSON(t, filepath.Join(dir, name), w)
	return name
}

// pgPropRow is one row of the summary's properties.
type pgPropRow struct {
	Kind         string   `json:"kind"`
	Message      string   `json:"message"`
	SeedsReached int      `json:"seeds_reached"`
	SeedsTrue    int      `json:"seeds_true"`
	Verdict      string   `json:"verdict"`
	Margin       *float64 `json:"margin"`
	Location     string   `json:"location"`
}

// pgSiteRow is one row of the summary's buggify_sites.
type pgSiteRow struct {
	Site         string `json:"site"`
	SeedsReached int    `json:"seeds_reached"`
	SeedsEnabled int    `json:"seeds_enabled"`
	SeedsFired   int    `json:"seeds_fired"`
	Fired        int    `json:"fired"`
	Verdict      string `json:"verdict"`
	Location     string `json:"location"`
}

// pgSummary is the summary record of sf-run -json.
type pgSummary struct {
	Status           string      `json:"status"`
	Seeds            int         `json:"seeds"`
	Passed           int         `json:"passed"`
	Failed           int         `json:"failed"`
	Horizon          int         `json:"horizon"`
	FailedSeeds      []uint64    `json:"failed_seeds"`
	Properties       []pgPropRow `json:"properties"`
	PropertyFailures int         `json:"property_failures"`
	BuggifySites     []pgSiteRow `json:"buggify_sites"`
}

// pgRun is one sf-run -json: the records, the summary decoded, and the human
// report (on stderr with -json).
type pgRun struct {
	result
	seeds   []map[string]any // seed records, in order
	sum     pgSummary
	rawSum  map[string]any
	report  string
	dir     string
	cfgName string
}

// pgSweep runs sf-run -c cfg -json args... in dir. A run that exits 2 (the
// world did not load or build) fails the test at once.
func pgSweep(t *testing.T, dir, cfg string, args ...string) pgRun {
	t.Helper()
	r := sfRun(t, dir, append([]string{"-c", cfg, "-json"}, args...)...)
	if r.Code == 2 {
		t.Fatalf("sf-run could not run %s\n%s", cfg, r)
	}
	recs := jsonRecords(t, r)
	out := pgRun{result: r, seeds: recs[1 : len(recs)-1], rawSum: recs[len(recs)-1], report: r.Stderr, dir: dir, cfgName: cfg}
	last := strings.TrimRight(r.Stdout, "\n")
	last = last[strings.LastIndexByte(last, '\n')+1:]
	if err := json.Unmarshal([]byte(last), &out.sum); err != nil {
		t.Fatalf("summary record: %v\n%s", err, r)
	}
	return out
}

// prop returns the property row with this message, failing the test if
// there is not exactly one.
func (p pgRun) prop(t *testing.T, msg string) pgPropRow {
	t.Helper()
	var rows []pgPropRow
	for _, r := range p.sum.Properties {
		if r.Message == msg {
			rows = append(rows, r)
		}
	}
	if len(rows) != 1 {
		t.Fatalf("summary has %d property rows for %q, want 1: %+v\n%s", len(rows), msg, rows, p.result)
	}
	return rows[0]
}

// site returns the buggify_sites row of a site.
func (p pgRun) site(t *testing.T, name string) pgSiteRow {
	t.Helper()
	for _, r := range p.sum.BuggifySites {
		if r.Site == name {
			return r
		}
	}
	t.Fatalf("buggify_sites has no row for %q: %+v\n%s", name, p.sum.BuggifySites, p.result)
	return pgSiteRow{}
}

// reportLine returns the line of the human report that ends a table row for
// msg (the message, then optional margin and verdict), or "".
func (p pgRun) reportLine(msg string) string {
	for _, l := range strings.Split(p.report, "\n") {
		if strings.Contains(l, "  "+msg) && (strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "         ")) {
			return l
		}
	}
	return ""
}

// pgSourceLines returns the lines of a guest's main.go that call the sim
// package with the string literal lit, as "propguests/GUEST/main.go:N".
func pgSourceLines(t *testing.T, guest, lit string) []string {
	t.Helper()
	path := filepath.Join(pgGuest(guest), "main.go")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	var out []string
	for i, l := range lines {
		if !strings.Contains(l, strconv.Quote(lit)) || strings.HasPrefix(strings.TrimSpace(l), "//") {
			continue
		}
		// The call starts on this line or, for a call spread over lines
		// (sim.Eventually with its func), on the nearest one above.
		for j := i; j >= 0; j-- {
			if strings.Contains(lines[j], "sim.") {
				out = append(out, fmt.Sprintf("propguests/%s/main.go:%d", guest, j+1))
				break
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no sim call with %q", path, lit)
	}
	return out
}

// wantLocation checks that a location (as the table and -json give it: a
// comma-separated list of file:line, relative to the world's directory)
// names exactly the calls of lit in the guest's source, and that each path
// leads to the file from dir.
func wantLocation(t *testing.T, dir, loc, guest, lit string) {
	t.Helper()
	want := pgSourceLines(t, guest, lit)
	parts := strings.Split(loc, ", ")
	if len(parts) != len(want) {
		t.Errorf("location of %q is %q, want the %d calls %v", lit, loc, len(want), want)
		return
	}
	for i, part := range parts {
		if !strings.HasSuffix(part, want[i]) {
			t.Errorf("location of %q is %q, want its entry %d to end in %s", lit, loc, i, want[i])
			continue
		}
		file, _, _ := strings.Cut(part, ":")
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		if _, err := os.Stat(file); err != nil {
			t.Errorf("location %q of %q does not lead to the file from the world's directory %s: %v", part, lit, dir, err)
		}
	}
}

// seedStatuses counts the seed records by status.
func (p pgRun) seedStatuses() map[string]int {
	m := map[string]int{}
	for _, s := range p.seeds {
		m[s["status"].(string)]++
	}
	return m
}

// propsMargins are the margins the props guest produces in every mode that
// reaches them: the smallest for always, the largest for sometimes.
var propsMargins = map[string]struct {
	kind   string
	margin string
}{
	"left is at most 40":          {"always", "smallest margin 0"},
	"value stays above the floor": {"always", "smallest margin 3"},
	"i stays below 10":            {"always", "smallest margin 6"},
	"ratio is at least 1":         {"always", "smallest margin 1.5"},
	"i gets past the limit":       {"sometimes", "largest margin 2"},
	"i reaches 4":                 {"sometimes", "largest margin 0"},
	"i drops below 1":             {"sometimes", "largest margin 1"},
	"i drops to 0":                {"sometimes", "largest margin 0"},
}

// TestPropertyForms runs the props guest, which calls every property form,
// with each form satisfied and with each one broken in turn. A broken
// Always, AlwaysOrUnreachable, Unreachable, comparison, AlwaysSome, Assert
// or Fail fails the seed; a Sometimes never true or a Reachable never
// reached fails the sweep while every seed passes; a broken Eventually fails
// the seed as liveness.
func TestPropertyForms(t *testing.T) {
	dir := pgDir(t)
	const seeds = "1-4"
	type seedFailure struct {
		class, node, message string
		atNs                 float64 // -1: any
	}
	type sweepVerdict struct {
		msg, verdict, margin string // margin "" when the row has none to check
	}
	for _, tc := range []struct {
		name     string
		brk      string
		asNode   bool
		wantExit int
		seedFail *seedFailure  // every seed fails like this
		verdict  *sweepVerdict // every seed passes and this row fails the sweep
	}{
		{name: "every form holds", wantExit: 0},
		{name: "AlwaysOrUnreachable not reached", brk: "aou-skip", wantExit: 0},
		{name: "Always false", brk: "always", wantExit: 1,
			seedFail: &seedFailure{"assert", "client#1", `client#1: always holds {"run":1}`, 0}},
		{name: "AlwaysOrUnreachable false", brk: "aou", wantExit: 1,
			seedFail: &seedFailure{"assert", "client#1", "client#1: always-or-unreachable holds", 0}},
		{name: "Sometimes never true", brk: "sometimes", wantExit: 1,
			verdict: &sweepVerdict{"half the coins came up heads", "never true", ""}},
		{name: "Reachable never reached", brk: "reachable", wantExit: 1,
			verdict: &sweepVerdict{"the reachable branch ran", "never reached", ""}},
		{name: "Unreachable reached", brk: "unreachable", wantExit: 1,
			seedFail: &seedFailure{"assert", "client#1", "client#1: reached unreachable: the impossible branch ran 7", 0}},
		{name: "AlwaysLessThanOrEqualTo false", brk: "le", wantExit: 1,
			seedFail: &seedFailure{"assert", "client#1", `client#1: left is at most 40 {"left":41,"right":40}`, 0}},
		{name: "AlwaysGreaterThan false", brk: "gt", wantExit: 1,
			seedFail: &seedFailure{"assert", "client#1", `client#1: value stays above the floor {"left":10,"right":12}`, 0}},
		{name: "SometimesGreaterThan never true", brk: "sgt", wantExit: 1,
			verdict: &sweepVerdict{"i gets past the limit", "never true", "largest margin -96"}},
		{name: "AlwaysSome none true", brk: "some", wantExit: 1,
			seedFail: &seedFailure{"assert", "client#1", `client#1: some replica answers {"backup":false,"primary":false}`, 0}},
		{name: "SometimesAll never all true", brk: "all", wantExit: 1,
			verdict: &sweepVerdict{"a crashed node caught up", "never true", ""}},
		{name: "Eventually never true", brk: "eventually", wantExit: 1,
			seedFail: &seedFailure{"liveness", "client#1", "client#1: the flag comes up: not true within 1s", 1e9}},
		{name: "Fail", brk: "fail", wantExit: 1,
			seedFail: &seedFailure{"fail", "client#1", "client#1: gave up on purpose", -1}},
		{name: "Assert false", brk: "assert", wantExit: 1,
			seedFail: &seedFailure{"assert", "client#1", "client#1: assert holds", -1}},
		{name: "in a node, not the workload", brk: "le", asNode: true, wantExit: 1,
			seedFail: &seedFailure{"assert", "server#1", `server#1: left is at most 40 {"left":41,"right":40}`, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var args []string
			if tc.brk != "" {
				args = []string{"-break", tc.brk}
			}
			w := map[string]any{"workload": pgProg("client", "props", args...), "duration": "5s"}
			if tc.asNode {
				w = map[string]any{
					"nodes":    []any{pgProg("server", "props", args...)},
					"workload": pgProg("client", "worker", "-for", "2s"),
					"duration": "5s",
				}
			}
			cfg := pgWorld(t, dir, "props-"+strings.NewReplacer(" ", "-", ",", "").Replace(tc.name)+".json", w)
			p := pgSweep(t, dir, cfg, "-seeds", seeds)
			if p.Code != tc.wantExit {
				t.Errorf("exit status %d, want %d\n%s", p.Code, tc.wantExit, p.result)
			}
			wantStatus := map[bool]string{true: "pass", false: "fail"}[tc.wantExit == 0]
			if p.sum.Status != wantStatus {
				t.Errorf("summary status %q, want %q", p.sum.Status, wantStatus)
			}
			switch {
			case tc.seedFail != nil:
				f := tc.seedFail
				for _, s := range p.seeds {
					if s["status"] != "fail" || s["class"] != f.class || s["node"] != f.node || s["message"] != f.message {
						t.Errorf("seed %v: status %v, class %v, node %v, message %q; want fail, %s, %s, %q",
							s["seed"], s["status"], s["class"], s["node"], s["message"], f.class, f.node, f.message)
					}
					if f.atNs >= 0 && s["at_ns"] != f.atNs {
						t.Errorf("seed %v failed at %v ns, want %v", s["seed"], s["at_ns"], f.atNs)
					}
				}
				if !strings.Contains(p.report, "\n  "+f.message+"\n") {
					t.Errorf("the report does not show the failure %q under its header\n%s", f.message, p.result)
				}
			default:
				if st := p.seedStatuses(); st["pass"] != 4 {
					t.Errorf("seed statuses %v, want 4 passes\n%s", st, p.result)
				}
			}
			if tc.seedFail != nil {
				return // what a failing seed left unreached is not this test's concern
			}

			// Every seed passed: the table is complete, and only the broken
			// row (if any) has a verdict.
			if len(p.sum.Properties) != 16 {
				t.Errorf("summary has %d properties, want the 16 of the props guest, each once (details never make a new one):\n%+v", len(p.sum.Properties), p.sum.Properties)
			}
			failures := 0
			for _, row := range p.sum.Properties {
				wantVerdict := ""
				if tc.verdict != nil && row.Message == tc.verdict.msg {
					wantVerdict = tc.verdict.verdict
				}
				if row.Verdict != wantVerdict {
					t.Errorf("%s %q: verdict %q, want %q (reached %d, true %d)", row.Kind, row.Message, row.Verdict, wantVerdict, row.SeedsReached, row.SeedsTrue)
				}
				if row.Verdict != "" {
					failures++
				}
				wantLocation(t, dir, row.Location, "props", row.Message)
			}
			if p.sum.PropertyFailures != failures {
				t.Errorf("property_failures %d, want %d", p.sum.PropertyFailures, failures)
			}
			if _, ok := p.rawSum["properties"]; !ok {
				t.Errorf("the -json summary has no properties field")
			}
			unreach := p.prop(t, "the impossible branch ran")
			if unreach.Kind != "unreachable" || unreach.SeedsReached != 0 || unreach.Verdict != "" {
				t.Errorf("unreachable row %+v: want kind unreachable, never reached and no verdict (it must not be reached)", unreach)
			}
			aou := p.prop(t, "always-or-unreachable holds")
			if wantReached := map[bool]int{true: 0, false: 4}[tc.brk == "aou-skip"]; aou.SeedsReached != wantReached || aou.Verdict != "" {
				t.Errorf("alwaysOrUnreachable row %+v: want %d seeds reached and no verdict", aou, wantReached)
			}
			ev := p.prop(t, "the flag comes up")
			if ev.Kind != "eventually" || ev.SeedsReached != 4 || ev.SeedsTrue != 4 {
				t.Errorf("eventually row %+v: want kind eventually, reached and true in 4 seeds", ev)
			}
			for msg, m := range propsMargins {
				row := p.prop(t, msg)
				wantMargin := m.margin
				if tc.verdict != nil && tc.verdict.msg == msg && tc.verdict.margin != "" {
					wantMargin = tc.verdict.margin
				}
				n, _ := strconv.ParseFloat(wantMargin[strings.LastIndexByte(wantMargin, ' ')+1:], 64)
				if row.Kind != m.kind || row.Margin == nil || *row.Margin != n {
					got := "none"
					if row.Margin != nil {
						got = strconv.FormatFloat(*row.Margin, 'g', -1, 64)
					}
					t.Errorf("%q: kind %s, margin %s in -json; want %s with margin %v", msg, row.Kind, got, m.kind, n)
				}
				if line := p.reportLine(msg); !strings.Contains(line, "  "+msg+"  ("+wantMargin+")") {
					t.Errorf("table row of %q is %q, want it to show (%s)", msg, line, wantMargin)
				}
			}
			for _, row := range p.sum.Properties {
				if _, numeric := propsMargins[row.Message]; !numeric && row.Margin != nil {
					t.Errorf("%q is not a comparison but has margin %v", row.Message, *row.Margin)
				}
			}
			if tc.verdict == nil {
				if !regexp.MustCompile(`(?m)^ok  4 seeds passed \(0 hit the time horizon\) in \S+$`).MatchString(p.report) {
					t.Errorf("no `ok  4 seeds passed` line\n%s", p.result)
				}
				return
			}
			row := p.prop(t, tc.verdict.msg)
			locs := pgSourceLines(t, "props", tc.verdict.msg)
			line := p.reportLine(tc.verdict.msg)
			if !strings.Contains(line, "  <- "+tc.verdict.verdict+" (") || !strings.HasSuffix(line, locs[0]+")") {
				t.Errorf("table row of %q is %q, want it to end with `<- %s (...%s)`", tc.verdict.msg, line, tc.verdict.verdict, locs[0])
			}
			if tc.verdict.verdict == "never reached" && (row.SeedsReached != 0 || row.SeedsTrue != 0) {
				t.Errorf("never-reached row %+v: want 0 seeds reached: the catalog found it in the source", row)
			}
			if tc.verdict.verdict == "never true" && (row.SeedsReached != 4 || row.SeedsTrue != 0) {
				t.Errorf("never-true row %+v: want 4 seeds reached, 0 true", row)
			}
			if !strings.Contains(p.report, "\nFAIL 1 property was never reached or never true in 4 seeds\n") {
				t.Errorf("no line `FAIL 1 property was never reached or never true in 4 seeds`\n%s", p.result)
			}
		})
	}
}

// TestPropertyMarginIsPrintedInFull: a comparison of two integers has an
// integer margin, and the table should print it as one. A margin of two
// seconds in nanoseconds (AlwaysGreaterThan(int64(2e9), 0, ...)) must read
// "(smallest margin 2000000000)", not "2e+09"; -json has the exact number.
func TestPropertyMarginIsPrintedInFull(t *testing.T) {
	t.Parallel()
	dir := pgDir(t)
	cfg := pgWorld(t, dir, "big.json", map[string]any{"workload": pgProg("client", "bigmargin"), "duration": "5s"})
	p := pgSweep(t, dir, cfg, "-seeds", "1")
	p.WantExit(t, 0)
	row := p.prop(t, "a large margin is printed in full")
	if row.Margin == nil || *row.Margin != 2e9 {
		t.Fatalf("row %+v: want margin 2000000000 in -json", row)
	}
	if line := p.reportLine(row.Message); !strings.Contains(line, "(smallest margin 2000000000)") {
		t.Errorf("table row %q, want (smallest margin 2000000000): an integer margin printed in exponent form hides how close the property came", line)
	}
}

// bugFiring is one buggify firing: a site at a hit of the client.
type bugFiring struct {
	site string
	hit  int64
}

func (f bugFiring) String() string { return fmt.Sprintf("%q#%d", f.site, f.hit) }

var (
	traceFiringRE = regexp.MustCompile(`(?m)^\s*\S+  fault buggify "([^"]*)" fires on client#\d+ at hit #(\d+)$`)
	guestFiringRE = regexp.MustCompile(`(?m)^\s*\S+  client#\d+: bugsites: "([^"]*)" fired at hit (\d+)$`)
)

// firingsIn returns the firings a regexp finds in text, sorted.
func firingsIn(re *regexp.Regexp, text string) []bugFiring {
	var out []bugFiring
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.ParseInt(m[2], 10, 64)
		out = append(out, bugFiring{m[1], n})
	}
	sortFirings(out)
	return out
}

func sortFirings(fs []bugFiring) {
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].site != fs[j].site {
			return fs[i].site < fs[j].site
		}
		return fs[i].hit < fs[j].hit
	})
}

// faultSchedule is a .seedfall/seed-N.faults.json, kept as raw entries so that
// an edited copy keeps every field.
type faultSchedule struct {
	Seed   uint64           `json:"seed"`
	Config string           `json:"config,omitempty"`
	Faults []map[string]any `json:"faults"`
}

func readFaultSchedule(t *testing.T, path string) faultSchedule {
	t.Helper()
	var s faultSchedule
	if err := json.Unmarshal([]byte(clitest.ReadFile(t, path)), &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

// buggifyFirings returns the buggify entries of a schedule, checking that
// each has the documented shape.
func (s faultSchedule) buggifyFirings(t *testing.T) []bugFiring {
	t.Helper()
	var out []bugFiring
	for i, f := range s.Faults {
		if f["kind"] != "buggify" {
			continue
		}
		op, ok := f["op"].(float64)
		site, _ := f["site"].(string)
		if f["node"] != "client" || site == "" || !ok || op < 1 || f["at"] == nil {
			t.Errorf("faults[%d] = %v, want {\"kind\":\"buggify\",\"node\":\"client\",\"site\":...,\"op\":hit,\"at\":...}", i, f)
		}
		out = append(out, bugFiring{site, int64(op)})
	}
	sortFirings(out)
	return out
}

// bugsitesWorld is the buggify world: the client hits the sites.
func bugsitesWorld(buggify bool, args ...string) map[string]any {
	w := map[string]any{"workload": pgProg("client", "bugsites", args...), "duration": "5s"}
	if buggify {
		w["faults"] = map[string]any{"buggify": true}
	}
	return w
}

// TestBuggifyRates: over 200 seeds a site is enabled in about a quarter of
// them, and an enabled site fires at about a quarter of its hits for
// Buggify and at about p of them for BuggifyWithProb. The bounds are wide
// (more than 3 standard deviations for the enable rate, more than 4 for the
// firing rates), and the seeds are fixed, so the test is not flaky. The
// table and buggify_sites agree, and a site no seed reaches is reported
// with its location without failing the sweep.
func TestBuggifyRates(t *testing.T) {
	t.Parallel()
	dir := pgDir(t)
	const seeds, hits, p = 200, 40, 0.6
	cfg := pgWorld(t, dir, "rates.json", bugsitesWorld(true, "-hits", strconv.Itoa(hits), "-p", "0.6"))
	r := pgSweep(t, dir, cfg, "-seeds", fmt.Sprintf("1-%d", seeds))
	r.WantExit(t, 0)
	if _, ok := r.rawSum["buggify_sites"]; !ok {
		t.Fatalf("the -json summary has no buggify_sites\n%s", r.result)
	}
	if !strings.Contains("\n"+r.report, "\nbuggify  seeds reached  seeds enabled  seeds fired  fired\n") {
		t.Errorf("no buggify table header in the report\n%s", r.result)
	}
	for _, tc := range []struct {
		site string
		prob float64
	}{
		{"plain site", 0.25},
		{"prob site", p},
	} {
		s := r.site(t, tc.site)
		if s.SeedsReached != seeds {
			t.Errorf("%s: reached in %d seeds, want all %d", tc.site, s.SeedsReached, seeds)
		}
		if en := float64(s.SeedsEnabled) / seeds; en < 0.15 || en > 0.35 {
			t.Errorf("%s: enabled in %d of %d seeds (%.3f), want a fraction in [0.15, 0.35] around 0.25", tc.site, s.SeedsEnabled, seeds, en)
		}
		if s.SeedsFired > s.SeedsEnabled {
			t.Errorf("%s: fired in %d seeds but enabled in only %d", tc.site, s.SeedsFired, s.SeedsEnabled)
		}
		if s.SeedsEnabled > 0 {
			rate := float64(s.Fired) / float64(s.SeedsEnabled*hits)
			if rate < tc.prob-0.05 || rate > tc.prob+0.05 {
				t.Errorf("%s: %d firings over %d enabled seeds of %d hits is a rate of %.3f, want %.2f±0.05", tc.site, s.Fired, s.SeedsEnabled, hits, rate, tc.prob)
			}
		}
		if s.Verdict != "" {
			t.Errorf("%s: verdict %q, want none", tc.site, s.Verdict)
		}
		wantLocation(t, dir, s.Location, "bugsites", tc.site)
		want := fmt.Sprintf("         %13d  %13d  %11d  %5d  %s", s.SeedsReached, s.SeedsEnabled, s.SeedsFired, s.Fired, tc.site)
		if line := r.reportLine(tc.site); line != want {
			t.Errorf("buggify table row is %q, want %q", line, want)
		}
	}
	never := r.site(t, "site nobody reaches")
	if never.SeedsReached != 0 || never.Fired != 0 || never.Verdict != "never reached" {
		t.Errorf("unreached site row %+v: want 0 seeds reached and verdict never reached", never)
	}
	wantLocation(t, dir, never.Location, "bugsites", never.Site)
	loc := pgSourceLines(t, "bugsites", never.Site)[0]
	if line := r.reportLine(never.Site); !strings.Contains(line, "site nobody reaches  <- never reached (") || !strings.HasSuffix(line, loc+")") {
		t.Errorf("table row %q, want `site nobody reaches  <- never reached (...%s)`", line, loc)
	}
	if r.sum.Status != "pass" {
		t.Errorf("summary status %q: an unreached buggify site must not fail the sweep", r.sum.Status)
	}
}

// TestBuggifyNeverFired: a site that is reached but cannot fire (p=0) is
// marked never fired, which does not fail the sweep.
func TestBuggifyNeverFired(t *testing.T) {
	t.Parallel()
	dir := pgDir(t)
	cfg := pgWorld(t, dir, "p0.json", bugsitesWorld(true, "-hits", "5", "-p", "0"))
	r := pgSweep(t, dir, cfg, "-seeds", "1-20")
	r.WantExit(t, 0)
	s := r.site(t, "prob site")
	if s.SeedsReached != 20 || s.SeedsEnabled == 0 || s.Fired != 0 || s.Verdict != "never fired" {
		t.Errorf("prob site at p=0: %+v; want reached in 20 seeds, enabled in some, never fired", s)
	}
	if line := r.reportLine("prob site"); !strings.Contains(line, "prob site  <- never fired") {
		t.Errorf("table row %q, want `prob site  <- never fired`", line)
	}
}

// TestBuggifyOff: without "buggify": true no site fires in any seed (the
// guest fails a seed where one does), no fault is recorded, and the sweep
// prints no buggify table.
func TestBuggifyOff(t *testing.T) {
	t.Parallel()
	dir := pgDir(t)
	cfg := pgWorld(t, dir, "off.json", bugsitesWorld(false, "-hits", "40", "-p", "1", "-none"))
	r := pgSweep(t, dir, cfg, "-seeds", "1-50")
	r.WantExit(t, 0)
	for _, s := range r.seeds {
		if s["status"] != "pass" || s["faults"] != float64(0) {
			t.Errorf("seed %v: status %v (%v), %v faults; want a pass with no faults", s["seed"], s["status"], s["message"], s["faults"])
		}
	}
	if _, ok := r.rawSum["buggify_sites"]; ok {
		t.Errorf("buggify off, yet the summary has buggify_sites: %v", r.rawSum["buggify_sites"])
	}
	if strings.Contains(r.report, "buggify  seeds reached") {
		t.Errorf("buggify off, yet the report has a buggify table\n%s", r.result)
	}
}

// TestBuggifyKeyedStreams: a site's enable decision and firings depend only
// on the seed, the site and the node. Hitting the sites twice as often, and
// lowering the other site's probability, leaves every firing of "plain
// site" in the first hits where it was; "prob site" at a lower p fires at a
// subset of the hits it fired at before.
func TestBuggifyKeyedStreams(t *testing.T) {
	t.Parallel()
	dir := pgDir(t)
	const seeds = 20
	firings := func(name string, args ...string) map[uint64][]bugFiring {
		removeArtifacts(t, dir)
		cfg := pgWorld(t, dir, name, bugsitesWorld(true, append(args, "-fail")...))
		r := pgSweep(t, dir, cfg, "-seeds", fmt.Sprintf("1-%d", seeds))
		r.WantExit(t, 1)
		out := map[uint64][]bugFiring{}
		for s := uint64(1); s <= seeds; s++ {
			out[s] = readFaultSchedule(t, artifact(t, dir, fmt.Sprintf("seed-%d.faults.json", s))).buggifyFirings(t)
		}
		return out
	}
	a := firings("keyed-a.json", "-hits", "10", "-p", "0.6")
	b := firings("keyed-b.json", "-hits", "20", "-p", "0.3")
	total := 0
	for s := uint64(1); s <= seeds; s++ {
		pick := func(fs []bugFiring, site string, maxHit int64) []bugFiring {
			var out []bugFiring
			for _, f := range fs {
				if f.site == site && f.hit <= maxHit {
					out = append(out, f)
				}
			}
			return out
		}
		pa, pb := pick(a[s], "plain site", 10), pick(b[s], "plain site", 10)
		if fmt.Sprint(pa) != fmt.Sprint(pb) {
			t.Errorf("seed %d: plain site fires at %v with 10 hits, at %v in the first 10 of 20 hits with another p for prob site", s, pa, pb)
		}
		qa, qb := pick(a[s], "prob site", 10), pick(b[s], "prob site", 10)
		for _, f := range qb {
			if !slices.Contains(qa, f) {
				t.Errorf("seed %d: prob site fires at %v with p=0.3 but not with p=0.6 (%v): the draws moved", s, f, qa)
			}
		}
		total += len(pa) + len(qa)
	}
	if total == 0 {
		t.Fatalf("no site fired in %d seeds: the comparison proves nothing", seeds)
	}
}

// TestBuggifyScheduleReplay: every firing of a failing seed is in its
// .seedfall/seed-N.faults.json, as the trace and the guest saw it. Replayed
// with -faults, a site fires exactly at the hits the schedule lists: one
// firing removed, or one added at a hit where the seed never fired. With
// buggify off in the config the schedule's firings do not happen.
func TestBuggifyScheduleReplay(t *testing.T) {
	dir := pgDir(t)
	cfg := pgWorld(t, dir, "replay.json", bugsitesWorld(true, "-hits", "10", "-fail"))
	r := pgSweep(t, dir, cfg, "-seeds", "1-20")
	r.WantExit(t, 1)
	var pick uint64
	var picked []bugFiring
	for s := uint64(1); s <= 20; s++ {
		sched := readFaultSchedule(t, artifact(t, dir, fmt.Sprintf("seed-%d.faults.json", s)))
		if sched.Seed != s {
			t.Errorf("seed-%d.faults.json says seed %d", s, sched.Seed)
		}
		fromSched := sched.buggifyFirings(t)
		trace := clitest.ReadFile(t, artifact(t, dir, fmt.Sprintf("seed-%d.trace.log", s)))
		fromTrace, fromGuest := firingsIn(traceFiringRE, trace), firingsIn(guestFiringRE, trace)
		if fmt.Sprint(fromSched) != fmt.Sprint(fromTrace) || fmt.Sprint(fromSched) != fmt.Sprint(fromGuest) {
			t.Errorf("seed %d: firings in the faultSchedule %v, in the trace %v, seen by the guest %v; want the same", s, fromSched, fromTrace, fromGuest)
		}
		if pick == 0 && len(fromSched) >= 2 {
			pick, picked = s, fromSched
		}
	}
	if pick == 0 {
		t.Fatalf("no seed in 1-20 fired twice or more\n%s", r.result)
	}
	seed := strconv.FormatUint(pick, 10)
	orig := readFaultSchedule(t, artifact(t, dir, "seed-"+seed+".faults.json"))

	replay := func(name string, sched faultSchedule, extra ...string) []bugFiring {
		t.Helper()
		path := filepath.Join(t.TempDir(), name)
		clitest.WriteJSON(t, path, sched)
		out := sfRun(t, dir, append([]string{"-c", cfg, "-seed", seed, "-faults", path}, extra...)...)
		out.WantExit(t, 1) // the guest fails at the end in any case
		trace := traceSection(t, out.Stdout)
		fromTrace, fromGuest := firingsIn(traceFiringRE, trace), firingsIn(guestFiringRE, trace)
		if fmt.Sprint(fromTrace) != fmt.Sprint(fromGuest) {
			t.Errorf("%s: the trace has firings %v, the guest saw %v", name, fromTrace, fromGuest)
		}
		return fromTrace
	}

	// The schedule as written replays the same firings.
	if got := replay("same.json", orig); fmt.Sprint(got) != fmt.Sprint(picked) {
		t.Errorf("seed %s replayed with its own faultSchedule fires %v, want %v", seed, got, picked)
	}

	// One firing removed.
	removed := picked[0]
	edited := orig
	edited.Faults = nil
	for _, f := range orig.Faults {
		if f["kind"] == "buggify" && f["site"] == removed.site && f["op"] == float64(removed.hit) {
			continue
		}
		edited.Faults = append(edited.Faults, f)
	}
	if got, want := replay("removed.json", edited), picked[1:]; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("seed %s with %v removed from its faultSchedule fires %v, want exactly %v", seed, removed, got, want)
	}

	// One firing added at a hit where the seed did not fire.
	var added bugFiring
	for _, site := range []string{"prob site", "plain site"} {
		for h := int64(10); h >= 1 && added.site == ""; h-- {
			if !slices.Contains(picked, bugFiring{site, h}) {
				added = bugFiring{site, h}
			}
		}
	}
	plus := orig
	plus.Faults = append(slices.Clone(orig.Faults), map[string]any{"at": "0s", "kind": "buggify", "node": "client", "site": added.site, "until": "0s", "op": added.hit})
	want := append(slices.Clone(picked), added)
	sortFirings(want)
	if got := replay("added.json", plus); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("seed %s with %v added to its faultSchedule fires %v, want exactly %v", seed, added, got, want)
	}

	// Buggify off: the schedule's firings need it on.
	if got := replay("off.json", orig, "-set", "faults.buggify=false"); len(got) != 0 {
		t.Errorf("with buggify off the faultSchedule still fired %v", got)
	}
}

// TestBuggifyQuiet: an enabled site with p=1 fires at every hit, except in
// a sim.QuietFor period, before sim.SetupComplete with faults_after_setup,
// in the recovery phase of liveness mode and in the finally check. The
// guest hits the site 10 times in the quiet part and (for QuietFor and
// setup) 10 times after it, so the site must fire exactly 10 times per
// enabled seed, or never.
func TestBuggifyQuiet(t *testing.T) {
	dir := pgDir(t)
	const seeds, hits = 40, 10
	for _, tc := range []struct {
		name     string
		world    map[string]any
		site     string
		perSeed  int // firings per enabled seed
		wantExit int
	}{
		{"QuietFor", bugsitesWorld(true, "-quiet", "-hits", "10"), "quiet site", hits, 0},
		{"faults_after_setup", func() map[string]any {
			w := bugsitesWorld(true, "-setup", "-hits", "10")
			w["faults_after_setup"] = true
			return w
		}(), "setup site", hits, 0},
		{"setup without faults_after_setup", bugsitesWorld(true, "-setup", "-hits", "10"), "setup site", 2 * hits, 0},
		{"recovery phase", func() map[string]any {
			w := bugsitesWorld(true, "-after", "2s", "-hits", "10", "-p", "1")
			w["duration"] = "1s"
			w["liveness"] = map[string]any{"within": "5s"}
			return w
		}(), "prob site", 0, 0},
		{"finally check", map[string]any{
			"workload": pgProg("client", "worker", "-for", "100ms"),
			"finally":  pgProg("check", "bugsites", "-hits", "10", "-p", "1"),
			"duration": "5s",
			"faults":   map[string]any{"buggify": true},
		}, "prob site", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := pgWorld(t, dir, "quiet-"+strings.ReplaceAll(tc.name, " ", "-")+".json", tc.world)
			r := pgSweep(t, dir, cfg, "-seeds", fmt.Sprintf("1-%d", seeds))
			r.WantExit(t, tc.wantExit)
			s := r.site(t, tc.site)
			if s.SeedsReached != seeds || s.SeedsEnabled == 0 {
				t.Fatalf("%s: %+v; want it reached in all %d seeds and enabled in some", tc.site, s, seeds)
			}
			if want := s.SeedsEnabled * tc.perSeed; s.Fired != want {
				t.Errorf("%s: fired %d times in %d enabled seeds, want %d (%d per enabled seed)", tc.site, s.Fired, s.SeedsEnabled, want, tc.perSeed)
			}
		})
	}
}
