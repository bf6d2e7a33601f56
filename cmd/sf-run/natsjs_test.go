package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestNATSJetStream: examples/natsjs, an embedded NATS server with its
// JetStream file store on the node's disk, keeps every acknowledged message
// across crashes with SyncAlways, and loses some with NATS's default sync
// interval. Building nats-server for wasm takes a minute or more cold, so it
// runs only without -short.
func TestNATSJetStream(t *testing.T) {
	if testing.Short() {
		t.Skip("builds nats-server for wasm; runs without -short")
	}
	tools.Need(t)
	dir := t.TempDir()
	for _, w := range []string{"seedfall.json", "seedfall.interval.json"} {
		clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", "natsjs", w), filepath.Join(dir, w))
	}
	r := sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1-3")
	r.WantExit(t, 0)
	// net.Interfaces lists the node's eth0 under net_overlay, so the server
	// finds an address for 0.0.0.0 and does not complain at start.
	one := sfRun(t, dir, "-c", "seedfall.json", "-seed", "1")
	one.WantExit(t, 0)
	if !regexp.MustCompile(`server#1: .*\] Listening for client connections on 0\.0\.0\.0:4222\n`).MatchString(one.Stdout) {
		t.Errorf("the trace of seed 1 does not show the server listening\n%s", one)
	}
	if strings.Contains(one.Stdout, "can not be resolved properly") {
		t.Errorf("the server could not resolve its address at start\n%s", one)
	}
	r = sfRun(t, dir, "-c", "seedfall.interval.json", "-seeds", "1-3")
	r.WantExit(t, 1)
	// A crash takes either acknowledged messages or, earlier, the stream
	// definition with them; the client names each.
	if !strings.Contains(r.Stdout, "acknowledged message lost") && !strings.Contains(r.Stdout, "lost after a restart, with") {
		t.Errorf("the report names no lost acknowledged message\n%s", r)
	}
}

// TestNATSJetStreamCluster: examples/natsjs's cluster world, three
// nats-server nodes routed over the simulated network with an R3 stream,
// elects a metadata leader and a stream leader without faults, and keeps
// every acknowledged message, in order, under crashes, torn writes,
// partitions, clogs, slowdowns, pauses and clock jumps. It builds
// nats-server, so it runs only without -short.
func TestNATSJetStreamCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("builds nats-server for wasm; runs without -short")
	}
	tools.Need(t)
	dir := t.TempDir()
	clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", "natsjs", "seedfall.cluster.json"), filepath.Join(dir, "seedfall.cluster.json"))
	calm := sfRun(t, dir, "-c", "seedfall.cluster.json", "-profile", "calm", "-seed", "1")
	calm.WantExit(t, 0)
	for _, want := range []string{
		"Self is new JetStream cluster metadata leader",
		"JetStream cluster new stream leader for '$G > EVENTS'",
		"client: all 300 acknowledged messages are in the stream (300 messages)",
	} {
		if !strings.Contains(calm.Stdout, want) {
			t.Errorf("the trace of seed 1 without faults does not show %q\n%s", want, calm)
		}
	}
	r := sfRun(t, dir, "-c", "seedfall.cluster.json", "-seeds", "1-2", "-json")
	r.WantExit(t, 0)
	recs := jsonRecords(t, r)
	for _, rec := range recs[1 : len(recs)-1] {
		if rec["status"] != "pass" || rec["history_check"] != "ok" || rec["faults"] == 0.0 {
			t.Errorf("seed %v: status %v, history_check %v, %v faults (%v); want a pass, an ok history and faults", rec["seed"], rec["status"], rec["history_check"], rec["faults"], rec["message"])
		}
	}
}
