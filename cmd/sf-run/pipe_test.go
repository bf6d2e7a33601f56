package main

import (
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
	"github.com/sf-dst/sf/lib/sweep"
)

// TestPipeChoosesRecords: a sweep whose stdout is a pipe writes records
// there and says so in one line on stderr, with how to keep the report
// (issue 29), just before the first record; -json or -json=false given, or
// stdout a file, it says
// nothing, since nothing was chosen for the user. A pipeline's exit status
// is cat's.
func TestPipeChoosesRecords(t *testing.T) {
	dir := kvlogDir(t)
	c := clitest.Cmd{Dir: dir, Env: []string{tools.OnPath()}, Timeout: cmdTimeout}
	note := sweep.PipeNote + "\n"
	const report = "property               seeds reached  seeds true\n"
	if !strings.HasPrefix(note, "sf-run: stdout is a pipe: JSONL records go there, the report comes here; -json=false keeps") {
		t.Fatalf("the note reads %q", note)
	}

	r := clitest.Shell(t, c, "sf-run -c seedfall.fixed.json -seeds 1-2 | cat")
	r.WantExitClean(t, 0)
	if !strings.HasPrefix(r.Stdout, `{"kind":"start"`) || strings.Count(r.Stderr, note) != 1 {
		t.Errorf("on a pipe: want records on stdout and the note on stderr, once\n%s", r)
	}
	if i := strings.Index(r.Stderr, report); i < 0 || i < strings.Index(r.Stderr, note) {
		t.Errorf("on a pipe: the report did not reach stderr after the note\n%s", r)
	}

	// A world that does not load writes no records, so there is nothing
	// to say about them.
	r = clitest.Shell(t, c, "sf-run -c nosuch.json -seeds 1-2 | cat")
	if strings.Contains(r.Stderr, "stdout is a pipe") || !strings.Contains(r.Stderr, "sf-run: nosuch.json: no such file") {
		t.Errorf("a world that does not load: want its error alone\n%s", r)
	}

	r = clitest.Shell(t, c, "sf-run -c seedfall.fixed.json -seeds 1-2 -json | cat")
	r.WantExitClean(t, 0)
	if !strings.HasPrefix(r.Stdout, `{"kind":"start"`) || strings.Contains(r.Stderr, "stdout is a pipe") {
		t.Errorf("-json on a pipe: want records and no note\n%s", r)
	}

	r = clitest.Shell(t, c, "sf-run -c seedfall.fixed.json -seeds 1-2 -json=false | cat")
	r.WantExitClean(t, 0)
	if !strings.Contains(r.Stdout, report) || strings.Contains(r.Stdout+r.Stderr, "stdout is a pipe") {
		t.Errorf("-json=false on a pipe: want the report on stdout and no note\n%s", r)
	}

	// Two seeds never need a retry, so the sweep fails on that property.
	r = sfRun(t, dir, "-c", "seedfall.fixed.json", "-seeds", "1-2")
	r.WantExitClean(t, 1)
	if !strings.Contains(r.Stdout, report) || strings.Contains(r.Stdout+r.Stderr, "stdout is a pipe") {
		t.Errorf("stdout a file: want the report and no note\n%s", r)
	}

	// A replay prints its trace whatever stdout is, so it has nothing to say.
	r = clitest.Shell(t, c, "sf-run -c seedfall.fixed.json -seed 1 | cat")
	r.WantExitClean(t, 0)
	if !strings.Contains(r.Stdout, "ok  seed 1 passed") || strings.Contains(r.Stderr, "stdout is a pipe") {
		t.Errorf("a replay on a pipe: want its report on stdout and no note\n%s", r)
	}
}
