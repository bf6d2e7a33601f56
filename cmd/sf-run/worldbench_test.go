package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestWorldBench: tools/world-bench.sh, which make bench runs, prints a
// header and one line per world with its figures, each a positive number
// (or "-" where the sweeps gave too few samples to split or a CPU
// difference lost in the noise), from the built sf-run.
func TestWorldBench(t *testing.T) {
	tools.Need(t)
	if testing.Short() {
		t.Skip("runs a world's sweeps six times; runs without -short")
	}
	r := clitest.Exec(t, clitest.Cmd{Dir: tools.Root, Timeout: 10 * time.Minute},
		"bash", filepath.Join("tools", "world-bench.sh"), tools.Path("sf-run"), "3", "examples/kvlog/seedfall.fixed.json")
	r.WantExit(t, 0)
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if len(lines) != 2 {
		t.Fatalf("want a header and one line\n%s", r)
	}
	head, row := strings.Fields(lines[0]), strings.Fields(lines[1])
	want := []string{"world", "seeds/s1", "seeds/s2", "virt/real", "us/step", "cpu/seed", "virt/cpu", "guest", "sf", "kernel", "start/ms"}
	if strings.Join(head, " ") != strings.Join(want, " ") || len(row) != len(want) {
		t.Fatalf("header %q and line %q, want the columns %q\n%s", head, row, want, r)
	}
	if row[0] != "examples/kvlog/seedfall.fixed.json" {
		t.Errorf("the line is for %q", row[0])
	}
	for i, v := range row[1:] {
		col := want[i+1]
		// The shares need perf and enough samples, and the CPU figures,
		// differences of two sweeps, may be lost in the noise of three seeds.
		if v == "-" && (col == "guest" || col == "sf" || col == "kernel" || col == "cpu/seed" || col == "virt/cpu" || col == "start/ms") {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		if err != nil || f <= 0 {
			t.Errorf("%s is %q, want a positive number", col, v)
		}
	}
}

// TestSFShare: tools/sf-share.sh prints, from perf's call graphs of a
// sweep, a line with the number of samples and one line per part of the
// CPU (the guests' wasm, the kernel, the parts of sf's own code), whose
// shares add up to the whole; without a working perf it says it skipped.
func TestSFShare(t *testing.T) {
	tools.Need(t)
	if testing.Short() {
		t.Skip("runs a world's sweep under perf; runs without -short")
	}
	r := clitest.Exec(t, clitest.Cmd{Dir: tools.Root, Timeout: 10 * time.Minute},
		"bash", filepath.Join("tools", "sf-share.sh"), tools.Path("sf-run"), "examples/kvlog/seedfall.fixed.json", "1-4")
	r.WantExit(t, 0)
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if len(lines) == 1 && strings.Contains(lines[0], "perf record does not work here; skipped") {
		t.Skip("no working perf on this machine")
	}
	if !strings.HasPrefix(lines[0], "sf-share examples/kvlog/seedfall.fixed.json seeds 1-4: ") || !strings.HasSuffix(lines[0], " samples") {
		t.Fatalf("first line %q, want the world, the seeds and the samples\n%s", lines[0], r)
	}
	var sum float64
	parts := map[string]bool{}
	for _, l := range lines[1:] {
		share, part, ok := strings.Cut(strings.TrimSpace(l), "%  ")
		f, err := strconv.ParseFloat(share, 64)
		if !ok || err != nil || f <= 0 || part == "" {
			t.Fatalf("line %q is not a share and a part\n%s", l, r)
		}
		sum += f
		parts[part] = true
	}
	if sum < 99 || sum > 101 {
		t.Errorf("the shares add up to %.1f%%, want 100%%\n%s", sum, r)
	}
	if !parts["guest wasm"] {
		t.Errorf("no share for the guests' wasm\n%s", r)
	}
}
