package check

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

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
