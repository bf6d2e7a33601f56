package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
	"github.com/sf-dst/sf/lib/mcpserver"
)

// numericWorld writes a world around the numeric guest, whose comparisons
// have integer margins above 2^53 and an infinite one; with -nan one is NaN.
func numericWorld(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	clitest.WriteJSON(t, filepath.Join(dir, name), map[string]any{
		"workload": map[string]any{"name": "client", "pkg": filepath.Join(tools.Root, "lib", "engine", "testdata", "propguests", "numeric"), "args": append([]string{}, args...)},
		"duration": "5s",
	})
}

// TestIssue27Margins: sf_run returns exact integer margins and non-finite
// ones as strings, and a sweep with a NaN margin still ends with its
// summary, so sf_run answers rather than saying the records ended early.
func TestIssue27Margins(t *testing.T) {
	dir := t.TempDir()
	numericWorld(t, dir, "numeric.json")
	numericWorld(t, dir, "nan.json", "-nan")
	cs := connect(t, dir)

	out := call[mcpserver.RunOut](t, cs, "sf_run", map[string]any{"config": "numeric.json", "seeds": "1"})
	if out.ExitStatus != 0 || out.Status != "pass" {
		t.Fatalf("sf_run: %+v", out)
	}
	got := map[string]string{}
	for _, m := range out.Margins {
		b, _ := json.Marshal(m.Margin)
		got[m.Message] = string(b)
	}
	// The SDK passes a result through float64 to check it against its
	// schema, so the widest gap arrives rounded; -json has it exact.
	for msg, want := range map[string]string{"a timestamp is before the next nanosecond": `1`,
		"uint64s above 2^63 compare exactly": `5`, "the widest gap of two int64s": `18446744073709552000`,
		"everything is below infinity": `"+Inf"`} {
		if got[msg] != want {
			t.Errorf("%q: margin %s, want %s", msg, got[msg], want)
		}
	}

	nan := call[mcpserver.RunOut](t, cs, "sf_run", map[string]any{"config": "nan.json", "seeds": "1"})
	if nan.ExitStatus != 1 || nan.Status != "fail" || len(nan.Failures) != 1 {
		t.Fatalf("sf_run with a NaN: %+v", nan)
	}
	for _, m := range nan.Margins {
		if m.Message == "zero is below the right side" && m.Margin.String() != "NaN" {
			t.Errorf("the NaN margin reads %s", m.Margin)
		}
	}
}

// TestIssue27FailureView: the failure view names its files as the spec does,
// history_file and timeline_file, next to the record's artifacts; sf_run
// with max_failures 0 returns no failure record; sf_replay returns the run's
// events (name, node, time, details as JSON) with the programs' output
// apart.
func TestIssue27FailureView(t *testing.T) {
	dir := t.TempDir()
	clitest.WriteJSON(t, filepath.Join(dir, "stale.json"), map[string]any{
		"workload": map[string]any{"name": "client", "pkg": filepath.Join(tools.Root, "lib", "sweep", "testdata", "guests", "register"),
			"args": []string{"-stale"}},
		"checker":  map[string]any{"model": "kv"},
		"duration": "30s",
	})
	cs := connect(t, dir)
	run := call[mcpserver.RunOut](t, cs, "sf_run", map[string]any{"config": "stale.json", "seeds": "1-2"})
	if len(run.Failures) != 2 {
		t.Fatalf("sf_run: %+v", run)
	}
	f := run.Failures[0]
	hist, tl := filepath.Join(".seedfall", "stale", "seed-1.history.jsonl"), filepath.Join(".seedfall", "stale", "seed-1.history.html")
	if f.HistoryFile != hist || f.TimelineFile != tl || f.Artifacts == nil || f.Artifacts.History != hist || f.Artifacts.Timeline != tl {
		t.Errorf("sf_run's failure view: history_file %q, timeline_file %q, artifacts %+v; want %s and %s", f.HistoryFile, f.TimelineFile, f.Artifacts, hist, tl)
	}

	none := call[mcpserver.RunOut](t, cs, "sf_run", map[string]any{"config": "stale.json", "seeds": "1-2", "max_failures": 0})
	if len(none.Failures) != 0 || none.FailuresOmitted != 2 || none.Failed != 2 {
		t.Errorf("sf_run with max_failures 0: %d failures, %d omitted, %d failed; want 0, 2, 2", len(none.Failures), none.FailuresOmitted, none.Failed)
	}

	rep := call[mcpserver.ReplayOut](t, cs, "sf_replay", map[string]any{"config": "stale.json", "seed": 1})
	if rep.Result.HistoryFile != hist || rep.Result.TimelineFile != tl {
		t.Errorf("sf_replay's result: history_file %q, timeline_file %q", rep.Result.HistoryFile, rep.Result.TimelineFile)
	}
	last := rep.Events[len(rep.Events)-1]
	if last.Name != "fail" || last.Index != rep.Lines || !json.Valid(last.Details) {
		t.Errorf("sf_replay's last event: %+v (of %d lines)", last, rep.Lines)
	}
	var details map[string]any
	if err := json.Unmarshal(last.Details, &details); err != nil || details["text"] == nil {
		t.Errorf("the failure's details %s: %v", last.Details, err)
	}
}
