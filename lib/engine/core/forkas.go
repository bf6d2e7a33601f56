package core

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"

	"github.com/sf-dst/sf/lib/faults"
)

// A fork can start runs other than the one it was taken from: a run that
// did everything the fork's run did up to the fork is that run up to
// there, so it can go on from the fork. ResumeAs starts such a run, given
// as Execute takes it (its whole schedule, its branches, its budget), and
// its result is the one Execute gives, byte for byte; Admits says whether
// a run qualifies. That is what lets sf-shrink start a candidate schedule
// from a fork of the run it came from, and sf-run -explore and
// sf-shrink -cause start a branch from a fork of the run they branch.
//
// A run agrees with the fork's up to the fork when it is of the same seed
// and mutant, redraws after branches as the fork's run did, and:
//
//   - its branches start with those the fork's run applied, and the rest
//     come after the fork's time (a branch at the fork's time could have
//     taken effect at an earlier step at that time);
//   - both draw their own faults, or both replay a schedule and the two
//     schedules agree on every fault that could have acted by the fork: the
//     same timed faults up to the fork's time, in the same order, and the
//     same faults at every numbered event the fork's run had reached (a
//     disk operation numbered, a buggify site hit); faults at events still
//     to come may differ. A pct preemption point that differs is refused:
//     the countdown to a node's next one is in its guest's image;
//   - its budget is the fork's, or neither cap changed an answer of
//     sim.Budget before the fork (no node called it, or each asked at most
//     both caps);
//   - it does not stop before the fork's time, and the test hooks that
//     could have acted before the fork (DivergeAtCall, PanicAtCall,
//     PanicAtStep, RecordCalls, SnapshotAt) are the fork's.

// Admits says why the run Execute would make of seed with opts cannot go on
// from f, or nil when it can (ResumeAs).
func (f *Fork) Admits(seed uint64, opts Options) error {
	if f.state == nil {
		return errors.New("the fork was released")
	}
	r := f.state.run
	o := r.Opts
	switch {
	case seed != r.Seed:
		return fmt.Errorf("the fork is of seed %d, the run of seed %d", r.Seed, seed)
	case opts.Mutant != o.Mutant:
		return fmt.Errorf("the fork's run has mutant %q, the run %q", o.Mutant, opts.Mutant)
	case opts.RedrawAfterBranch != o.RedrawAfterBranch:
		return errors.New("one run redraws its planned faults after a branch and the other does not")
	case opts.Restore != nil:
		return errors.New("a run that restores a snapshot cannot start from a fork")
	case opts.Budget != o.Budget && !(capsNothing(o.Budget, r.res.BudgetAsked) && capsNothing(opts.Budget, r.res.BudgetAsked)):
		return fmt.Errorf("a node called sim.Budget(%d) before the fork, with a cap of %d, and the run caps it at %d", r.res.BudgetAsked, o.Budget, opts.Budget)
	case opts.StopAtNs > 0 && opts.StopAtNs < r.Now:
		return fmt.Errorf("the run stops at %s, before the fork's time %s", fmtTime(opts.StopAtNs), fmtTime(r.Now))
	case (opts.Faults == nil) != (o.Faults == nil):
		return errors.New("one run replays a schedule and the other draws its faults")
	}
	if err := r.hooksAgree(opts); err != nil {
		return err
	}
	applied := o.Branches[:r.nextBranch]
	if len(opts.Branches) < len(applied) || !slices.Equal(opts.Branches[:len(applied)], applied) {
		return fmt.Errorf("the fork's run had applied %d branches by the fork, which the run does not start with", len(applied))
	}
	for i, b := range opts.Branches[len(applied):] {
		if int64(b.At) <= r.Now {
			return fmt.Errorf("the run's branch %d at %s does not come after the fork's time %s", len(applied)+i, fmtTime(int64(b.At)), fmtTime(r.Now))
		}
	}
	if opts.Faults != nil {
		return f.scheduleAgrees(opts.Faults)
	}
	return nil
}

// capsNothing says whether a sim.Budget cap (0 for none) left every call
// unchanged when the largest asked was asked: two caps that both did answer
// alike, which lets shrinking's bisection of the cap start from forks taken
// after a workload's first, smaller calls.
func capsNothing(limit, asked int) bool { return limit == 0 || asked <= limit }

// hooksAgree says why the test hooks of opts could have made the run other
// than the fork's before the fork.
func (r *Run) hooksAgree(opts Options) error {
	o := r.Opts
	acted := func(at, done uint64) bool { return at > 0 && at <= done }
	type hook struct {
		name      string
		mine, its uint64
		done      uint64
	}
	for _, h := range []hook{
		{"DivergeAtCall", o.DivergeAtCall, opts.DivergeAtCall, r.calls},
		{"PanicAtCall", o.PanicAtCall, opts.PanicAtCall, r.calls},
		{"PanicAtStep", o.PanicAtStep, opts.PanicAtStep, r.res.Steps},
	} {
		if h.mine != h.its && (acted(h.mine, h.done) || acted(h.its, h.done)) {
			return fmt.Errorf("%s differs, at a point before the fork", h.name)
		}
	}
	recording := func(w [2]uint64) bool { return w[1] > w[0] && w[0] < r.calls }
	if o.RecordCalls != opts.RecordCalls && (recording(o.RecordCalls) || recording(opts.RecordCalls)) {
		return errors.New("RecordCalls differs, in a window that starts before the fork")
	}
	if opts.SnapshotAt > 0 && opts.SnapshotAt < r.res.Steps && opts.SnapshotAt != o.SnapshotAt {
		return errors.New("SnapshotAt is before the fork")
	}
	return nil
}

// scheduleAgrees says why list cannot be the schedule of the fork's run
// from the fork on: it must agree with the fork's schedule on every fault
// that could have acted by the fork. When the fork's run drew its own
// faults (a fork taken at the end of a world's setup, which sf-run's
// "fork": "setup" resumes with a schedule), none may have fired, and the
// list may hold none that could have acted.
func (f *Fork) scheduleAgrees(list []Fault) error {
	r := f.state.run
	old := r.Opts.Faults
	if old == nil && len(r.res.Faults) > 0 {
		return fmt.Errorf("the fork's run drew its own faults, and %d had fired by the fork", len(r.res.Faults))
	}
	if a, b := timedUpTo(old, r.Now), timedUpTo(list, r.Now); !faultsEqual(a, b) {
		return fmt.Errorf("the schedules differ in their timed faults up to the fork's time %s", fmtTime(r.Now))
	}
	hitsA, opsA, _ := r.scheduleOf(old)
	hitsB, opsB, _ := r.scheduleOf(list)
	for _, k := range sortedKeys(hitsA, hitsB) {
		if hitsA[k] == hitsB[k] {
			continue
		}
		if st := r.sites[k.site]; st != nil && st.hits[k.node] >= k.hit {
			return fmt.Errorf("the schedules differ at buggify hit #%d of %q on %s, which the fork's run had reached", k.hit, k.site, r.Nodes[k.node].Spec.Name)
		}
	}
	for _, k := range sortedKeys(opsA, opsB) {
		a, inA := opsA[k]
		b, inB := opsB[k]
		if inA == inB && reflect.DeepEqual(a, b) {
			continue
		}
		kind, _ := faults.Lookup(k.kind)
		n := r.Nodes[k.node]
		switch {
		case kind.Counter == faults.CountedCall:
			return fmt.Errorf("the schedules differ in a preempt fault of %s: the countdown to a node's next preemption is in its guest's image", n.Spec.Name)
		case n.counts[kind.Counter] >= k.op:
			return fmt.Errorf("the schedules differ at %s #%d of %s (%s), which the fork's run had reached", kind.Counter, k.op, n.Spec.Name, k.kind)
		}
	}
	return nil
}

// timedUpTo are the timed faults of list at or before t, in the order a run
// fires them.
func timedUpTo(list []Fault, t int64) []Fault {
	var out []Fault
	for _, f := range list {
		if !faults.Positional(f.Kind) && int64(f.At) <= t {
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out
}

func faultsEqual(a, b []Fault) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sortedKeys are the keys of two maps, each once, in a fixed order, so that
// the first difference reported is the same every time.
func sortedKeys[K siteKey | opKey, V any](a, b map[K]V) []K {
	var out []K
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
	return out
}

// switchSchedule makes list the schedule of r, a run resumed from src, from
// the fork on: scheduleAgrees has checked that the two agree on what came
// before, so the new list's timed faults that src's run had fired are the
// first ones of the list, as many as src's planner had handed out.
func (r *Run) switchSchedule(src *Run, list []Fault) {
	hits, ops, timed := r.scheduleOf(list)
	pl := faults.ListPlanner(timed)
	if src.Opts.Faults != nil {
		_, _, old := src.scheduleOf(src.Opts.Faults)
		for range len(old) - src.planner.Count(src.plan) {
			pl.Pop(nil)
		}
	}
	r.Opts.Faults = list
	r.scheduledHits, r.scheduledOps, r.planner = hits, ops, pl
}

// ResumeAs runs what Execute(spec, seed, opts) would, from f: the run must
// agree with the fork's up to the fork (Admits), and then goes on from it
// with opts' schedule, branches still to come, budget and stop. Its result
// is Execute's, byte for byte, but for the real time it took. RecordCalls,
// Inspect, Interrupt, AtStep and the test hooks apply from the fork on.
func ResumeAs(mods Modules, f *Fork, seed uint64, opts Options) (*Result, error) {
	if err := f.Admits(seed, opts); err != nil {
		return nil, fmt.Errorf("resume: the run cannot start from the fork at step %d: %w", f.Step, err)
	}
	return resume(mods, f, func(r, src *Run) error {
		o := opts
		o.Branches = slices.Clone(opts.Branches)
		r.Opts = o
		r.nextBranch = src.nextBranch
		if opts.Faults != nil {
			r.switchSchedule(src, opts.Faults)
		}
		return nil
	})
}
