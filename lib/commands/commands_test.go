package commands

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

const doc = "// Sf-x is a test.\npackage main\n"

// onCLI runs main on args with empty streams and returns the exit status
// and standard error.
func onCLI(main func(string, []string, Streams) int, args ...string) (int, string) {
	var stdout, stderr bytes.Buffer
	code := main(doc, args, Streams{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr})
	return code, stderr.String()
}

// TestOptionsThatDoNotGoTogether: an error about two options is found once
// and worded in each surface's names (issue 24).
func TestOptionsThatDoNotGoTogether(t *testing.T) {
	for _, tc := range []struct {
		main     func(string, []string, Streams) int
		args     []string
		from     func(json.RawMessage) error
		call     string
		cli, mcp string
	}{
		{MutateMain, []string{"sf-mutate", "-mutants", "3"},
			func(a json.RawMessage) error { _, err := MutateFromMCP(a, nil); return err }, `{"config":"w.json","mutants":3}`,
			"sf-mutate: -mutants needs -app (see sf-mutate -h)\n", "sf_mutate: mutants: needs app"},
		{MutateMain, []string{"sf-mutate", "-app", "-only", "fsync_noop"},
			func(a json.RawMessage) error { _, err := MutateFromMCP(a, nil); return err }, `{"config":"w.json","app":true,"only":["fsync_noop"]}`,
			"sf-mutate: -only picks runtime mutants and cannot be combined with -app (see sf-mutate -h)\n",
			"sf_mutate: only: picks runtime mutants and cannot be combined with app"},
		{RunMain, []string{"sf-run", "-seeds", "1-3", "-shard", "2/4"},
			func(a json.RawMessage) error { _, err := RunFromMCP("sf_run", a, nil); return err }, `{"config":"w.json","seeds":"1-3","shard":"2/4"}`,
			"sf-run: -shard 2/4: the sweep has only 3 seeds, fewer than its 4 shards (see sf-run -h)\n",
			"sf_run: shard: 2/4: the sweep has only 3 seeds, fewer than its 4 shards"},
		{ShrinkMain, []string{"sf-shrink", "-profile", "ci", "r.jsonl"},
			func(a json.RawMessage) error { _, err := ShrinkFromMCP(a, nil); return err }, `{"records":["r.jsonl"],"profile":"ci"}`,
			"sf-shrink: -profile needs -seed N; reading records, the world comes from them (see sf-shrink -h)\n",
			"sf_shrink: profile: needs seed; reading records, the world comes from them"},
	} {
		code, stderr := onCLI(tc.main, tc.args...)
		if code != 2 || stderr != tc.cli {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.cli)
		}
		if err := tc.from(json.RawMessage(tc.call)); err == nil || err.Error() != tc.mcp {
			t.Errorf("%s: %v, want %q", tc.call, err, tc.mcp)
		}
	}
}

// TestFromMCP: what a call's fields become, as the command line's flags
// would set them.
func TestFromMCP(t *testing.T) {
	r, err := RunFromMCP("sf_run", json.RawMessage(`{"config":"w.json","seeds":"1-8","shard":"2/4","jobs":3,"history_timeout":"5s"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Config != "w.json" || r.SeedsText != "1-8" || len(r.Seeds) != 2 || r.Shard != "2/4" || r.Jobs != 3 ||
		r.HistoryTimeout.String() != "5s" || !r.JSON || r.MaxFailures != FailuresDefault || r.Replay {
		t.Errorf("sf_run: %+v", r)
	}
	r, err = RunFromMCP("sf_replay", json.RawMessage(`{"config":"w.json","seed":0,"faults":"f.json","pin":true}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Replay || len(r.Seeds) != 1 || r.Seeds[0] != 0 || r.SeedsText != "0" || r.Faults != "f.json" || !r.Pin || r.Jobs != 1 || r.MaxEvents != EventsDefault {
		t.Errorf("sf_replay: %+v", r)
	}
	r, err = RunFromMCP("sf_trace_search", json.RawMessage(`{"config":"w.json","seed":4,"pattern":"(?i)fail","node":"server"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Pattern == nil || !r.Pattern.MatchString("FAIL") || r.Node != "server" || r.MaxMatches != MatchesDefault || r.Seeds[0] != 4 {
		t.Errorf("sf_trace_search: %+v", r)
	}
	if _, err := RunFromMCP("sf_trace_search", json.RawMessage(`{"config":"w.json","seed":4,"pattern":"("}`), nil); err == nil ||
		!strings.HasPrefix(err.Error(), "sf_trace_search: pattern: error parsing regexp") {
		t.Errorf("a bad pattern: %v", err)
	}
	s, err := ShrinkFromMCP(json.RawMessage(`{"seed":0,"config":"w.json","max":3}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !s.HasSeed || s.Seed != 0 || s.Max != 3 || !s.JSON {
		t.Errorf("sf_shrink: %+v", s)
	}
	if _, err := ShrinkFromMCP(json.RawMessage(`{"seed":1}`), nil); err == nil || err.Error() != "sf_shrink: config: missing: name the world file, such as seedfall.json" {
		t.Errorf("sf_shrink without config: %v", err)
	}
	if _, err := ShrinkFromMCP(json.RawMessage(`{}`), nil); err == nil || err.Error() != "sf_shrink: seed: missing: give config and seed, or records" {
		t.Errorf("sf_shrink with neither: %v", err)
	}
	rep, err := ReportFromMCP(json.RawMessage(`{"records":["a.jsonl"],"findings":""}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.FindingsByWorld || rep.Findings != "" || rep.Inputs[0] != "a.jsonl" {
		t.Errorf("sf_report with findings \"\": %+v", rep)
	}
	rep, err = ReportFromMCP(json.RawMessage(`{"records":["a.jsonl"]}`), nil)
	if err != nil || !rep.FindingsByWorld {
		t.Errorf("sf_report without findings: %+v, %v", rep, err)
	}
	f, err := FaultsFromMCP(json.RawMessage(`{"config":"w.json","seed":2,"remove":[1,3],"add":[{"kind":"pause","at":"1s"}]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(f.Remove, ",") != "1,3" || f.Add[0] != `{"at":"1s","kind":"pause"}` || f.Seed != 2 || !f.JSON {
		t.Errorf("sf_faults_edit: %+v", f)
	}
	c, err := CheckFromMCP(json.RawMessage(`{"history":"h.jsonl"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "kv" || c.Format != "auto" || c.Timeout.String() != "30s" || !c.JSON {
		t.Errorf("sf_check: %+v", c)
	}
}
