package clitest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ExecTimeout is how long Exec lets a program run by default.
const ExecTimeout = 5 * time.Minute

// Cmd says how Exec runs a program.
type Cmd struct {
	Dir string   // the working folder
	Env []string // added to the environment, KEY=VALUE; a key given again wins
	// Stdin is the program's standard input; when empty it is the null
	// device, which a program may take for a terminal (sf-check does).
	Stdin string
	// Name, when set, is the program's argv[0]: the short name of a tool,
	// so that the replay lines it prints read as a user's would.
	Name string
	// StdoutFile makes standard output a file, as with "sf-run > out": on a
	// pipe a sweep writes records instead of its report.
	StdoutFile bool
	// Pipefail makes a Shell pipeline fail when any of its commands does.
	Pipefail bool
	Timeout  time.Duration // ExecTimeout when zero
}

// Exec runs argv with c and returns what it did. A program that does not
// finish in time, or cannot be started, stops the test.
func Exec(t testing.TB, c Cmd, argv ...string) Result {
	t.Helper()
	timeout := c.Timeout
	if timeout == 0 {
		timeout = ExecTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if c.Name != "" {
		cmd.Args[0] = c.Name
	}
	cmd.Dir = c.Dir
	if c.Stdin != "" {
		cmd.Stdin = strings.NewReader(c.Stdin)
	}
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = append(os.Environ(), c.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var stdoutFile *os.File
	if c.StdoutFile {
		f, err := os.CreateTemp(t.TempDir(), "stdout-")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		stdoutFile, cmd.Stdout = f, f
	}
	start := time.Now()
	err := cmd.Run()
	r := Result{Stderr: stderr.String(), Took: time.Since(start), Cmdline: strings.Join(append([]string{cmd.Args[0]}, argv[1:]...), " ")}
	r.Stdout = stdout.String()
	if stdoutFile != nil {
		b, ferr := os.ReadFile(stdoutFile.Name())
		if ferr != nil {
			t.Fatal(ferr)
		}
		r.Stdout = string(b)
	}
	if ctx.Err() != nil {
		t.Fatalf("%s (in %s) did not finish in %s: it hangs\n%s", r.Cmdline, c.Dir, timeout, r)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	default:
		t.Fatalf("%s: %v", r.Cmdline, err)
	}
	return r
}

// Shell runs a command line with bash, as a user would type it.
func Shell(t testing.TB, c Cmd, line string) Result {
	t.Helper()
	argv := []string{"bash", "-c", line}
	if c.Pipefail {
		argv = []string{"bash", "-o", "pipefail", "-c", line}
	}
	r := Exec(t, c, argv...)
	r.Cmdline = line
	return r
}

// ReadingStdin says whether a thread of process pid is blocked in a read
// of its standard input, from /proc/pid/task/*/syscall (the number of
// read, 0, and its first argument, descriptor 0): a test that
// signals a command while it reads its input waits for this. Linux only.
func ReadingStdin(pid int) bool {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/syscall")
	for _, f := range tasks {
		if b, err := os.ReadFile(f); err == nil && strings.HasPrefix(string(b), "0 0x0 ") {
			return true
		}
	}
	return false
}
