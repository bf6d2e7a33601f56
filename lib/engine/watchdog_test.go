package engine

import (
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/build"
	"github.com/sf-dst/sf/lib/wasmrewrite"
)

// buildGuest builds the test guest name for wasip1 and prepares it as sf
// runs it, without preemption.
func buildGuest(t testing.TB, name string) string {
	t.Helper()
	return runnable(t, buildRawGuest(t, name), nil)
}

// runnable prepares the module at wasm as the build side does for a world
// with the preemption settings p (nil for none).
func runnable(t testing.TB, wasm string, p *Preempt) string {
	t.Helper()
	var mode wasmrewrite.Mode
	if p != nil {
		mode = wasmrewrite.Mode{Preempt: true, Loops: p.Loops}
	}
	out, err := build.Runnable(wasm, mode)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// buildRawGuest builds the test guest name for wasip1, as Go emits it.
func buildRawGuest(t testing.TB, name string) string {
	t.Helper()
	return buildShared(t, "./testdata/guests/"+name, "-trimpath")
}

// TestWatchdogStopsSpinningGuests runs several busy-looping guests at once,
// more than there are CPUs. Compiled wasm cannot be preempted, so without
// the loop ticks added at compile time these would hold every thread and
// hang the process; with them each is stopped and reported. The test
// asserts only the outcome: how long the runs take depends on the machine
// and on -race, and BenchmarkWatchdog measures it.
func TestWatchdogStopsSpinningGuests(t *testing.T) {
	e, spec := watchdogWorld(t)
	for i, r := range runWatchdogWorld(t, e, spec, 4) {
		if r == nil {
			continue
		}
		if r.Status != StatusFail || r.Class != ClassWatchdog || r.Node != "spinner#1" {
			t.Errorf("seed %d: %s %s %s %q, want a watchdog failure of spinner#1", i+1, r.Status, r.Class, r.Node, r.Message)
		}
		if !strings.Contains(r.Message, "without yielding (watchdog)") || strings.Contains(r.Message, "abandoned") {
			t.Errorf("seed %d: message %q", i+1, r.Message)
		}
	}
}

// BenchmarkWatchdog reports how long four spinning guests run side by side
// take to be stopped, with a 300ms watchdog: about the watchdog itself, not
// the grace the scheduler adds before it abandons a guest.
func BenchmarkWatchdog(b *testing.B) {
	e, spec := watchdogWorld(b)
	b.ResetTimer()
	for range b.N {
		runWatchdogWorld(b, e, spec, 4)
	}
}

func watchdogWorld(t testing.TB) (*Engine, *Spec) {
	spin := buildGuest(t, "spin")
	sleeper := buildGuest(t, "sleeper")
	e, err := New(testCache())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	spec := &Spec{
		Nodes: []NodeSpec{
			{Name: "spinner", Wasm: spin},
			{Name: "client", Wasm: sleeper, Workload: true},
		},
		DurationNs: int64(10 * time.Second), LatencyNs: [2]int64{1e6, 1e6},
		WatchdogNs: int64(300 * time.Millisecond),
	}
	return e, spec
}

// runWatchdogWorld runs seeds 1 to n of spec at once and returns their
// results; a run that returned an error is reported and left nil.
func runWatchdogWorld(t testing.TB, e *Engine, spec *Spec, n int) []*Result {
	var wg sync.WaitGroup
	results := make([]*Result, n)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := e.Run(spec, uint64(i+1), Options{})
			if err != nil {
				t.Error(err)
				return
			}
			results[i] = r
		}()
	}
	wg.Wait()
	return results
}

// TestGoModulesAreInstrumented guards against the rewriter silently giving
// up on what Go emits, which would leave the watchdog only able to abandon
// spinning guests.
func TestGoModulesAreInstrumented(t *testing.T) {
	bin, err := os.ReadFile(buildRawGuest(t, "spin"))
	if err != nil {
		t.Fatal(err)
	}
	out, ok := wasmrewrite.InstrumentLoops(bin)
	if !ok {
		t.Fatal("a Go wasip1 module was not instrumented")
	}
	if len(out) <= len(bin) {
		t.Fatalf("instrumented module is not larger: %d vs %d bytes", len(out), len(bin))
	}
}

// TestWatchdogAbandonsUninstrumentedGuest runs a spinning guest without the
// loop ticks, which only the scheduler's own timer can catch: past the
// watchdog and its grace it takes the baton from whichever instance holds
// it (instances hand it on among themselves) and abandons the guest. The
// guest spins a finite count, well past the grace on any machine, so that
// its abandoned goroutine ends some time after the test.
func TestWatchdogAbandonsUninstrumentedGuest(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the watchdog's grace of 5s")
	}
	spin := buildRawGuest(t, "spin")
	sleeper := buildGuest(t, "sleeper")
	e, err := New(testCache())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	spec := &Spec{
		Nodes: []NodeSpec{
			{Name: "client", Wasm: sleeper, Workload: true},
			{Name: "spinner", Wasm: spin, Args: []string{"20000000000"}},
		},
		DurationNs: int64(10 * time.Second), LatencyNs: [2]int64{1e6, 1e6},
		WatchdogNs: int64(100 * time.Millisecond),
	}
	r, err := e.Run(spec, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusFail || r.Class != ClassWatchdog || r.Node != "spinner#1" {
		t.Fatalf("%s %s %s %q, want a watchdog failure of spinner#1", r.Status, r.Class, r.Node, r.Message)
	}
	if !strings.Contains(r.Message, "could not be stopped") || !strings.Contains(r.Message, "abandoned") {
		t.Errorf("message %q", r.Message)
	}
}
