package schedule

import (
	"testing"
	"time"
)

// offWorld has a node and a finally check that take no faults.
var offWorld = World{File: "w.json", Nodes: []string{"n1", "n2", "n3", "client", "check"}, DurationNs: int64(10 * time.Second),
	NoFaults: map[string]string{"n2": `"faults": false in the world`, "check": "the finally check never takes any"}}

// TestCheckNodesWithoutFaults is issue 27's: a schedule may not crash,
// partition, pause, slow, skew or clog a program that takes no faults. Its
// buggify sites still fire, so a buggify fault on it stands.
func TestCheckNodesWithoutFaults(t *testing.T) {
	tests := []struct{ name, fault, want string }{
		{"crash", `{"at": "1s", "kind": "crash", "node": "n2", "until": "2s"}`,
			`faults[0].node: "n2" takes no faults ("faults": false in the world)`},
		{"crash of the finally check", `{"at": "1s", "kind": "crash", "node": "check", "until": "2s"}`,
			`faults[0].node: "check" takes no faults (the finally check never takes any)`},
		{"pause", `{"at": "1s", "kind": "pause", "node": "n2", "until": "2s"}`, `faults[0].node: "n2" takes no faults`},
		{"slow", `{"at": "1s", "kind": "slow", "node": "n2", "factor": 2, "until": "2s"}`, `faults[0].node: "n2" takes no faults`},
		{"clock jump", `{"at": "1s", "kind": "clock_jump", "node": "n2", "delta": "1s", "until": "1s"}`, `faults[0].node: "n2" takes no faults`},
		{"disk fault", `{"at": "1s", "kind": "fsync_eio", "node": "n2", "op": 3, "until": "1s"}`, `faults[0].node: "n2" takes no faults`},
		{"partition group", `{"at": "1s", "kind": "partition", "groups": [["n1", "n3"], ["n2", "client"]], "until": "2s"}`,
			`faults[0].groups[1]: "n2" takes no faults`},
		{"partition side", `{"at": "1s", "kind": "partition", "side": ["n2"], "until": "2s"}`, `faults[0].side: "n2" takes no faults`},
		{"clog link", `{"at": "1s", "kind": "clog", "from": "n1", "to": "n2", "mode": "stop", "until": "2s"}`, `faults[0].to: "n2" takes no faults`},
		{"clog node", `{"at": "1s", "kind": "clog", "node": "n2", "dir": "in", "mode": "jam", "until": "2s"}`, `faults[0].node: "n2" takes no faults`},
		{"datagram to it", `{"at": "1s", "kind": "udp_drop", "node": "n1", "to": "n2", "op": 1, "until": "1s"}`, `faults[0].to: "n2" takes no faults`},
		{"buggify on it stands", `{"at": "1s", "kind": "buggify", "node": "n2", "site": "s", "op": 1, "until": "1s"}`, ``},
		{"a partition that leaves it out stands", `{"at": "1s", "kind": "partition", "side": ["n1"], "until": "2s"}`, ``},
	}
	checkFaults(t, offWorld, tests)
}

// TestCheckNoOps is issue 27's: a fault that would do nothing is refused
// with the field that makes it one.
func TestCheckNoOps(t *testing.T) {
	tests := []struct{ name, fault, want string }{
		{"clock jump without delta", `{"at": "1s", "kind": "clock_jump", "node": "server", "until": "1s"}`,
			`faults[0].delta: missing: a clock_jump moves the node's wall clock by delta, so without one it does nothing`},
		{"clock jump of 0", `{"at": "1s", "kind": "clock_jump", "node": "server", "delta": "0s", "until": "1s"}`,
			`faults[0].delta: missing: a clock_jump moves`},
		{"slow clog without delay", `{"at": "1s", "kind": "clog", "node": "server", "dir": "both", "mode": "slow", "until": "2s"}`,
			`faults[0].delay: missing: a slow clog adds delay to every message, so without one it does nothing`},
		{"a jump back stands", `{"at": "1s", "kind": "clock_jump", "node": "server", "delta": "-2s", "until": "1s"}`, ``},
		{"a slow clog with a delay stands", `{"at": "1s", "kind": "clog", "from": "server", "to": "client", "mode": "slow", "delay": "5ms", "until": "2s"}`, ``},
	}
	checkFaults(t, world, tests)
}

// TestRingPartitionStands: a ring is written as overlapping groups (the
// spec's example), so a node in two groups is no error; twice in one is.
func TestRingPartitionStands(t *testing.T) {
	w := World{File: "w.json", Nodes: []string{"n1", "n2", "n3", "client"}, DurationNs: int64(10 * time.Second)}
	s, err := Parse("f.json", []byte(`[{"at": "1.2s", "kind": "partition", "groups": [["n1", "n2"], ["n2", "n3"], ["n3", "client"], ["client", "n1"]], "until": "2s"}]`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(w); err != nil {
		t.Fatalf("a ring refused: %v", err)
	}
	s, err = Parse("f.json", []byte(`[{"at": "1.2s", "kind": "partition", "groups": [["n1", "n2", "n1"], ["n3", "client"]], "until": "2s"}]`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(w); err == nil || err.Error() != `faults[0].groups[0]: "n1" is named twice` {
		t.Fatalf("a node twice in a group: %v", err)
	}
}

// TestOpsIsTheBudget is issue 27's: the spec names the Budget cap ops; a
// schedule may say either, not both differently.
func TestOpsIsTheBudget(t *testing.T) {
	for _, data := range []string{`{"ops": 63, "faults": []}`, `{"budget": 63, "faults": []}`, `{"ops": 63, "budget": 63, "faults": []}`} {
		s, err := Parse("f.json", []byte(data))
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		if s.Budget != 63 {
			t.Fatalf("%s: budget %d, want 63", data, s.Budget)
		}
	}
	_, err := Parse("f.json", []byte(`{"ops": 63, "budget": 64, "faults": []}`))
	if err == nil || err.Error() != "f.json: ops: 63, but budget says 64: they are the same cap, give one" {
		t.Fatalf("ops and budget that differ: %v", err)
	}
	_, err = Parse("f.json", []byte(`{"ops": "many", "faults": []}`))
	if err == nil || err.Error() != "f.json: ops: expected int, got string" {
		t.Fatalf("ops not a number: %v", err)
	}
	s, err := Parse("f.json", []byte(`{"ops": -1, "faults": []}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(world); err == nil || err.Error() != "ops: negative" {
		t.Fatalf("negative ops: %v", err)
	}
}
