package engine

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOverlayGuestsUseOnlyTheStandardLibrary: the net_overlay guests stand
// for unmodified services, so they must not reach for the sim SDK.
func TestOverlayGuestsUseOnlyTheStandardLibrary(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no Go toolchain on PATH")
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "overlayguests"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		cmd := exec.Command(goCmd, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".")
		cmd.Dir = filepath.Join("testdata", "overlayguests", e.Name())
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", e.Name(), err, stderr.String())
		}
		for _, dep := range strings.Fields(string(out)) {
			if !strings.HasSuffix(dep, "/testdata/overlayguests/"+e.Name()) {
				t.Errorf("guest %s imports %s", e.Name(), dep)
			}
		}
	}
}
