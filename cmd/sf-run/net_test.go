package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// udpWorld writes a world of the udp guest: an echo server and a client that
// pings it, with the given faults.
func udpWorld(t *testing.T, dir string, clientArgs []string, faults map[string]any) {
	t.Helper()
	w := map[string]any{
		"nodes":    []map[string]any{{"name": "server", "pkg": historyGuest("udp"), "args": []string{"-serve", ":9000"}}},
		"workload": map[string]any{"name": "client", "pkg": historyGuest("udp"), "args": append([]string{"-ping", "server:9000"}, clientArgs...)},
		"duration": "30s",
		"faults":   faults,
	}
	data, _ := json.Marshal(w)
	clitest.WriteFile(t, filepath.Join(dir, "udp.json"), data)
}

var udpFaultRE = regexp.MustCompile(`(?m)^\s+\S+  fault (udp_drop|udp_dup): datagram #(\d+) of (\S+) to (\S+)$`)

// TestUDPLossAndDuplication: datagrams sent through sim.ListenPacket are
// lost and duplicated at the configured rates, each choice is a fault of
// the seed's schedule, and a replay of that schedule reproduces the run;
// without the faults the same seed passes.
func TestUDPLossAndDuplication(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := t.TempDir()
	udpWorld(t, dir, []string{"-n", "40", "-strict"}, map[string]any{"udp_loss": 0.1, "udp_dup": 0.1})
	r := sfRun(t, dir, "-c", "udp.json", "-seed", "1")
	r.WantExit(t, 1)
	if !strings.Contains(r.Stdout, "datagrams lost") {
		t.Fatalf("the client did not report lost datagrams\n%s", r)
	}
	faults := udpFaultRE.FindAllStringSubmatch(traceSection(t, r.Stdout), -1)
	drops, dups := 0, 0
	for _, f := range faults {
		if f[1] == "udp_drop" {
			drops++
		} else {
			dups++
		}
	}
	if drops == 0 || dups == 0 {
		t.Fatalf("want both drops and duplicates in the trace, got %d and %d\n%s", drops, dups, r)
	}
	sched := artifact(t, dir, "seed-1.faults.json")
	data, err := os.ReadFile(sched)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"kind": "udp_drop"`) || !strings.Contains(string(data), `"to": "server"`) {
		t.Fatalf("schedule lacks udp faults:\n%s", data)
	}
	again := sfRun(t, dir, "-c", "udp.json", "-seed", "1", "-faults", sched)
	again.WantExit(t, 1)
	if traceSection(t, again.Stdout) != traceSection(t, r.Stdout) {
		t.Errorf("replaying the schedule changed the trace\nfirst:\n%s\nreplay:\n%s", r.Stdout, again.Stdout)
	}
	empty := filepath.Join(dir, "none.json")
	clitest.WriteFile(t, empty, []byte(`[]`))
	clean := sfRun(t, dir, "-c", "udp.json", "-seed", "1", "-faults", empty)
	clean.WantExit(t, 0)
	if !strings.Contains(clean.Stdout, "udp: sent 40, 40 echoed, 0 timeouts, 0 duplicates") {
		t.Errorf("without faults every datagram should come back\n%s", clean)
	}
}

// TestNetworkFaultsReplay: with every network fault on, a seed's run is the
// same on replay and under -check, and the trace shows each kind.
func TestNetworkFaultsReplay(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := t.TempDir()
	udpWorld(t, dir, []string{"-n", "200"}, map[string]any{
		"partition_per_sec": 2, "partition_for": []string{"50ms", "200ms"},
		"partition_topologies": []string{"half", "one"},
		"clog_per_sec":         2, "clog_for": []string{"50ms", "200ms"},
		"reset_per_sec": 1, "slow_per_sec": 1, "slow_for": []string{"50ms", "300ms"},
		"pause_per_sec": 1, "pause_for": []string{"50ms", "200ms"}, "swizzle_per_sec": 0.5,
	})
	a := sfRun(t, dir, "-c", "udp.json", "-seed", "3")
	a.WantExit(t, 0)
	for _, kind := range []string{"fault partition", "fault clog", "fault reset", "fault slow", "fault pause", "partition healed"} {
		if !strings.Contains(a.Stdout, kind) {
			t.Errorf("trace lacks %q\n%s", kind, a.Stdout)
		}
	}
	b := sfRun(t, dir, "-c", "udp.json", "-seed", "3")
	if traceSection(t, a.Stdout) != traceSection(t, b.Stdout) {
		t.Errorf("two runs of seed 3 differ")
	}
	c := sfRun(t, dir, "-c", "udp.json", "-seeds", "1-4", "-check")
	c.WantExit(t, 0)
}

// TestConnectionAddresses: connections from sim.Listen and sim.Dial name
// the nodes and ports at both ends, so servers that log or key on
// RemoteAddr (as net/http does) see real addresses.
func TestConnectionAddresses(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := t.TempDir()
	w := map[string]any{
		"nodes":    []map[string]any{{"name": "server", "pkg": historyGuest("addrs"), "args": []string{"serve"}}},
		"workload": map[string]any{"name": "client", "pkg": historyGuest("addrs")},
	}
	data, _ := json.Marshal(w)
	clitest.WriteFile(t, filepath.Join(dir, "addrs.json"), data)
	r := sfRun(t, dir, "-c", "addrs.json", "-seed", "1")
	r.WantExit(t, 0)
	for _, want := range []string{
		"server#1: addrs: listener server:7300",
		"server#1: addrs: accepted local server:7300 remote client:",
		"client#1: addrs: dialed local client:",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("trace lacks %q\n%s", want, r)
		}
	}
	if !regexp.MustCompile(`dialed local (client:\d+) remote server:7300`).MatchString(r.Stdout) {
		t.Errorf("the dialer's addresses are wrong\n%s", r)
	}
}

// TestHttpkvExample: the unmodified net/http example finds its bug with
// partitions over the net_overlay, and its fixed variant passes.
func TestHttpkvExample(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"seedfall.json", "seedfall.fixed.json"} {
		clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", "httpkv", f), filepath.Join(dir, f))
	}
	// About a third of the seeds fail (lib/determinism's corpus keeps
	// which): twenty find the bug as fifty did.
	bug := sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1-20")
	bug.WantExit(t, 1)
	if !strings.Contains(bug.Stdout, "acknowledged write lost after failover") {
		t.Errorf("the bug was not found in 20 seeds\n%s", bug)
	}
	seeds := "1-200"
	if testing.Short() {
		seeds = "1-40"
	}
	fixed := sfRun(t, dir, "-c", "seedfall.fixed.json", "-seeds", seeds)
	fixed.WantExit(t, 0)
}
