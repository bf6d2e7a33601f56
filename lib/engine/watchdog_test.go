package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func buildGuest(t testing.TB, name string) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain")
	}
	out := filepath.Join(t.TempDir(), name+".wasm")
	cmd := exec.Command(goCmd, "build", "-trimpath", "-o", out, "./testdata/guests/"+name)
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", name, err, b)
	}
	return out
}

// TestWatchdogStopsSpinningGuests runs several busy-looping guests at once,
// more than there are CPUs. Compiled wasm cannot be preempted, so without
// the loop ticks added at compile time these would hold every thread and
// hang the process; with them each is stopped and reported.
func TestWatchdogStopsSpinningGuests(t *testing.T) {
	spin := buildGuest(t, "spin")
	sleeper := buildGuest(t, "sleeper")
	e, err := New(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	spec := &Spec{
		Nodes: []NodeSpec{
			{Name: "spinner", Wasm: spin},
			{Name: "client", Wasm: sleeper, Workload: true},
		},
		DurationNs: int64(10 * time.Second), LatencyNs: [2]int64{1e6, 1e6},
		WatchdogNs: int64(300 * time.Millisecond),
	}
	start := time.Now()
	var wg sync.WaitGroup
	results := make([]*Result, 4)
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
	for i, r := range results {
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
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("four watchdog runs took %s", took)
	}
}

// TestGoModulesAreInstrumented guards against the rewriter silently giving
// up on what Go emits, which would leave the watchdog only able to abandon
// spinning guests.
func TestGoModulesAreInstrumented(t *testing.T) {
	bin, err := os.ReadFile(buildGuest(t, "spin"))
	if err != nil {
		t.Fatal(err)
	}
	out, ok := instrumentLoops(bin)
	if !ok {
		t.Fatal("a Go wasip1 module was not instrumented")
	}
	if len(out) <= len(bin) {
		t.Fatalf("instrumented module is not larger: %d vs %d bytes", len(out), len(bin))
	}
}
