package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestBadInput: usage errors of sf-mutate through the built binary, exit 2
// and the message (issue 30, item 9).
func TestBadInput(t *testing.T) {
	tools.Need(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string // all of stderr
	}{
		{"md is a folder", []string{"-c", "seedfall.json", "-md", "out"}, "sf-mutate: -md out: is a directory: name a file to write (see sf-mutate -h)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := clitest.Exec(t, clitest.Cmd{Dir: dir}, append([]string{tools.Path("sf-mutate")}, tc.args...)...)
			r.WantExitClean(t, 2)
			if r.Stderr != tc.want {
				t.Errorf("stderr\n  %q\nwant\n  %q", r.Stderr, tc.want)
			}
		})
	}
}
