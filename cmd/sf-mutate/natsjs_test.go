package main

import (
	"strings"
	"testing"
)

// TestNATSJetStream: the natsjs example's durable world (SyncAlways) notices
// both fsync_noop (message blocks and stream definition fsynced) and
// osync_ignored (the stream definition written with O_SYNC). It builds
// nats-server for wasm, so it runs only without -short.
func TestNATSJetStream(t *testing.T) {
	if testing.Short() {
		t.Skip("builds nats-server for wasm; runs without -short")
	}
	dir := copyWorld(t, "examples/natsjs/seedfall.json")
	r := sfMutate(t, dir, "-seeds", "1-3", "-only", "fsync_noop,osync_ignored")
	if r.Code != 0 {
		t.Fatalf("want exit 0 (both killed)\n%s", r)
	}
	for _, want := range []string{"baseline: seeds 1-3 pass", "fsync_noop             killed", "osync_ignored          killed", "mutation score 2/2"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr has no %q\n%s", want, r)
		}
	}
}
