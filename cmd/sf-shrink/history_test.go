package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestShrinkWritesTheHistory is issue 27's: like every failing run, a shrunk
// run writes its history, and on a linearizability failure its timeline, next
// to its shrunk schedule, under names no sweep writes; the shrink record and
// stderr name them.
func TestShrinkWritesTheHistory(t *testing.T) {
	dir := t.TempDir()
	clitest.WriteJSON(t, filepath.Join(dir, "stale.json"), map[string]any{
		"workload": map[string]any{"name": "client", "pkg": filepath.Join(tools.Root, "lib", "sweep", "testdata", "guests", "register"),
			"args": []string{"-stale"}},
		"checker":  map[string]any{"model": "kv"},
		"duration": "30s",
	})
	r := sfShrink(t, dir, "", "-c", "stale.json", "-seed", "1", "-json")
	r.WantExitClean(t, 1)
	recs := shrinkRecords(t, r)
	if len(recs) != 1 {
		t.Fatalf("want one shrink record\n%s", r)
	}
	folder := filepath.Join(".seedfall", "stale")
	for field, name := range map[string]string{"history": "seed-1.shrunk.history.jsonl", "timeline": "seed-1.shrunk.history.html"} {
		want := filepath.Join(folder, name)
		if recs[0][field] != want {
			t.Errorf("the shrink record's %s is %v, want %s\n%s", field, recs[0][field], want, r)
		}
		what := map[string]string{"history": "history", "timeline": "history timeline"}[field]
		if !strings.Contains(r.Stderr, "wrote "+what+" "+want+"\n") {
			t.Errorf("stderr does not name %s\n%s", want, r)
		}
		data, err := os.ReadFile(filepath.Join(dir, want))
		if err != nil {
			t.Fatalf("no %s: %v", field, err)
		}
		if field == "history" && !strings.Contains(string(data), `"type":"invoke"`) {
			t.Errorf("%s holds no history:\n%s", want, clitest.Tail(string(data), 5))
		}
		if field == "timeline" && !strings.Contains(string(data), "<html") {
			t.Errorf("%s is no page", want)
		}
	}
	// sf-check reads the shrunk history and finds the same violation.
	c := runBin(t, dir, "", tools.Path("sf-check"), "-history", filepath.Join(folder, "seed-1.shrunk.history.jsonl"), "-model", "kv",
		"-timeline", filepath.Join(t.TempDir(), "t.html"))
	c.WantExit(t, 1)
	if !strings.Contains(c.Stdout, `key "k0"`) {
		t.Errorf("sf-check on the shrunk history\n%s", c)
	}
}
