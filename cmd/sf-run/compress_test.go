package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompressArtifacts: sf-run -compress writes a failing seed's trace and
// history as zstd files and names them in its records, keeps the schedule
// plain JSON, and sf-check reads the compressed history as it is.
func TestCompressArtifacts(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := t.TempDir()
	writeHistoryWorld(t, filepath.Join(dir, "bug.json"), "register", []string{"-stale"}, "kv", nil)

	r := sfRun(t, dir, "-c", "bug.json", "-seeds", "1-3", "-json", "-compress")
	r.WantExit(t, 1)
	failed := 0
	for _, rec := range jsonRecords(t, r) {
		if rec["kind"] != "seed" || rec["status"] != "fail" {
			continue
		}
		failed++
		arts, _ := rec["artifacts"].(map[string]any)
		for key, suffix := range map[string]string{"trace": ".trace.log.zst", "history": ".history.jsonl.zst", "faults": ".faults.json"} {
			p, _ := arts[key].(string)
			if !strings.HasSuffix(p, suffix) {
				t.Fatalf("seed %v: artifacts.%s is %q, want a path that ends %s\n%s", rec["seed"], key, p, suffix, r)
			}
			data, err := os.ReadFile(filepath.Join(dir, p))
			if err != nil {
				t.Fatalf("seed %v: artifacts.%s: %v", rec["seed"], key, err)
			}
			zstd := bytes.HasPrefix(data, []byte{0x28, 0xb5, 0x2f, 0xfd})
			if zstd != strings.HasSuffix(p, ".zst") {
				t.Errorf("%s: starts % x", p, data[:min(4, len(data))])
			}
			if plain := strings.TrimSuffix(p, ".zst"); plain != p && exists(filepath.Join(dir, plain)) {
				t.Errorf("both %s and %s exist", p, plain)
			}
		}
		hist := filepath.Join(dir, arts["history"].(string))
		c, v := sfCheck(t, hist, "kv")
		if c.Code != 1 || v.Verdict != "illegal" {
			t.Errorf("sf-check on %s: exit %d, verdict %q; want 1 and illegal\n%s", hist, c.Code, v.Verdict, c)
		}
	}
	if failed == 0 {
		t.Fatalf("no seed failed\n%s", r)
	}
}
