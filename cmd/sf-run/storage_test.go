package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestStorageExamples: examples/bboltkv, pebblekv and badgerkv, each a
// storage library built through compat_overlay, keep every acknowledged
// write under crashes, torn writes and crash_on_io with their durable
// settings, and their planted unsafe setting is found. bbolt builds in a few
// seconds; pebble and badger take up to a minute each on a loaded machine,
// so they run only without -short.
func TestStorageExamples(t *testing.T) {
	tools.Need(t)
	t.Parallel()
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
				clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", tc.example, w), filepath.Join(dir, w))
			}
			r := sfRun(t, dir, "-c", "seedfall.json", "-seeds", tc.seeds)
			r.WantExit(t, 0)
			r = sfRun(t, dir, "-c", "seedfall.nosync.json", "-seeds", "1-6")
			r.WantExit(t, 1)
			if want := "acknowledged write lost"; !strings.Contains(r.Stdout, want) {
				t.Errorf("the report lacks %q\n%s", want, r)
			}
		})
	}
}
