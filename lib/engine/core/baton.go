package core

// The baton: the scheduler hands it to one instance at a time and takes it
// back when the instance parks or exits; the watchdog is how it gets it back
// from a guest that never parks.

import (
	"context"
	"fmt"
	"iter"
	"time"
)

// Each instance's guest runs in a coroutine (iter.Pull), and one goroutine
// per run, the driver, resumes them: an instance that parks and hands the
// baton on to another yields that instance, and the driver resumes it, two
// direct switches between goroutines where a channel's handoff went through
// Go's scheduler and woke an idle processor each time (docs/perf.md). The
// scheduler's goroutine stays apart from the driver, so that its watchdog
// can give up on a guest that never yields.

// driveReq asks the driver to resume in with c.
type driveReq struct {
	in *Instance
	c  cmd
}

// newCoroutine makes in's coroutine, which main's first resume starts.
func (in *Instance) newCoroutine() {
	in.exec.next, _ = iter.Pull(func(yield func(*Instance) bool) {
		in.exec.yield = yield
		in.main()
	})
}

// startDriver starts the run's driver. stopDriver ends it once every
// instance has exited or been abandoned.
func (r *Run) startDriver() {
	reqs := make(chan driveReq)
	r.exec.drive = reqs
	go r.driver(reqs)
}

func (r *Run) stopDriver() {
	if r.exec.drive != nil {
		close(r.exec.drive)
		r.exec.drive = nil
	}
}

// driver resumes the instance of each request, and the instances it hands
// the baton on to, until one hands it back or exits; it tells the scheduler
// which. It returns when reqs is closed, or when the guest it resumed
// ended after the scheduler abandoned it: a new driver serves the run by
// then (stopSpinning).
func (r *Run) driver(reqs <-chan driveReq) {
	for req := range reqs {
		in, c := req.in, req.c
		for in != nil {
			in.exec.cmd = c
			next, ok := in.exec.next()
			switch {
			case !ok && in.exec.gone:
				return
			case !ok:
				r.exec.back <- msg{Kind: msgExited, inst: in}
				in = nil
			case next == nil:
				r.exec.back <- msg{Kind: msgParked, inst: in}
				in = nil
			default:
				in, c = next, cmdRun
			}
		}
	}
}

// beginStep gives in the baton for the next step. The scheduler's goroutine
// calls it, or the goroutine of a parking instance that hands the baton on
// itself (handOn). now is the time since monoBase a turn taken inline read
// already, or 0 for one read here: every step makes one read of the
// monotonic clock (time.Now reads the wall clock too).
func (r *Run) beginStep(in *Instance, now time.Duration) {
	r.res.Steps++
	if r.res.Steps == r.Opts.PanicAtStep {
		panic("injected invariant failure")
	}
	in.parked = false
	if now == 0 {
		now = time.Since(monoBase)
	}
	in.exec.stepStart = now
	r.exec.cur.Store(in)
	r.exec.curStart.Store(int64(now))
	in.exec.hold.Store(holdHost)
}

// monoBase is where the step start times in runExec count from.
var monoBase = time.Now()

// stepElapsed is how long, in real time, the current step has run.
func (r *Run) stepElapsed() time.Duration {
	return time.Since(monoBase) - time.Duration(r.exec.curStart.Load())
}

// step hands the baton to in, whose step turns began, and waits until an
// instance hands it back: in, or another that in (or one after it) handed
// it on to directly.
func (r *Run) step(in *Instance, watchdog *time.Timer) {
	r.exec.drive <- driveReq{in, cmdRun}
	limit := time.Duration(r.Spec.WatchdogNs + watchdogGraceNs)
	for {
		select {
		case m := <-r.exec.back:
			r.handBack(m)
			return
		case <-watchdog.C:
		}
		// The timer runs across steps (see loop): it may have fired for
		// an earlier one.
		if left := limit - r.stepElapsed(); left > 0 {
			watchdog.Reset(left)
			continue
		}
		cur := r.exec.cur.Load()
		if !cur.exec.hold.CompareAndSwap(holdWasm, holdAbandoned) {
			// Inside a host call: it is about to return to wasm or hand
			// the baton back. Try again shortly.
			watchdog.Reset(time.Duration(batonPollNs))
			continue
		}
		watchdog.Reset(limit)
		r.stopSpinning(cur)
		r.fail(cur, ClassWatchdog, fmt.Sprintf("%s ran for %s of real time without yielding and could not be stopped (watchdog); its goroutine is abandoned", cur.Name, limit))
		cur.Node.Cur = nil
		return
	}
}

func (r *Run) handBack(m msg) {
	if m.Kind == msgExited {
		r.exited(m.inst)
	}
}

// batonPollNs is how often the scheduler, once the watchdog's limit has
// passed, tries again to take the baton from a guest that is inside a host
// call.
const batonPollNs = int64(time.Millisecond)

// handOn is, for an instance about to park, the scheduler's next turns
// (turns, inline) as long as all they do is move virtual time and the
// network on and pick an instance to step: it returns that instance with its
// step begun, so that the baton goes to it without a round trip through the
// scheduler's goroutine (or, when it is the parking instance itself,
// without any). At the first turn that would do anything else (start or
// kill a node, apply a fault, take a snapshot, end the run) it returns nil
// and leaves that turn to the scheduler. The round trips through the
// scheduler's goroutine were about 15% of sf's own CPU in kvlog
// (docs/perf.md).
func (r *Run) handOn() *Instance { return r.turns(true) }

// afterHandOn, when set (by a test), sees every baton a parking instance
// handed on: to next, which may be itself.
var afterHandOn func(parked, next *Instance)

// plainTurn reports whether a turn starting at now (since monoBase) would
// at most pick an instance to step. A step that has run half the watchdog's
// limit is handed back: the scheduler, when its timer finds a step past the
// limit, takes the baton from whichever instance holds it, and must not find
// there a step begun since it looked.
func (r *Run) plainTurn(now time.Duration) bool {
	o := &r.Opts
	switch {
	case o.SnapshotAt > 0, o.Restore != nil, o.AtStep != nil, o.PanicAtStep != 0,
		o.Interrupt != nil && o.Interrupt.Load(),
		r.branchBy(r.Now),
		r.res.Steps >= uint64(r.limits.StepsMax),
		now-time.Duration(r.exec.curStart.Load()) >= time.Duration(r.Spec.WatchdogNs+watchdogGraceNs)/2:
		return false
	}
	return true
}

// plainAdvance reports whether moving virtual time on to next, the next
// event, would at most deliver the network's packets and end lasting
// network faults: no stop, horizon, branch, planned fault or restart comes
// by then.
func (r *Run) plainAdvance(next int64) bool {
	at := max(next, r.Now)
	if stop := r.Opts.StopAtNs; stop > 0 && next > stop && stop < r.horizon {
		return false
	}
	if next >= r.horizon || r.branchBy(at) {
		return false
	}
	if f, ok := r.planner.Peek(); ok && int64(f.At) <= at {
		return false
	}
	for _, n := range r.Nodes {
		if n.Cur == nil && !n.done && n.restartAt <= at {
			return false
		}
	}
	return true
}

// branchBy reports whether a branch of Options.Branches is due by t.
func (r *Run) branchBy(t int64) bool {
	return r.nextBranch < len(r.Opts.Branches) && int64(r.Opts.Branches[r.nextBranch].At) <= t
}

// readyInstances appends the instances that can run now to ready.
func (r *Run) readyInstances(ready []*Instance) []*Instance {
	for _, n := range r.Nodes {
		if in := n.Cur; in != nil && in.runnable() {
			ready = append(ready, in)
		}
	}
	return ready
}

// pickReady draws the instance to step from ready, or returns nil if it is
// empty.
func (r *Run) pickReady(ready []*Instance) *Instance {
	switch len(ready) {
	case 0:
		return nil
	case 1:
		return ready[0]
	}
	return ready[r.sched.Intn(len(ready))]
}

// watchdogGraceNs is how much longer than the watchdog the scheduler waits
// before it gives up on a guest that never reaches a loop-head tick (a
// module the instrumentation could not handle): that guest is abandoned.
const watchdogGraceNs = int64(5 * time.Second)

// stopSpinning gives up on a guest that holds the baton and cannot be
// stopped: its goroutine is abandoned, and its module closed so that a host
// call, if it ever makes one, ends it. The guest may go on writing to its
// memory, through an address wazero's compiled code keeps: the memory must
// never serve another guest, so it is left to the guest (abandonMemory).
func (r *Run) stopSpinning(in *Instance) {
	in.exec.abandoned = true // the scheduler's own record; the guest reads hold
	// The driver is inside the guest's coroutine, and may never come out:
	// a new one serves the rest of the run.
	r.startDriver()
	if m, ok := in.exec.mem.(interface{ abandon() }); ok {
		m.abandon()
	}
	if in.exec.mod != nil {
		in.exec.mod.CloseWithExitCode(context.Background(), 137)
	}
}

// watchdogTick runs in the guest's own goroutine at the loop ticks the
// instrumentation adds (and at Go's own sched_yield calls): a guest that has
// run longer than the watchdog without yielding is stopped there.
func (in *Instance) WatchdogTick(ctx context.Context) {
	r := in.Run
	if time.Since(monoBase)-in.exec.stepStart <= time.Duration(r.Spec.WatchdogNs) {
		return
	}
	in.FailRun(ctx, ClassWatchdog, fmt.Sprintf("ran for %s of real time without yielding (watchdog)", time.Duration(r.Spec.WatchdogNs)))
}
