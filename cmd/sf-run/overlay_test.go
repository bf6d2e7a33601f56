package main

// net_overlay scenario tests: an unmodified net/http server and a client
// workload that uses http.Get, http.Post and plain net.Dial, built with the
// overlay and run by the real sf-run (guests in
// lib/engine/testdata/overlayguests).

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// overlayDir returns a directory with two worlds of the overlay guests:
// overlay.json with net_overlay on and plain.json without it. The tests
// share it so each guest is built once per setting.
func overlayDir(t *testing.T) string {
	t.Helper()
	return tools.Shared(t, "overlay", func(dir string) error {
		pkg := func(name string) string {
			return filepath.Join(tools.Root, "lib", "engine", "testdata", "overlayguests", name)
		}
		w := map[string]any{
			"net_overlay": true,
			"nodes":       []map[string]any{{"name": "server", "pkg": pkg("httpserver")}},
			"workload":    map[string]any{"name": "client", "pkg": pkg("httpclient")},
			"duration":    "60s",
		}
		clitest.WriteJSON(t, filepath.Join(dir, "overlay.json"), w)
		w["net_overlay"] = false
		clitest.WriteJSON(t, filepath.Join(dir, "plain.json"), w)
		return nil
	})
}

// TestNetOverlayHTTP: with net_overlay the client's every check passes on
// every seed, and -check finds each seed's two runs identical.
func TestNetOverlayHTTP(t *testing.T) {
	// Parallel: the other test of overlay.json, TestNetOverlayManifest, runs
	// before the parallel tests start.
	t.Parallel()
	dir := overlayDir(t)
	r := sfRun(t, dir, "-c", "overlay.json", "-seeds", "1-5", "-check", "-json")
	recs := jsonRecords(t, r)
	for _, rec := range recs[1 : len(recs)-1] {
		if rec["status"] != "pass" {
			t.Errorf("seed %v: status %v (%v), want pass", rec["seed"], rec["status"], rec["message"])
		}
	}
	if sum := recs[len(recs)-1]; sum["nondeterministic"] != float64(0) {
		t.Errorf("summary counts %v nondeterministic seeds", sum["nondeterministic"])
	}
	r.WantExit(t, 0)
	r.NoStackTrace(t)

	replay := sfRun(t, dir, "-c", "overlay.json", "-seed", "3")
	replay.WantExit(t, 0)
	for _, want := range []string{
		`server#1: httpserver: listening on 10\.0\.0\.1:8080\n`,
		`client#1: httpclient: the 300ms read deadline fired after 300(\.0[0-4]\d*|\.05)?ms\n`, // up to 50µs late: the timer granularity
		`client#1: httpclient: ok: \d+ checks passed\n`,
		`client#1 exited 0\n`,
	} {
		if !regexp.MustCompile(want).MatchString(replay.Stdout) {
			t.Errorf("the replay's trace has no line like %#q\n%s", want, replay)
		}
	}
	var seed3 map[string]any
	for _, rec := range recs {
		if rec["seed"] == float64(3) {
			seed3 = rec
		}
	}
	if hash, _ := seed3["determinism_hash"].(string); hash == "" || !strings.Contains(replay.Stdout, "determinism hash "+hash+" ") {
		t.Errorf("the replay of seed 3 does not have the sweep's determinism hash %v\n%s", seed3["determinism_hash"], replay)
	}
}

// TestNetOverlayOff: the same world without net_overlay fails, since Go's
// own wasip1 network knows no other node: the overlay is what connects them.
func TestNetOverlayOff(t *testing.T) {
	// Parallel: it runs plain.json only, which no other test runs; the
	// tests that run overlay.json are over before it starts or, for
	// TestNetOverlayHTTP, write only overlay.json's artifacts.
	t.Parallel()
	dir := overlayDir(t)
	r := sfRun(t, dir, "-c", "plain.json", "-seed", "1")
	r.WantExit(t, 1)
	if want := `client#1: httpclient: FAIL: LookupHost("server") = []`; !strings.Contains(r.Stdout, want) {
		t.Errorf("the report lacks %q\n%s", want, r)
	}
}

// TestNetOverlayManifest: sf-build builds with the overlay too, and its
// manifest says so for every module.
func TestNetOverlayManifest(t *testing.T) {
	dir := overlayDir(t)
	r := runBin(t, clitest.Cmd{Dir: dir}, tools.Path("sf-build"), "-c", "overlay.json", "-q")
	r.WantExit(t, 0)
	var man struct {
		Modules []struct {
			Node       string `json:"node"`
			NetOverlay bool   `json:"net_overlay"`
		} `json:"modules"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &man); err != nil {
		t.Fatalf("sf-build printed no manifest: %v\n%s", err, r)
	}
	if len(man.Modules) != 2 {
		t.Fatalf("%d modules, want 2\n%s", len(man.Modules), r)
	}
	for _, m := range man.Modules {
		if !m.NetOverlay {
			t.Errorf("module of %s: net_overlay false, want true", m.Node)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, ".seedfall", "build", "overlay"))
	if len(entries) != 1 {
		t.Errorf("%d generated overlays in .seedfall/build/overlay, want 1", len(entries))
	}
}

// udpOverlayWorld writes a world of the unmodified UDP guest (an echo server
// on net.ListenUDP and a client on net.Dial, net.ListenPacket and
// net.DialUDP) with net_overlay on and the given faults.
func udpOverlayWorld(t *testing.T, dir string, clientArgs []string, faults map[string]any) string {
	t.Helper()
	pkg := filepath.Join(tools.Root, "lib", "engine", "testdata", "overlayguests", "udpecho")
	path := filepath.Join(dir, "udp.json")
	client := map[string]any{"name": "client", "pkg": pkg}
	if clientArgs != nil {
		client["args"] = clientArgs
	}
	w := map[string]any{
		"net_overlay": true,
		"nodes":       []map[string]any{{"name": "server", "pkg": pkg, "args": []string{"-serve", ":9000"}}},
		"workload":    client,
		"duration":    "60s",
	}
	if faults != nil {
		w["faults"] = faults
	}
	clitest.WriteJSON(t, path, w)
	return path
}

var udpOverlayOK = regexp.MustCompile(`client#1: udpecho: ok: \d+ checks passed, (\d+) retries, \d+ stale answers\n`)

// TestNetOverlayUDP: with net_overlay, plain net UDP sockets reach the
// simulated network: every echo comes back from the server's 10.0.0.1:9000,
// the server sees the client's 10.0.0.2 and port, a read deadline fires on
// virtual time, and with udp_loss and udp_dup the client's retries carry it
// through on every seed, the same on each run.
func TestNetOverlayUDP(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := t.TempDir()
	udpOverlayWorld(t, dir, nil, nil)
	r := sfRun(t, dir, "-c", "udp.json", "-seed", "1")
	r.WantExit(t, 0)
	r.NoStackTrace(t)
	for _, want := range []string{
		`server#1: udpecho: listening on 10\.0\.0\.1:9000\n`,
		`client#1: udpecho: the 300ms read deadline fired after 300(\.0[0-4]\d*|\.05)?ms\n`, // up to 50µs late: the timer granularity
		`client#1: udpecho: ok: \d+ checks passed, 0 retries, 0 stale answers\n`,
		`client#1 exited 0\n`,
	} {
		if !regexp.MustCompile(want).MatchString(r.Stdout) {
			t.Errorf("the trace has no line like %#q\n%s", want, r)
		}
	}

	lossy := t.TempDir()
	udpOverlayWorld(t, lossy, nil, map[string]any{"udp_loss": 0.2, "udp_dup": 0.1})
	sweep := sfRun(t, lossy, "-c", "udp.json", "-seeds", "1-5", "-check")
	sweep.WantExit(t, 0)
	one := sfRun(t, lossy, "-c", "udp.json", "-seed", "2")
	one.WantExit(t, 0)
	m := udpOverlayOK.FindStringSubmatch(one.Stdout)
	if m == nil || m[1] == "0" {
		t.Errorf("with udp_loss the client should pass after retries\n%s", one)
	}
	if !strings.Contains(one.Stdout, "fault udp_drop: datagram #") || !strings.Contains(one.Stdout, "fault udp_dup: datagram #") {
		t.Errorf("the trace lacks udp_drop and udp_dup faults\n%s", one)
	}
}

// TestNetOverlayUDPReplay: a lost datagram of a plain net socket is a fault
// of the seed's schedule, and replaying the schedule reproduces the run; a
// schedule of one udp_drop costs the client exactly one retry.
func TestNetOverlayUDPReplay(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := t.TempDir()
	udpOverlayWorld(t, dir, []string{"-strict"}, map[string]any{"udp_loss": 0.2})
	r := sfRun(t, dir, "-c", "udp.json", "-seed", "1")
	r.WantExit(t, 1)
	if !strings.Contains(r.Stdout, "udpecho: FAIL: no echo of ") {
		t.Fatalf("the strict client did not report a lost echo\n%s", r)
	}
	if !udpFaultRE.MatchString(traceSection(t, r.Stdout)) {
		t.Fatalf("the trace has no udp fault\n%s", r)
	}
	sched := artifact(t, dir, "seed-1.faults.json")
	data, err := os.ReadFile(sched)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"kind": "udp_drop"`) {
		t.Fatalf("the schedule lacks udp_drop:\n%s", data)
	}
	again := sfRun(t, dir, "-c", "udp.json", "-seed", "1", "-faults", sched)
	again.WantExit(t, 1)
	if traceSection(t, again.Stdout) != traceSection(t, r.Stdout) {
		t.Errorf("replaying the schedule changed the trace\nfirst:\n%s\nreplay:\n%s", r.Stdout, again.Stdout)
	}

	// The client's second datagram (its first echo after whoami) is lost.
	udpOverlayWorld(t, dir, nil, map[string]any{"udp_loss": 0.2})
	one := filepath.Join(dir, "one.json")
	clitest.WriteFile(t, one, []byte(`[{"at": "0s", "kind": "udp_drop", "node": "client", "to": "server", "op": 2, "until": "0s"}]`))
	d := sfRun(t, dir, "-c", "udp.json", "-seed", "1", "-faults", one)
	d.WantExit(t, 0)
	if !strings.Contains(d.Stdout, "fault udp_drop: datagram #2 of client#1 to server") {
		t.Errorf("the trace lacks the scheduled drop\n%s", d)
	}
	if m := udpOverlayOK.FindStringSubmatch(d.Stdout); m == nil || m[1] != "1" {
		t.Errorf("one dropped datagram should cost one retry\n%s", d)
	}
}

// TestNetOverlayInterfaces: with net_overlay, net.Interfaces and its kin
// show each program a loopback lo and an eth0 with its own 10.0.0.N, the
// same on every run; without it they show nothing, as Go's wasip1 stub
// does.
func TestNetOverlayInterfaces(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := t.TempDir()
	pkg := filepath.Join(tools.Root, "lib", "engine", "testdata", "overlayguests", "ifaces")
	w := map[string]any{
		"net_overlay": true,
		"nodes":       []map[string]any{{"name": "alpha", "pkg": pkg}, {"name": "beta", "pkg": pkg}},
		// The workload waits, so that both nodes print before it ends the run.
		"workload": map[string]any{"name": "client", "pkg": pkg, "args": []string{"-after", "1s"}},
		"duration": "10s",
	}
	clitest.WriteJSON(t, filepath.Join(dir, "overlay.json"), w)
	w["net_overlay"] = false
	clitest.WriteJSON(t, filepath.Join(dir, "plain.json"), w)

	r := sfRun(t, dir, "-c", "overlay.json", "-seed", "1")
	r.WantExit(t, 0)
	r.NoStackTrace(t)
	const (
		lo      = `index 1 name lo mtu 65536 hw "" flags up|loopback|running`
		loAddr  = `*net.IPNet 127.0.0.1/8`
		noIface = `nil, err route ip+net: no such network interface`
	)
	for i, node := range []string{"alpha", "beta", "client"} {
		n := i + 1
		eth := fmt.Sprintf(`index 2 name eth0 mtu 1500 hw "02:00:0a:00:00:%02x" flags up|broadcast|multicast|running`, n)
		ethAddr := fmt.Sprintf(`*net.IPNet 10.0.0.%d/8`, n)
		want := []string{
			`Interfaces: 2, err <nil>`,
			lo,
			`lo Addrs: [` + loAddr + `], err <nil>`,
			eth,
			`eth0 Addrs: [` + ethAddr + `], err <nil>`,
			`InterfaceAddrs: [` + loAddr + ` ` + ethAddr + `], err <nil>`,
			`InterfaceByName("lo"): ` + lo + `, err <nil>`,
			`InterfaceByName("eth0"): ` + eth + `, err <nil>`,
			`InterfaceByName("eth1"): ` + noIface,
			`InterfaceByIndex(1): ` + lo + `, err <nil>`,
			`InterfaceByIndex(2): ` + eth + `, err <nil>`,
			`InterfaceByIndex(3): ` + noIface,
		}
		if got := ifaceLines(r.Stdout, node); !slices.Equal(got, want) {
			t.Errorf("%s printed\n%s\nwant\n%s", node, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	again := sfRun(t, dir, "-c", "overlay.json", "-seed", "1")
	hash := regexp.MustCompile(`determinism hash \w+ `)
	if h := hash.FindString(r.Stdout); h == "" || h != hash.FindString(again.Stdout) || traceSection(t, again.Stdout) != traceSection(t, r.Stdout) {
		t.Errorf("a second run of the seed changed the trace or its hash\nfirst:\n%s\nsecond:\n%s", r.Stdout, again.Stdout)
	}

	plain := sfRun(t, dir, "-c", "plain.json", "-seed", "1")
	plain.WantExit(t, 0)
	want := []string{
		`Interfaces: 0, err <nil>`,
		`InterfaceAddrs: [], err <nil>`,
		`InterfaceByName("lo"): ` + noIface,
		`InterfaceByName("eth0"): ` + noIface,
		`InterfaceByName("eth1"): ` + noIface,
		`InterfaceByIndex(1): ` + noIface,
		`InterfaceByIndex(2): ` + noIface,
		`InterfaceByIndex(3): ` + noIface,
	}
	for _, node := range []string{"alpha", "beta", "client"} {
		if got := ifaceLines(plain.Stdout, node); !slices.Equal(got, want) {
			t.Errorf("without net_overlay %s printed\n%s\nwant\n%s", node, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// ifaceLines returns what the ifaces guest printed on node's first instance,
// in order, without the trace's time and prefixes.
func ifaceLines(stdout, node string) []string {
	var out []string
	prefix := node + "#1: ifaces: "
	for line := range strings.Lines(stdout) {
		if _, text, ok := strings.Cut(strings.TrimSpace(line), "  "); ok {
			if rest, ok := strings.CutPrefix(text, prefix); ok {
				out = append(out, rest)
			}
		}
	}
	return out
}
