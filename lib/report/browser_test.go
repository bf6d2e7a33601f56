package report

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// browser finds Chromium or Chrome: $CHROME, else the usual names on PATH.
// Without one the test skips, unless CI is set: CI must run it (make deps
// installs Chromium).
func browser(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROME"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no Chromium or Chrome on PATH (nor $CHROME) and CI is set: the HTML report must be tested in a browser; run make deps")
	}
	t.Skip("no Chromium or Chrome on PATH (nor $CHROME): skipping the browser test of the HTML report; make deps installs Chromium")
	return ""
}

// TestHTMLInBrowser opens the HTML report of the testdata sweep in headless
// Chromium and checks that it loads with no console error, fetches nothing
// but itself, and shows the numbers the records hold.
func TestHTMLInBrowser(t *testing.T) {
	exe := browser(t)
	sweeps := build(t, "run.jsonl", "shrink.jsonl", "cause.jsonl", "pins.jsonl", "explore.jsonl", "explore-shrink.jsonl")
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := HTML(f, sweeps, HTMLOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	f.Close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

	// Start the browser and listen before the page loads, so that no
	// message of the load is missed.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	var mu sync.Mutex
	var problems []string
	err = chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == "error" || ev.Type == "warning" || ev.Type == "assert" {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				problems = append(problems, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			text := d.Text
			if d.Exception != nil {
				text += " " + d.Exception.Description
			}
			problems = append(problems, fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber+1, text))
		case *log.EventEntryAdded:
			if ev.Entry.Level == "error" {
				problems = append(problems, "log: "+ev.Entry.Text)
			}
		case *network.EventRequestWillBeSent:
			u := ev.Request.URL
			if !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "about:") && !strings.HasPrefix(u, "data:") {
				problems = append(problems, "the page fetched "+u)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page), chromedp.WaitReady(`html[data-ready="1"]`)); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	eval := func(expr string, v any) {
		t.Helper()
		var err error
		switch v := v.(type) {
		case *string:
			*v, err = chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		case *int:
			*v, err = chromedp.Run(ctx, chromedp.Evaluate[int](expr))
		case *[][]string:
			*v, err = chromedp.Run(ctx, chromedp.Evaluate[[][]string](expr))
		}
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
	}
	ids := []string{"sweep-1-status", "sweep-1-ran", "sweep-1-failed", "sweep-1-passed", "sweep-1-gave-up", "sweep-1-horizon", "sweep-1-findings",
		"sweep-1-property-failures", "sweep-1-finding-1-count", "sweep-1-finding-1-seeds", "sweep-1-finding-1-faults-after"}
	texts := map[string]string{}
	for _, id := range ids {
		var s string
		eval(fmt.Sprintf(`(document.getElementById(%q) || {textContent: "(missing)"}).textContent`, id), &s)
		texts[id] = s
	}
	var rows [][]string
	var marks, lanes, iframes, hot int
	var markTitle string
	eval(`Array.from(document.querySelectorAll("#sweep-1-properties tr")).slice(1).map(r => Array.from(r.cells).map(c => c.textContent.trim().replace(/\s+/g, " ")))`, &rows)
	eval(`document.querySelectorAll("#sweep-1-finding-1-timeline .mark").length`, &marks)
	eval(`document.querySelectorAll("#sweep-1-finding-1-timeline .lane").length`, &lanes)
	eval(`document.querySelector("#sweep-1-finding-1-timeline .mark").title`, &markTitle)
	eval(`document.querySelectorAll("#sweep-1-finding-2 iframe.history").length`, &iframes)
	// Hovering a fault lights up its line in the list.
	eval(`document.querySelector("#sweep-1-finding-1-timeline .mark").dispatchEvent(new MouseEvent("mouseenter")) ? 1 : 0`, new(int))
	eval(`document.querySelectorAll("#sweep-1-finding-1 ol.faults li.hot").length`, &hot)
	// The cause curve of finding 1: its table, its chart's points and
	// where it marks the failure inevitable.
	var causeRows [][]string
	var circles, inevitableLines int
	var verdict, shares string
	eval(`Array.from(document.querySelectorAll("#sweep-1-finding-1-cause tr")).slice(1).map(r => Array.from(r.cells).map(c => c.textContent.trim()))`, &causeRows)
	eval(`document.querySelectorAll("#sweep-1-finding-1-cause-chart circle").length`, &circles)
	eval(`document.querySelectorAll("#sweep-1-finding-1-cause-chart line.inevitable").length`, &inevitableLines)
	eval(`document.getElementById("sweep-1-finding-1-cause-verdict").textContent`, &verdict)
	eval(`Array.from(document.querySelectorAll("#sweep-1-finding-1-cause-chart circle")).map(c => c.dataset.share + "@" + c.getBBox().y.toFixed(0)).join(" ")`, &shares)
	// The pinned regressions of sweep 2: its counts, its table, and the
	// finding made of a failing pin alone.
	var pinCounts string
	var pinRows [][]string
	eval(`["sweep-2-pins", "sweep-2-pins-failed", "sweep-2-finding-1-count", "sweep-2-finding-1-pin-count", "sweep-2-finding-2-pin-count"].map(id => (document.getElementById(id) || {textContent: "(missing)"}).textContent).join(" ")`, &pinCounts)
	eval(`Array.from(document.querySelectorAll("#sweep-2-pins-table tr")).slice(1).map(r => Array.from(r.cells).map(c => c.textContent.trim()))`, &pinRows)
	var pinOnly string
	eval(`(document.querySelector("#sweep-2-finding-2-pins code") || {textContent: "(missing)"}).textContent`, &pinOnly)
	// The exploration, sweep 3, labels its counts as runs where a
	// sweep's say seeds; sweep 1's stay as they were.
	var heads [][]string
	eval(`["#sweep-1-properties", "#sweep-1-buggify", "#sweep-3-properties", "#sweep-3-buggify"].map(t => Array.from(document.querySelectorAll(t + " th")).map(c => c.textContent.trim()))`, &heads)
	var exploreTexts string
	eval(`["sweep-1-ran-label", "sweep-3-ran-label", "sweep-3-ran", "sweep-3-gave-up"].map(id => (document.getElementById(id) || {textContent: "(missing)"}).textContent.trim()).join(" | ")`, &exploreTexts)
	var exploreFinding string
	eval(`Array.from(document.querySelectorAll("#sweep-3-finding-1 .body > p, #sweep-3-finding-1 h3")).map(p => p.textContent.trim().replace(/\s+/g, " ")).join(" | ")`, &exploreFinding)
	// Give the embedded history page a moment to run its script.
	if err := chromedp.Do(ctx, chromedp.Sleep(300*time.Millisecond)); err != nil {
		t.Fatal(err)
	}

	sw := sweeps[0]
	want := map[string]string{
		"sweep-1-status": "FAIL", "sweep-1-ran": fmt.Sprint(sw.Ran), "sweep-1-failed": fmt.Sprint(sw.Failed),
		"sweep-1-passed": fmt.Sprint(sw.Passed), "sweep-1-horizon": fmt.Sprint(sw.Horizon), "sweep-1-gave-up": "1",
		"sweep-1-findings": fmt.Sprint(len(sw.Findings)), "sweep-1-property-failures": fmt.Sprint(sw.PropertyFailures),
		"sweep-1-finding-1-count": "2", "sweep-1-finding-1-seeds": "1 3", "sweep-1-finding-1-faults-after": "1",
	}
	// The records themselves: 8 seeds, 5 failed, 2 passed, and seed 5, which
	// reached the horizon with a history check that gave up, neither.
	if sw.Ran != 8 || sw.Failed != 5 || sw.Passed != 2 || sw.Horizon != 0 || sw.GaveUpOnly() != 1 {
		t.Fatalf("testdata changed: %d ran, %d failed, %d passed, %d horizon", sw.Ran, sw.Failed, sw.Passed, sw.Horizon)
	}
	for _, id := range ids {
		if got := strings.TrimSpace(texts[id]); got != want[id] {
			t.Errorf("#%s shows %q, want %q", id, got, want[id])
		}
	}
	wantRows := [][]string{
		{"always", "8", "6", "-3", "replicas agree server/main.go:88", "ok"},
		{"sometimes", "8", "3", "2.5", "a write needed a retry client/main.go:104", "ok"},
		{"sometimes", "8", "0", "", "leader stepped down server/raft.go:31", "never true"},
		{"reachable", "0", "0", "", "snapshot installed server/snap.go:12", "never reached"},
	}
	if fmt.Sprint(rows) != fmt.Sprint(wantRows) {
		t.Errorf("property table:\n%v\nwant\n%v", rows, wantRows)
	}
	if marks != 1 || lanes != 1 || !strings.Contains(markTitle, "crash server") {
		t.Errorf("timeline of finding 1: %d marks on %d lanes (%q); want the one crash of seed 3's schedule", marks, lanes, markTitle)
	}
	if iframes != 1 {
		t.Errorf("finding 2 embeds %d history timelines, want 1", iframes)
	}
	wantCause := [][]string{
		{"0s", "3/10", "30%", ""},
		{"1.85s", "4/10", "40%", ""},
		{"3.112882207s", "5/10", "50%", ""},
		{"3.112882208s", "10/10", "100%", "3.112882s crash server, restart at 3.589059s"},
	}
	if fmt.Sprint(causeRows) != fmt.Sprint(wantCause) {
		t.Errorf("cause table:\n%v\nwant\n%v", causeRows, wantCause)
	}
	// A circle of radius 3 at a share s has its top at 130-120*s-3.
	if circles != 4 || inevitableLines != 1 || verdict != "inevitable from 3.112882208s" || shares != "30%@91 40%@79 50%@67 100%@7" {
		t.Errorf("cause chart: %d points (%s), %d inevitable marks, verdict %q", circles, shares, inevitableLines, verdict)
	}
	if ps := sweeps[1]; len(ps.Pins) != 3 || ps.PinsFailed != 2 {
		t.Fatalf("testdata changed: %d pins, %d failed", len(ps.Pins), ps.PinsFailed)
	}
	if pinCounts != "3 2 1 1 1" {
		t.Errorf("pins replayed, failed, and the two findings' seeds and pins show %q, want \"3 2 1 1 1\"", pinCounts)
	}
	wantPins := [][]string{
		{".seedfall/pinned/kvlog/seed-3.json", "3", "failed again", `at t=2.4s: client#1: acknowledged write lost: k12=v12, server now answers "NONE"`},
		{".seedfall/pinned/kvlog/seed-5.json", "5", "failed differently", "at t=41s: server#1: did not finish within 10s after the faults stopped"},
		{".seedfall/pinned/kvlog/seed-9.json", "9", "passed", ""},
	}
	if fmt.Sprint(pinRows) != fmt.Sprint(wantPins) {
		t.Errorf("pinned regressions table:\n%v\nwant\n%v", pinRows, wantPins)
	}
	if pinOnly != ".seedfall/pinned/kvlog/seed-5.json" {
		t.Errorf("finding 2 of sweep 2 names pin %q, want seed-5.json", pinOnly)
	}
	if hot != 1 {
		t.Errorf("hovering the fault lit %d lines of the list, want 1", hot)
	}
	wantHeads := [][]string{
		{"kind", "seeds reached", "seeds true", "margin", "property", "verdict"},
		{"site", "seeds reached", "seeds enabled", "seeds fired", "fired", "note"},
		{"kind", "runs reached", "runs true", "margin", "property", "verdict"},
		{"site", "runs reached", "runs enabled", "runs fired", "fired", "note"},
	}
	if fmt.Sprint(heads) != fmt.Sprint(wantHeads) {
		t.Errorf("table headings of the sweep and the exploration:\n%q\nwant\n%q", heads, wantHeads)
	}
	if want := "seeds ran | runs | 14 | 2 runs neither passed nor failed on their history."; exploreTexts != want {
		t.Errorf("the exploration's counts read %q, want %q", exploreTexts, want)
	}
	for _, want := range []string{
		"Runs: runs 6 13 (seed 1)", "Run 6 (seed 1, 1 branch) failed at t=2.143799s:",
		"Shrunk run 13 (seed 1) from 7 faults to 1; it fails at 1.3s", "Cause of run 13 (seed 1) (4 branches per moment)",
	} {
		if !strings.Contains(exploreFinding, want) {
			t.Errorf("the exploration's finding lacks %q:\n%s", want, exploreFinding)
		}
	}
	if strings.Contains(exploreFinding, "Seed ") || strings.Contains(exploreFinding, "seed 1 from") {
		t.Errorf("the exploration's finding names a seed where it means a run:\n%s", exploreFinding)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Errorf("the page is not clean:\n%s", strings.Join(problems, "\n"))
	}
}
