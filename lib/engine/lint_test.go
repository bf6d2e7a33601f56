package engine

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNoHostNondeterminism enforces the rule that nothing reaching a
// simulated run reads the host's clock or random source. The engine and
// the packages it drives may not import math/rand at all; the host clock is
// allowed only where it measures real time for the report and the
// watchdog, which never feeds back into a run.
func TestNoHostNondeterminism(t *testing.T) {
	allowedClock := map[string]bool{
		"engine/core/run.go":    true, // real_ns of a run
		"engine/core/baton.go":  true, // the watchdog, a limit on real time
		"engine/core/resume.go": true, // real_ns of a resumed run
	}
	clock := regexp.MustCompile(`\btime\.(Now|Since|Until)\(`)
	mathRand := regexp.MustCompile(`"math/rand(/v2)?"`)
	for _, pkg := range []string{"engine", "faults", "wasmrewrite", "disk", "simnet", "rng", "catalog", "config", "schedule"} {
		var files []string
		err := filepath.WalkDir(filepath.Join("..", pkg), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(path, ".go") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel("..", f)
			rel = filepath.ToSlash(rel)
			if mathRand.Match(src) {
				t.Errorf("%s imports math/rand: use lib/rng streams", rel)
			}
			if clock.Match(src) && !allowedClock[rel] {
				t.Errorf("%s reads the host clock", rel)
			}
		}
	}
}
