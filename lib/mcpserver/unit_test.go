package mcpserver

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/compressed"
	"github.com/sf-dst/sf/lib/engine"
)

func TestParseLine(t *testing.T) {
	for _, c := range []struct {
		line string
		want Line
	}{
		{"    3.112s  fault crash server#1, restart at 3.589s", Line{Index: 7, At: "3.112s", Node: "server#1", Text: "fault crash server#1, restart at 3.589s"}},
		{"    0.000s  event recovered from server#1: {\"keys\":0}", Line{Index: 7, At: "0.000s", Node: "server#1", Text: "event recovered from server#1: {\"keys\":0}"}},
		{"    1.500s  fault slow server by 2x until 2.000s", Line{Index: 7, At: "1.500s", Text: "fault slow server by 2x until 2.000s"}},
		{"12345678.000s  hit the time horizon", Line{Index: 7, At: "12345678.000s", Text: "hit the time horizon"}},
		{"no time here", Line{Index: 7, Text: "no time here"}},
	} {
		if got := parseLine(7, c.line); got != c.want {
			t.Errorf("parseLine(%q) = %+v, want %+v", c.line, got, c.want)
		}
	}
	long := parseLine(1, "    1.000s  client#1: "+strings.Repeat("é", LineBytesMax))
	if !long.Truncated || len(long.Text) > LineBytesMax+len("…") || !strings.HasSuffix(long.Text, "é…") {
		t.Errorf("a long line: truncated %v, %d bytes, ends %q", long.Truncated, len(long.Text), long.Text[len(long.Text)-8:])
	}
}

// TestEvents: sf_replay tells the programs' output from the run's events,
// and names each event with its node and details as JSON (issue 27).
func TestEvents(t *testing.T) {
	for _, c := range []struct {
		line, name, node, details string // name "" for output
	}{
		{"    0.000s  server#1: server: listening on server:7000", "", "", ""},
		{"    0.000s  client#1: sim.Budget capped at 138 of 200 operations", "budget", "client#1", `{"text":"client#1: sim.Budget capped at 138 of 200 operations"}`},
		{"    0.000s  event recovered from server#1: {\"dropped_bytes\":0,\"keys\":0}", "recovered", "server#1", `{"dropped_bytes":0,"keys":0}`},
		{"    0.000s  event started from n1#2", "started", "n1#2", `null`},
		{"    0.000s  event with from in it from n1#1: not json", "with from in it", "n1#1", `"not json"`},
		{"    3.112s  fault crash server#1, restart at 3.589s", "fault", "server#1", `{"kind":"crash","text":"fault crash server#1, restart at 3.589s"}`},
		{"    1.000s  fault clock jump n1 by -2s", "fault", "", `{"kind":"clock_jump","text":"fault clock jump n1 by -2s"}`},
		{"    3.589s  restart server#2", "restart", "server#2", `{"text":"restart server#2"}`},
		{"    4.000s  server#2 exited 0", "exited", "server#2", `{"text":"server#2 exited 0"}`},
		{"    4.000s  n1 is no longer slow", "slow_ended", "", `{"text":"n1 is no longer slow"}`},
		{"    2.000s  partition healed", "healed", "", `{"text":"partition healed"}`},
		{"    0.000s  swarm: crash x1.37, clog off", "swarm", "", `{"text":"swarm: crash x1.37, clog off"}`},
		{"    4.369s  FAIL  client#1: acknowledged write lost", "fail", "client#1", `{"text":"FAIL  client#1: acknowledged write lost"}`},
	} {
		l := parseLine(3, c.line)
		if isOutput(l) != (c.name == "") {
			t.Errorf("%q: output %v", c.line, isOutput(l))
			continue
		}
		if c.name == "" {
			continue
		}
		ev := eventOf(l)
		if ev.Name != c.name || ev.Node != c.node || string(ev.Details) != c.details || ev.Index != 3 || ev.At != l.At {
			t.Errorf("%q: %+v (details %s), want %s, %s, %s", c.line, ev, ev.Details, c.name, c.node, c.details)
		}
	}
}

func TestReadTraceFile(t *testing.T) {
	dir := t.TempDir()
	text := "FAIL seed 1 at t=1s\n  client#1: lost\n\nreplay: sf-run -seed 1\n\ntrace:\n    0.000s  server#1: up\n    1.000s  FAIL  client#1: lost\n"
	plain := filepath.Join(dir, "seed-1.trace.log")
	if err := os.WriteFile(plain, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	zst := filepath.Join(dir, "seed-2.trace.log.zst")
	if err := os.WriteFile(zst, compressed.EncodeZstd([]byte(text+"\nsomething after\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{plain, zst} {
		lines, err := readTraceFile(p)
		if err != nil || len(lines) != 2 || lines[1] != "    1.000s  FAIL  client#1: lost" {
			t.Errorf("%s: %q, %v", filepath.Base(p), lines, err)
		}
	}
	if _, err := readTraceFile(filepath.Join(dir, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want ErrNotExist", err)
	}
	notTrace := filepath.Join(dir, "other")
	if err := os.WriteFile(notTrace, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readTraceFile(notTrace); err == nil || !strings.Contains(err.Error(), `no line "trace:"`) {
		t.Errorf("a file without a trace: %v", err)
	}
}

func TestCommandError(t *testing.T) {
	stderr := "built   server -> .seedfall/build/x.wasm\nsf-run: note: ignored\nsf-run: w.json: bad\n"
	if got := commandError("sf-run", 2, stderr).Error(); got != "sf-run: w.json: bad" {
		t.Errorf("the command's own lines: %q", got)
	}
	if got := commandError("sf-run", 2, "something else\n\nand more\n").Error(); got != "something else\nand more" {
		t.Errorf("without its lines: %q", got)
	}
	if got := commandError("sf-run", 2, "").Error(); got != "sf-run: exit status 2" {
		t.Errorf("nothing written: %q", got)
	}
	if got := commandError("sf-run", 130, "").Error(); !strings.Contains(got, "interrupted") {
		t.Errorf("interrupted: %q", got)
	}
	if got := commandError("sf-run", 2, "sf-run: "+strings.Repeat("x", 3*errorBytesMax)).Error(); len(got) > errorBytesMax+len("…") {
		t.Errorf("a long error: %d bytes", len(got))
	}
}

// TestReportExploration: sf_report marks an exploration and lists the runs
// of each finding, since its counts are runs, not seeds.
func TestReportExploration(t *testing.T) {
	stream := `{"kind":"start","tool":"sf-run","version":"0.1.0","schema":1,"config":"w.json","seeds":"1","count":1,"jobs":1,"explore_runs":9}
{"kind":"seed","seed":1,"config":"w.json","faults_file":"s6.json","status":"fail","class":"assert","message":"client#1: write lost: k1","property":"write lost: k1","node":"client#1","at_ns":2000000000,"steps":10,"host_calls":10,"real_ns":1,"determinism_hash":"01","faults":1,"repro":"sf-run -c w.json -seed 1 -faults s6.json","explore_run":6,"branches":1}
{"kind":"seed","seed":1,"config":"w.json","faults_file":"s8.json","status":"fail","class":"assert","message":"client#1: write lost: k2","property":"write lost: k2","node":"client#1","at_ns":2000000000,"steps":10,"host_calls":10,"real_ns":1,"determinism_hash":"02","faults":1,"repro":"sf-run -c w.json -seed 1 -faults s8.json","explore_run":8,"branches":2}
{"kind":"summary","tool":"sf-run","config":"w.json","seeds":9,"passed":7,"failed":2,"horizon":0,"nondeterministic":0,"failed_seeds":[1],"real_ns":1,"status":"fail","explore":{"runs":9,"starting_seeds":1,"branches":8,"budget":9,"corpus":1,"new_states":1,"branched_failures":2}}
`
	path := filepath.Join(t.TempDir(), "explore.jsonl")
	if err := os.WriteFile(path, []byte(stream), 0o644); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{"records": []string{path}, "findings": ""})
	_, out, err := (&Server{}).report(t.Context(), nil, args)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Sweeps) != 1 {
		t.Fatalf("%d sweeps", len(out.Sweeps))
	}
	sw := out.Sweeps[0]
	if sw.ExploreBudget != 9 || sw.Ran != 9 || sw.Failed != 2 || len(sw.Findings) != 1 {
		t.Fatalf("sweep %+v", sw)
	}
	if f := sw.Findings[0]; !slices.Equal(f.Runs, []int{6, 8}) || !slices.Equal(f.Seeds, []uint64{1}) {
		t.Errorf("finding %+v: want runs [6 8] of seed 1", f)
	}
}

// TestDescriptorsOf: sf_fork's inspect lists a running node's descriptors,
// says down for a node that is not running, and bounds a long list.
func TestDescriptorsOf(t *testing.T) {
	many := make([]engine.FDView, filesMax+5)
	for i := range many {
		many[i] = engine.FDView{FD: i, What: "file f"}
	}
	got := descriptorsOf([]engine.NodeFDs{
		{Node: "server", Instance: "server#2", FDs: []engine.FDView{{FD: 5, What: "socket tcp listening on port 7000, 0 waiting to be accepted"}}},
		{Node: "client"},
		{Node: "big", Instance: "big#1", FDs: many},
	})
	if len(got) != 3 || got[0].Down || got[0].Instance != "server#2" || len(got[0].FDs) != 1 || got[0].FDs[0].FD != 5 ||
		!strings.HasPrefix(got[0].FDs[0].What, "socket tcp listening") {
		t.Fatalf("descriptorsOf: %+v", got)
	}
	if !got[1].Down || got[1].Instance != "" || got[1].FDs == nil || len(got[1].FDs) != 0 {
		t.Errorf("a node that is down: %+v", got[1])
	}
	if len(got[2].FDs) != filesMax || got[2].Omitted != 5 {
		t.Errorf("a long list: %d descriptors, %d omitted", len(got[2].FDs), got[2].Omitted)
	}
}
