package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestStdinWorld: -c - reads the world from standard input, for sf-build and
// sf-run alike. Its relative paths and its .seedfall are those of the current
// directory, and its errors name <stdin>.
func TestStdinWorld(t *testing.T) {
	tools.Need(t)

	// A relative package path resolves against the working directory.
	dir := t.TempDir()
	rel, err := filepath.Rel(dir, filepath.Join(tools.Root, "lib", "engine", "testdata", "guests", "sleeper"))
	if err != nil {
		t.Fatal(err)
	}
	world := `{"workload": {"name": "client", "pkg": "` + filepath.ToSlash(rel) + `"}}`
	r := runBin(t, clitest.Cmd{Dir: dir, Stdin: world}, tools.Path("sf-build"), "-c", "-", "-q")
	r.WantExit(t, 0)
	if !strings.Contains(r.Stdout, `"config": "-"`) {
		t.Errorf("the manifest does not name the world -:\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(dir, ".seedfall", "build")); err != nil {
		t.Errorf("no .seedfall/build in the working directory: %v", err)
	}

	// Errors name <stdin>, and a relative path that does not exist is
	// looked up in the working directory.
	for _, tool := range []string{tools.Path("sf-build"), tools.Path("sf-run")} {
		r := runBin(t, clitest.Cmd{Dir: dir, Stdin: `{"workload": {"name": "client", "pkg": "./nope"}}`}, tool, "-c", "-")
		r.WantExit(t, 2)
		if want := "<stdin>: workload.pkg: package directory ./nope does not exist"; !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr does not contain %q\n%s", want, r)
		}
		r.NoStackTrace(t)
	}

	// The kvlog example's worlds, piped in: sf-build builds both packages,
	// and the fixed world passes its seeds.
	kv := kvlogDir(t)
	r = runBin(t, clitest.Cmd{Dir: kv, Stdin: clitest.ReadFile(t, filepath.Join(kv, "seedfall.json"))}, tools.Path("sf-build"), "-c", "-", "-q")
	r.WantExit(t, 0)
	if strings.Count(r.Stdout, `"wasm":`) != 2 {
		t.Errorf("the manifest does not list the two modules of kvlog\n%s", r)
	}
	fixed := clitest.ReadFile(t, filepath.Join(kv, "seedfall.fixed.json"))
	r = runBin(t, clitest.Cmd{Dir: kv, Stdin: fixed}, tools.Path("sf-run"), "-c", "-", "-seeds", "1-3")
	r.WantExit(t, 0)
	if !strings.Contains(r.Stdout, "ok  3 seeds passed") {
		t.Errorf("stdout does not report 3 passing seeds\n%s", r)
	}
}

// TestStdinTwice: -c - and -faults - would both read standard input, which
// is a usage error.
func TestStdinTwice(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	r := runBin(t, clitest.Cmd{Dir: t.TempDir(), Stdin: "{}"}, tools.Path("sf-run"), "-c", "-", "-seed", "1", "-faults", "-")
	r.WantExit(t, 2)
	if want := "sf-run: -c - and -faults - cannot both read stdin (see sf-run -h)\n"; r.Stderr != want {
		t.Errorf("stderr %q, want %q", r.Stderr, want)
	}
}
