package core

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/sf-dst/sf/lib/faults"
	"github.com/sf-dst/sf/lib/rng"
	"github.com/sf-dst/sf/lib/wasmrewrite"
	"github.com/tetratelabs/wazero/api"
)

// Preempt is how goroutines are preempted inside every program of a world.
// A counted call is a function entry of the guest, and with Loops also a
// loop iteration; the instrumentation (instrument.go) counts them down and
// the host decides, when the count reaches zero, whether the running
// goroutine yields.
type Preempt struct {
	// Strategy is none, random, pct or calls.
	Strategy string
	// Depth is pct's bug depth: Depth-1 change points per node.
	Depth int
	// Steps is how many counted calls of each node pct draws its change
	// points over.
	Steps int64
	// Calls is strategy calls' interval in counted calls.
	Calls int64
	// Loops counts loop iterations too.
	Loops bool
}

const (
	// PreemptSliceCalls is a node's time slice: after this many counted
	// calls without parking, the running goroutine is preempted and the
	// node parks for PreemptSliceNs of virtual time, whatever the strategy.
	PreemptSliceCalls = 4_194_304
	// PreemptSliceNs is the virtual time a node's time slice costs. Go's
	// own scheduler preempts a goroutine that ran 10ms.
	PreemptSliceNs = int64(10 * time.Millisecond)
	// preemptRandomMax bounds strategy random's countdown: each one is
	// drawn from 1 to this many counted calls.
	preemptRandomMax = 4096
	// preemptNever is the countdown of a strategy with nothing left to do.
	preemptNever = int64(math.MaxInt64)
)

// preemptState is one node's preemption, across its incarnations.
type preemptState struct {
	total     int64 // counted calls so far, up to the last sync
	sliceUsed int64 // counted calls since the node last parked
	left      int64 // counted calls until the strategy's next preemption
	random    *rng.Stream
	points    []int64 // pct: change points not reached yet, ascending
}

// initPreempt sets up each node's preemption: pct's change points come
// from the schedule being replayed, or else from the node's own stream, so
// that removing one node's change point never moves another's.
func (r *Run) initPreempt() {
	p := r.Spec.Preempt
	if p == nil {
		return
	}
	for _, n := range r.Nodes {
		ps := &preemptState{left: preemptNever}
		switch p.Strategy {
		case "random":
			ps.random = rng.New(r.Seed, "preempt", rng.Key(n.Spec.Name))
			ps.left = 1 + int64(ps.random.Intn(preemptRandomMax))
		case "calls":
			ps.left = p.Calls
		case "pct":
			if r.Opts.Faults != nil {
				for _, f := range r.Opts.Faults {
					if f.Kind == faults.KindPreempt && f.Node == n.Spec.Name && f.Op > 0 {
						ps.points = append(ps.points, f.Op)
					}
				}
			} else {
				s := rng.New(r.Seed, "preempt-pct", rng.Key(n.Spec.Name))
				for i := 1; i < p.Depth; i++ {
					ps.points = append(ps.points, s.Between(1, p.Steps))
				}
			}
			sort.Slice(ps.points, func(i, j int) bool { return ps.points[i] < ps.points[j] })
			ps.points = dedup(ps.points)
			if len(ps.points) > 0 {
				ps.left = ps.points[0]
			}
		}
		n.preempt = ps
	}
}

func dedup(s []int64) []int64 {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// preemptStart finds the countdown of a freshly instantiated guest and
// loads it, before _start runs.
func (in *Instance) preemptStart(mod api.Module) {
	if in.preemptHandles(mod) {
		in.preemptReload()
	}
}

// preemptHandles finds the countdown and g of a guest that counts calls,
// and reports whether it does. A resumed guest's countdown is the one its
// image restored.
func (in *Instance) preemptHandles(mod api.Module) bool {
	if in.Node.preempt == nil {
		return false
	}
	c, _ := mod.ExportedGlobal(wasmrewrite.ExportPreemptCounter).(api.MutableGlobal)
	g := mod.ExportedGlobal(wasmrewrite.ExportG)
	if c == nil || g == nil {
		return false // CompileFor refuses such modules; nothing to count with
	}
	in.exec.pCounter, in.exec.gReg = c, g
	return true
}

// preemptSync adds the counted calls the guest ran since the last reload.
func (in *Instance) preemptSync() {
	ps := in.Node.preempt
	used := in.pLoaded - int64(uint32(in.exec.pCounter.Get()))
	ps.total += used
	ps.sliceUsed += used
	if ps.left != preemptNever {
		ps.left -= used
	}
	in.pLoaded -= used
}

// preemptReload sets the countdown to whichever comes first, the
// strategy's next preemption or the end of the time slice.
func (in *Instance) preemptReload() {
	ps := in.Node.preempt
	next := min(max(ps.left, 1), max(PreemptSliceCalls-ps.sliceUsed, 1))
	in.exec.pCounter.Set(uint64(next))
	in.pLoaded = next
}

// preemptParked starts a new time slice: the node gave up its turn.
func (in *Instance) preemptParked() {
	if in.exec.pCounter == nil {
		return
	}
	in.preemptSync()
	in.Node.preempt.sliceUsed = 0
	in.preemptReload()
}

// EventPreempt is a preemption countdown that ran out, in the hash.
var EventPreempt = Event{Name: "preempt", ID: 56}

// PreemptCalled reports whether a sched_yield call is the instrumentation's
// report that the preemption countdown ran out: only it calls with the
// counter at zero.
func (in *Instance) PreemptCalled() bool {
	return in.exec.pCounter != nil && uint32(in.exec.pCounter.Get()) == 0
}

// PreemptDue runs when the guest's countdown reached zero, inside the
// sched_yield call that the instrumentation makes then.
func (in *Instance) PreemptDue(c *Call) {
	ctx, m := c.Ctx, c.Mod
	r, ps := in.Run, in.Node.preempt
	in.preemptSync()
	slice := ps.sliceUsed >= PreemptSliceCalls
	yield := slice
	due := ps.left != preemptNever && ps.left <= 0
	onG := in.canPreempt(m)
	if due && !onG && !slice {
		// On the runtime's own stack, where it cannot yield: ask again
		// at the next counted call.
		c.KeyAs(EventPreempt, uint64(ps.total), 0)
		in.exec.pCounter.Set(1)
		in.pLoaded = 1
		return
	}
	if due && onG {
		switch r.Spec.Preempt.Strategy {
		case "random":
			ps.left = 1 + int64(ps.random.Intn(preemptRandomMax))
			yield = true
		case "calls":
			ps.left = r.Spec.Preempt.Calls
			yield = true
		case "pct":
			ps.points = ps.points[1:]
			ps.left = preemptNever
			if len(ps.points) > 0 {
				ps.left = ps.points[0] - ps.total
			}
			if r.Quiet() {
				r.Tracef("quiet: preempt %s at counted call #%d suppressed", in.Name, ps.total)
			} else {
				yield = true
				r.res.Faults = append(r.res.Faults, Fault{At: Dur(r.Now), Kind: faults.KindPreempt, Node: in.Node.Spec.Name, Op: ps.total})
				r.Tracef("fault preempt %s at counted call #%d", in.Name, ps.total)
			}
		}
	}
	// A strategy that is due on g0 at the end of a slice stays due: the
	// reload after the slice's park asks again at the next counted call.
	flags := uint64(0)
	if yield && in.requestPreempt(m) {
		flags = 1
	}
	if slice {
		flags |= 2
	}
	c.KeyAs(EventPreempt, uint64(ps.total), flags)
	if slice {
		// The time slice is over: the node parks for the slice's virtual
		// time, so a loop that never waits still lets time pass and the
		// other nodes run.
		in.deadline = r.TimerAt(r.Now + PreemptSliceNs)
		in.Waits = in.Waits[:0]
		in.parkAt(ctx, 0, true) // starts the next slice; the instrumentation's call has no resume point
		in.deadline = maxTime
		return
	}
	in.preemptReload()
}

// canPreempt reports whether the guest runs a goroutine of its own rather
// than the runtime's g0, whose stack can neither grow nor yield.
func (in *Instance) canPreempt(m api.Module) bool {
	g := uint32(in.exec.gReg.Get())
	mem := m.Memory()
	mp, ok := mem.ReadUint64Le(g + wasmrewrite.GoOffM)
	if !ok || g == 0 || mp == 0 {
		return false
	}
	g0, ok := mem.ReadUint64Le(uint32(mp) + wasmrewrite.GoOffG0)
	return ok && g0 != uint64(g)
}

// requestPreempt asks Go's runtime to preempt the running goroutine the way
// it asks itself: g.stackguard0 = stackPreempt. The next function prologue
// that checks for stack growth then enters runtime.newstack, which yields
// through the scheduler (gopreempt_m) where that is safe and otherwise
// restores the guard and carries on.
func (in *Instance) requestPreempt(m api.Module) bool {
	if !in.canPreempt(m) {
		return false
	}
	g := uint32(in.exec.gReg.Get())
	return m.Memory().WriteUint64Le(g+wasmrewrite.GoOffStackguard0, wasmrewrite.GoStackPreempt)
}

// preemptTrace adds, with strategy pct, the line that says how many counted
// calls each node ran, so that preempt.steps can be set to cover them.
func (r *Run) preemptTrace() {
	p := r.Spec.Preempt
	if p == nil || p.Strategy != "pct" {
		return
	}
	parts := make([]string, 0, len(r.Nodes))
	for _, n := range r.Nodes {
		if in := n.Cur; in != nil && in.exec.pCounter != nil && !in.exited && !in.exec.abandoned {
			in.preemptSync()
		}
		parts = append(parts, fmt.Sprintf("%s=%d", n.Spec.Name, n.preempt.total))
	}
	r.Tracef("pct: counted calls per node: %s (steps %d)", strings.Join(parts, " "), p.Steps)
}
