// Package clitest runs a command's in-process entry point, run(args, stdin,
// stdout, stderr), the way its tests need: with captured streams, and with a
// check that the command wrote nothing to the process's own standard output
// or standard error, which would mean some code ignores the writers it was
// given. Only tests import it.
package clitest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// Main is the signature of a command's run function.
type Main func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

// Result is what one call of a command did.
type Result struct {
	Code           int
	Stdout, Stderr string
	Cmdline        string
}

func (r Result) String() string {
	return fmt.Sprintf("$ %s\nexit status %d\nstdout:\n%s\nstderr:\n%s", r.Cmdline, r.Code, r.Stdout, r.Stderr)
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
	if s := r.Stdout + r.Stderr; strings.Contains(s, "goroutine ") || strings.Contains(s, "panic:") {
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
