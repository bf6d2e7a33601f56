package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestInstanceReuseOff: with SF_INSTANCE_REUSE=off every node starts in a
// new wazero instance rather than one an ended node left, and the seeds of
// a world whose server crashes and restarts run the same either way:
// status, steps, host calls, faults and determinism hash, record for record.
func TestInstanceReuseOff(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := t.TempDir()
	clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", "kvlog", "seedfall.fixed.json"), filepath.Join(dir, "seedfall.fixed.json"))
	type seed struct {
		Kind            string `json:"kind"`
		Seed            uint64 `json:"seed"`
		Status          string `json:"status"`
		Steps           uint64 `json:"steps"`
		HostCalls       uint64 `json:"host_calls"`
		Faults          int    `json:"faults"`
		DeterminismHash string `json:"determinism_hash"`
	}
	var runs [2][]seed
	for i, env := range [][]string{nil, {"SF_INSTANCE_REUSE=off"}} {
		r := runBin(t, clitest.Cmd{Dir: dir, Env: env}, tools.Path("sf-run"), "-c", "seedfall.fixed.json", "-seeds", "1-4", "-json")
		r.WantExit(t, 0)
		for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
			var s seed
			if err := json.Unmarshal([]byte(line), &s); err != nil {
				t.Fatalf("a record that is not JSON: %q: %v", line, err)
			}
			if s.Kind == "seed" {
				runs[i] = append(runs[i], s)
			}
		}
	}
	crashes := 0
	for _, s := range runs[0] {
		crashes += s.Faults
	}
	if len(runs[0]) != 4 || crashes == 0 {
		t.Fatalf("%d seed records with %d faults in all: want 4 seeds whose server crashed", len(runs[0]), crashes)
	}
	for i := range runs[0] {
		if i >= len(runs[1]) || runs[0][i] != runs[1][i] {
			t.Errorf("seed record %d with reuse %+v, without %+v", i, runs[0][i], runs[1][min(i, len(runs[1])-1)])
		}
	}
}
