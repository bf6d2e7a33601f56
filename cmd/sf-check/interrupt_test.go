package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/check"
)

// TestInterrupted: SIGINT stops a linearizability check that would run for
// hours (kv-hard.jsonl with a 10-minute limit): exit 130, the interrupted
// error on stderr and in the -json record, no stack trace.
func TestInterrupted(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		args := []string{"-history", "kv-hard.jsonl", "-timeout", "10m"}
		if asJSON {
			args = append(args, "-json")
		}
		cmd := exec.Command(sfCheck(t), args...)
		cmd.Dir = "testdata"
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Past start-up, into the search, which does not end on its own: a
		// signal that came before sf-check catches it would end it the
		// default way, so wait for CPU time that only the search spends.
		waitBusy(t, cmd.Process.Pid, 300*time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
		select {
		case err = <-done:
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			t.Fatalf("-json %v: sf-check went on a minute after SIGINT", asJSON)
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Fatalf("-json %v: %v, want exit status 130\nstderr:\n%s", asJSON, err, stderr.String())
		}
		if want := "sf-check: " + check.ErrInterrupted.Error() + "\n"; stderr.String() != want {
			t.Errorf("-json %v: stderr %q, want %q", asJSON, stderr.String(), want)
		}
		if !asJSON {
			if stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing", stdout.String())
			}
			continue
		}
		var rec check.Record
		if err := json.Unmarshal(stdout.Bytes(), &rec); err != nil {
			t.Fatalf("-json: %v\n%s", err, stdout.String())
		}
		if rec.ExitStatus != 130 || rec.Error != check.ErrInterrupted.Error() || rec.Verdict != "" || rec.Passed || rec.Model != "kv" {
			t.Errorf("-json record: %+v", rec)
		}
	}
}

// TestInterruptedReadingStdin: SIGINT while sf-check still waits for its
// history on standard input (no -history, input from a terminal or a pipe
// that has not closed) ends it, as it ends any program: the flag the
// checkers poll cannot stop a read that blocks.
func TestInterruptedReadingStdin(t *testing.T) {
	cmd := exec.Command(sfCheck(t), "-model", "kv")
	stdin, err := cmd.StdinPipe() // kept open: the read never ends on its own
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // into the read
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("sf-check still read its standard input 10s after SIGINT")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("%v, want it ended by SIGINT or exit status 130", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !(ok && ws.Signaled() && ws.Signal() == syscall.SIGINT) && ee.ExitCode() != 130 {
		t.Errorf("%v, want it ended by SIGINT or exit status 130\nstderr:\n%s", err, stderr.String())
	}
}

// waitBusy waits until process pid has used at least cpu of CPU time, as
// /proc tells on Linux (elsewhere it waits a second), and fails the test if
// that takes over a minute.
func waitBusy(t *testing.T, pid int, cpu time.Duration) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			time.Sleep(time.Second)
			return
		}
		// utime and stime are fields 14 and 15, counted after the command
		// name, which is in parentheses and may hold spaces.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) > 13 {
			utime, _ := strconv.ParseInt(f[11], 10, 64)
			stime, _ := strconv.ParseInt(f[12], 10, 64)
			if time.Duration(utime+stime)*time.Second/100 >= cpu { // clock ticks of 1/100 s on Linux
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("process %d did not use %v of CPU time within a minute", pid, cpu)
}
