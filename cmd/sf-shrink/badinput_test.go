package main

import (
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestBadInput: what is not a record stream of sf-run is refused with exit
// 2 and the line, not taken for a sweep with nothing to shrink (issue 30,
// item 7).
func TestBadInput(t *testing.T) {
	tools.Need(t)
	const start = `{"kind":"start","tool":"sf-run","schema":1,"config":"w.json","seeds":"1"}`
	for _, tc := range []struct {
		name  string
		input string
		want  string // all of stderr
	}{
		{"sf-check's JSON", `{"model":"kv","valid":true,"ops":4}`, `sf-shrink: <stdin>:1: not a record: has no "kind"`},
		{"kind a number", `{"kind":5}`, `sf-shrink: <stdin>:1: not a record: its "kind" is 5, not a record kind`},
		{"kind empty", `{"kind":""}`, `sf-shrink: <stdin>:1: not a record: its "kind" is "", not a record kind`},
		{"no kind", `{"seed":1}`, `sf-shrink: <stdin>:1: not a record: has no "kind"`},
		{"a lone summary", `{"kind":"summary","tool":"sf-run","seeds":1,"failed":0}`,
			`sf-shrink: <stdin>:1: a summary record before any start record: give sf-shrink the records of sf-run -json whole, from their start record`},
		{"a seed before the start", "\n" + `{"kind":"seed","seed":1,"status":"fail","config":"w.json"}` + "\n" + start,
			`sf-shrink: <stdin>:2: a seed record before any start record: give sf-shrink the records of sf-run -json whole, from their start record`},
		{"a bad seed", start + "\n" + `{"kind":"seed","seed":"one","status":"fail","config":"w.json"}`,
			`sf-shrink: <stdin>:2: bad seed record: json: cannot unmarshal string into Go struct field Seed.seed of type uint64`},
		{"a long kind cut short", `{"kind":"` + strings.Repeat("k", 1<<20) + `"}`,
			`sf-shrink: <stdin>:1: a ` + strings.Repeat("k", 120) + `... (1048576 bytes) record before any start record: give sf-shrink the records of sf-run -json whole, from their start record`},
		{"not JSON", `FAIL 3 of 10 seeds failed`, `sf-shrink: <stdin>:1: not a JSON record: `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := clitest.Exec(t, clitest.Cmd{Stdin: tc.input + "\n"}, tools.Path("sf-shrink"))
			r.WantExitClean(t, 2)
			if got := strings.TrimRight(r.Stderr, "\n"); got != tc.want && !(strings.HasSuffix(tc.want, ": ") && strings.HasPrefix(got, tc.want)) {
				t.Errorf("stderr\n  %q\nwant\n  %q", r.Stderr, tc.want)
			}
		})
	}
}
