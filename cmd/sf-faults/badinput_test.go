package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestBadInput: edits and schedules sf-faults refuses through the built
// binary, exit 2 and the message (issue 30, items 6 and 9).
func TestBadInput(t *testing.T) {
	dir := kvlogDir(t)
	if err := os.MkdirAll(filepath.Join(dir, "outdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	fault := func(f string) string { return `{"seed": 10, "duration": "1.5s", "faults": [` + f + `]}` }
	crash := `{"at": "100ms", "kind": "crash", "node": "server", "until": "200ms"}`
	for _, tc := range []struct {
		name  string
		input string
		args  []string
		want  string // the start of stderr after "sf-faults: "
	}{
		{"shift within the latest time", fault(crash), []string{"-shift", "1=+2562047h47m16s"},
			`the edited schedule: faults[0].at: 2562047h47m16.1s is after the end of the run (1.5s)`},
		{"shift past the latest time", fault(`{"at": "1s", "kind": "pause", "node": "server", "until": "1.2s"}`), []string{"-shift", "1=+2562047h47m16s"},
			`-shift 1=+2562047h47m16s: fault 1 (pause): at 1s moved by +2562047h47m16s is past the latest virtual time (2562047h47m16.854775807s)`},
		{"shift an op past the largest", fault(`{"at": "1s", "kind": "write_eio", "node": "server", "op": 3}`), []string{"-shift", "1=+9223372036854775806"},
			`-shift 1=+9223372036854775806: fault 1 (write_eio): op 3 moved by +9223372036854775806 is past the largest op number (9223372036854775807)`},
		{"out is a folder", fault(crash), []string{"-out", "outdir"},
			`-out outdir: is a directory: name a file to write (see sf-faults -h)`},
		{"duplicate key", `{"seed": 10, "faults": [{"at": "1s", "kind": "pause", "node": "server", "node": "client", "until": "1.2s"}]}`, nil,
			`-faults: bad.json: faults[0].node: duplicate key`},
		{"fault without at", fault(`{"kind": "pause", "node": "server", "until": "1.2s"}`), nil,
			`-faults: bad.json: faults[0].at: missing`},
		{"faults null", `{"seed": 10, "faults": null}`, nil, `-faults: bad.json: faults: expected a list of faults`},
		{"added crash of a node that is down", fault(crash), []string{"-add", `{"at":"150ms","kind":"crash","node":"server","until":"300ms"}`},
			`the edited schedule: faults[1]: crashes server at 150ms, while it is down from the crash of faults[0] (100ms to 200ms)`},
		{"added fault that repeats one", fault(crash), []string{"-add", `{"at":"100ms","kind":"crash","node":"server","until":"200ms"}`},
			`the edited schedule: faults[1]: the same fault as faults[0]`},
		{"a long -add cut short", fault(crash), []string{"-add", `{"at":"1s","kind":"` + strings.Repeat("k", 100000) + `","node":"server"}`},
			`-add {"at":"1s","kind":"` + strings.Repeat("k", 101) + `... (100037 bytes): kind: "` + strings.Repeat("k", 120) + `"... (100000 bytes) is not a fault kind (bitrot, `},
		// Issue 27: a node with "faults": false takes no fault, so a schedule
		// that gives it one is refused with the fault's path.
		{"crash of a node without faults", fault(crash), []string{"-set", "nodes[0].faults=false"},
			`bad.json: faults[0].node: "server" takes no faults ("faults": false in the world)`},
		{"added pause of a node without faults", fault(`{"at": "1s", "kind": "pause", "node": "client", "until": "1.2s"}`),
			[]string{"-set", "nodes[0].faults=false", "-add", `{"at":"1.1s","kind":"pause","node":"server","until":"1.3s"}`},
			`the edited schedule: faults[1].node: "server" takes no faults ("faults": false in the world)`},
		{"clock jump without delta", fault(`{"at": "1s", "kind": "clock_jump", "node": "server", "until": "1s"}`), nil,
			`bad.json: faults[0].delta: missing: a clock_jump moves the node's wall clock by delta, so without one it does nothing`},
		{"slow clog without delay", fault(`{"at": "1s", "kind": "clog", "node": "server", "dir": "in", "mode": "slow", "until": "1.2s"}`), nil,
			`bad.json: faults[0].delay: missing: a slow clog adds delay to every message, so without one it does nothing`},
		{"bad branch key", `{"seed": 10, "branches": [{"at": "1s", "key": -1}], "faults": []}`, nil,
			`-faults: bad.json: branches[0].key: expected uint64, got number -1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clitest.WriteFile(t, filepath.Join(dir, "bad.json"), tc.input)
			args := append([]string{"-c", "seedfall.json", "-seed", "10", "-faults", "bad.json"}, tc.args...)
			if !strings.Contains(strings.Join(tc.args, " "), "-out") {
				args = append(args, "-out", "bad.out.json")
			}
			r := clitest.Exec(t, clitest.Cmd{Dir: dir}, append([]string{tools.Path("sf-faults")}, args...)...)
			r.WantExitClean(t, 2)
			var lines []string
			for _, l := range strings.Split(r.Stderr, "\n") {
				if !strings.HasPrefix(l, "built ") && !strings.HasPrefix(l, "cached ") {
					lines = append(lines, l)
				}
			}
			if got := strings.Join(lines, "\n"); !strings.HasPrefix(got, "sf-faults: "+tc.want) {
				t.Errorf("stderr\n  %s\nwant\n  sf-faults: %s", r.Stderr, tc.want)
			}
		})
	}
}
