package engine_test

// The guest programs in testdata/guests are run by the CLI tests of
// cmd/sf-run. go vet and go test skip testdata, so these tests keep the
// guests honest: each builds for wasip1, and the files guest, which checks
// POSIX behaviour, passes natively, so that when it fails under the
// simulator the simulator is at fault.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/engine"
)

func guestGoTool(t *testing.T) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no Go toolchain on PATH: the guest tests build the guests with `go`")
	}
	return goCmd
}

func guestNames(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("testdata", "guests"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names
}

// TestGuestProgramsBuildForWasip1 builds every guest as sf-build would,
// into the builds the other tests share.
func TestGuestProgramsBuildForWasip1(t *testing.T) {
	guestGoTool(t)
	for _, name := range guestNames(t) {
		t.Run(name, func(t *testing.T) {
			if wasm := engine.BuildSharedForTest(t, "./testdata/guests/"+name, "-trimpath"); wasm == "" {
				t.Errorf("guest %s: no module", name)
			}
		})
	}
}

// TestGuestProgramsUseOnlyTheStandardLibrary: the guests test the engine
// with plain Go, never through the sim SDK.
func TestGuestProgramsUseOnlyTheStandardLibrary(t *testing.T) {
	goCmd := guestGoTool(t)
	for _, name := range guestNames(t) {
		cmd := exec.Command(goCmd, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".")
		cmd.Dir = filepath.Join("testdata", "guests", name)
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list %s: %v", name, err)
		}
		for _, dep := range strings.Fields(string(b)) {
			if !strings.HasSuffix(dep, "/testdata/guests/"+name) {
				t.Errorf("guest %s imports %s", name, dep)
			}
		}
	}
}

// TestGuestFilesPassesNatively runs the files guest on the host's file
// system in a temporary directory.
func TestGuestFilesPassesNatively(t *testing.T) {
	goCmd := guestGoTool(t)
	bin := filepath.Join(t.TempDir(), "files")
	build := exec.Command(goCmd, "build", "-o", bin, ".")
	build.Dir = filepath.Join("testdata", "guests", "files")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	cmd := exec.Command(bin)
	cmd.Dir = t.TempDir()
	b, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(b), "files: ok: every check passed") {
		t.Fatalf("the files guest fails natively (%v): its checks are wrong, not the simulator\n%s", err, b)
	}
}
