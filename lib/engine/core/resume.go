package core

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tetratelabs/wazero/api"

	"github.com/sf-dst/sf/lib/faults"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/wasmrewrite"
)

// Resume continues the world f was taken from, in mods's runtime, from the
// step where it was taken, and returns the whole run's result: its trace,
// hash, faults and verdict are those the run would have had if it had
// never been forked. The seed, the world and the options that shaped the
// run from its start (Mutant, RedrawAfterBranch unless set) are the
// fork's. Of opts, Branches are added after those of the fork's run that
// were still to come, and StopAtNs and RedrawAfterBranch replace the fork's
// when set. Faults, when not nil, replace the fork's schedule from the
// fork on; they must agree with it on every fault that could have acted by
// then (ResumeAs says when), and a fork of a run that drew its own faults
// takes a schedule only if none had fired and the schedule lists none that
// could have. Budget, when above 0, caps the sim.Budget calls from the fork
// on. RecordCalls, Inspect, Interrupt, AtStep, SnapshotAt, DivergeAtCall,
// PanicAtCall and PanicAtStep apply to the run from the fork on. Each node
// must run the module it ran when the fork was taken (the same path,
// compiled by mods).
func Resume(mods Modules, f *Fork, opts Options) (*Result, error) {
	if f.state != nil && opts.Faults != nil {
		if err := f.scheduleAgrees(opts.Faults); err != nil {
			return nil, fmt.Errorf("resume: the schedule cannot replace the fork's from step %d: %w", f.Step, err)
		}
	}
	return resume(mods, f, func(r, src *Run) error {
		applied := src.Opts.Branches[:src.nextBranch]
		r.Opts = resumedOptions(src.Opts, src.Opts.Branches[src.nextBranch:], opts)
		// The run keeps the branches it applied, so that a fork of it
		// knows them (Fork.Admits).
		r.Opts.Branches = append(slices.Clone(applied), r.Opts.Branches...)
		r.nextBranch = len(applied)
		if opts.Faults != nil {
			r.switchSchedule(src, opts.Faults)
		}
		return nil
	})
}

// resume continues the world f was taken from with the options set gives
// the run, r, from those of the fork's, src.
func resume(mods Modules, f *Fork, set func(r, src *Run) error) (*Result, error) {
	start := time.Now()
	if f.state == nil {
		return nil, errors.New("resume: the fork was released")
	}
	src := f.state.run
	r := &Run{exec: &runExec{mods: mods, back: make(chan msg)}}
	nodes := make([]*Node, len(src.Nodes))
	for i := range nodes {
		nodes[i] = &Node{}
	}
	fresh := map[*Instance]*Instance{}
	copyRun(r, src, nodes, func(s *Instance) *Instance {
		if c, ok := fresh[s]; ok {
			return c
		}
		c := &Instance{exec: &instExec{}}
		fresh[s] = c
		return c
	})
	if err := set(r, src); err != nil {
		return nil, err
	}
	if r.Opts.Restore != nil {
		return nil, errors.New("resume: a resumed run cannot also restore a snapshot")
	}
	for i, n := range r.Nodes {
		m, err := mods.CompileFor(n.wasm, r.Spec.Preempt)
		if err != nil {
			return nil, fmt.Errorf("resume: node %s: %w", n.Spec.Name, err)
		}
		n.compiled = m
		if g := f.guests[i]; g != nil && g.wasm != n.wasm {
			return nil, fmt.Errorf("resume: node %s: its image is of %s, the node runs %s", n.Spec.Name, g.wasm, n.wasm)
		}
	}
	r.startDriver()
	r.resumeGuests(f)
	r.guardedLoop()
	return r.finish(start, r.Opts.Inspect), nil
}

// ResumeRest continues f as Resume does, but Faults, when not nil, are a
// schedule for the rest of the run only (sf-run -from -faults): they replace
// the fork's from the fork on whatever fired before, which stays in the
// result, and need not agree with the fork's run up to it. Its timed faults
// at or after the fork's time fire, and its positional ones at the
// operations the nodes have not reached yet. The run is then no longer one
// that Execute could give from the start with that schedule.
func ResumeRest(mods Modules, f *Fork, opts Options) (*Result, error) {
	return resume(mods, f, func(r, src *Run) error {
		applied := src.Opts.Branches[:src.nextBranch]
		r.Opts = resumedOptions(src.Opts, src.Opts.Branches[src.nextBranch:], opts)
		r.Opts.Branches = append(slices.Clone(applied), r.Opts.Branches...)
		r.nextBranch = len(applied)
		if opts.Faults != nil {
			r.replaceSchedule(opts.Faults)
		}
		return nil
	})
}

// replaceSchedule makes list the faults of the rest of the run: its timed
// faults from now on, and its positional ones, in place of the planner's.
func (r *Run) replaceSchedule(list []Fault) {
	hits, ops, timed := r.scheduleOf(list)
	var rest []Fault
	for _, f := range timed {
		if int64(f.At) >= r.Now {
			rest = append(rest, f)
		}
	}
	r.Opts.Faults = list
	r.scheduledHits, r.scheduledOps, r.planner = hits, ops, faults.ListPlanner(rest)
}

// resumedOptions are the options of a resumed run: the fork's, with what
// opts may change from the fork on (Resume): its branches are pending, the
// fork's run's still to come, and then opts's.
func resumedOptions(forked Options, pending []schedule.Branch, opts Options) Options {
	o := forked
	o.Branches = append(slices.Clone(pending), opts.Branches...)
	if opts.StopAtNs > 0 {
		o.StopAtNs = opts.StopAtNs
	}
	if opts.Budget > 0 {
		o.Budget = opts.Budget
	}
	o.RedrawAfterBranch = forked.RedrawAfterBranch || opts.RedrawAfterBranch
	o.RecordCalls, o.Inspect, o.Interrupt, o.AtStep = opts.RecordCalls, opts.Inspect, opts.Interrupt, opts.AtStep
	o.SnapshotAt, o.Restore = opts.SnapshotAt, opts.Restore
	o.DivergeAtCall, o.PanicAtCall, o.PanicAtStep = opts.DivergeAtCall, opts.PanicAtCall, opts.PanicAtStep
	return o
}

// resumeGuests starts the goroutine of every node's instance: one not
// started yet waits for its first step, as after Run.start; a parked one
// instantiates its module, restores its image and enters the host call it
// was copied in again, where it parks, before the next is started. A guest
// that cannot be resumed fails the run as an internal error.
func (r *Run) resumeGuests(f *Fork) {
	for _, n := range r.Nodes {
		if n.Cur != nil {
			n.Cur.newCoroutine()
		}
	}
	for i, n := range r.Nodes {
		in := n.Cur
		if in == nil || !in.started {
			continue
		}
		in.exec.image = f.guests[i]
		in.exec.hold.Store(holdHost)
		r.exec.drive <- driveReq{in, cmdRun}
		if m := <-r.exec.back; m.Kind == msgExited {
			r.exited(m.inst)
			return
		}
	}
}

// resumeGuest runs a guest from its image, in place of _start: it restores
// memory and globals into mod, a fresh instance, enters the host call the
// guest was copied in again through the import's wrapper (the call parks,
// and returns when the scheduler runs the node), then returns into the
// guest's frames as Go's dispatch loop would.
//
// The frames that were on the wasm stack when the guest was copied had
// called one another directly, so they would have gone on without passing
// a loop head; returning into them from the Go stack passes the loop head
// of their dispatch, and the wrapper and every such frame count one more
// function entry. Those would move the loop ticks and the preemption
// countdown, which the determinism hash sees, so each is counted out
// beforehand. They are the frames whose stack pointer is at or below the
// one at which Go's loop last dispatched (ExportDispatchSP): the first one
// above it, or an unwind of the wasm stack, is where the uninterrupted
// guest's own loop would have taken over, and Go's loop takes over there.
func (in *Instance) resumeGuest(ctx context.Context, mod api.Module, img *guestImage) error {
	fi, err := in.Run.exec.mods.ForkInfo(img.wasm)
	if err != nil {
		return resumeError{err}
	}
	gs, err := in.restoreImage(mod, fi, img)
	if err != nil {
		return resumeError{err}
	}
	in.exec.image = nil
	// After the image, whose memory holds the clock's words as the copied
	// guest left them and as the run it came from switched them.
	in.clockStart(mod, true)
	fn := in.park.fn
	wrapper := mod.ExportedFunction(wasmrewrite.ExportImportPrefix + fn.module + "." + fn.Name)
	reenter, loop := mod.ExportedFunction(wasmrewrite.ExportReenter), mod.ExportedFunction(wasmrewrite.ExportPCFLoop)
	if wrapper == nil || reenter == nil || loop == nil {
		return resumeError{fmt.Errorf("its module does not export the wrapper of %s.%s, or Go's dispatch", fn.module, fn.Name)}
	}
	in.preemptHandles(mod)
	sp, dispatchSP := gs[0], gs[len(gs)-1]
	var loopTicks api.MutableGlobal
	if fi.Loops {
		loopTicks = gs[len(wasmrewrite.GoGlobals)]
	}
	in.countOut(fi, loopTicks, false) // the wrapper's entry
	in.exec.resuming = true
	in.exec.hold.Store(holdWasm)
	if _, err := wrapper.Call(ctx, 0); err != nil {
		return err
	}
	mem := mod.Memory()
	for {
		at := uint32(sp.Get())
		if at > uint32(dispatchSP.Get()) {
			break
		}
		pc, ok := mem.ReadUint64Le(at - 8)
		pcb, pcf := uint32(pc&0xffff), uint32(pc>>16)
		loopHead, known := fi.ReentryLoop(pcf)
		if !ok || !known || pcb == 0 {
			return resumeError{fmt.Errorf("the frame at SP %#x returns to PC %#x, which is no resume point of a function", at, pc)}
		}
		in.countOut(fi, loopTicks, loopHead)
		res, err := reenter.Call(ctx)
		if err != nil {
			return err
		}
		if res[0] != 0 {
			break // it unwound the wasm stack, which ends at Go's loop
		}
	}
	in.countOut(fi, loopTicks, false) // wasm_pc_f_loop's entry
	_, err = loop.Call(ctx)
	return err
}

// countOut raises the loop ticks' and the preemption's countdowns by what
// entering one function again counts (and, with loopHead, passing its
// loop head), so that it counts nothing: each countdown is at least 1
// between two counted points, so the raised one never reaches 0 there.
func (in *Instance) countOut(fi *wasmrewrite.ForkInfo, loopTicks api.MutableGlobal, loopHead bool) {
	if loopHead && loopTicks != nil {
		loopTicks.Set(uint64(uint32(loopTicks.Get()) + 1))
	}
	if c := in.exec.pCounter; c != nil && fi.Preempt {
		n := uint32(1)
		if loopHead && fi.PreemptLoops {
			n++
		}
		c.Set(uint64(uint32(c.Get()) + n))
	}
}

// restoreImage writes a guest's image into mod: its memory, grown to the
// image's size, and its globals, which it returns.
func (in *Instance) restoreImage(mod api.Module, fi *wasmrewrite.ForkInfo, img *guestImage) ([]api.MutableGlobal, error) {
	mem := mod.Memory()
	size := uint32(len(img.memory))
	if size < mem.Size() || size%wasmPageBytes != 0 {
		return nil, fmt.Errorf("its image holds %d bytes of memory, the fresh instance %d", size, mem.Size())
	}
	if grow := (size - mem.Size()) / wasmPageBytes; grow > 0 {
		if _, ok := mem.Grow(grow); !ok {
			return nil, fmt.Errorf("its memory cannot grow to the image's %d bytes", size)
		}
	}
	buf, ok := mem.Read(0, size)
	if !ok {
		return nil, errors.New("its memory cannot be written")
	}
	copy(buf, img.memory)
	gs, err := in.guestGlobals(mod, fi)
	if err != nil {
		return nil, err
	}
	if len(gs) != len(img.globals) {
		return nil, fmt.Errorf("its image holds %d globals, its module %d", len(img.globals), len(gs))
	}
	for i, g := range gs {
		g.Set(img.globals[i])
	}
	return gs, nil
}

const wasmPageBytes = 65536

// resumeError is a guest that could not be resumed: a bug in sf, or a
// module whose guest stood where it cannot be resumed.
type resumeError struct{ err error }

func (e resumeError) Error() string { return "could not be resumed from its fork: " + e.err.Error() }
