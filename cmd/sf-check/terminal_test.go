package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/creack/pty"
)

// TestNoHistoryOnATerminal: with no history named, sf-check reads standard
// input, unless that is a terminal, where it would wait for a history to
// be typed in; /dev/null is no terminal, so it reads an empty history
// there, as from an empty pipe (issue 24: one terminal test for every
// tool, lib/progress.IsTerminal).
func TestNoHistoryOnATerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"sf-check"}, tty, &stdout, &stderr); code != 2 ||
		stderr.String() != "sf-check: no history: give -history FILE, or - to read standard input (see sf-check -h)\n" {
		t.Errorf("on a terminal: exit %d, stderr %q", code, stderr.String())
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"sf-check"}, null, &stdout, &stderr); code != 0 ||
		stdout.String() != "ok    history of 0 operations is linearizable (model kv)\n" {
		t.Errorf("on /dev/null: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}
