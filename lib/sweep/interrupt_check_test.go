package sweep

import (
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/runner"
)

// TestInterruptStopsHistoryCheck: engine.Options.Interrupt stops the check
// of a run's history, not only the run: the hardhistory guest records a
// history whose check runs for hours, here with a 10-minute limit and no
// step limit to speak of, and the run ends interrupted, its trace saying it
// was checking. The flag is set after a delay meant to fall in the check; if
// it fell in the run itself (a loaded machine), the delay doubles and the
// run is made again.
func TestInterruptStopsHistoryCheck(t *testing.T) {
	world := limitsWorld(t, map[string]any{
		"workload": map[string]any{"name": "client", "pkg": guestPkg(t, "testdata/guests/hardhistory")},
		"checker":  map[string]any{"model": "kv"},
		"duration": "30s",
		"limits":   map[string]any{"check_steps": 1_000_000_000_000},
	})
	p, err := runner.Prepare(world, config.LoadOptions{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Engine.Close()
	p.Spec.HistoryTimeoutNs = int64(10 * time.Minute)
	for delay := 300 * time.Millisecond; ; delay *= 2 {
		flag := new(atomic.Bool)
		timer := time.AfterFunc(delay, func() { flag.Store(true) })
		type outcome struct {
			r   *engine.Result
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			r, err := p.Engine.Run(p.Spec, 1, engine.Options{Interrupt: flag})
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
		if o.r.Status != engine.StatusInterrupted || len(o.r.Trace) == 0 {
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
