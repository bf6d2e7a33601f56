package core

import (
	"context"
	"fmt"
	"time"
)

// ClassLimit is a run that reached one of its Limits: the program did more
// than a run allows (steps without end, an endless trace, descriptors
// without end), so no verdict about it can be given.
const ClassLimit = "limit"

// Default limits of a run, used where Limits leaves a field 0. Each is far
// above what any example reaches; RATIONALE.md gives the measurements.
const (
	// DefaultStepsMax bounds the scheduler steps of one run: at 0.5-1 µs
	// a step, some 5-10 s of scheduling.
	DefaultStepsMax = 10_000_000
	// DefaultTraceBytesMax bounds the trace a run keeps in memory, the
	// programs' stdout and stderr lines included.
	DefaultTraceBytesMax = 64 << 20
	// DefaultFDsMax bounds the descriptors one node instance has open at
	// once, as Linux's default soft RLIMIT_NOFILE does.
	DefaultFDsMax = 1024
	// DefaultCheckStepsMax bounds the model steps the history check may
	// take per key (check.Options.MaxSteps), so that giving up depends on
	// the history and not on the host's speed.
	DefaultCheckStepsMax = 2_000_000
)

// TimerSlackNs is the granularity of guest timers: a clock subscription of
// poll_oneoff wakes the node at the first multiple of it at or after the
// time asked for. It is Linux's default timer slack. Without it a program
// that polls with time.Sleep(time.Nanosecond) would take one scheduler step
// per nanosecond of virtual time.
const TimerSlackNs = int64(50 * time.Microsecond)

// Limits bound one run. A run that reaches one fails with class limit and a
// message that names the world file's field to raise.
type Limits struct {
	// StepsMax caps the scheduler steps of the run. Defaults to
	// DefaultStepsMax.
	StepsMax int64
	// TraceBytesMax caps the bytes of the run's trace. Defaults to
	// DefaultTraceBytesMax.
	TraceBytesMax int64
	// FDsMax caps the descriptors a node instance has open at once,
	// stdin, stdout, stderr and the preopened root included. Defaults to
	// DefaultFDsMax.
	FDsMax int64
	// CheckStepsMax caps the model steps per key of the history check.
	// Defaults to DefaultCheckStepsMax; a negative value means no cap, and
	// only the real-time limit HistoryTimeoutNs applies.
	CheckStepsMax int64
}

// withDefaults fills in the fields left 0.
func (l Limits) withDefaults() Limits {
	if l.StepsMax <= 0 {
		l.StepsMax = DefaultStepsMax
	}
	if l.TraceBytesMax <= 0 {
		l.TraceBytesMax = DefaultTraceBytesMax
	}
	if l.FDsMax <= 0 {
		l.FDsMax = DefaultFDsMax
	}
	if l.CheckStepsMax == 0 {
		l.CheckStepsMax = DefaultCheckStepsMax
	}
	return l
}

// timerAt rounds the wake-up time d of a timer up to the timer granularity.
// A time already due is left alone: a poll must not wait.
func (r *Run) TimerAt(d int64) int64 {
	if d <= r.Now || d > maxTime-TimerSlackNs {
		return d
	}
	if rem := d % TimerSlackNs; rem != 0 {
		d += TimerSlackNs - rem
	}
	return d
}

// overSteps fails the run once it has taken its last allowed step.
func (r *Run) overSteps() bool {
	if r.res.Steps < uint64(r.limits.StepsMax) {
		return false
	}
	r.fail(nil, ClassLimit, fmt.Sprintf("limit: the run took %d scheduler steps and reached only %s of virtual time (limits.steps); a program that never lets time pass, such as two nodes that answer each other at zero latency, looks like this; raise limits.steps in the world file if it needs more",
		r.res.Steps, fmtTime(r.Now)))
	return true
}

// traceLimit counts a trace line of n bytes and fails the run once the trace
// passes its limit. The failure's own line is still kept.
func (r *Run) traceLimit(n int) {
	r.traceBytes += int64(n) + 1
	if r.traceBytes <= r.limits.TraceBytesMax || r.traceFull {
		return
	}
	r.traceFull = true
	r.fail(nil, ClassLimit, fmt.Sprintf("limit: the trace passed %d bytes (limits.trace_bytes), most of it what the programs wrote to stdout and stderr; raise limits.trace_bytes in the world file if they need to write more", r.limits.TraceBytesMax))
}

// fdLimit fails the run when in is about to hold more descriptors than the
// limit allows.
func (in *Instance) fdLimit(next int) {
	if int64(next) < in.Run.limits.FDsMax {
		return
	}
	r := in.Run
	r.fail(in, ClassLimit, fmt.Sprintf("limit: %s opened more than %d descriptors at once (limits.fds); raise limits.fds in the world file if it needs more", in.Name, r.limits.FDsMax))
}

// stopAtLimit ends the guest of a host call during which the run reached a
// limit, so that a guest that writes or opens without end, and never parks,
// stops at once.
func (in *Instance) stopAtLimit(ctx context.Context) {
	if r := in.Run; r.ended && r.res.Class == ClassLimit && !in.failed {
		in.failed = true
		in.Stop(ctx, 1)
	}
}
