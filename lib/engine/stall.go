package engine

// RecheckWatchdog takes the result of a run of seed and, when that run failed
// on the real-time watchdog, runs the seed once more. The watchdog counts real
// time, so a host that stopped the process for a while (swapping, a suspended
// VM, a starved CI runner) trips it just as a spinning program does; a spinning
// program trips it again, a host stall rarely strikes twice. It returns the
// result to report and whether the first failure was a host stall: the second
// run did not fail on the watchdog, so the seed counts as that run came out.
// A second run that errors leaves the first result standing.
func (e *Engine) RecheckWatchdog(spec *Spec, seed uint64, opts Options, first *Result) (*Result, bool) {
	if first == nil || first.Status != StatusFail || first.Class != ClassWatchdog {
		return first, false
	}
	again, err := e.Run(spec, seed, opts)
	if err != nil || again.Status == StatusFail && again.Class == ClassWatchdog {
		return first, false
	}
	return again, true
}
