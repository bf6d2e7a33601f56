// Package clitest is what the tests of the sf commands share. Run calls a
// command's in-process entry point, run(args, stdin, stdout, stderr), with
// captured streams, and checks that the command wrote nothing to the
// process's own standard output or standard error, which would mean some
// code ignores the writers it was given. Tools builds the commands once per
// test binary and keeps the folders its tests share (tools.go), Exec and
// Shell run the commands as a user would (exec.go), and the file helpers
// copy example worlds and read records (files.go). Only tests import it.
package clitest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// Main is the signature of a command's run function.
type Main func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

// Result is what one call of a command did.
type Result struct {
	Code           int
	Stdout, Stderr string
	Cmdline        string
	// Took is how long a program Exec ran took; zero for Run.
	Took time.Duration
}

// tailLines is how much of each stream a Result shows when a test fails.
const tailLines = 30

func (r Result) String() string {
	took := ""
	if r.Took > 0 {
		took = " after " + r.Took.Round(time.Millisecond).String()
	}
	return fmt.Sprintf("$ %s\nexit status %d%s\nstdout:\n%s\nstderr:\n%s", r.Cmdline, r.Code, took,
		Tail(r.Stdout, tailLines), Tail(r.Stderr, tailLines))
}

// Tail returns the last n lines of s, saying how many came before.
func Tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("... (%d lines before)", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// WantExit stops the test unless the command exited with code.
func (r Result) WantExit(t testing.TB, code int) {
	t.Helper()
	if r.Code != code {
		t.Fatalf("exit status %d, want %d\n%s", r.Code, code, r)
	}
}

// WantExitClean stops the test unless the command exited with code and
// printed no Go stack trace. A command whose guests may panic (their
// messages hold "panic:") wants WantExit.
func (r Result) WantExitClean(t testing.TB, code int) {
	t.Helper()
	r.WantExit(t, code)
	if hasStackTrace(r) {
		t.Fatalf("output holds a Go stack trace or panic:\n%s", r)
	}
}

func hasStackTrace(r Result) bool {
	s := r.Stdout + r.Stderr
	return strings.Contains(s, "goroutine ") || strings.Contains(s, "panic:")
}

// Run calls main with args (args[0] is the command's name) and stdin, in the
// current directory. It swaps os.Stdout and os.Stderr for files while the
// command runs and fails the test if anything was written to them, so tests
// that use it must not run in parallel with each other.
func Run(t testing.TB, main Main, stdin string, args ...string) Result {
	t.Helper()
	stray, err := os.CreateTemp(t.TempDir(), "stray-output")
	if err != nil {
		t.Fatal(err)
	}
	defer stray.Close()
	oldOut, oldErr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = stray, stray
	var stdout, stderr bytes.Buffer
	code := func() int {
		defer func() { os.Stdout, os.Stderr = oldOut, oldErr }()
		return main(args, strings.NewReader(stdin), &stdout, &stderr)
	}()
	r := Result{Code: code, Stdout: stdout.String(), Stderr: stderr.String(), Cmdline: strings.Join(args, " ")}
	if b, err := os.ReadFile(stray.Name()); err != nil {
		t.Fatal(err)
	} else if len(b) > 0 {
		t.Errorf("%s wrote to the process's own stdout or stderr, not to the writers it was given:\n%s\n%s", args[0], b, r)
	}
	return r
}

// NoStackTrace fails the test if the output holds a Go stack trace or a
// panic.
func (r Result) NoStackTrace(t testing.TB) {
	t.Helper()
	if hasStackTrace(r) {
		t.Errorf("the output has a stack trace\n%s", r)
	}
}

// Want fails the test unless the command exited with code and its standard
// error is exactly stderr.
func (r Result) Want(t testing.TB, code int, stderr string) {
	t.Helper()
	if r.Code != code || r.Stderr != stderr {
		t.Errorf("got exit status %d and stderr\n  %q\nwant %d and\n  %q\n%s", r.Code, r.Stderr, code, stderr, r)
	}
	r.NoStackTrace(t)
}
