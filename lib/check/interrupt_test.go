package check

import (
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
	"time"
)

// TestInterruptListAppend stops the list-append checker at chosen polls of
// its work, from the first to the last, on a history with anomalies (so that
// the cycle search runs too): each stop is ErrInterrupted, and a flag that
// stays unset changes nothing. pollHook makes the point of the stop exact,
// where a timer would race with the check.
func TestInterruptListAppend(t *testing.T) {
	n := 100_000
	if testing.Short() {
		n = 20_000
	}
	ops := genListAppend(n, true, 1)
	want := mustCheck(t, ops, Options{Model: ListAppend})
	if want.Verdict != Illegal {
		t.Fatalf("the generated history with anomalies: %s", want.Summary)
	}

	polls := 0
	pollHook = func() { polls++ }
	t.Cleanup(func() { pollHook = nil })
	got := mustCheck(t, ops, Options{Model: ListAppend, Interrupt: new(atomic.Bool)})
	got.Elapsed = want.Elapsed
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("with an interrupt never set: %+v\nwant %+v", got, want)
	}
	// Each pass polls once a transaction, and the search once an edge.
	if polls < 4*n/pollEvery {
		t.Fatalf("%d polls of the flag for %d transactions", polls, n)
	}

	for _, at := range []int{1, polls / 4, polls / 2, 3 * polls / 4, polls} {
		flag := new(atomic.Bool)
		seen := 0
		pollHook = func() {
			if seen++; seen == at {
				flag.Store(true)
			}
		}
		r, err := Check(ops, Options{Model: ListAppend, Interrupt: flag})
		if !errors.Is(err, ErrInterrupted) || r != nil {
			t.Errorf("interrupted at poll %d of %d: report %v, error %v", at, polls, r, err)
		}
		if seen != at {
			t.Errorf("interrupted at poll %d of %d: it polled %d times, want it to stop at once", at, polls, seen)
		}
	}
}

// TestInterruptLinearizable stops the linearizability search on a history
// it would take hours on, with and without a step limit: the check returns
// ErrInterrupted soon after the flag is set. The test asserts the error;
// the minute it waits only keeps a broken stop from hanging it.
func TestInterruptLinearizable(t *testing.T) {
	for _, steps := range []int64{0, 1 << 40} {
		flag := new(atomic.Bool)
		type result struct {
			r   *Report
			err error
		}
		done := make(chan result, 1)
		go func() {
			r, err := Check(hardHistory(40), Options{Model: "kv", Timeout: -1, MaxSteps: steps, Interrupt: flag})
			done <- result{r, err}
		}()
		time.Sleep(50 * time.Millisecond) // most likely mid-search; anywhere must do
		flag.Store(true)
		select {
		case res := <-done:
			if !errors.Is(res.err, ErrInterrupted) || res.r != nil {
				t.Errorf("max steps %d: report %+v, error %v; want ErrInterrupted", steps, res.r, res.err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("max steps %d: the check went on a minute after the interrupt", steps)
		}
	}
	// Set before the check starts, the interrupt stops it too.
	flag := new(atomic.Bool)
	flag.Store(true)
	if r, err := Check(hardHistory(40), Options{Model: "kv", Timeout: -1, Interrupt: flag}); !errors.Is(err, ErrInterrupted) {
		t.Errorf("interrupted before it started: report %+v, error %v", r, err)
	}
}
