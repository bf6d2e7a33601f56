package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/mcpserver"
)

// TestForkResume: sf_fork writes a snapshot of kvlog's seed 3 at 1s inside
// the server's folder, sf_resume continues it to the record, events and
// output sf_replay gives for the seed, and a snapshot of another world, a
// path outside the folder or a missing field is a tool error that says so.
func TestForkResume(t *testing.T) {
	dir := t.TempDir()
	copyWorld(t, dir, "examples/kvlog/seedfall.json")
	copyWorld(t, dir, "examples/kvlog/seedfall.fixed.json")
	cs := connect(t, dir)

	f := call[mcpserver.ForkOut](t, cs, "sf_fork", map[string]any{"config": "seedfall.fixed.json", "seed": 3, "stop_at": "1s", "snapshot": "s.snap"})
	st, err := os.Stat(filepath.Join(dir, "s.snap"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Snapshot != "s.snap" || f.Seed != 3 || f.Step == 0 || f.AtNs < 1e9 || f.Bytes != int(st.Size()) || f.StateBytes <= f.Bytes {
		t.Fatalf("sf_fork: %+v; the file is %d bytes", f, st.Size())
	}
	res := call[mcpserver.ReplayOut](t, cs, "sf_resume", map[string]any{"config": "seedfall.fixed.json", "from": "s.snap"})
	rep := call[mcpserver.ReplayOut](t, cs, "sf_replay", map[string]any{"config": "seedfall.fixed.json", "seed": 3})
	if res.ExitStatus != 0 || res.Result.Seed != 3 || res.Result.DeterminismHash != rep.Result.DeterminismHash ||
		res.Lines != rep.Lines || len(res.Events) != len(rep.Events) || len(res.Output) != len(rep.Output) {
		t.Fatalf("sf_resume: %+v, %d lines, %d events\nsf_replay: %+v, %d lines, %d events", res.Result, res.Lines, len(res.Events),
			rep.Result, rep.Lines, len(rep.Events))
	}
	for i := range res.Events {
		if res.Events[i].Text != rep.Events[i].Text {
			t.Fatalf("event %d: sf_resume %q, sf_replay %q", i, res.Events[i].Text, rep.Events[i].Text)
		}
	}

	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"sf_resume", map[string]any{"config": "seedfall.json", "from": "s.snap"}, "it is a snapshot of another world"},
		{"sf_resume", map[string]any{"config": "seedfall.fixed.json"}, `missing properties: ["from"]`},
		{"sf_fork", map[string]any{"config": "seedfall.fixed.json", "seed": 3, "snapshot": "t.snap"}, `missing properties: ["stop_at"]`},
		{"sf_fork", map[string]any{"config": "seedfall.fixed.json", "seed": 3, "stop_at": "1s", "snapshot": "../t.snap"}, "outside the server's folder"},
	} {
		if msg := callError(t, cs, c.tool, c.args); !strings.Contains(msg, c.want) {
			t.Errorf("%s %v: %q, want it to say %q", c.tool, c.args, msg, c.want)
		}
	}
}
