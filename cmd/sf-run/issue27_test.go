package main

// Scenario tests of issue 27: what a spec-wide audit found.

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// ringWorld has three sleeping nodes and a fourth with faults off, and a
// workload that fails at 5s so that the seed leaves its artifacts; its
// partitions are majorities_ring, many of them.
func ringWorld(t *testing.T, dir, name string, offNodes int) {
	t.Helper()
	type prog struct {
		Name   string   `json:"name"`
		Pkg    string   `json:"pkg"`
		Args   []string `json:"args,omitempty"`
		Faults *bool    `json:"faults,omitempty"`
	}
	off := false
	nodes := []prog{}
	for i, n := range []string{"n1", "n2", "n3", "n4"} {
		p := prog{Name: n, Pkg: guestPkg("sleeper"), Args: []string{"-for", "60s"}}
		if i >= 4-offNodes {
			p.Faults = &off
		}
		nodes = append(nodes, p)
	}
	clitest.WriteJSON(t, filepath.Join(dir, name+".json"), map[string]any{
		"nodes":    nodes,
		"workload": prog{Name: "client", Pkg: guestPkg("exit3"), Args: []string{"-after", "5s"}},
		"duration": "10s",
		"faults": map[string]any{"partition_per_sec": 4, "partition_for": []string{"100ms", "300ms"},
			"partition_topologies": []string{"majorities_ring"}},
	})
}

var partitionLine = regexp.MustCompile(`fault partition (.*) until `)

// TestIssue27MajoritiesRing: a majorities_ring partition cuts (every node
// talks to its two neighbours of four), leaves a node with faults off out
// of every group, and its artifact, overlapping groups and all, replays
// the seed exactly.
func TestIssue27MajoritiesRing(t *testing.T) {
	dir := guestsDir(t)
	ringWorld(t, dir, "ring27", 1)
	r := runBin(t, clitest.Cmd{Dir: dir}, tools.Path("sf-run"), "-c", "ring27.json", "-seed", "1")
	r.WantExit(t, 1)
	parts := partitionLine.FindAllStringSubmatch(r.Stdout, -1)
	if len(parts) < 5 {
		t.Fatalf("want many partitions, got %d\n%s", len(parts), r)
	}
	for _, p := range parts {
		groups := strings.Split(p[1], " | ")
		if len(groups) != 4 || strings.Contains(p[1], "n4") {
			t.Fatalf("partition %s: want four groups of neighbours without n4\n%s", p[1], r)
		}
		for _, g := range groups {
			if len(strings.Fields(g)) != 2 {
				t.Fatalf("partition %s: group %s is not a pair of neighbours", p[1], g)
			}
		}
	}
	hash := regexp.MustCompile(`determinism hash [0-9a-f]+`).FindString(r.Stdout)
	art := filepath.Join(".seedfall", "ring27", "seed-1.faults.json")
	again := runBin(t, clitest.Cmd{Dir: dir}, tools.Path("sf-run"), "-c", "ring27.json", "-seed", "1", "-faults", art)
	again.WantExit(t, 1)
	if h := regexp.MustCompile(`determinism hash [0-9a-f]+`).FindString(again.Stdout); hash == "" || h != hash {
		t.Fatalf("the replay of the artifact: %q, the run: %q\n%s", h, hash, again)
	}

	// A side is cut from the other programs that take network faults: n4,
	// with faults off, is in no group.
	clitest.WriteFile(t, filepath.Join(dir, "side27.json"), `[{"at": "1s", "kind": "partition", "side": ["n1"], "until": "2s"}]`)
	side := runBin(t, clitest.Cmd{Dir: dir}, tools.Path("sf-run"), "-c", "ring27.json", "-seed", "1", "-faults", "side27.json")
	side.WantExit(t, 1)
	if !strings.Contains(side.Stdout, "fault partition [n1] | [n2 n3 client] until 2.000s") {
		t.Errorf("the side partition does not leave n4 out\n%s", side)
	}
}

// TestIssue27TopologyCountsNetworkFaults: a node with faults off is in no
// partition, so it does not count towards the four programs a ring needs.
func TestIssue27TopologyCountsNetworkFaults(t *testing.T) {
	dir := guestsDir(t)
	ringWorld(t, dir, "ring27short", 2)
	r := runBin(t, clitest.Cmd{Dir: dir}, tools.Path("sf-run"), "-c", "ring27short.json", "-seed", "1")
	r.WantExitClean(t, 2)
	want := `sf-run: ring27short.json: faults.partition_topologies[0]: topology majorities_ring needs at least 4 programs that take network faults, the world has 3 (workloads count; the finally check and programs with "faults": false do not)`
	if !strings.Contains(r.Stderr, want) {
		t.Fatalf("stderr lacks\n  %s\n%s", want, r)
	}
}

// TestIssue27OpsCapsTheBudget: a schedule may name the Budget cap ops, the
// spec's word, and the replay caps sim.Budget with it.
func TestIssue27OpsCapsTheBudget(t *testing.T) {
	dir := kvlogDir(t)
	clitest.WriteFile(t, filepath.Join(dir, "ops27.json"), `{"seed": 3, "ops": 7, "faults": []}`)
	r := runBin(t, clitest.Cmd{Dir: dir}, tools.Path("sf-run"), "-c", "seedfall.fixed.json", "-seed", "3", "-faults", "ops27.json")
	r.WantExit(t, 0)
	if !strings.Contains(r.Stdout, "client#1: sim.Budget capped at 7 of 200 operations") {
		t.Fatalf("the trace does not show the cap\n%s", r)
	}
}

// TestIssue27SwarmLineNamesEveryType: the trace's swarm line says what swarm
// testing chose for every fault type the world turns on, not only crashes,
// clock jumps and buggify.
func TestIssue27SwarmLineNamesEveryType(t *testing.T) {
	dir := guestsDir(t)
	types := map[string]float64{"partition": 1, "clog": 1, "swizzle": 1, "net_reset": 1, "slow": 1, "pause": 1,
		"udp_drop": 0.1, "udp_dup": 0.1, "fsync_eio": 0.1, "write_eio": 0.1, "bitrot": 1, "crash": 1}
	fields := map[string]string{"partition": "partition_per_sec", "clog": "clog_per_sec", "swizzle": "swizzle_per_sec",
		"net_reset": "reset_per_sec", "slow": "slow_per_sec", "pause": "pause_per_sec", "udp_drop": "udp_loss",
		"udp_dup": "udp_dup", "fsync_eio": "fsync_eio", "write_eio": "write_eio", "bitrot": "bitrot_per_sec", "crash": "crash_per_sec"}
	f := map[string]any{"swarm": true}
	for k, v := range types {
		f[fields[k]] = v
	}
	clitest.WriteJSON(t, filepath.Join(dir, "swarm27.json"), map[string]any{
		"nodes":    []map[string]any{{"name": "n1", "pkg": guestPkg("sleeper"), "args": []string{"-for", "1s"}}},
		"workload": map[string]any{"name": "client", "pkg": guestPkg("sleeper"), "args": []string{"-for", "1s"}},
		"duration": "2s", "supervise": true, "faults": f,
	})
	r := runBin(t, clitest.Cmd{Dir: dir}, tools.Path("sf-run"), "-c", "swarm27.json", "-seed", "1")
	line := regexp.MustCompile(`(?m)^\s+0\.000s  swarm: (.*)$`).FindStringSubmatch(r.Stdout)
	if line == nil {
		t.Fatalf("no swarm line\n%s", r)
	}
	for k := range types {
		if !regexp.MustCompile(`(^|, )` + k + ` (off|x[0-9.]+)(,|$)`).MatchString(line[1]) {
			t.Errorf("the swarm line does not name %s: %s", k, line[1])
		}
	}
	if strings.Contains(line[1], "buggify") || strings.Contains(line[1], "clock_jump") {
		t.Errorf("the swarm line names a type the world does not turn on: %s", line[1])
	}
}

// TestIssue27GaveUpIsNoPass: a seed whose history check gives up is not a
// pass. The sweep, the replay and an exploration exit 1, as sf-check does
// on the same history with the same budget, and the summary line and
// record count it apart from the passes.
func TestIssue27GaveUpIsNoPass(t *testing.T) {
	dir := t.TempDir()
	writeHistoryWorld(t, filepath.Join(dir, "gaveup.json"), "register", nil, "kv", map[string]any{"limits": map[string]any{"check_steps": 1}})
	r := runBin(t, clitest.Cmd{Dir: dir}, tools.Path("sf-run"), "-c", "gaveup.json", "-seeds", "1-2", "-json")
	r.WantExit(t, 1)
	if !strings.Contains(r.Stderr, "\nGAVE UP 2 of 2 seeds gave up checking their history (0 passed, 0 hit the time horizon) in ") {
		t.Errorf("the summary line does not count the give-ups apart\n%s", r)
	}
	recs := jsonRecords(t, r)
	sum := recs[len(recs)-1]
	if sum["passed"] != 0.0 || sum["gave_up"] != 2.0 || sum["status"] != "fail" || fmt.Sprint(sum["gave_up_seeds"]) != "[1 2]" {
		t.Errorf("summary: passed %v, gave_up %v, gave_up_seeds %v, status %v; want 0, 2, [1 2], fail", sum["passed"], sum["gave_up"], sum["gave_up_seeds"], sum["status"])
	}
	for _, s := range recs[1:3] {
		if s["history_check"] != "unknown" {
			t.Errorf("seed %v: history_check %v, want unknown", s["seed"], s["history_check"])
		}
	}

	rep := runBin(t, clitest.Cmd{Dir: dir}, tools.Path("sf-run"), "-c", "gaveup.json", "-seed", "1")
	rep.WantExit(t, 1)
	if !strings.Contains(rep.Stdout, "GAVE UP seed 1 at t=") || !strings.Contains(rep.Stdout, "so the seed neither passed nor failed") {
		t.Errorf("the replay does not say the check gave up\n%s", rep)
	}
	hist := filepath.Join(".seedfall", "gaveup", "seed-1.history.jsonl")
	if !strings.Contains(rep.Stdout, "wrote history "+hist) {
		t.Fatalf("the replay wrote no history\n%s", rep)
	}
	c := runBin(t, clitest.Cmd{Dir: dir}, tools.Path("sf-check"), "-history", hist, "-model", "kv", "-max-steps", "1")
	c.WantExit(t, 1)
	if !strings.Contains(c.Stdout, "GAVE UP") {
		t.Errorf("sf-check on the same history\n%s", c)
	}

	ex := runBin(t, clitest.Cmd{Dir: dir}, tools.Path("sf-run"), "-c", "gaveup.json", "-explore", "-explore-runs", "2", "-seeds", "1")
	ex.WantExit(t, 1)
	if !strings.Contains(ex.Stderr+ex.Stdout, "explore: GAVE UP on the history check of 1 run, which neither passed nor failed") {
		t.Errorf("the exploration does not count its give-ups\n%s", ex)
	}
}

// numericSummary runs the numeric guest and returns its summary's margins as
// raw JSON, by message, with the run's result.
func numericSweep(t *testing.T, args ...string) (map[string]string, result) {
	t.Helper()
	dir := pgDir(t)
	cfg := pgWorld(t, dir, "numeric.json", map[string]any{"workload": pgProg("client", "numeric", args...), "duration": "5s"})
	r := runBin(t, clitest.Cmd{Dir: dir}, tools.Path("sf-run"), "-c", cfg, "-seeds", "1-2", "-json")
	recs := jsonRecords(t, r)
	sum := recs[len(recs)-1]
	if sum["kind"] != "summary" {
		t.Fatalf("no summary record: the last is %v\n%s", sum, r)
	}
	var rows struct {
		Properties []struct {
			Message string          `json:"message"`
			Margin  json.RawMessage `json:"margin"`
		} `json:"properties"`
	}
	line := strings.TrimSpace(r.Stdout)
	line = line[strings.LastIndexByte(line, '\n')+1:]
	if err := json.Unmarshal([]byte(line), &rows); err != nil {
		t.Fatal(err)
	}
	margins := map[string]string{}
	for _, p := range rows.Properties {
		margins[p.Message] = string(p.Margin)
	}
	return margins, r
}

// TestIssue27NumericProperties: inside the simulator, integers compare as
// integers, signed and unsigned, with exact margins in -json and the table;
// an infinite margin is the string "+Inf", and the summary is written.
func TestIssue27NumericProperties(t *testing.T) {
	margins, r := numericSweep(t)
	r.WantExit(t, 0)
	for msg, want := range map[string]string{
		"a timestamp is before the next nanosecond": `1`,
		"uint64s above 2^63 compare exactly":        `5`,
		"the widest gap of two int64s":              `18446744073709551615`,
		"everything is below infinity":              `"+Inf"`,
		"zero is below the right side":              `1`,
	} {
		if margins[msg] != want {
			t.Errorf("%q: margin %s, want %s", msg, margins[msg], want)
		}
	}
	for _, want := range []string{"a timestamp is before the next nanosecond  (smallest margin 1)",
		"the widest gap of two int64s  (smallest margin 18446744073709551615)", "everything is below infinity  (smallest margin +Inf)"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("the table lacks %q\n%s", want, r)
		}
	}
}

// TestIssue27NaNComparison: a comparison with a NaN never holds; its failure
// keeps left and right in its details, and the summary, with the margin
// "NaN", is still written.
func TestIssue27NaNComparison(t *testing.T) {
	margins, r := numericSweep(t, "-nan")
	r.WantExit(t, 1)
	if margins["zero is below the right side"] != `"NaN"` {
		t.Errorf("margin %s, want \"NaN\"", margins["zero is below the right side"])
	}
	recs := jsonRecords(t, r)
	if msg, _ := recs[1]["message"].(string); !strings.HasSuffix(msg, `zero is below the right side {"left":0,"right":"NaN"}`) {
		t.Errorf("seed 1's message %q lacks the details", msg)
	}
}
