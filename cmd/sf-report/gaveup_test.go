package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestGaveUpApartFromPasses is issue 27's: seeds whose history check gave up
// are neither passes nor failures in sf-report either, and they make it
// exit 1 as they make sf-run exit 1.
func TestGaveUpApartFromPasses(t *testing.T) {
	dir := t.TempDir()
	clitest.WriteFile(t, filepath.Join(dir, "gaveup.json"), fmt.Sprintf(
		`{"workload": {"name": "client", "pkg": %q}, "checker": {"model": "kv"}, "limits": {"check_steps": 1}}`,
		filepath.Join(tools.Root, "lib", "sweep", "testdata", "guests", "register")))
	r := shell(t, dir, "sf-run -c gaveup.json -seeds 1-2 | sf-report -findings ''")
	if r.Code != 1 {
		t.Fatalf("exit status %d, want 1\n%s", r.Code, r)
	}
	for _, want := range []string{"0 of 2 seeds failed (0 passed, 2 gave up checking their history, 0 hit the time horizon",
		"history checks that gave up (2 seeds; they neither passed nor failed on their history): 1-2"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("the report lacks %q\n%s", want, r)
		}
	}
}
