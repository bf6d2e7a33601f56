package core

// The baton: the scheduler hands it to one instance at a time and takes it
// back when the instance parks or exits; the watchdog is how it gets it back
// from a guest that never parks.

import (
	"context"
	"fmt"
	"time"
)

// step hands the baton to in and waits until it parks or exits.
func (r *Run) step(in *Instance, watchdog *time.Timer) {
	r.res.Steps++
	if r.res.Steps == r.Opts.PanicAtStep {
		panic("injected invariant failure")
	}
	in.parked = false
	in.exec.stepStart = time.Now()
	in.exec.hold.Store(holdHost)
	in.exec.resume <- cmdRun
	limit := time.Duration(r.Spec.WatchdogNs + watchdogGraceNs)
	for {
		select {
		case m := <-r.exec.back:
			r.handBack(m)
			return
		case <-watchdog.C:
			// The timer runs across steps (see loop): it may have fired
			// for an earlier one.
			if left := limit - time.Since(in.exec.stepStart); left > 0 {
				watchdog.Reset(left)
				continue
			}
			if m, ok := r.takeBaton(in); ok {
				watchdog.Reset(limit)
				r.handBack(m)
				return
			}
			watchdog.Reset(limit)
			r.stopSpinning(in)
			r.fail(in, ClassWatchdog, fmt.Sprintf("%s ran for %s of real time without yielding and could not be stopped (watchdog); its goroutine is abandoned", in.Name, limit))
			in.Node.Cur = nil
			return
		}
	}
}

func (r *Run) handBack(m msg) {
	if m.Kind == msgExited {
		r.exited(m.inst)
	}
}

// batonPollNs is how often the scheduler, once its watchdog timer has
// fired, tries again to take the baton from a guest that is inside a host
// call.
const batonPollNs = int64(time.Millisecond)

// takeBaton takes the baton back from a guest that has held it past the
// watchdog's grace. It returns the guest's message and true if the guest
// handed the baton back meanwhile, or false once the guest is marked
// abandoned while it ran wasm code.
func (r *Run) takeBaton(in *Instance) (msg, bool) {
	for {
		if in.exec.hold.CompareAndSwap(holdWasm, holdAbandoned) {
			return msg{}, false
		}
		select {
		case m := <-r.exec.back:
			return m, true
		case <-time.After(time.Duration(batonPollNs)):
		}
	}
}

// watchdogGraceNs is how much longer than the watchdog the scheduler waits
// before it gives up on a guest that never reaches a loop-head tick (a
// module the instrumentation could not handle): that guest is abandoned.
const watchdogGraceNs = int64(5 * time.Second)

// stopSpinning gives up on a guest that holds the baton and cannot be
// stopped: its goroutine is abandoned, and its module closed so that a host
// call, if it ever makes one, ends it.
func (r *Run) stopSpinning(in *Instance) {
	in.exec.abandoned = true // the scheduler's own record; the guest reads hold
	if in.exec.mod != nil {
		in.exec.mod.CloseWithExitCode(context.Background(), 137)
	}
}

// watchdogTick runs in the guest's own goroutine at the loop ticks the
// instrumentation adds (and at Go's own sched_yield calls): a guest that has
// run longer than the watchdog without yielding is stopped there.
func (in *Instance) WatchdogTick(ctx context.Context) {
	r := in.Run
	if time.Since(in.exec.stepStart) <= time.Duration(r.Spec.WatchdogNs) {
		return
	}
	in.FailRun(ctx, ClassWatchdog, fmt.Sprintf("ran for %s of real time without yielding (watchdog)", time.Duration(r.Spec.WatchdogNs)))
}
