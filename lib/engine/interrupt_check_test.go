package engine

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestInterruptStopsHistoryCheck: Options.Interrupt stops the check of a
// run's history, not only the run: the hardhistory guest records a history
// whose check runs for hours, here with a 10-minute limit and no step limit,
// and the run ends interrupted, its trace saying it was checking. The flag
// is set after a delay meant to fall in the check; if it fell in the run
// itself (a loaded machine), the delay doubles and the run is made again.
func TestInterruptStopsHistoryCheck(t *testing.T) {
	wasm := buildGuest(t, "hardhistory")
	e, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Compile(wasm); err != nil {
		t.Fatal(err)
	}
	spec := &Spec{
		Nodes:      []NodeSpec{{Name: "client", Wasm: wasm, Workload: true}},
		DurationNs: int64(30 * time.Second), LatencyNs: [2]int64{1e6, 1e6},
		CheckerModel: "kv", HistoryTimeoutNs: int64(10 * time.Minute), Limits: Limits{CheckStepsMax: -1},
	}
	for delay := 300 * time.Millisecond; ; delay *= 2 {
		flag := new(atomic.Bool)
		timer := time.AfterFunc(delay, func() { flag.Store(true) })
		type outcome struct {
			r   *Result
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			r, err := e.Run(spec, 1, Options{Interrupt: flag})
			done <- outcome{r, err}
		}()
		var o outcome
		select {
		case o = <-done:
		case <-time.After(delay + time.Minute):
			t.Fatalf("the run went on a minute after the interrupt")
		}
		timer.Stop()
		if o.err != nil {
			t.Fatal(o.err)
		}
		if o.r.Status != StatusInterrupted || len(o.r.Trace) == 0 {
			t.Fatalf("status %s, %d trace lines; want interrupted", o.r.Status, len(o.r.Trace))
		}
		last := o.r.Trace[len(o.r.Trace)-1]
		if strings.Contains(last, "interrupted while checking the history") {
			return
		}
		if delay > 5*time.Second {
			t.Fatalf("interrupted after %s, the run had not reached its check; last trace line %q", delay, last)
		}
	}
}
