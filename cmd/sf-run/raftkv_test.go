package main

import (
	"fmt"
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
// the cluster serves a read of every key again once the faults stop; and
// seedfall.late.json catches stale reads after its setup; H3's pin (a
// snapshot lost under strict_dirs) still fails. The
// first build of raft for wasm takes about 30 s, so it runs without -short.
func TestRaftKV(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	if testing.Short() {
		t.Skip("builds hashicorp/raft and two bolts for wasm; runs without -short")
	}
	dir := t.TempDir()
	for _, w := range []string{"seedfall.json", "seedfall.stale.json", "seedfall.liveness.json", "seedfall.late.json"} {
		clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", "raftkv", w), filepath.Join(dir, w))
	}
	r := sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1-3")
	r.WantExit(t, 0)

	r = sfRun(t, dir, "-c", "seedfall.stale.json", "-seeds", "1-3")
	r.WantExit(t, 1)
	if want := "is not linearizable (model kv)"; !strings.Contains(r.Stdout, want) {
		t.Errorf("the report lacks %q\n%s", want, r)
	}

	// The late world's stale reads are caught after a setup its faults
	// wait for, which is what makes it the measure of sf-shrink's forks.
	r = sfRun(t, dir, "-c", "seedfall.late.json", "-seed", "4")
	r.WantExit(t, 1)
	setup, fault := strings.Index(r.Stdout, "setup complete (loader#1)"), strings.Index(r.Stdout, "s  fault ")
	if !strings.Contains(r.Stdout, "is not linearizable (model kv)") || setup < 0 || fault < setup {
		t.Errorf("want a linearizability failure whose first fault comes after the setup (at %d, %d)\n%s", setup, fault, r)
	}

	// Seed 19 under the campaign's gray failures once died with "fatal
	// error: concurrent map read and map write" in compat_overlay's own
	// bookkeeping in package syscall: one goroutine stopped inside an update
	// of its maps while another read them. They are guarded now.
	r = sfRun(t, dir, "-c", "seedfall.json", "-seed", "19", "-set", "faults.clog_per_sec=0.2", "-set", "faults.slow_per_sec=0.2",
		"-set", "faults.pause_per_sec=0.1", "-set", "faults.clock_jump_per_sec=0.05",
		"-set", `faults.partition_topologies=["half","one","majority","majorities_ring","random_groups"]`)
	r.WantExit(t, 0)

	// H3: under strict_dirs one crash loses the snapshot raft had already
	// compacted its log to, and the node never starts again. The pin is
	// one crash; -inspect shows the disk it left, raft.db whole and
	// data/snapshots empty (raft made the directory again at the restart).
	clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", "raftkv", "seedfall.strict_dirs.json"), filepath.Join(dir, "seedfall.strict_dirs.json"))
	pin := filepath.Join(tools.Root, "examples", "raftkv", ".seedfall", "pinned", "seedfall.strict_dirs", "seed-15.json")
	r = sfRun(t, dir, "-c", "seedfall.strict_dirs.json", "-seed", "15", "-faults", pin, "-inspect")
	r.WantExit(t, 1)
	for _, want := range []string{"faults before the failure (1):", "n1#2 panic: log not found", "raft.NewRaft", "data/raft.db "} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("H3's pin: the report lacks %q\n%s", want, r)
		}
	}
	n1, n2 := strings.Index(r.Stdout, "\n  n1: "), strings.Index(r.Stdout, "\n  n2: ")
	if n1 < 0 || n2 < n1 {
		t.Fatalf("H3's pin: -inspect lists no disk of n1 before n2's\n%s", r)
	}
	if disk := r.Stdout[n1:n2]; !strings.Contains(disk, "data/snapshots/\n") || strings.Contains(disk, "meta.json") {
		t.Errorf("H3's pin: want n1's data/snapshots empty after the crash, got\n%s", disk)
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

// TestRaftKVForkSetup: examples/raftkv/seedfall.setup.json, whose loader
// loads 500 keys through the first leader before sim.SetupComplete, runs
// that setup once and every seed from a fork of it: the seeds pass, are
// different runs, come out the same with -j 1 and -j 2, and a seed's replay
// shows the shared setup and its own branch after it. It builds raft for
// wasm, as TestRaftKV does, so it runs without -short.
func TestRaftKVForkSetup(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	if testing.Short() {
		t.Skip("builds hashicorp/raft and two bolts for wasm; runs without -short")
	}
	dir := t.TempDir()
	clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", "raftkv", "seedfall.setup.json"), filepath.Join(dir, "seedfall.setup.json"))
	sweep := func(j string) map[float64]string {
		r := sfRun(t, dir, "-c", "seedfall.setup.json", "-seeds", "1-3", "-j", j, "-json")
		r.WantExitClean(t, 0)
		return seedLines(t, r)
	}
	one, two := sweep("1"), sweep("2")
	if len(one) != 3 {
		t.Fatalf("%d seed records, want 3: %v", len(one), one)
	}
	if fmt.Sprint(one) != fmt.Sprint(two) {
		t.Errorf("-j 2:\n got %v\nwant %v", two, one)
	}
	hashes := map[string]bool{}
	for _, l := range one {
		hashes[strings.Fields(l)[1]] = true
	}
	if len(hashes) != len(one) {
		t.Errorf("3 seeds ran %d different runs: %v", len(hashes), one)
	}
	// The replay of a passing seed prints its trace, and its hash and steps
	// are the sweep's.
	f := strings.Fields(one[2])
	r := sfRun(t, dir, "-c", "seedfall.setup.json", "-seed", "2")
	r.WantExitClean(t, 0)
	for _, want := range []string{"(" + f[2] + " scheduler steps", "determinism hash " + f[1],
		"loader#1: loader: loaded 500 keys", "setup complete (loader#1)", "branch: re-keyed every stream at", "(key 2)"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("sf-run -seed 2 does not say %q\n%s", want, r)
		}
	}
}

// TestRaftKVMembership: examples/raftkv's membership worlds, four
// memberserver nodes whose leader adds, promotes, removes and demotes
// servers through raft's configuration-change API while the clients write,
// under crashes and partitions. In seedfall.membership.json a removed
// server keeps its data: seeds 1-2 pass with every property of the changes
// true (a sweep fails on a Sometimes never true), and the pinned schedule
// of seed 81 has a re-added server install a snapshot behind its state;
// on guardserver (memberserver plus -fsm-guard, seedfall.membership.guard.json)
// the same schedule fails without the flag and passes with it, the state
// machine refusing that snapshot. In seedfall.wipe.json it
// is wiped and rejoins empty at the same address, and the pinned schedule
// (four partitions) elects a stale server with the wiped one's vote: the
// history is not linearizable. It builds raft for wasm, as TestRaftKV does,
// so it runs without -short.
func TestRaftKVMembership(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	if testing.Short() {
		t.Skip("builds hashicorp/raft and two bolts for wasm; runs without -short")
	}
	src := filepath.Join(tools.Root, "examples", "raftkv")
	dir := t.TempDir()
	for _, w := range []string{"seedfall.membership.json", "seedfall.wipe.json", "seedfall.membership.guard.json"} {
		clitest.CopyWorld(t, filepath.Join(src, w), filepath.Join(dir, w))
	}
	r := sfRun(t, dir, "-c", "seedfall.membership.json", "-seeds", "1-2")
	r.WantExit(t, 0)
	for _, want := range []string{"a configuration change committed", "a voter was removed from the configuration",
		"a voter was demoted to nonvoter", "a nonvoter was promoted to voter", "a removed server learned that its removal committed",
		"a server that started empty applied the cluster's entries", "a write committed after a membership change",
		"a server that was out of the configuration rejoined as a voter and applied new entries",
		"a node becomes leader only as a voter of its configuration"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("the property table lacks %q\n%s", want, r)
		}
	}

	// A server removed while down, and added back with its data: the
	// leader sends it a snapshot behind what it has applied, and it
	// installs it.
	pin := filepath.Join(src, ".seedfall", "pinned", "seedfall.membership", "seed-81.json")
	r = sfRun(t, dir, "-c", "seedfall.membership.json", "-seed", "81", "-faults", pin)
	r.WantExit(t, 1)
	for _, want := range []string{"server n3: remove n4 committed at index 176", "server n3: add n4 committed at index 206",
		`n4#4: a snapshot sent by the leader is never behind the follower's state {"applied":223,"snapshot":207}`} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("pin %s: the trace lacks %q\n%s", pin, want, r)
		}
	}

	// The same schedule on guardserver: without -fsm-guard the same
	// failure, with it the snapshot is refused, and raft goes on from what
	// the state machine applied.
	var noGuard []string
	for i := range 4 {
		noGuard = append(noGuard, "-set", fmt.Sprintf(`nodes[%d].args=["-peers","n1,n2,n3","-members","n1,n2,n3,n4","-on-remove","keep"]`, i))
	}
	r = sfRun(t, dir, append([]string{"-c", "seedfall.membership.guard.json", "-seed", "81", "-faults", pin}, noGuard...)...)
	r.WantExit(t, 1)
	if want := `n4#4: a snapshot sent by the leader is never behind the follower's state {"applied":223,"snapshot":207}`; !strings.Contains(r.Stdout, want) {
		t.Errorf("pin %s on guardserver without -fsm-guard: the trace lacks %q\n%s", pin, want, r)
	}
	r = sfRun(t, dir, "-c", "seedfall.membership.guard.json", "-seed", "81", "-faults", pin)
	r.WantExit(t, 0)
	for _, want := range []string{"server n3: add n4 committed at index 206",
		`event fsm guard refused a snapshot from n4#4: {"applied":223,"snapshot":207}`,
		"n4: failed to restore snapshot", "snapshot at index 207 is behind this state machine, which applied 223",
		"n3: failed to send snapshot to"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("pin %s with -fsm-guard: the trace lacks %q\n%s", pin, want, r)
		}
	}
	// The refusal's error left raft's lastApplied alone: the next entry
	// n4 applied was a new one.
	r = sfRun(t, dir, "-c", "seedfall.membership.guard.json", "-seed", "81", "-faults", pin, "-json")
	r.WantExit(t, 0)
	if want := `"message":"after the state machine refused a snapshot, raft hands over no entry again","seeds_reached":1,"seeds_true":1`; !strings.Contains(r.Stdout, want) {
		t.Errorf("pin %s with -fsm-guard: the records lack %q\n%s", pin, want, r)
	}

	pin = filepath.Join(src, ".seedfall", "pinned", "seedfall.wipe", "seed-11.json")
	r = sfRun(t, dir, "-c", "seedfall.wipe.json", "-seed", "11", "-faults", pin)
	r.WantExit(t, 1)
	for _, want := range []string{"server n1: remove n2 committed at index 45",
		"n2#1: server n2: removed from the configuration, data wiped, restarting empty",
		"n2#2: server n2: raft on n2:8000, clients on :7000, reads linearizable, existing state false",
		"n3#1: server n3: add n4 committed at index 28", "is not linearizable (model kv)"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("pin %s: the trace lacks %q\n%s", pin, want, r)
		}
	}
	// With -new-port the wiped server rejoins at another address, which
	// no stale configuration names.
	newPort := []string{"-c", "seedfall.wipe.json", "-seed", "11", "-faults", pin}
	for i := range 4 {
		newPort = append(newPort, "-set", fmt.Sprintf(`nodes[%d].args=["-peers","n1,n2,n3","-members","n1,n2,n3,n4","-on-remove","wipe","-new-port"]`, i))
	}
	r = sfRun(t, dir, newPort...)
	r.WantExit(t, 0)
	if want := "server n2: raft on n2:8001"; !strings.Contains(r.Stdout, want) {
		t.Errorf("with -new-port the trace lacks %q\n%s", want, r)
	}
}

// TestRaftKVGuardServerSource: guardserver is memberserver with the lines of
// -fsm-guard added (a program of its own, so that memberserver's guest and
// the runs of its worlds stay as they are). Its main.go, after the package
// comment, holds every line of memberserver's in the same order, and its
// membership.go is memberserver's: a change to memberserver that is not
// made to guardserver fails here.
func TestRaftKVGuardServerSource(t *testing.T) {
	dir := filepath.Join(tools.Root, "examples", "raftkv")
	read := func(name string) string { return clitest.ReadFile(t, filepath.Join(dir, name)) }
	if read("memberserver/membership.go") != read("guardserver/membership.go") {
		t.Errorf("guardserver/membership.go is not memberserver's")
	}
	body := func(name string) []string {
		_, b, ok := strings.Cut(read(name), "\npackage main\n")
		if !ok {
			t.Fatalf("%s: no package clause", name)
		}
		return strings.Split(b, "\n")
	}
	guard := body("guardserver/main.go")
	i := 0
	for n, line := range body("memberserver/main.go") {
		for i < len(guard) && guard[i] != line {
			i++
		}
		if i == len(guard) {
			t.Fatalf("guardserver/main.go lacks memberserver/main.go's line %q (line %d after the package clause), or has it out of order", line, n+1)
		}
		i++
	}
	for _, want := range []string{`flag.Bool("fsm-guard", false,`, "kv.guard = *guard", "m.skip(l.Index)", "m.restoreGuarded(d)"} {
		if !strings.Contains(strings.Join(guard, "\n"), want) {
			t.Errorf("guardserver/main.go lacks %q", want)
		}
	}
}
