package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPreemptGoRuntimeLayout pins what preemption assumes about Go's wasm
// runtime: g in global 2 as an i64, g.stackguard0 at offset 16 (every
// stack check loads it) and g.m at offset 48 (runtime.morestack loads it).
// If a Go release moves them, this fails here, and CompileFor refuses such
// modules instead of writing to the wrong place.
func TestPreemptGoRuntimeLayout(t *testing.T) {
	bin, err := os.ReadFile(buildGuest(t, "spin"))
	if err != nil {
		t.Fatal(err)
	}
	secs, err := splitSections(bin)
	if err != nil {
		t.Fatal(err)
	}
	var code, globals []byte
	for _, s := range secs {
		switch s.id {
		case 6:
			globals = s.body
		case 10:
			code = s.body
		}
	}
	if typ, err := globalType(globals, goGlobalG); err != nil || typ != 0x7e {
		t.Errorf("global %d has type %#x (%v), want i64: Go's g register moved", goGlobalG, typ, err)
	}
	if n := bytes.Count(code, patStackguard0); n < 100 {
		t.Errorf("%d loads of g.stackguard0 at offset %d, want one per stack check: the g struct changed", n, goOffStackguard0)
	}
	if !bytes.Contains(code, patGM) {
		t.Errorf("no load of g.m at offset %d: the g struct changed", goOffM)
	}
	out, err := rewriteModule(bin, instrumentMode{preempt: true})
	if err != nil {
		t.Fatalf("a Go module was not instrumented for preemption: %v", err)
	}
	if !bytes.Contains(out, []byte(exportPreemptCounter)) || !bytes.Contains(out, []byte(exportG)) {
		t.Error("the preempting module does not export its countdown and g")
	}

	// A module whose stack checks read another offset is refused.
	moved := bytes.ReplaceAll(bin, patStackguard0, []byte{0x23, goGlobalG, 0xa7, 0x28, 0x02, goOffStackguard0 + 8})
	if _, err := rewriteModule(moved, instrumentMode{preempt: true}); err == nil || !strings.Contains(err.Error(), "runtime layout") {
		t.Errorf("a module with the guard at another offset: error %v, want a refusal naming the runtime layout", err)
	}
}

// TestPreemptOffLeavesModulesAlone: a world without preempt runs the module
// exactly as loop ticks alone instrument it.
func TestPreemptOffLeavesModulesAlone(t *testing.T) {
	bin, err := os.ReadFile(buildGuest(t, "spin"))
	if err != nil {
		t.Fatal(err)
	}
	plain, ok := instrumentLoops(bin)
	if !ok {
		t.Fatal("not instrumented")
	}
	if bytes.Contains(plain, []byte(exportPreemptCounter)) {
		t.Error("a module without preempt exports a preemption countdown")
	}
	counting, err := rewriteModule(bin, instrumentMode{preempt: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(counting) <= len(plain) {
		t.Errorf("the counting module (%d bytes) is not larger than the plain one (%d)", len(counting), len(plain))
	}
}

// TestPreemptLoopsBusyLoopFailsOnLiveness: with preempt.loops a workload
// that spins forever without a call parks at the end of every time slice,
// so virtual time passes and the run fails on liveness, not on the
// real-time watchdog.
func TestPreemptLoopsBusyLoopFailsOnLiveness(t *testing.T) {
	spin := buildGuest(t, "spin")
	e, err := New(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	spec := &Spec{
		Nodes:      []NodeSpec{{Name: "spinner", Wasm: spin, Workload: true}},
		DurationNs: int64(50 * time.Millisecond), LatencyNs: [2]int64{1e6, 1e6},
		LivenessWithinNs: int64(50 * time.Millisecond),
		WatchdogNs:       int64(20 * time.Second),
		Preempt:          &Preempt{Strategy: "none", Depth: 3, Steps: 1 << 20, Calls: 4096, Loops: true},
	}
	r, err := e.Run(spec, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusFail || r.Class != ClassLiveness {
		t.Fatalf("%s %s %q, want a liveness failure", r.Status, r.Class, r.Message)
	}
	if r.AtNs < 100*int64(time.Millisecond) {
		t.Errorf("failed at %s of virtual time, want after the 100ms of duration and recovery", time.Duration(r.AtNs))
	}
}

// TestPreemptLoopsLetOtherNodesRun: a node spinning forever without a call
// no longer holds up the world with preempt.loops. It parks at the end of
// each time slice, so the workload's sleeps end and the run passes, where
// without counting the spinner would run into the watchdog.
func TestPreemptLoopsLetOtherNodesRun(t *testing.T) {
	spin, sleeper := buildGuest(t, "spin"), buildGuest(t, "sleeper")
	e, err := New(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	spec := &Spec{
		Nodes: []NodeSpec{
			{Name: "spinner", Wasm: spin},
			{Name: "client", Wasm: sleeper, Args: []string{"-for", "100ms", "-step", "20ms"}, Workload: true},
		},
		DurationNs: int64(10 * time.Second), LatencyNs: [2]int64{1e6, 1e6},
		WatchdogNs: int64(20 * time.Second),
		Preempt:    &Preempt{Strategy: "none", Depth: 3, Steps: 1 << 20, Calls: 4096, Loops: true},
	}
	r, err := e.Run(spec, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusPass {
		t.Fatalf("%s %s %q, want a pass: the client's sleeps should end while the spinner parks", r.Status, r.Class, r.Message)
	}
	if r.AtNs < 100*int64(time.Millisecond) || r.AtNs > 200*int64(time.Millisecond) {
		t.Errorf("passed at %s of virtual time, want the client's 100ms of sleeps plus at most a few slices", time.Duration(r.AtNs))
	}
}
