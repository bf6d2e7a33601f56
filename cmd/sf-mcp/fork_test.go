package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sf-dst/sf/lib/mcpserver"
)

// TestForkResume: sf_fork writes a snapshot of kvlog's seed 3 at 1s inside
// the server's folder, sf_resume continues it to the record, events and
// output sf_replay gives for the seed, and a snapshot of another world, a
// path outside the folder or a missing field is a tool error that says so.
// forkBranchFaults goes on with inspect, branch and faults.
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

	forkBranchFaults(t, cs, dir, res)

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

// forkBranchFaults: sf_fork with inspect returns each node's disk and open
// descriptors at the snapshot, and writes the same file as without;
// sf_resume with branch re-keys the streams after the snapshot (plain is
// its result without), with faults continues with a schedule for the rest,
// and refuses a schedule's branch before the snapshot.
func forkBranchFaults(t *testing.T, cs *mcp.ClientSession, dir string, plain mcpserver.ReplayOut) {
	t.Helper()
	f := call[mcpserver.ForkOut](t, cs, "sf_fork", map[string]any{"config": "seedfall.fixed.json", "seed": 3, "stop_at": "1s",
		"snapshot": "i.snap", "inspect": true})
	var fds []string
	for _, d := range f.Descriptors {
		for _, fd := range d.FDs {
			fds = append(fds, fmt.Sprintf("%s %d %s", d.Instance, fd.FD, fd.What))
		}
	}
	all := strings.Join(fds, "\n")
	if len(f.Disks) != 2 || f.Disks[0].Node != "server" || len(f.Disks[0].Files) == 0 ||
		!strings.Contains(all, "server#1 5 socket tcp listening on port 7000") || !strings.Contains(all, "client#1 4 socket tcp to server:7000, established") {
		t.Errorf("sf_fork with inspect: disks %+v, descriptors:\n%s", f.Disks, all)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "s.snap"))
	b, _ := os.ReadFile(filepath.Join(dir, "i.snap"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("sf_fork wrote %d bytes with inspect, %d without", len(b), len(a))
	}
	if plain := call[mcpserver.ForkOut](t, cs, "sf_fork", map[string]any{"config": "seedfall.fixed.json", "seed": 3, "stop_at": "1s",
		"snapshot": "j.snap"}); plain.Disks != nil || plain.Descriptors != nil {
		t.Errorf("sf_fork without inspect returned disks or descriptors: %+v", plain)
	}

	branched := call[mcpserver.ReplayOut](t, cs, "sf_resume", map[string]any{"config": "seedfall.fixed.json", "from": "s.snap", "branch": 7})
	if !strings.HasSuffix(branched.Result.Repro, " -from s.snap -branch 7") || branched.Result.DeterminismHash == plain.Result.DeterminismHash {
		t.Errorf("sf_resume with branch: %+v, without: %+v", branched.Result, plain.Result)
	}
	found := false
	for _, e := range branched.Events {
		found = found || strings.HasPrefix(e.Text, "branch: re-keyed every stream at ")
	}
	if !found {
		t.Errorf("sf_resume with branch: no branch among its events")
	}

	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("none.json", `{"faults": []}`)
	write("early.json", `{"branches": [{"at": "500ms", "key": 1}], "faults": []}`)
	rest := call[mcpserver.ReplayOut](t, cs, "sf_resume", map[string]any{"config": "seedfall.fixed.json", "from": "s.snap", "faults": "none.json"})
	if rest.ExitStatus != 0 || !strings.HasSuffix(rest.Result.Repro, " -from s.snap -faults none.json") {
		t.Errorf("sf_resume with faults: %+v", rest.Result)
	}
	if msg := callError(t, cs, "sf_resume", map[string]any{"config": "seedfall.fixed.json", "from": "s.snap", "faults": "early.json"}); !strings.Contains(msg,
		"early.json: branches[0].at: 500ms is not after the snapshot's time") {
		t.Errorf("sf_resume with a branch before the snapshot: %q", msg)
	}
}
