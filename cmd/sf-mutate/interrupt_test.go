package main

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterrupted: SIGINT stops sf-mutate with exit 130, and its -json
// stream still ends with a summary marked interrupted.
func TestInterrupted(t *testing.T) {
	tools.Need(t)
	dir := copyWorld(t, "examples/ledger/seedfall.json")
	cmd := exec.Command(tools.Path("sf-mutate"), "-seeds", "1-100000", "-json")
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Second) // past the build, into the baseline's seeds
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want status 130\nstderr:\n%s", err, errb.String())
	}
	_, sum := records(t, out.String())
	if sum == nil || !sum.Interrupted || sum.Status != "interrupted" {
		t.Fatalf("summary %+v, want one marked interrupted\n%s", sum, out.String())
	}
	if strings.Contains(errb.String(), "goroutine ") || !strings.Contains(errb.String(), "interrupted:") {
		t.Fatalf("stderr:\n%s", errb.String())
	}
}
