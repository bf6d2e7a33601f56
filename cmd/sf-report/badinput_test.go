package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestBadInput: a record stream whose seeds or counts are not whole numbers
// from 0 is refused with exit 2 and the line, not read as seed 0 (issue 30,
// item 7). It runs sf-report in-process on the stdin it is given.
func TestBadInput(t *testing.T) {
	const start = `{"kind":"start","tool":"sf-run","schema":1,"config":"w.json","seeds":"1"}`
	for _, tc := range []struct {
		name  string
		input string
		want  string // all of stderr
	}{
		{"seed a string", start + "\n" + `{"kind":"seed","seed":"one","status":"pass","config":"w.json"}`,
			`sf-report: <stdin>:2: seed: "one" is not a seed (a whole number from 0)`},
		{"seed negative", start + "\n" + `{"kind":"seed","seed":-1,"status":"pass","config":"w.json"}`,
			`sf-report: <stdin>:2: seed: -1 is not a seed (a whole number from 0)`},
		{"seed a fraction", start + "\n" + `{"kind":"seed","seed":1.5,"status":"pass","config":"w.json"}`,
			`sf-report: <stdin>:2: seed: 1.5 is not a seed (a whole number from 0)`},
		{"seed past 64 bits", start + "\n" + `{"kind":"seed","seed":18446744073709551616,"status":"pass"}`,
			`sf-report: <stdin>:2: seed: 18446744073709551616 is not a seed (a whole number from 0)`},
		{"seed missing", start + "\n" + `{"kind":"seed","status":"pass","config":"w.json"}`,
			`sf-report: <stdin>:2: a seed record without its seed`},
		{"shrink seed null", start + "\n" + `{"kind":"shrink","seed":null}`,
			`sf-report: <stdin>:2: seed: null is not a seed (a whole number from 0)`},
		{"summary seeds negative", start + "\n\n" + `{"kind":"summary","tool":"sf-run","seeds":-7}`,
			`sf-report: <stdin>:3: seeds: -7 is not a count (a whole number from 0)`},
		{"summary failed a string", start + "\n" + `{"kind":"summary","tool":"sf-run","seeds":1,"failed":"1"}`,
			`sf-report: <stdin>:2: failed: "1" is not a count (a whole number from 0)`},
		{"long seed cut short", start + "\n" + `{"kind":"seed","seed":"` + strings.Repeat("x", 1<<20) + `"}`,
			`sf-report: <stdin>:2: seed: "` + strings.Repeat("x", 119) + `... (1048578 bytes) is not a seed (a whole number from 0)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := clitest.Run(t, run, tc.input+"\n", "sf-report")
			r.WantExitClean(t, 2)
			if strings.TrimRight(r.Stderr, "\n") != tc.want {
				t.Errorf("stderr\n  %q\nwant\n  %q", r.Stderr, tc.want)
			}
		})
	}
}

// TestOutputIsAFolder: an output flag that names a folder is refused before
// anything is read, exit 2 (issue 30, item 9).
func TestOutputIsAFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, flag := range []string{"md", "html", "findings"} {
		r := clitest.Run(t, run, "\n", "sf-report", "-"+flag, "out")
		r.WantExitClean(t, 2)
		if want := "sf-report: -" + flag + " out: is a directory: name a file to write (see sf-report -h)\n"; r.Stderr != want {
			t.Errorf("stderr\n  %q\nwant\n  %q", r.Stderr, want)
		}
	}
}

// TestIssue30TermWhileReading: SIGTERM ends sf-report while it waits for
// its input with status 130, as SIGINT does, not 143.
func TestIssue30TermWhileReading(t *testing.T) {
	tools.Need(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd := exec.Command(tools.Path("sf-report"), "-")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for !clitest.ReadingStdin(cmd.Process.Pid) && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		cmd.Process.Signal(sig)
		err = cmd.Wait()
		stdin.Close()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("%v: %v, want exit status 130\n%s", sig, err, stderr.String())
		}
	}
}

// TestRunInProcess: sf-report reads the records on the stdin it is given
// and writes its report to the stdout it is given, as every command's run
// does (issue 24); clitest.Run fails on anything written to the process's
// own streams.
func TestRunInProcess(t *testing.T) {
	records, err := os.ReadFile(filepath.Join(tools.Root, "lib", "report", "testdata", "pins.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	r := clitest.Run(t, run, string(records), "sf-report", "-findings", "")
	r.WantExitClean(t, 1)
	if !strings.HasPrefix(r.Stdout, "sweep kvlog.json, seeds 1-3\n") || r.Stderr != "" {
		t.Errorf("want the text report on stdout\n%s", r)
	}
}
