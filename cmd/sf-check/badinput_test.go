package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestBadInput: inputs sf-check refuses through the built binary, with
// exit 2 and the message (issue 30, items 9 and 10).
func TestBadInput(t *testing.T) {
	tools.Need(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A queue that loses an item: not linearizable, so a timeline is due.
	data, err := os.ReadFile(filepath.Join("testdata", "queue-lost.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	bad := string(data)
	clitest.WriteFile(t, filepath.Join(dir, "bad.jsonl"), bad)
	for _, tc := range []struct {
		name  string
		files map[string]string
		args  []string
		want  string // all of stderr
	}{
		{"timeline is a folder", nil, []string{"-history", "bad.jsonl", "-model", "queue", "-timeline", "out"},
			"sf-check: -timeline out: is a directory: name a file to write (see sf-check -h)\n"},
		{"timeline next to the history is a folder", map[string]string{"h2.jsonl": bad, "h2.html/x": ""}, []string{"-history", "h2.jsonl", "-model", "queue"},
			"sf-check: writing the timeline: write h2.html: is a directory: name a file to write\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for name, content := range tc.files {
				clitest.WriteFile(t, filepath.Join(dir, name), content)
			}
			r := clitest.Exec(t, clitest.Cmd{Dir: dir}, append([]string{tools.Path("sf-check")}, tc.args...)...)
			r.WantExitClean(t, 2)
			if r.Stderr != tc.want {
				t.Errorf("stderr\n  %q\nwant\n  %q", r.Stderr, tc.want)
			}
		})
	}
}
