package engine

import (
	"runtime"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/faults"
)

// TestRunsLeaveNoGoroutines: every guest runs in a coroutine that a driver
// goroutine per run resumes; crashes end some guests inside a host call,
// restarts make new ones, and the run's end kills the rest. After the runs,
// none of those goroutines, and no driver, is left.
func TestRunsLeaveNoGoroutines(t *testing.T) {
	spec := crashingGrower(t, time.Second)
	e, err := New(testCache())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Run(spec, 1, Options{}); err != nil { // compiles outside the count
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	restarts := 0
	for seed := uint64(2); seed <= 4; seed++ {
		res, err := e.Run(spec, seed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Faults {
			if f.Kind == faults.KindCrash {
				restarts++
			}
		}
	}
	if restarts < 3 {
		t.Fatalf("%d crashes over three seeds: the test needs guests that end inside a host call", restarts)
	}
	// A goroutine that has returned may take a moment to be gone.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after three runs, %d before them:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}
