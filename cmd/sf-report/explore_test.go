package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestExplorePipeline: sf-run -explore piped into sf-report and into
// sf-shrink. Runs 6 and 13 of httpkv's seed 1 fail the same way: the report
// counts 14 runs and groups both failing runs, not merged into one seed,
// into one finding whose replay line names the first run's schedule;
// sf-shrink shrinks each run from its own schedule into its own file, and
// the report of both streams shows the shrunk replay. The report shows the
// exploration's property table, with its columns counting runs, in text,
// Markdown and HTML.
func TestExplorePipeline(t *testing.T) {
	t.Parallel()
	dir := tools.FreshExample(t, "httpkv", "seedfall.json")
	explore := "sf-run -seeds 1 -explore -explore-runs 14 -j 2"
	r := shell(t, dir, explore+" | sf-report -findings '' -md r.md -html r.html")
	if r.Code != 1 {
		t.Fatalf("want status 1 from sf-run's failures\n%s", r)
	}
	for _, want := range []string{
		"exploration seedfall.json, explored from seeds 1 with a budget of 14 runs\n",
		"FAIL 2 of 14 runs failed, 2 of them branched (1 starting seed, 13 branches; 12 passed, 0 hit the time horizon); 1 finding;",
		"findings (1):\n 1. assert · acknowledged write lost after failover\n    2 runs: runs 6 13 (seed 1)\n    run 6, seed 1 (1 branch) at t=",
		"    schedule: .seedfall/seedfall/explore-1-run-6.faults.json\n",
		"    repro: sf-run -c seedfall.json -seed 1 -faults .seedfall/seedfall/explore-1-run-6.faults.json\n",
		// The exploration's property table, summed over its runs and
		// headed so: the 12 that passed failed over; the 2 that failed
		// ended before saying so.
		"\nproperties:\n  kind                  runs reached   runs true    margin  property\n" +
			"  sometimes                       12          12            the client failed over to the backup (",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("the report lacks %q\n%s", want, r)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "r.md"))
	page, _ := os.ReadFile(filepath.Join(dir, "r.html"))
	for _, want := range []string{
		"| # | finding | runs | shrunk | repro |\n",
		"| kind | runs reached | runs true | margin | property | verdict |\n",
		"| sometimes | 12 | 12 |",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the Markdown report lacks %q\n%s", want, md)
		}
	}
	for _, want := range []string{
		`<span id="sweep-1-ran-label">runs</span>`,
		"<th>runs reached</th><th>runs true</th>",
		"<p>Run 6 (seed 1, 1 branch) failed at t=",
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
	if strings.Contains(string(md)+string(page), "seeds reached") {
		t.Errorf("a report of the exploration heads a column seeds reached")
	}
	if !strings.Contains(r.Stderr, "FAIL run 13: seed 1") {
		t.Errorf("sf-run's report did not reach stderr\n%s", r)
	}

	r = shell(t, dir, explore+" 2>/dev/null | tee run.jsonl | sf-shrink -j 2 -json > shrink.jsonl")
	if r.Code != 1 {
		t.Fatalf("want status 1: sf-run failed and sf-shrink shrank\n%s", r)
	}
	for _, run := range []string{"6", "13"} {
		if !strings.Contains(r.Stderr, "seed 1 (explore run "+run+"): ") {
			t.Errorf("sf-shrink did not shrink run %s\n%s", run, r)
		}
		shrunk := ".seedfall/seedfall/explore-1-run-" + run + ".shrunk.faults.json"
		if _, err := os.Stat(filepath.Join(dir, shrunk)); err != nil {
			t.Error(err)
		}
		if !strings.Contains(r.Stderr, "replay: sf-run -c seedfall.json -seed 1 -faults "+shrunk+"\n") {
			t.Errorf("no replay of %s\n%s", shrunk, r)
		}
	}
	r = shell(t, dir, "sf-report -findings '' run.jsonl shrink.jsonl")
	m := regexp.MustCompile(`    shrunk: run (6|13) \(seed 1\) from \d+ faults to \d+, fails at \S+: (\S+)\n(?s:.*)    repro: sf-run -c seedfall.json -seed 1 -faults (\S+)\n`).FindStringSubmatch(r.Stdout)
	if r.Code != 1 || m == nil || m[2] != m[3] || m[2] != ".seedfall/seedfall/explore-1-run-"+m[1]+".shrunk.faults.json" {
		t.Errorf("want the finding's shrunk run and its replay\n%s", r)
	}
}
