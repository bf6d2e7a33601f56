package disk

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoHostNondeterminism keeps host time and randomness out of the package.
// Only hostfs.go, which copies a host directory in before a run, may use os.
func TestNoHostNondeterminism(t *testing.T) {
	files, err := filepath.Glob("*.go")
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
		for _, bad := range []string{`"math/rand`, `"crypto/rand"`, "time.Now", `"time"`, `"os"`} {
			if bad == `"os"` && f == "hostfs.go" {
				continue
			}
			if strings.Contains(string(src), bad) {
				t.Errorf("%s uses %s", f, bad)
			}
		}
	}
}
