package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestStorageExamples: examples/bboltkv, pebblekv and badgerkv, each a
// storage library built through compat_overlay, keep every acknowledged
// write under crashes, torn writes and crash_on_io with their durable
// settings, and their planted unsafe setting is found. bbolt builds in a few
// seconds; pebble and badger take up to a minute each on a loaded machine,
// so they run only without -short.
func TestStorageExamples(t *testing.T) {
	needTools(t)
	for _, tc := range []struct {
		example string
		long    bool
		seeds   string
	}{
		{"bboltkv", false, "1-3"},
		{"pebblekv", true, "1-2"},
		{"badgerkv", true, "1-2"},
	} {
		t.Run(tc.example, func(t *testing.T) {
			if tc.long && testing.Short() {
				t.Skip("builds a large storage library for wasm; runs without -short")
			}
			dir := t.TempDir()
			for _, w := range []string{"seedfall.json", "seedfall.nosync.json"} {
				copyWorld(t, filepath.Join(tools.root, "examples", tc.example, w), filepath.Join(dir, w))
			}
			r := sfRun(t, dir, "-c", "seedfall.json", "-seeds", tc.seeds)
			r.wantExit(t, 0)
			r = sfRun(t, dir, "-c", "seedfall.nosync.json", "-seeds", "1-6")
			r.wantExit(t, 1)
			if want := "acknowledged write lost"; !strings.Contains(r.stdout, want) {
				t.Errorf("the report lacks %q\n%s", want, r)
			}
		})
	}
}
