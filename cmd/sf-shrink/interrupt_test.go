package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestInterrupted: SIGINT while sf-shrink works through a stream stops it:
// exit 130, a summary marked interrupted that counts the seeds finished, and
// no Go stack trace.
func TestInterrupted(t *testing.T) {
	dir := kvlogDir(t)
	sweep := sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1-30", "-json")
	sweep.WantExitClean(t, 1)
	recs := filepath.Join(dir, "run.jsonl")
	clitest.WriteFile(t, recs, sweep.Stdout)

	cmd := exec.Command(tools.Path("sf-shrink"), "-json", "-j", "1", recs)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Let it build and start shrinking, then interrupt it mid-work.
	time.Sleep(3 * time.Second)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	if code != 130 {
		t.Fatalf("exit status %d, want 130\nstderr:\n%s", code, stderr.String())
	}
	if strings.Contains(stderr.String(), "goroutine ") {
		t.Fatalf("a Go stack trace\n%s", stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var sum struct {
		Kind        string `json:"kind"`
		Tool        string `json:"tool"`
		Shrunk      int    `json:"shrunk"`
		Errors      int    `json:"errors"`
		Status      string `json:"status"`
		Interrupted bool   `json:"interrupted"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatalf("last line is not a record: %v\n%s", err, stdout.String())
	}
	shrinks := strings.Count(stdout.String(), `"kind":"shrink"`)
	if sum.Kind != "summary" || sum.Tool != "sf-shrink" || !sum.Interrupted || sum.Status != "interrupted" || sum.Shrunk+sum.Errors != shrinks {
		t.Fatalf("summary %+v with %d shrink records\n%s", sum, shrinks, stdout.String())
	}
	if shrinks >= 10 {
		t.Fatalf("all %d seeds were shrunk: the interrupt came too late to test anything", shrinks)
	}
	if !strings.Contains(stderr.String(), "sf-shrink: interrupted after") {
		t.Errorf("stderr does not say it was interrupted\n%s", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, ".seedfall")); err != nil {
		t.Fatal(err)
	}
}
