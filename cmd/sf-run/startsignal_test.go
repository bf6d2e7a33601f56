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

// TestIssue30SignalsDuringStartup: SIGINT or SIGTERM that comes while sf-run
// loads and builds its world (the first fraction of a second) ends it as an
// interrupted sweep: exit 130 and its records, a start header and a summary
// that says interrupted. A SIGINT that the process was started with ignored,
// as a shell starts a script's background job, stops it too. The world
// comes on standard input (-c -), so the signal is sent while sf-run is
// surely loading it: blocked in the read, before any seed.
func TestIssue30SignalsDuringStartup(t *testing.T) {
	tools.Need(t)
	dir := kvlogDir(t)
	for _, tc := range []struct {
		name    string
		sig     syscall.Signal
		ignored bool // started with SIGINT ignored (trap "" INT; exec ...)
	}{
		{"SIGINT", syscall.SIGINT, false},
		{"SIGTERM", syscall.SIGTERM, false},
		{"SIGINT inherited as ignored", syscall.SIGINT, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			argv := []string{tools.Path("sf-run"), "-c", "-", "-seeds", "1-100000", "-json", "-j", "1"}
			var cmd *exec.Cmd
			if tc.ignored {
				cmd = exec.Command("sh", "-c", `trap "" INT; exec "$@"`, "sh")
				cmd.Args = append(cmd.Args, argv...)
			} else {
				cmd = exec.Command(argv[0], argv[1:]...)
			}
			cmd.Dir = dir
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(30 * time.Second)
			for !clitest.ReadingStdin(cmd.Process.Pid) {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatal("sf-run never read its standard input")
				}
				time.Sleep(time.Millisecond)
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			world, err := os.ReadFile(filepath.Join(dir, "seedfall.json"))
			if err != nil {
				t.Fatal(err)
			}
			stdin.Write(world)
			stdin.Close()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(2 * time.Minute):
				cmd.Process.Kill()
				<-done
				t.Fatalf("sf-run went on for two minutes after %v", tc.sig)
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Fatalf("%v, want exit status 130\nstderr:\n%s", err, stderr.String())
			}
			recs := clitest.Records(t, clitest.Result{Stdout: stdout.String()})
			if len(recs) < 2 || recs[0]["kind"] != "start" || recs[len(recs)-1]["kind"] != "summary" || recs[len(recs)-1]["interrupted"] != true {
				t.Errorf("want a start record and an interrupted summary, got\n%s", stdout.String())
			}
			if s := stderr.String(); !strings.Contains(s, "interrupted: the sweep was stopped") || strings.Contains(s, "goroutine ") {
				t.Errorf("stderr:\n%s", s)
			}
		})
	}
}
