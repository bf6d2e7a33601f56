package sweep

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// fixedWorld is the fixed kvlog world in place. Its pinned regression is
// left out of these sweeps (NoPins): they test the determinism check.
const fixedWorld = "../../examples/kvlog/seedfall.fixed.json"

// TestCheckCanFail proves the determinism check is not a check that cannot
// fail: a test-only hook perturbs virtual time by 1ns at one host call of
// the second run, and the check must report that call.
func TestCheckCanFail(t *testing.T) {
	var out, errb bytes.Buffer
	code := Main(Options{Config: fixedWorld, Seeds: []uint64{1}, SeedsText: "1", Jobs: 1, Check: true, JSON: true,
		Stdout: &out, Stderr: &errb, DivergeSecondRunAtCall: 5000, NoPins: true})
	if code != ExitProblem {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, ExitProblem, errb.String())
	}
	if !strings.Contains(out.String(), `"status":"nondeterministic"`) {
		t.Fatalf("no nondeterministic seed record:\n%s", out.String())
	}
	// The perturbation moves virtual time as call 5000 is made, so that
	// call is the first to differ: the same call in both runs, seen at
	// virtual times 1ns apart.
	re := regexp.MustCompile(`host call 5000: (\S+) (\S+.*) at (\S+) vs (\S+) (\S+.*) at (\S+), after `)
	m := re.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("report does not name host call 5000:\n%s", out.String())
	}
	if m[3] == m[6] {
		t.Fatalf("the two runs should differ in virtual time, both say %s", m[3])
	}
	if m[1] != m[4] || m[2] != m[5] {
		t.Fatalf("the two runs should differ only in time, got %q vs %q", m[1]+" "+m[2], m[4]+" "+m[5])
	}
	if want := "\nNONDETERMINISTIC: 1 of 1 seeds ran differently the second time (their FAIL lines name the first host call that differs); 0 ran alike\n"; !strings.Contains(errb.String(), want) {
		t.Errorf("the summary lacks %q:\n%s", want, errb.String())
	}
}

func TestCheckPasses(t *testing.T) {
	var out, errb bytes.Buffer
	code := Main(Options{Config: fixedWorld, Seeds: []uint64{1, 2, 3}, SeedsText: "1-3", Jobs: 2, Check: true,
		Stdout: &out, Stderr: &errb, NoPins: true})
	if code != ExitPass {
		t.Fatalf("exit %d, want 0; output:\n%s\n%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "ok  3 seeds passed") {
		t.Fatalf("no summary line:\n%s", out.String())
	}
	// A -check that found nothing says so (issue 29), just before the verdict.
	if want := "\ndeterministic: each of the 3 seeds ran twice alike (the same determinism hash, host calls and trace)\nok  3 seeds passed"; !strings.Contains(out.String(), want) {
		t.Errorf("the summary lacks %q:\n%s", want, out.String())
	}
	out.Reset()
	if code := Main(Options{Config: fixedWorld, Seeds: []uint64{1, 2}, SeedsText: "1-2", Jobs: 2, Stdout: &out, Stderr: &errb, NoPins: true}); code > ExitProblem {
		t.Fatalf("exit %d; output:\n%s\n%s", code, out.String(), errb.String())
	}
	if strings.Contains(out.String(), "deterministic") {
		t.Errorf("a sweep without -check speaks of determinism:\n%s", out.String())
	}
}
