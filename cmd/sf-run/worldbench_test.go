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
// header and one line per world with its figures, each a number (or "-"
// where the sweep gave too few samples to split), from the built sf-run.
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
		if v == "-" && (col == "guest" || col == "sf" || col == "kernel") {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		if err != nil || f <= 0 {
			t.Errorf("%s is %q, want a positive number", col, v)
		}
	}
}
