package main

// End-to-end tests: the SDK's own client starts the built sf-mcp and talks
// to it over a real stdio pipe, as an agent's MCP client does, on copies
// of the example worlds in temporary directories.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sf-dst/sf/lib/check"
	"github.com/sf-dst/sf/lib/clitest"
	"github.com/sf-dst/sf/lib/mcpserver"
	"github.com/sf-dst/sf/lib/record"
)

// tools is sf-mcp, built once per test process.
var tools clitest.Tools

func TestMain(m *testing.M) { os.Exit(tools.Main(m, "sf-mcp")) }

// connect starts sf-mcp -dir dir and returns a client session on it.
func connect(t *testing.T, dir string) *mcp.ClientSession {
	t.Helper()
	tools.Need(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.Command(tools.Path("sf-mcp"), "-dir", dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "sf-mcp-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to sf-mcp: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("closing the session: %v", err)
		}
		if s := stderr.String(); strings.Contains(s, "goroutine ") || strings.Contains(s, "panic:") {
			t.Errorf("sf-mcp wrote a stack trace:\n%s", s)
		}
	})
	return cs
}

// call calls a tool that must succeed and decodes its structured result.
func call[Out any](t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) Out {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s %v: tool error: %s", name, args, text(res))
	}
	var out Out
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: decoding %s: %v", name, b, err)
	}
	return out
}

// callError calls a tool that must fail with a tool error, and returns its
// text.
func callError(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: a protocol error where a tool error was expected: %v", name, err)
	}
	if !res.IsError {
		t.Fatalf("%s %v: no error; result %s", name, args, text(res))
	}
	return text(res)
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// copyWorld copies the world file src (relative to the repository root)
// into dir with its packages made absolute, under the name it had.
func copyWorld(t *testing.T, dir, src string) {
	t.Helper()
	clitest.CopyWorld(t, filepath.Join(tools.Root, src), filepath.Join(dir, filepath.Base(src)))
}

// docConfig is the client configuration docs/agents.md shows, with its
// example paths replaced by the built binary and dir.
func docConfig(t *testing.T, dir string) (command string, args []string) {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(tools.Root, "docs", "agents.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "```json\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatal("docs/agents.md has no json block")
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(block), &cfg); err != nil {
		t.Fatalf("docs/agents.md's configuration: %v", err)
	}
	sf, ok := cfg.MCPServers["sf"]
	if !ok || sf.Command != "/home/me/src/sf/bin/sf-mcp" {
		t.Fatalf("docs/agents.md's configuration: %+v", cfg)
	}
	for _, a := range sf.Args {
		args = append(args, strings.ReplaceAll(a, "/home/me/src/myservice", dir))
	}
	return tools.Path("sf-mcp"), args
}

// TestListTools lists the tools of a server started as docs/agents.md
// registers it.
func TestListTools(t *testing.T) {
	tools.Need(t)
	command, args := docConfig(t, t.TempDir())
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "sf-mcp-test", Version: "1"}, nil).Connect(context.Background(),
		&mcp.CommandTransport{Command: exec.Command(command, args...)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	schemas := map[string][2]map[string]any{}
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		in, _ := tool.InputSchema.(map[string]any)
		out, _ := tool.OutputSchema.(map[string]any)
		schemas[tool.Name] = [2]map[string]any{in, out}
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
	}
	if !slices.Equal(names, mcpserver.ToolNames) {
		t.Fatalf("tools %v, want %v", names, mcpserver.ToolNames)
	}
	props := func(s map[string]any) map[string]any {
		p, _ := s["properties"].(map[string]any)
		return p
	}
	for tool, want := range map[string][2][]string{
		"sf_run":          {{"config", "seeds", "profile", "set", "max_failures"}, {"failures", "margins", "buggify_sites", "exit_status"}},
		"sf_replay":       {{"config", "seed", "faults", "max_events"}, {"result", "events", "events_omitted", "output", "lines"}},
		"sf_trace_search": {{"config", "seed", "pattern", "node", "max_matches"}, {"source", "matches", "matches_omitted"}},
		"sf_shrink":       {{"config", "seed", "records", "max"}, {"shrinks", "summary"}},
		"sf_faults_edit":  {{"config", "seed", "remove", "shift", "add", "out"}, {"faults", "replay", "schedule"}},
		"sf_check":        {{"history", "model", "timeout"}, {"verdict", "anomalies", "exit_status"}},
		"sf_mutate":       {{"config", "seeds", "only", "app"}, {"mutants", "summary"}},
		"sf_report":       {{"records", "md", "html", "findings"}, {"sweeps", "text"}},
	} {
		s := schemas[tool]
		for i, fields := range want {
			if s[i]["type"] != "object" {
				t.Errorf("%s: schema %d has type %v, want object", tool, i, s[i]["type"])
			}
			for _, f := range fields {
				if _, ok := props(s[i])[f]; !ok {
					t.Errorf("%s: schema %d has no property %q: %v", tool, i, f, s[i])
				}
			}
		}
	}
	// Fields are described for the agent, not only typed.
	if d, _ := props(schemas["sf_trace_search"][0])["pattern"].(map[string]any); !strings.Contains(fmt.Sprint(d["description"]), "regular expression") {
		t.Errorf("sf_trace_search's pattern has no description: %v", d)
	}
}

// TestKvlog calls every tool on a copy of examples/kvlog, whose planted bug
// (acknowledging writes before fsync) loses writes when the server crashes.
func TestKvlog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	copyWorld(t, dir, "examples/kvlog/seedfall.json")
	copyWorld(t, dir, "examples/kvlog/seedfall.fixed.json")
	// The fixed world's committed pin: seed 3's shrunk schedule, which
	// the fix passes.
	pinned := filepath.Join(dir, ".seedfall", "pinned", "seedfall.fixed")
	if err := os.MkdirAll(pinned, 0o755); err != nil {
		t.Fatal(err)
	}
	pinData, err := os.ReadFile(filepath.Join(tools.Root, "examples/kvlog/.seedfall/pinned/seedfall.fixed/seed-3.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pinned, "seed-3.json"), pinData, 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, dir)

	run := call[mcpserver.RunOut](t, cs, "sf_run", map[string]any{"config": "seedfall.json", "seeds": "1-4", "max_failures": 3, "records": "run.jsonl"})
	if run.ExitStatus != 1 || run.Status != "fail" || run.Ran != 4 || run.Failed != 4 || !slices.Equal(run.FailedSeeds, []uint64{1, 2, 3, 4}) {
		t.Fatalf("sf_run: %+v", run)
	}
	if len(run.Failures) != 3 || run.FailuresOmitted != 1 {
		t.Fatalf("sf_run with max_failures 3: %d failures, %d omitted, want 3 and 1", len(run.Failures), run.FailuresOmitted)
	}
	first := run.Failures[0]
	if first.Seed != 1 || first.Class != "assert" || !strings.Contains(first.Message, "acknowledged write lost") ||
		first.Artifacts == nil || first.Repro == "" || !strings.Contains(first.Repro, "-seed 1") {
		t.Fatalf("sf_run's first failure: %+v", first)
	}
	if _, err := os.Stat(filepath.Join(dir, first.Artifacts.Trace)); err != nil {
		t.Errorf("the failure's trace: %v", err)
	}
	if i := slices.IndexFunc(run.Properties, func(p record.Property) bool { return p.Message == "client finished" }); i < 0 || run.Properties[i].Verdict != "never reached" {
		t.Errorf("sf_run's properties: %+v", run.Properties)
	}
	if run.PropertyFailures != 1 || run.Margins == nil || len(run.Margins) != 0 || run.BuggifySites == nil || len(run.BuggifySites) != 0 {
		t.Errorf("sf_run: property failures %d, margins %v, buggify sites %v; want 1 and two empty lists (kvlog has neither)", run.PropertyFailures, run.Margins, run.BuggifySites)
	}

	rep := call[mcpserver.ReplayOut](t, cs, "sf_replay", map[string]any{"config": "seedfall.json", "seed": 1})
	if rep.ExitStatus != 1 || rep.Result.Status != "fail" || rep.Result.DeterminismHash != first.DeterminismHash {
		t.Fatalf("sf_replay of seed 1: %+v; the sweep's hash was %s", rep.Result, first.DeterminismHash)
	}
	if rep.EventsTotal < 5 || len(rep.Events) != rep.EventsTotal || rep.EventsOmitted != 0 || rep.OutputTotal < 2 ||
		len(rep.Output) != rep.OutputTotal || rep.EventsTotal+rep.OutputTotal != rep.Lines {
		t.Fatalf("sf_replay: %d events of %d, %d omitted; %d lines of output of %d; %d trace lines",
			len(rep.Events), rep.EventsTotal, rep.EventsOmitted, len(rep.Output), rep.OutputTotal, rep.Lines)
	}
	last := rep.Events[len(rep.Events)-1]
	if !strings.HasPrefix(last.Text, "FAIL  client#1: acknowledged write lost") || last.Name != "fail" || last.Node != "client#1" ||
		last.At != "3.677s" || last.Index != rep.Lines {
		t.Errorf("sf_replay's last event: %+v", last)
	}
	if !slices.ContainsFunc(rep.Events, func(e mcpserver.Event) bool {
		return e.Name == "fault" && e.Node == "server#1" && strings.HasPrefix(e.Text, "fault crash server#1") &&
			strings.Contains(string(e.Details), `"kind":"crash"`)
	}) {
		t.Errorf("sf_replay: no crash of server#1 in %+v", rep.Events)
	}
	// The server's sim.Event, with its details as JSON.
	if !slices.ContainsFunc(rep.Events, func(e mcpserver.Event) bool {
		return e.Name == "recovered" && e.Node == "server#1" && string(e.Details) == `{"dropped_bytes":0,"keys":0}`
	}) {
		t.Errorf("sf_replay: no recovered event of server#1 in %+v", rep.Events)
	}
	// The programs' output is apart, a line each.
	if !slices.ContainsFunc(rep.Output, func(l mcpserver.Line) bool {
		return l.Node == "server#1" && l.Text == "server: recovered 0 keys from data/kv.log"
	}) || slices.ContainsFunc(rep.Events, func(e mcpserver.Event) bool { return strings.HasPrefix(e.Text, "server#1: server:") }) {
		t.Errorf("sf_replay: the server's output is not apart:\nevents %+v\noutput %+v", rep.Events, rep.Output)
	}
	if rep.Disks != nil {
		t.Errorf("sf_replay without inspect: disks %+v", rep.Disks)
	}
	inspected := call[mcpserver.ReplayOut](t, cs, "sf_replay", map[string]any{"config": "seedfall.json", "seed": 1, "inspect": true})
	if d := inspected.Disks; len(d) != 2 || d[0].Node != "server" || d[0].UsageBytes != 2524 || len(d[0].Files) != 2 ||
		fmt.Sprintf("%+v", d[0].Files[1]) != fmt.Sprintf("%+v", mcpserver.File{Path: "data/kv.log", Type: "file", Size: 2524, DurableSize: 2524}) || d[1].Node != "client" || len(d[1].Files) != 0 {
		t.Errorf("sf_replay inspect: %+v", d)
	}
	short := call[mcpserver.ReplayOut](t, cs, "sf_replay", map[string]any{"config": "seedfall.json", "seed": 1, "max_events": 2})
	if len(short.Events) != 2 || short.EventsOmitted != rep.EventsTotal-2 || short.Events[1].Text != rep.Events[1].Text {
		t.Errorf("sf_replay with max_events 2: %d events, %d omitted", len(short.Events), short.EventsOmitted)
	}

	search := map[string]any{"config": "seedfall.json", "seed": 1, "pattern": `recovered \d+ keys`, "node": "server"}
	found := call[mcpserver.TraceSearchOut](t, cs, "sf_trace_search", search)
	if found.Source != filepath.Join(".seedfall", "seedfall", "seed-1.trace.log") || found.Lines != rep.Lines ||
		found.MatchesTotal != 2 || len(found.Matches) != 2 || found.Matches[0].Node != "server#1" || found.Matches[1].Node != "server#2" {
		t.Fatalf("sf_trace_search: %+v", found)
	}
	search["replay"], search["max_matches"] = true, 1
	replayed := call[mcpserver.TraceSearchOut](t, cs, "sf_trace_search", search)
	if replayed.Source != "replay" || len(replayed.Matches) != 1 || replayed.MatchesOmitted != 1 || replayed.Matches[0] != found.Matches[0] {
		t.Errorf("sf_trace_search replaying, max_matches 1: %+v", replayed)
	}
	// A compressed trace is searched as it is.
	zrun := call[mcpserver.RunOut](t, cs, "sf_run", map[string]any{"config": "seedfall.json", "seeds": "2", "compress": true})
	if len(zrun.Failures) != 1 || !strings.HasSuffix(zrun.Failures[0].Artifacts.Trace, "seed-2.trace.log.zst") {
		t.Fatalf("sf_run compress: %+v", zrun.Failures)
	}
	zfound := call[mcpserver.TraceSearchOut](t, cs, "sf_trace_search", map[string]any{"config": "seedfall.json", "seed": 2, "pattern": "^FAIL"})
	if zfound.Source != zrun.Failures[0].Artifacts.Trace || zfound.MatchesTotal != 1 || zfound.Matches[0].Node != "client#1" {
		t.Errorf("sf_trace_search of a compressed trace: %+v", zfound)
	}
	none := call[mcpserver.TraceSearchOut](t, cs, "sf_trace_search", map[string]any{"config": "seedfall.json", "seed": 1, "pattern": "FAIL", "node": "server#2"})
	if none.MatchesTotal != 0 {
		t.Errorf("sf_trace_search for FAIL on server#2: %+v", none)
	}

	edit := call[mcpserver.FaultsEditOut](t, cs, "sf_faults_edit", map[string]any{"config": "seedfall.json", "seed": 1,
		"add": []map[string]any{{"at": "1s", "kind": "pause", "node": "server", "until": "1.5s"}}, "out": "edited.json"})
	if len(edit.Faults) != 2 || !strings.Contains(edit.Faults[0], "pause server") || !strings.Contains(edit.Header, "wrote edited.json") ||
		!strings.HasSuffix(edit.Replay, "-seed 1 -faults edited.json") || len(edit.Schedule["faults"].([]any)) != 2 {
		t.Fatalf("sf_faults_edit: %+v", edit)
	}
	edited := call[mcpserver.ReplayOut](t, cs, "sf_replay", map[string]any{"config": "seedfall.json", "seed": 1, "faults": "edited.json"})
	if edited.Result.FaultsFile != "edited.json" || !slices.ContainsFunc(edited.Events, func(e mcpserver.Event) bool { return strings.HasPrefix(e.Text, "fault pause server") }) {
		t.Errorf("sf_replay of the edited schedule: %+v", edited.Result)
	}

	// The edited schedule's pause is not needed for the failure: sf_shrink
	// drops it.
	shrunk := call[mcpserver.ShrinkOut](t, cs, "sf_shrink", map[string]any{"config": "seedfall.json", "seed": 1, "faults": "edited.json", "pin": true})
	if shrunk.ExitStatus != 1 || len(shrunk.Shrinks) != 1 || shrunk.Summary.Status != "shrunk" {
		t.Fatalf("sf_shrink: %+v", shrunk)
	}
	if s := shrunk.Shrinks[0]; s.Seed != 1 || s.FaultsBefore != 2 || s.FaultsAfter != 1 || s.Class != "assert" || s.Schedule == "" {
		t.Errorf("sf_shrink of seed 1 with the edited schedule: %+v", s)
	} else if _, err := os.Stat(filepath.Join(dir, s.Schedule)); err != nil {
		t.Errorf("the shrunk schedule: %v", err)
	} else if _, err := os.Stat(filepath.Join(dir, s.Pinned)); s.Pinned == "" || err != nil {
		t.Errorf("sf_shrink pin: pinned %q: %v", s.Pinned, err)
	}
	// From the sweep's records, the first failing seed only.
	fromRecs := call[mcpserver.ShrinkOut](t, cs, "sf_shrink", map[string]any{"records": []string{"run.jsonl"}, "max": 1, "jobs": 1})
	if len(fromRecs.Shrinks) != 1 || fromRecs.Shrinks[0].Seed != 1 || fromRecs.Shrinks[0].FaultsAfter != 1 || fromRecs.Summary.Skipped != 3 {
		t.Errorf("sf_shrink of run.jsonl, max 1: %+v", fromRecs)
	}

	// Edits name positions in the schedule as it was: the pause (1) goes,
	// the crash (2) moves 10ms later.
	edit2 := call[mcpserver.FaultsEditOut](t, cs, "sf_faults_edit", map[string]any{"config": "seedfall.json", "seed": 1,
		"faults": "edited.json", "remove": []int{1}, "shift": []string{"2=+10ms"}, "out": "edited2.json"})
	if len(edit2.Faults) != 1 || !strings.Contains(edit2.Faults[0], "3.122882s  crash server") {
		t.Errorf("sf_faults_edit remove 1, shift 2=+10ms: %+v", edit2.Faults)
	}

	mut := call[mcpserver.MutateOut](t, cs, "sf_mutate", map[string]any{"config": "seedfall.fixed.json", "seeds": "1-3", "only": []string{"fsync_noop"}})
	if mut.ExitStatus != 0 || mut.Summary.Baseline != "pass" || len(mut.Mutants) != 1 || mut.Mutants[0].Name != "fsync_noop" ||
		mut.Mutants[0].Verdict != "killed" || mut.Mutants[0].KilledBySeed == 0 || mut.Summary.Score != 1 {
		t.Errorf("sf_mutate fsync_noop on the fixed kvlog: %+v", mut)
	}
	mdMut := call[mcpserver.MutateOut](t, cs, "sf_mutate", map[string]any{"config": "seedfall.fixed.json", "seeds": "1", "only": []string{"fsync_noop"},
		"md": "mutants.md", "jobs": 1})
	if md, err := os.ReadFile(filepath.Join(dir, "mutants.md")); err != nil || !strings.Contains(string(md), "fsync_noop") || len(mdMut.Mutants) != 1 {
		t.Errorf("sf_mutate md: %v, %s", err, md)
	}
	app := call[mcpserver.MutateOut](t, cs, "sf_mutate", map[string]any{"config": "seedfall.fixed.json", "seeds": "1", "app": true, "mutants": 1})
	if len(app.Mutants) != 1 || app.Mutants[0].Source != "app" || app.Mutants[0].File == "" || app.Mutants[0].Change == "" || app.Summary.Mutants != 1 {
		t.Errorf("sf_mutate app, 1 mutant: %+v", app)
	}

	// sf_report reads the records sf_run wrote.
	report := call[mcpserver.ReportOut](t, cs, "sf_report", map[string]any{"records": []string{"run.jsonl"}, "md": "report.md"})
	if report.ExitStatus != 1 || len(report.Sweeps) != 1 || report.Sweeps[0].Status != "fail" || report.Sweeps[0].Failed != 4 {
		t.Fatalf("sf_report: %+v", report)
	}
	if f := report.Sweeps[0].Findings; len(f) != 1 || f[0].Title != "assert · acknowledged write lost" || f[0].SeedsTotal != 4 || f[0].Status != "new" {
		t.Errorf("sf_report's findings: %+v", f)
	}
	if !strings.Contains(report.Text, "acknowledged write lost") {
		t.Errorf("sf_report's text: %s", report.Text)
	}
	for _, f := range []string{"report.md", ".seedfall/findings.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("sf_report: %v", err)
		}
	}
	// Without a findings file, findings have no status; the HTML page is
	// written whole.
	report = call[mcpserver.ReportOut](t, cs, "sf_report", map[string]any{"records": []string{"run.jsonl"}, "html": "report.html", "findings": ""})
	if f := report.Sweeps[0].Findings; len(f) != 1 || f[0].Status != "" {
		t.Errorf("sf_report without findings: %+v", f)
	}
	// Pinned regressions: a failing pin joins the finding its seed shares, or
	// makes one of its own, which then carries the pin's message.
	pins := call[mcpserver.ReportOut](t, cs, "sf_report", map[string]any{"records": []string{filepath.Join(tools.Root, "lib/report/testdata/pins.jsonl")}, "findings": ""})
	if sw := pins.Sweeps[0]; pins.ExitStatus != 1 || sw.PinsReplayed != 3 || sw.PinsFailed != 2 || len(sw.Findings) != 2 {
		t.Fatalf("sf_report with pins: %+v", pins)
	}
	for _, f := range pins.Sweeps[0].Findings {
		switch f.Class {
		case "assert":
			if f.SeedsTotal != 1 || !slices.Equal(f.Pins, []string{".seedfall/pinned/kvlog/seed-3.json"}) {
				t.Errorf("sf_report: the assert finding with a pin: %+v", f)
			}
		case "liveness":
			if f.SeedsTotal != 0 || !slices.Equal(f.Pins, []string{".seedfall/pinned/kvlog/seed-5.json"}) || !strings.HasPrefix(f.FirstMessage, "server#1: did not finish") {
				t.Errorf("sf_report: the finding of a pin alone: %+v", f)
			}
		default:
			t.Errorf("sf_report with pins: unexpected finding %+v", f)
		}
	}
	if page, err := os.ReadFile(filepath.Join(dir, "report.html")); err != nil || !strings.Contains(string(page), "</html>") {
		t.Errorf("sf_report html: %v", err)
	}

	hist := filepath.Join(dir, "queue-lost.jsonl")
	data, err := os.ReadFile(filepath.Join(tools.Root, "cmd/sf-check/testdata/queue-lost.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hist, data, 0o644); err != nil {
		t.Fatal(err)
	}
	verdict := call[check.Record](t, cs, "sf_check", map[string]any{"history": "queue-lost.jsonl", "model": "queue"})
	if verdict.Verdict != check.Illegal || verdict.Passed || verdict.ExitStatus != 1 || len(verdict.Anomalies) != 1 || verdict.Timeline != "queue-lost.html" {
		t.Errorf("sf_check of a lost dequeue: %+v", verdict)
	}
	verdict = call[check.Record](t, cs, "sf_check", map[string]any{"history": "queue-lost.jsonl", "model": "queue", "format": "jsonl",
		"timeline": "tl.html", "timeout": "10s", "max_steps": 100000})
	if verdict.Verdict != check.Illegal || verdict.Timeline != "tl.html" || verdict.TimeoutMs != 10000 {
		t.Errorf("sf_check with format, timeline, timeout and max_steps: %+v", verdict)
	} else if _, err := os.Stat(filepath.Join(dir, "tl.html")); err != nil {
		t.Errorf("sf_check's timeline: %v", err)
	}

	// A shard of a sweep with crashes off, each seed run twice: seeds 2
	// and 4 of 1-4 pass, and without crashes no write needs a retry, so
	// that sometimes property fails the sweep.
	shard := call[mcpserver.RunOut](t, cs, "sf_run", map[string]any{"config": "seedfall.json", "seeds": "1-4", "shard": "2/2", "check": true,
		"jobs": 1, "history_timeout": "5s", "set": []string{"faults.crash_per_sec=0"}})
	if shard.ExitStatus != 1 || shard.Ran != 2 || shard.Passed != 2 || shard.Failed != 0 || shard.PropertyFailures != 1 ||
		!slices.ContainsFunc(shard.Properties, func(p record.Property) bool {
			return p.Message == "a write needed a retry" && p.Verdict == "never true"
		}) {
		t.Errorf("sf_run shard 2/2 with check and crashes off: %+v", shard)
	}
	if msg := callError(t, cs, "sf_run", map[string]any{"config": "seedfall.json", "seeds": "1", "profile": "nope"}); msg != "sf-run: seedfall.json: -profile nope: unknown profile: the world defines no profiles" {
		t.Errorf("sf_run with profile nope: %q", msg)
	}

	fixed := call[mcpserver.RunOut](t, cs, "sf_run", map[string]any{"config": "seedfall.fixed.json", "seeds": "2"})
	if len(fixed.Pins) != 1 || fixed.Pins[0].Seed != 3 || fixed.Pins[0].Status != "pass" || fixed.PinsFailed != 0 || fixed.Failed != 0 {
		t.Errorf("sf_run on the fixed world with its pin: %+v", fixed)
	}
	// Pin seed 4 of the buggy world; its sweeps replay the pins of seeds 1
	// (sf_shrink's) and 4 first, and both fail.
	pin4 := call[mcpserver.ReplayOut](t, cs, "sf_replay", map[string]any{"config": "seedfall.json", "seed": 4, "pin": true})
	if pin4.Result.Pinned != filepath.Join(".seedfall", "pinned", "seedfall", "seed-4.json") {
		t.Errorf("sf_replay pin: pinned %q", pin4.Result.Pinned)
	}
	buggy := call[mcpserver.RunOut](t, cs, "sf_run", map[string]any{"config": "seedfall.json", "seeds": "1"})
	if len(buggy.Pins) != 2 || buggy.Pins[0].Seed != 1 || buggy.Pins[1].Seed != 4 || buggy.Pins[1].Status != "fail" || buggy.PinsFailed != 2 {
		t.Errorf("sf_run with two failing pins: pins %+v, %d failed", buggy.Pins, buggy.PinsFailed)
	}

	checkCancel(t, cs)
}

// TestErrors checks that each tool's bad input is a tool error carrying
// the command line's message, never a protocol error or a crash.
func TestErrors(t *testing.T) {
	dir := t.TempDir()
	cs := connect(t, dir)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		// The messages of the commands, as sf-run -c nope.json prints them.
		{"sf_run", map[string]any{"config": "nope.json"}, "sf-run: nope.json: no such file or directory"},
		{"sf_replay", map[string]any{"config": "nope.json", "seed": 1}, "sf-run: nope.json: no such file or directory"},
		{"sf_trace_search", map[string]any{"config": "nope.json", "seed": 1, "pattern": "x"}, "sf-run: nope.json: no such file or directory"},
		{"sf_shrink", map[string]any{"config": "nope.json", "seed": 1}, "sf-shrink: seed 1 of nope.json: nope.json: no such file or directory"},
		{"sf_shrink", map[string]any{"records": []string{"nope.jsonl"}}, "sf-shrink: open nope.jsonl: no such file or directory"},
		{"sf_faults_edit", map[string]any{"config": "seedfall.json", "seed": 1, "faults": "nope.json"}, "sf-faults: -faults: open nope.json: no such file or directory"},
		{"sf_check", map[string]any{"history": "nope.jsonl"}, "sf-check: reading history: open nope.jsonl: no such file or directory"},
		{"sf_mutate", map[string]any{"config": "nope.json", "seeds": "1"}, "sf-mutate: nope.json: no such file or directory"},
		{"sf_report", map[string]any{"records": []string{"nope.jsonl"}}, "sf-report: open nope.jsonl: no such file or directory"},
		// The tools' own bounds and fields.
		{"sf_run", map[string]any{"config": "w.json", "seeds": "1-20000"}, "sf_run: seeds: 1-20000 is 20000 seeds, more than the 10000 one call may run"},
		{"sf_run", map[string]any{"config": "w.json", "seeds": "x"}, "sf_run: seeds: "},
		{"sf_replay", map[string]any{"config": "w.json", "seed": 1, "max_events": 20000}, "sf_replay: max_events: 20000: at most 10000"},
		{"sf_trace_search", map[string]any{"config": "w.json", "seed": 1, "pattern": "("}, "sf_trace_search: pattern: error parsing regexp"},
		{"sf_mutate", map[string]any{"config": "w.json", "only": []string{"nope"}}, `sf_mutate: only: "nope" is not a runtime mutant`},
		{"sf_run", map[string]any{"config": " "}, "sf_run: config: missing"},
		{"sf_mutate", map[string]any{"config": "w.json", "mutants": 3}, "sf_mutate: mutants: needs app"},
		// A bad value gets the words the command line gives it (lib/cmdspec):
		// sf-check -timeout soon, sf-run -j -1, sf-shrink -max 0.
		{"sf_check", map[string]any{"history": "h.jsonl", "timeout": "soon"}, `sf_check: timeout: invalid duration "soon"`},
		{"sf_run", map[string]any{"config": "w.json", "jobs": -1}, "sf_run: jobs: must be at least 1"},
		{"sf_shrink", map[string]any{"records": []string{"r.jsonl"}, "max": -2}, "sf_shrink: max: must be at least 1"},
		{"sf_shrink", map[string]any{"records": []string{"r.jsonl"}, "max": 101}, "sf_shrink: max: 101: at most 100"},
		{"sf_shrink", map[string]any{"records": []string{"r.jsonl"}, "profile": "p"}, "sf_shrink: profile: needs seed; reading records, the world comes from them"},
		{"sf_report", map[string]any{"records": []string{"-"}}, `sf_report: records: "-" reads standard input, which is the protocol's here: name a file`},
		{"sf_run", map[string]any{}, `validating "arguments": validating root: required: missing properties: ["config"]`},
	} {
		got := callError(t, cs, c.tool, c.args)
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%s %v: error %q, want it to start with %q", c.tool, c.args, got, c.want)
		}
	}
	// Arguments of the wrong type are refused by the input schema.
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sf_replay", Arguments: map[string]any{"config": "w.json", "seed": "one"}})
	if err == nil && !res.IsError {
		t.Errorf("sf_replay with seed \"one\": accepted: %s", text(res))
	}
}

// TestUsage checks the command line of sf-mcp itself.
func TestUsage(t *testing.T) {
	tools.Need(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"extra"}, 2, "sf-mcp: unexpected argument \"extra\" (see sf-mcp -h)\n"},
		{[]string{"-dir", "/nonexistent-sf-mcp"}, 2, "sf-mcp: -dir: chdir /nonexistent-sf-mcp: no such file or directory (see sf-mcp -h)\n"},
	} {
		cmd := exec.Command(tools.Path("sf-mcp"), c.args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != c.code || stderr.String() != c.want {
			t.Errorf("sf-mcp %v: %v, stderr %q; want exit %d and %q", c.args, err, stderr.String(), c.code, c.want)
		}
	}
	out, err := exec.Command(tools.Path("sf-mcp"), "-h").Output()
	if err != nil || !strings.Contains(string(out), "Model Context Protocol") || !strings.Contains(string(out), "-dir") {
		t.Errorf("sf-mcp -h: %v\n%s", err, out)
	}
}

// TestMarginsAndBuggify checks sf_run's margins on examples/ledger, whose
// client states comparison properties, and its buggify sites on
// examples/buggify, whose server has two.
func TestMarginsAndBuggify(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, w := range []string{"ledger", "buggify"} {
		if err := os.Mkdir(filepath.Join(dir, w), 0o755); err != nil {
			t.Fatal(err)
		}
		copyWorld(t, filepath.Join(dir, w), "examples/"+w+"/seedfall.json")
	}
	cs := connect(t, dir)

	ledger := call[mcpserver.RunOut](t, cs, "sf_run", map[string]any{"config": "ledger/seedfall.json", "seeds": "1-2"})
	if ledger.ExitStatus != 0 || ledger.Status != "pass" || ledger.Passed != 2 || len(ledger.Failures) != 0 {
		t.Fatalf("sf_run on ledger: %+v", ledger)
	}
	var margins []string
	for _, m := range ledger.Margins {
		margins = append(margins, fmt.Sprintf("%s %q %s", m.Kind, m.Message, m.Margin))
	}
	want := []string{`always "ledger total covers every acknowledged deposit" 0`, `always "ledger total holds no deposit that was never sent" 0`}
	if !slices.Equal(margins, want) {
		t.Errorf("sf_run's margins on ledger:\n%q\nwant\n%q", margins, want)
	}

	bug := call[mcpserver.RunOut](t, cs, "sf_run", map[string]any{"config": "buggify/seedfall.json", "seeds": "1-2"})
	var sites []string
	for _, s := range bug.BuggifySites {
		sites = append(sites, fmt.Sprintf("%s reached %d, fired in %d", s.Site, s.SeedsReached, s.SeedsFired))
	}
	want = []string{"reply lost after apply reached 2, fired in 1", "slow apply reached 2, fired in 1"}
	if !slices.Equal(sites, want) {
		t.Errorf("sf_run's buggify sites on buggify:\n%q\nwant\n%q", sites, want)
	}
}

// checkCancel checks that a client's cancelling a call stops the sweep it
// started (sf_run's, or sf_mutate's baseline), so that the next call runs
// at once rather than after it. The fixed kvlog world must be built
// already, so that the call is cut while it runs seeds.
func checkCancel(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	for _, tool := range []string{"sf_run", "sf_mutate"} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		start := time.Now()
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"config": "seedfall.fixed.json", "seeds": "1-10000"}})
		cancel()
		if err == nil {
			t.Fatalf("%s over 10000 seeds finished within 2s", tool)
		}
		run := call[mcpserver.RunOut](t, cs, "sf_run", map[string]any{"config": "seedfall.fixed.json", "seeds": "2"})
		if run.Passed != 1 {
			t.Errorf("the call after the cancelled %s: %+v", tool, run)
		}
		// 10000 seeds take many minutes; stopping takes a step of each
		// running seed.
		if d := time.Since(start); d > time.Minute {
			t.Errorf("the cancelled %s held the server for %v", tool, d)
		}
	}
}
