package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBboltkv: examples/bboltkv, bbolt built through compat_overlay, keeps
// every acknowledged write under crashes, torn writes and crash_on_io with
// its durable settings, and the planted NoSync is found.
func TestBboltkv(t *testing.T) {
	needTools(t)
	dir := t.TempDir()
	for _, w := range []string{"seedfall.json", "seedfall.nosync.json"} {
		copyWorld(t, filepath.Join(tools.root, "examples", "bboltkv", w), filepath.Join(dir, w))
	}
	r := sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1-3")
	r.wantExit(t, 0)
	r = sfRun(t, dir, "-c", "seedfall.nosync.json", "-seeds", "1-5")
	r.wantExit(t, 1)
	if want := "acknowledged write lost"; !strings.Contains(r.stdout, want) {
		t.Errorf("the report lacks %q\n%s", want, r)
	}
}
