package runner

// This file is sf-run -check: every seed runs twice, and two runs that
// differ make the seed nondeterministic.

import (
	"fmt"
	"slices"

	"github.com/sf-dst/sf/lib/engine"
)

// check runs j's seed a second time and compares the run with first, the
// outcome of its first run (and of its watchdog recheck).
func (p *Prepared) check(spec *engine.Spec, j Job, opts engine.Options, first Outcome) Outcome {
	opts2 := opts
	opts2.DivergeAtCall = j.DivergeAtCall
	b, err := p.start(spec, j.Seed, opts2, j.origin())
	if err != nil {
		return Outcome{Err: err}
	}
	a := first.Result
	if a.Status == engine.StatusInterrupted || b.Status == engine.StatusInterrupted {
		return Outcome{Interrupted: true}
	}
	if a.Hash == b.Hash && a.HostCalls == b.HostCalls && slices.Equal(a.Trace, b.Trace) {
		return first
	}
	a.Status = engine.StatusNondeterministic
	a.Class = engine.ClassNondet
	a.Message = "nondeterministic: " + p.diagnose(spec, j.Seed, opts, opts2, a, b)
	a.Node = ""
	a.Trace = append(a.Trace, fmt.Sprintf("%10s  FAIL  %s", "", a.Message))
	return first
}

// diagnose names the first host call where two runs of one seed differ: it
// finds the first window of checkpoints that disagrees and runs the seed
// twice more, recording that window.
func (p *Prepared) diagnose(spec *engine.Spec, seed uint64, oa, ob engine.Options, a, b *engine.Result) string {
	if a.Hash == b.Hash && a.HostCalls == b.HostCalls {
		for i := 0; i < min(len(a.Trace), len(b.Trace)); i++ {
			if a.Trace[i] != b.Trace[i] {
				return fmt.Sprintf("host calls agree but trace line %d differs: %q vs %q", i+1, a.Trace[i], b.Trace[i])
			}
		}
		return fmt.Sprintf("host calls agree but the traces have %d and %d lines", len(a.Trace), len(b.Trace))
	}
	w := engine.FirstDivergence(a.Checkpoints, b.Checkpoints)
	if w < 0 {
		w = len(a.Checkpoints)
	}
	from := uint64(w) * engine.CheckpointEvery
	window := [2]uint64{from, from + engine.CheckpointEvery}
	oa.RecordCalls, ob.RecordCalls = window, window
	ra, err1 := p.start(spec, seed, oa, origin{})
	rb, err2 := p.start(spec, seed, ob, origin{})
	where := fmt.Sprintf("host calls %d-%d", window[0]+1, window[1])
	if err1 != nil || err2 != nil {
		return fmt.Sprintf("the runs differ in %s (the re-runs failed to start)", where)
	}
	if d := engine.DescribeDivergence(from+1, ra.Calls, rb.Calls); d != "" {
		return d + "; " + where
	}
	return fmt.Sprintf("the runs differ in %s, but the re-runs did not reproduce it", where)
}
