package engine

import (
	"strings"
	"testing"
	"time"
)

// TestPreemptLoopsBusyLoopFailsOnLiveness: with preempt.loops a workload
// that spins forever without a call parks at the end of every time slice,
// so virtual time passes and the run fails on liveness, not on the
// real-time watchdog.
func TestPreemptLoopsBusyLoopFailsOnLiveness(t *testing.T) {
	pre := &Preempt{Strategy: "none", Depth: 3, Steps: 1 << 20, Calls: 4096, Loops: true}
	spin := runnable(t, buildRawGuest(t, "spin"), pre)
	e, err := New(testCache())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	spec := &Spec{
		Nodes:      []NodeSpec{{Name: "spinner", Wasm: spin, Workload: true}},
		DurationNs: int64(50 * time.Millisecond), LatencyNs: [2]int64{1e6, 1e6},
		LivenessWithinNs: int64(50 * time.Millisecond),
		WatchdogNs:       int64(20 * time.Second),
		Preempt:          pre,
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
	pre := &Preempt{Strategy: "none", Depth: 3, Steps: 1 << 20, Calls: 4096, Loops: true}
	spin, sleeper := runnable(t, buildRawGuest(t, "spin"), pre), runnable(t, buildRawGuest(t, "sleeper"), pre)
	e, err := New(testCache())
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
		Preempt:    pre,
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

// TestPreemptInsideLeafFunctions runs the leaf guest, whose race window is
// only the call of a frameless function, and whose other goroutines call
// frameless closures and functions with pointer arguments under collections
// and stack growth. Without preemption inside the node the race never
// shows; with it, the goroutine is switched at the entry of the frameless
// function (the check wasmrewrite adds) and the count loses updates, while
// every other result stays right (exit 3 or a crash would say otherwise),
// also with a preemption every 100 counted calls.
func TestPreemptInsideLeafFunctions(t *testing.T) {
	raw := buildRawGuest(t, "leaf")
	e, err := New(testCache())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	run := func(pre *Preempt, seed uint64) *Result {
		t.Helper()
		spec := &Spec{
			Nodes:      []NodeSpec{{Name: "leaf", Wasm: runnable(t, raw, pre), Workload: true}},
			DurationNs: int64(10 * time.Second), LatencyNs: [2]int64{1e6, 1e6},
			WatchdogNs: int64(60 * time.Second),
			Preempt:    pre,
		}
		r, err := e.Run(spec, seed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// Under the race detector each run takes ten times as long, and one
	// run of each strategy that preempts watches the same goroutines.
	if !raceEnabled {
		if r := run(&Preempt{Strategy: "none"}, 1); r.Status != StatusPass {
			t.Errorf("strategy none: %s %s %q, want a pass: nothing preempts inside the node", r.Status, r.Class, r.Message)
		}
	}
	lost := 0
	for seed := uint64(1); seed <= 5 && !(raceEnabled && lost > 0); seed++ {
		r := run(&Preempt{Strategy: "random"}, seed)
		switch {
		case r.Status == StatusPass:
		case r.Class == ClassExit && strings.HasSuffix(r.Message, "exited with status 1"):
			lost++
		default:
			t.Errorf("strategy random, seed %d: %s %s %q, want a pass or the lost updates (status 1)", seed, r.Status, r.Class, r.Message)
		}
	}
	if lost == 0 {
		t.Errorf("strategy random: no seed of 1-5 lost an update: no goroutine was preempted at a frameless function's entry")
	}
	r := run(&Preempt{Strategy: "calls", Calls: 100}, 1)
	if r.Class != ClassExit || !strings.HasSuffix(r.Message, "exited with status 1") {
		t.Errorf("strategy calls every 100: %s %s %q, want the lost updates (status 1) and every other result right", r.Status, r.Class, r.Message)
	}
}

// TestPreemptAtLargeFrames runs the bigframe guest, whose goroutines enter a
// function with a 32 KiB frame on a stack of a few KiB. Go's own check of a
// frame that large wraps around when a preemption is pending (see the
// guest): 4 of these 6 seeds failed with "fatal error: unknown caller pc"
// (memory below the stack overwritten) until wasmrewrite widened the check;
// now they all pass.
func TestPreemptAtLargeFrames(t *testing.T) {
	raw := buildRawGuest(t, "bigframe")
	e, err := New(testCache())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	pre := &Preempt{Strategy: "random"}
	spec := &Spec{
		Nodes:      []NodeSpec{{Name: "bigframe", Wasm: runnable(t, raw, pre), Workload: true}},
		DurationNs: int64(10 * time.Second), LatencyNs: [2]int64{1e6, 1e6},
		WatchdogNs: int64(60 * time.Second),
		Preempt:    pre,
	}
	for seed := uint64(1); seed <= 6; seed++ {
		r, err := e.Run(spec, seed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != StatusPass {
			t.Errorf("seed %d: %s %s %q, want a pass", seed, r.Status, r.Class, r.Message)
		}
	}
}
