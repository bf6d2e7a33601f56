package main

import (
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestUsageInProcess: sf-shrink's usage errors and manual, through run in
// this process. Shrinking itself is tested in lib/shrink and end to end by
// make demo.
func TestUsageInProcess(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		name   string
		args   []string
		stdin  string
		stderr string
	}{
		{"zero jobs", []string{"-seed", "1", "-j", "0"}, "", "sf-shrink: -j must be at least 1 (see sf-shrink -h)\n"},
		{"zero max", []string{"-max", "0"}, "", "sf-shrink: -max must be at least 1 (see sf-shrink -h)\n"},
		{"bad seed", []string{"-seed", "one"}, "", "sf-shrink: -seed: \"one\" is not a seed (a whole number) (see sf-shrink -h)\n"},
		{"seed and records", []string{"-seed", "1", "run.jsonl"}, "", "sf-shrink: give -seed or record files, not both (see sf-shrink -h)\n"},
		{"flag after a record file", []string{"run.jsonl", "-c", "w.json"}, "",
			"sf-shrink: -c needs -seed N; reading records, the world comes from them (see sf-shrink -h)\n"},
		{"cause moments without cause", []string{"-seed", "1", "-cause-moments", "3"}, "", "sf-shrink: -cause-moments and -cause-branches need -cause (see sf-shrink -h)\n"},
		{"zero branches", []string{"-seed", "1", "-cause", "-cause-branches", "0"}, "", "sf-shrink: -cause-moments and -cause-branches must be at least 1 (see sf-shrink -h)\n"},
		{"cause with faults", []string{"-seed", "1", "-cause", "-faults", "f.json"}, "", "sf-shrink: -cause branches the seed's own faults; it does not take -faults (see sf-shrink -h)\n"},
		{"unknown flag", []string{"-seeds", "1"}, "", "sf-shrink: unknown flag -seeds: did you mean -seed? (see sf-shrink -h)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := clitest.Run(t, run, tc.stdin, append([]string{"sf-shrink"}, tc.args...)...)
			r.Want(t, 2, tc.stderr)
			if r.Stdout != "" {
				t.Errorf("a usage error wrote on stdout\n%s", r)
			}
		})
	}
	for range 2 {
		r := clitest.Run(t, run, "", "sf-shrink", "-h")
		if r.Code != 0 || r.Stderr != "" || !strings.Contains(r.Stdout, "Sf-shrink") || !strings.Contains(r.Stdout, "-max N") {
			t.Errorf("want the manual on stdout\n%s", r)
		}
	}
}
