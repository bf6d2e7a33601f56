package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestProgressOnATerminal: a sweep whose stderr is a terminal draws a
// progress line there that reaches 30/30 and is erased before the summary;
// with stderr on a pipe or a file, as in every other test, it writes no
// progress bytes, and its stdout never holds any.
func TestProgressOnATerminal(t *testing.T) {
	dir := kvlogDir(t)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, tools.Path("sf-run"), "-c", "seedfall.fixed.json", "-seeds", "1-30")
	cmd.Dir = dir
	stdout, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	cmd.Stdout, cmd.Stderr = stdout, tty
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(ptmx) // ends with an error once the terminal closes
		got <- string(b)
	}()
	runErr := cmd.Run()
	tty.Close()
	screen := <-got
	out, _ := os.ReadFile(stdout.Name())
	if runErr != nil {
		t.Fatalf("sf-run: %v\nstdout:\n%s\nterminal:\n%q", runErr, out, screen)
	}
	for _, want := range []string{"(30/30, ", "seeds/s", "0 failed"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the terminal got no %q:\n%q", want, screen)
		}
	}
	if !strings.HasSuffix(screen, "\x1b[2K\r") {
		t.Errorf("the progress line was left up at the end:\n%q", screen)
	}
	if strings.Contains(string(out), "\x1b[") || strings.Contains(string(out), "seeds/s") {
		t.Errorf("stdout holds progress bytes:\n%q", out)
	}

	r := sfRun(t, dir, "-c", "seedfall.fixed.json", "-seeds", "1-30")
	r.WantExit(t, 0)
	if s := r.Stdout + r.Stderr; strings.Contains(s, "\x1b[") || strings.Contains(s, "seeds/s") || strings.Contains(s, "30/30") {
		t.Errorf("with no terminal, sf-run wrote progress bytes\n%s", r)
	}
}

// TestProgressLinesOffATerminal (issue 29): with SF_PROGRESS set, a sweep
// whose stderr is a pipe writes a plain progress line there per interval
// (seeds done of all, failures, rate), and none on stdout; the demo's long
// last sweep sets it.
func TestProgressLinesOffATerminal(t *testing.T) {
	dir := kvlogDir(t)
	r := runBin(t, clitest.Cmd{Dir: dir, Env: []string{"SF_PROGRESS=200ms"}}, tools.Path("sf-run"), "-c", "seedfall.fixed.json", "-seeds", "1-30", "-j", "1")
	r.WantExitClean(t, 0)
	lineRE := regexp.MustCompile(`(?m)^progress (\d+)/30 seeds, 0 failed, [\d.]+ seeds/s, \d+s elapsed(, about \d+s left)?$`)
	lines := lineRE.FindAllStringSubmatch(r.Stderr, -1)
	if len(lines) < 2 {
		t.Fatalf("want progress lines every 200ms on stderr over a sweep of %s\n%s", r.Took, r)
	}
	prev := -1
	for _, m := range lines {
		n, _ := strconv.Atoi(m[1])
		if n < prev {
			t.Errorf("the count went back from %d to %d\n%s", prev, n, r.Stderr)
		}
		prev = n
	}
	if strings.Contains(r.Stdout, "progress ") || strings.Contains(r.Stderr+r.Stdout, "\x1b[") {
		t.Errorf("progress reached stdout, or came with terminal escapes\n%s", r)
	}
	if !strings.Contains(r.Stdout, "ok  30 seeds passed") {
		t.Errorf("the report is not on stdout\n%s", r)
	}

	makefile := clitest.ReadFile(t, filepath.Join(tools.Root, "Makefile"))
	if !strings.Contains(makefile, "\t@SF_PROGRESS=5s bin/sf-run -c examples/kvlog/seedfall.fixed.json -seeds 1-200\n") {
		t.Errorf("make demo's last sweep does not ask for progress lines")
	}
}
