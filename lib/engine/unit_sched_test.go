package engine_test

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/build"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/faults"
	"github.com/sf-dst/sf/lib/wasmrewrite"
)

// unitTimersSetup builds testdata/guests/timers for wasip1 into a temporary
// folder and returns an engine to run it, or skips the test when there is no
// go toolchain.
func unitTimersSetup(t *testing.T) (*engine.Engine, string) {
	t.Helper()
	wasm := prepared(t, engine.BuildSharedForTest(t, "./testdata/guests/timers", "-trimpath", "-buildvcs=false"))
	e, err := engine.New(engine.SharedCacheForTest())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, wasm
}

// TestTimersGuest runs the timers guest, built once, through the scheduler.
func TestTimersGuest(t *testing.T) {
	e, wasm := unitTimersSetup(t)
	t.Run("wake in order at exact virtual times", func(t *testing.T) { unitTimersExact(t, e, wasm) })
	t.Run("same seed same trace and hash", func(t *testing.T) { unitTimersDeterministic(t, e, wasm) })
	t.Run("crash and restart", func(t *testing.T) { unitTimersCrash(t, e, wasm) })
	t.Run("time horizon", func(t *testing.T) { unitTimersHorizon(t, e, wasm) })
	t.Run("zero watchdog", func(t *testing.T) { unitTimersZeroWatchdog(t, e, wasm) })
}

// unitGuestLines returns the trace lines a node printed, with their virtual
// time, as "0.250s woke ...".
func unitGuestLines(trace []string, inst string) []string {
	var out []string
	for _, l := range trace {
		f := strings.Fields(l)
		if len(f) >= 2 && f[1] == inst+":" {
			out = append(out, f[0]+" "+strings.Join(f[2:], " "))
		}
	}
	return out
}

func unitTimersExact(t *testing.T, e *engine.Engine, wasm string) {
	spec := &engine.Spec{
		Nodes: []engine.NodeSpec{{
			Name: "timers", Wasm: wasm, Workload: true,
			Args: []string{"250ms", "100.000001ms", "1s", "10ms", "1.5ms", "100ms", "0s"},
		}},
		DurationNs: int64(10 * time.Second),
		LatencyNs:  [2]int64{1e6, 5e6},
		WatchdogNs: int64(10 * time.Second),
	}
	res, err := e.Run(spec, 1, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != engine.StatusPass {
		t.Fatalf("status %s (%s: %s)\n%s", res.Status, res.Class, res.Message, strings.Join(res.Trace, "\n"))
	}
	got := unitGuestLines(res.Trace, "timers#1")
	// Timers wake on the 50µs grid of the timer granularity: every time
	// asked for here is on it but 100.000001ms, which wakes at 100.05ms.
	want := []string{
		"0.000s woke 6 after 0s: since start 0s",
		"0.001s woke 4 after 1.5ms: since start 1.5ms",
		"0.010s woke 3 after 10ms: since start 10ms",
		"0.100s woke 5 after 100ms: since start 100ms",
		"0.100s woke 1 after 100.000001ms: since start 100.05ms",
		"0.250s woke 0 after 250ms: since start 250ms",
		"1.000s woke 2 after 1s: since start 1s",
		"1.000s done: since start 1s, wall 1s",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("guest output:\n  %s\nwant:\n  %s\nfull trace:\n%s", strings.Join(got, "\n  "), strings.Join(want, "\n  "), strings.Join(res.Trace, "\n"))
	}
	if res.AtNs != int64(time.Second) {
		t.Errorf("run ended at %d ns of virtual time, want exactly 1s (the last wake)", res.AtNs)
	}
	if res.Steps == 0 || res.HostCalls == 0 {
		t.Errorf("steps %d, host calls %d", res.Steps, res.HostCalls)
	}
}

func unitTimersDeterministic(t *testing.T, e *engine.Engine, wasm string) {
	// Two nodes wake at the same instants, so the seed's sched stream
	// decides who runs first.
	spec := &engine.Spec{
		Nodes: []engine.NodeSpec{
			{Name: "a", Wasm: wasm, Workload: true, Args: []string{"30ms", "10ms", "20ms", "10ms"}},
			{Name: "b", Wasm: wasm, Workload: true, Args: []string{"10ms", "20ms", "30ms", "20ms"}},
		},
		DurationNs: int64(10 * time.Second),
		LatencyNs:  [2]int64{1e6, 5e6},
		WatchdogNs: int64(10 * time.Second),
	}
	type outcome struct {
		trace []string
		hash  uint64
		ckpts []uint64
		steps uint64
		calls uint64
	}
	runs := map[uint64]outcome{}
	for _, seed := range []uint64{7, 7, 8, 9, 10} {
		res, err := e.Run(spec, seed, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != engine.StatusPass {
			t.Fatalf("seed %d: status %s (%s)", seed, res.Status, res.Message)
		}
		o := outcome{res.Trace, res.Hash, res.Checkpoints, res.Steps, res.HostCalls}
		if prev, ok := runs[seed]; ok {
			if !reflect.DeepEqual(prev, o) {
				t.Fatalf("seed %d twice: traces or hashes differ\nfirst (hash %#x):\n%s\nsecond (hash %#x):\n%s",
					seed, prev.hash, strings.Join(prev.trace, "\n"), o.hash, strings.Join(o.trace, "\n"))
			}
			continue
		}
		runs[seed] = o
		// Whatever the interleaving, each node sees exact times.
		for _, node := range []string{"a#1", "b#1"} {
			for _, l := range unitGuestLines(res.Trace, node) {
				at, rest, _ := strings.Cut(l, " ")
				if !strings.HasPrefix(rest, "woke") {
					continue
				}
				_, since, _ := strings.Cut(rest, "since start ")
				d, err := time.ParseDuration(since)
				if err != nil || fmt.Sprintf("%d.%03ds", d/time.Second, (d%time.Second)/time.Millisecond) != at {
					t.Errorf("seed %d: %s printed %q at %s", seed, node, rest, at)
				}
			}
		}
	}
	// Different seeds interleave the nodes differently at shared instants,
	// and the hash reflects the interleaving: seeds whose traces differ
	// must not share a hash.
	distinct := map[string]bool{}
	for s1, o1 := range runs {
		distinct[strings.Join(o1.trace, "\n")] = true
		for s2, o2 := range runs {
			if s1 < s2 && !reflect.DeepEqual(o1.trace, o2.trace) && o1.hash == o2.hash {
				t.Errorf("seeds %d and %d: different traces, same hash %#x", s1, s2, o1.hash)
			}
		}
	}
	if len(distinct) < 2 {
		t.Errorf("seeds 7 to 10 all interleave the two nodes the same way: the sched stream decides nothing")
	}

	// Runs of one seed on parallel workers agree with the sequential run.
	want := runs[7]
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := e.Run(spec, 7, engine.Options{})
			if err != nil {
				errs <- err.Error()
				return
			}
			if got := (outcome{res.Trace, res.Hash, res.Checkpoints, res.Steps, res.HostCalls}); !reflect.DeepEqual(got, want) {
				errs <- fmt.Sprintf("parallel run of seed 7: hash %#x, want %#x\n%s", got.hash, want.hash, strings.Join(got.trace, "\n"))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func unitTimersCrash(t *testing.T, e *engine.Engine, wasm string) {
	spec := &engine.Spec{
		Nodes: []engine.NodeSpec{
			{Name: "srv", Wasm: wasm, Args: []string{"1s", "2s"}},
			{Name: "client", Wasm: wasm, Workload: true, Args: []string{"3s"}},
		},
		DurationNs: int64(10 * time.Second),
		LatencyNs:  [2]int64{1e6, 5e6},
		WatchdogNs: int64(10 * time.Second),
		Kinds:      faults.Values{"restart_after": [2]int64{1e7, 1e9}},
	}
	faults := []engine.Fault{{At: engine.Dur(500 * time.Millisecond), Kind: engine.KindCrash, Node: "srv", Until: engine.Dur(700 * time.Millisecond)}}
	res, err := e.Run(spec, 3, engine.Options{Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != engine.StatusPass {
		t.Fatalf("status %s (%s)\n%s", res.Status, res.Message, strings.Join(res.Trace, "\n"))
	}
	if !reflect.DeepEqual(res.Faults, faults) {
		t.Errorf("faults fired: %+v, want %+v", res.Faults, faults)
	}
	var got []string
	for _, l := range res.Trace {
		f := strings.Fields(l)
		if len(f) >= 2 && (strings.HasPrefix(f[1], "srv#") || f[1] == "fault" || f[1] == "restart") {
			got = append(got, strings.Join(f, " "))
		}
	}
	want := []string{
		"0.500s fault crash srv#1, restart at 0.700s",
		"0.700s restart srv#2",
		"1.700s srv#2: woke 0 after 1s: since start 1s",
		"2.700s srv#2: woke 1 after 2s: since start 2s",
		"2.700s srv#2: done: since start 2s, wall 2s",
		"2.700s srv#2 exited 0",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("srv's lines:\n  %s\nwant:\n  %s\nfull trace:\n%s", strings.Join(got, "\n  "), strings.Join(want, "\n  "), strings.Join(res.Trace, "\n"))
	}
	if res.AtNs != int64(3*time.Second) {
		t.Errorf("run ended at %d, want 3s (when the client's only sleep ends)", res.AtNs)
	}
}

func unitTimersHorizon(t *testing.T, e *engine.Engine, wasm string) {
	spec := &engine.Spec{
		Nodes:      []engine.NodeSpec{{Name: "slow", Wasm: wasm, Workload: true, Args: []string{"1s", "1h"}}},
		DurationNs: int64(2 * time.Second),
		LatencyNs:  [2]int64{1e6, 5e6},
		WatchdogNs: int64(10 * time.Second),
	}
	res, err := e.Run(spec, 1, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != engine.StatusHorizon || res.AtNs != int64(2*time.Second) {
		t.Fatalf("status %s at %d, want horizon at 2s", res.Status, res.AtNs)
	}
	if last := res.Trace[len(res.Trace)-1]; !strings.HasSuffix(last, "hit the time horizon") || !strings.HasPrefix(strings.TrimSpace(last), "2.000s") {
		t.Fatalf("last trace line %q", last)
	}
	if got := unitGuestLines(res.Trace, "slow#1"); !reflect.DeepEqual(got, []string{"1.000s woke 0 after 1s: since start 1s"}) {
		t.Fatalf("guest output %q", got)
	}
}

// unitTimersZeroWatchdog: a Spec whose WatchdogNs is left at 0 must either
// be rejected by Run or run with some watchdog; it must not blame the guest
// for running "0s of real time without yielding".
func unitTimersZeroWatchdog(t *testing.T, e *engine.Engine, wasm string) {
	spec := &engine.Spec{
		Nodes:      []engine.NodeSpec{{Name: "t", Wasm: wasm, Workload: true, Args: []string{"30ms"}}},
		DurationNs: int64(time.Second),
		LatencyNs:  [2]int64{1e6, 5e6},
	}
	res, err := e.Run(spec, 1, engine.Options{})
	if err != nil {
		return // rejected: fine
	}
	if res.Status == engine.StatusFail && res.Class == engine.ClassWatchdog {
		t.Fatalf("regression: engine.Spec{WatchdogNs: 0} fails every run at its first step: %q "+
			"(Run neither rejects the zero value nor defaults it)", res.Message)
	}
	if res.Status != engine.StatusPass {
		t.Fatalf("status %s (%s)", res.Status, res.Message)
	}
}

// prepared is the module at wasm as the build side prepares it for a world
// without preemption (build.Runnable).
func prepared(t testing.TB, wasm string) string {
	t.Helper()
	out, err := build.Runnable(wasm, wasmrewrite.Mode{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
