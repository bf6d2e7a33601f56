package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestRaftKV: examples/raftkv, three hashicorp/raft nodes on raft-boltdb/v2
// (bbolt and the original bolt through compat_overlay, raft's TCP transport
// through net_overlay). Reads through the leader with Barrier and
// VerifyLeader stay linearizable under crashes and partitions; reads from
// any node's local state are caught by the kv model; and in liveness mode
// the cluster serves a read of every key again once the faults stop. The
// first build of raft for wasm takes about 30 s, so it runs without -short.
func TestRaftKV(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	if testing.Short() {
		t.Skip("builds hashicorp/raft and two bolts for wasm; runs without -short")
	}
	dir := t.TempDir()
	for _, w := range []string{"seedfall.json", "seedfall.stale.json", "seedfall.liveness.json"} {
		clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", "raftkv", w), filepath.Join(dir, w))
	}
	r := sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1-3")
	r.WantExit(t, 0)

	r = sfRun(t, dir, "-c", "seedfall.stale.json", "-seeds", "1-3")
	r.WantExit(t, 1)
	if want := "is not linearizable (model kv)"; !strings.Contains(r.Stdout, want) {
		t.Errorf("the report lacks %q\n%s", want, r)
	}

	r = sfRun(t, dir, "-c", "seedfall.liveness.json", "-seeds", "1-2")
	r.WantExit(t, 0)
	r = sfRun(t, dir, "-c", "seedfall.liveness.json", "-seed", "1")
	r.WantExit(t, 0)
	for _, want := range []string{"check#1: client: every key read again", "recovery"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("the trace lacks %q\n%s", want, r)
		}
	}
}
