package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"

	"github.com/sf-dst/sf/lib/check"
	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/history"
	"github.com/sf-dst/sf/lib/rng"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/simnet"
)

// Status is a run's outcome.
type Status string

// Run outcomes.
const (
	StatusPass             Status = "pass"
	StatusFail             Status = "fail"
	StatusHorizon          Status = "horizon"
	StatusNondeterministic Status = "nondeterministic"
	// StatusInterrupted is a run that Options.Interrupt stopped: it has no
	// verdict.
	StatusInterrupted Status = "interrupted"
)

// Failure classes.
const (
	ClassAssert   = "assert"
	ClassFail     = "fail"
	ClassPanic    = "panic"
	ClassExit     = "exit"
	ClassOOM      = "oom"
	ClassWatchdog = "watchdog"
	ClassDeadlock = "deadlock"
	ClassTrap     = "trap"
	ClassNondet   = "nondeterministic"
	ClassLiveness = "liveness"
	// ClassInternal is a bug in sf itself, not in the guest: an invariant
	// of the engine broke (a host function panicked, or the scheduler
	// reached a state it should never reach).
	ClassInternal = "internal"
)

// Options tune one run.
type Options struct {
	// Faults, when not nil, replaces the faults the seed would draw.
	Faults []Fault
	// RecordCalls, when its second element is above the first, records a
	// description of every host call whose index falls in [from, to).
	RecordCalls [2]uint64
	// Inspect keeps each node's disk listing in Result.Disks.
	Inspect bool
	// DivergeAtCall, when not 0, perturbs virtual time by 1ns at that host
	// call. Tests use it to prove the determinism check can fail.
	DivergeAtCall uint64
	// StopAtNs, when above 0, ends the run once virtual time would pass it:
	// a replay of a shrunk schedule runs as long as the failure it
	// reproduces took. A run that ends there without failing has status
	// horizon and Result.CutShort set. Defaults to 0, no stop.
	StopAtNs int64
	// panicAtCall and panicAtStep, when not 0, make a host call (by index)
	// or the scheduler (at a step) panic: tests use them to break an
	// invariant on purpose.
	panicAtCall, panicAtStep uint64
	// Budget, when above 0, caps what sim.Budget returns in every node,
	// and the trace says so. Defaults to 0, no cap.
	Budget int
	// Branches re-key the seed's random streams, in order, from the first
	// scheduler step at or after each one's time (branch.go says which
	// streams each name covers). Defaults to none.
	Branches []schedule.Branch
	// RedrawAfterBranch, in a run that draws its own faults (Faults nil),
	// makes each branch of every stream also throw away the planned timed
	// faults (crashes, clock jumps, bitrot, network faults) that have not
	// fired yet and draw them again, from the branch's key, over the rest
	// of the fault period. Without it those were all drawn before the first
	// step and a branch keeps them. sf-shrink -cause and sf-run -explore set
	// it so that a branch re-randomizes every fault after its time.
	RedrawAfterBranch bool
	// Interrupt, when it becomes true, ends the run at its next scheduler
	// step with StatusInterrupted: a sweep that was asked to stop. It
	// stops the check of the run's history too (check.Options.Interrupt),
	// with the same status.
	Interrupt *atomic.Bool
	// Mutant, when not empty, names a runtime mutant (mutant.go) that
	// weakens the nodes that take faults. Defaults to none.
	Mutant string
}

// Property is what one run saw of one property.
type Property struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Reached bool   `json:"reached"`
	True    bool   `json:"true"`
	Hits    int    `json:"hits"`
	// Margin is, for comparison properties, the smallest margin of an
	// always and the largest of a sometimes; nil for the other forms.
	Margin *float64 `json:"margin,omitempty"`
	// FirstNs and FirstTrueNs are when the property was first reached
	// and first true; MarginNs when Margin last moved. sf-run -explore
	// branches a run there.
	FirstNs     int64 `json:"-"`
	FirstTrueNs int64 `json:"-"`
	MarginNs    int64 `json:"-"`

	falsified bool // false at least once
}

// Result is the outcome of one run.
type Result struct {
	Seed        uint64
	Status      Status
	Class       string
	Message     string
	Node        string // the instance that failed, such as "client#1"
	AtNs        int64
	Steps       uint64
	HostCalls   uint64
	RealNs      int64
	Hash        uint64
	Checkpoints []uint64
	Calls       []string // host calls recorded with Options.RecordCalls
	Faults      []Fault  // faults that fired
	Trace       []string
	Properties  []Property
	Buggify     []SiteResult
	History     []history.Event
	Check       *check.Report // the history check, when a history was recorded
	Tail        []string      // last lines of the failing node's stderr
	Disks       []NodeDisk    // each node's disk at the end, with Options.Inspect
	// Property is the message of the property whose failure ended the run,
	// without its details; empty when something else failed it.
	Property string
	// BudgetAsked is the largest n any node passed to sim.Budget; 0 when
	// none called it.
	BudgetAsked int
	// CutShort says the run reached Options.StopAtNs without failing.
	CutShort bool
	// MutantHits counts the operations Options.Mutant weakened.
	MutantHits int
}

type cmd uint8

const (
	cmdRun cmd = iota
	cmdKill
)

type msgKind uint8

const (
	msgParked msgKind = iota
	msgExited
)

type msg struct {
	kind msgKind
	inst *instance
}

// Who holds an instance's baton (instance.hold). Only the holder may touch
// the run's state. The scheduler holds it while the instance is parked or
// not started; it hands it over as holdHost (the guest resumes inside a
// host call, or in the engine's startup code) and takes it back when the
// guest parks or exits. While the guest runs, every host call moves it from
// holdWasm to holdHost and back. The scheduler's watchdog timer may take the
// baton from a guest only by swapping holdWasm for holdAbandoned: a guest
// inside a host call is about to return to wasm or hand the baton back, and
// the timer waits for either, so the two goroutines never touch the run at
// once. A guest that finds holdAbandoned stops without touching anything.
const (
	holdSched int32 = iota
	holdHost
	holdWasm
	holdAbandoned
)

// node is one named program of the world across its incarnations.
type node struct {
	idx       int
	spec      *NodeSpec
	compiled  wazero.CompiledModule
	fs        *disk.FS
	cur       *instance
	count     int   // incarnations so far
	restartAt int64 // virtual time of a pending restart, or math.MaxInt64
	done      bool  // exited and will not come back
	skew      int64 // clock_skew: this node's constant wall-clock offset
	diskOps   int64 // writes, truncates and fsyncs so far, across incarnations
	diskReads int64 // file reads so far, across incarnations
	crashes   int64

	datagrams   int64   // UDP datagrams sent so far, across incarnations
	slow        float64 // slowdown factor, 1 when not slowed
	slowSeq     int
	pausedUntil int64
	jumps       int64         // clock jumps applied so far
	monoJumps   int64         // with monotonic_jump, the jumps the monotonic clock took too
	preempt     *preemptState // with Spec.Preempt, its goroutine preemption
}

// wall is the node's wall clock: the fixed epoch plus virtual time, moved by
// its skew and jumps. The monotonic clock never moves with them.
func (n *node) wall(r *run) int64 { return r.wallEpoch + r.now + n.skew + n.jumps }

// run is one seed of one world.
type run struct {
	eng   *Engine
	spec  *Spec
	seed  uint64
	opts  Options
	now   int64
	nodes []*node
	net   *simnet.Net
	sched *rng.Stream
	back  chan msg

	planned []Fault
	next    int // index of the next planned fault
	res     *Result
	ended   bool

	sites         map[string]*siteState
	scheduledHits map[siteKey]bool
	scheduledOps  map[opKey]bool
	quietUntil    int64
	rec           *history.Recorder
	opNode        map[int64]*instance // open history operation -> the instance that started it

	ends         []netEnd // lasting network faults, undone at their time
	endSeq       uint64
	partitionSeq int

	horizon    int64 // the virtual time the run may reach
	recovering bool  // liveness recovery phase, or the finally phase
	recoveryAt int64
	swarm      map[string]float64 // fault type -> rate factor (0 is off), with swarm testing
	setupDone  bool

	hash       uint64
	calls      uint64
	props      map[string]*Property
	traceLines []string
	wallEpoch  int64

	limits     Limits // the spec's limits with their defaults
	traceBytes int64  // bytes of the trace so far, each line with its newline
	traceFull  bool   // the trace passed its limit

	// streamSeeds is, per group of streams, the seed they are keyed by;
	// branches change it (branch.go). nextBranch is the next of
	// Options.Branches to apply.
	streamSeeds [numBranchStreams]uint64
	nextBranch  int
	// planSeed keys the planned timed faults: the run's seed until a
	// branch with Options.RedrawAfterBranch redraws them.
	planSeed uint64

	// mutant is Options.Mutant; engineHits counts the operations it
	// weakened that the engine itself handles (osync_ignored,
	// monotonic_jump).
	mutant     string
	engineHits int
}

const wallEpochNs = 1_700_000_000 * int64(time.Second)

var instanceSerial atomic.Uint64

// DefaultWatchdogNs is the watchdog a Spec without one gets: 30s of real
// time, the world file's default.
const DefaultWatchdogNs = int64(30 * time.Second)

const maxTime = int64(math.MaxInt64)

// Run runs one seed of the world described by spec.
func (e *Engine) Run(spec *Spec, seed uint64, opts Options) (*Result, error) {
	start := time.Now()
	if spec.WatchdogNs <= 0 {
		s := *spec
		s.WatchdogNs = DefaultWatchdogNs
		spec = &s
	}
	r := &run{
		eng: e, spec: spec, seed: seed, opts: opts,
		sched:     rng.New(seed, "sched"),
		back:      make(chan msg),
		props:     map[string]*Property{},
		sites:     map[string]*siteState{},
		hash:      14695981039346656037,
		wallEpoch: wallEpochNs,
		res:       &Result{Seed: seed},
		limits:    spec.Limits.withDefaults(),
	}
	for g := range r.streamSeeds {
		r.streamSeeds[g] = seed
	}
	r.planSeed = seed
	names := make([]string, len(spec.Nodes))
	for i := range spec.Nodes {
		ns := &spec.Nodes[i]
		names[i] = ns.Name
		m, err := e.CompileFor(ns.Wasm, spec.Preempt)
		if err != nil {
			return nil, fmt.Errorf("node %s: %w", ns.Name, err)
		}
		n := &node{idx: i, spec: ns, compiled: m, restartAt: math.MaxInt64, slow: 1}
		n.fs = disk.New(func() int64 { return n.wall(r) })
		n.fs.StrictDirs = spec.Disk.StrictDirs
		if spec.Disk.CapacityBytes > 0 {
			n.fs.SetCapacity(spec.Disk.CapacityBytes)
		}
		for _, f := range ns.Seed {
			if err := n.fs.AddFile(f.Path, f.Data); err != nil {
				return nil, fmt.Errorf("node %s: seeding its disk: %w", ns.Name, err)
			}
		}
		if spec.NetOverlay {
			if err := seedNetOverlay(n.fs, spec, ns.Seed); err != nil {
				return nil, fmt.Errorf("node %s: net_overlay files: %w", ns.Name, err)
			}
		}
		if ns.Faults && spec.ClockSkewNs > 0 {
			n.skew = rng.New(seed, "clock", rng.Key(ns.Name)).Between(-spec.ClockSkewNs, spec.ClockSkewNs)
		}
		r.nodes = append(r.nodes, n)
	}
	r.net = simnet.New(seed, spec.LatencyNs, names)
	if err := r.net.SetLinks(spec.Net.Links); err != nil {
		return nil, err
	}
	if opts.Mutant != "" {
		if err := r.setMutant(opts.Mutant); err != nil {
			return nil, err
		}
	}
	r.horizon = spec.DurationNs
	r.drawSwarm()
	if opts.Faults != nil {
		r.scheduledHits = map[siteKey]bool{}
		r.scheduledOps = map[opKey]bool{}
		for _, f := range opts.Faults {
			n := r.nodeByName(f.Node)
			switch {
			case n == nil:
			case f.Kind == KindBuggify:
				r.scheduledHits[siteKey{n.idx, f.Site, f.Op}] = true
			case schedule.Positional(f.Kind):
				r.scheduledOps[opKey{f.Kind, n.idx, f.Op}] = true
			}
		}
		for _, f := range opts.Faults {
			if f.Kind == KindPartition && len(f.Side) > 0 {
				f.Groups, f.Side = f.PartitionGroups(names), nil
			}
			if !schedule.Positional(f.Kind) {
				r.planned = append(r.planned, f)
			}
		}
		sort.SliceStable(r.planned, func(i, j int) bool { return r.planned[i].At < r.planned[j].At })
	} else {
		r.planned = r.drawFaults(seed, 0)
	}
	r.initPreempt()
	for _, n := range r.nodes {
		if !n.spec.Finally {
			r.start(n)
		}
	}
	r.guardedLoop()
	r.shutdown()
	r.preemptTrace()
	if r.res.Status == StatusPass || r.res.Status == StatusHorizon {
		r.checkHistory()
	}
	res := r.res
	res.AtNs = r.now
	res.HostCalls = r.calls
	res.Hash = r.hash
	res.RealNs = time.Since(start).Nanoseconds()
	res.Trace = r.traceLines
	res.MutantHits = r.mutantHits()
	if opts.Inspect {
		for _, n := range r.nodes {
			res.Disks = append(res.Disks, NodeDisk{Node: n.spec.Name, UsageBytes: n.fs.Usage(), CapacityBytes: n.fs.Capacity(), Files: n.fs.Files()})
		}
	}
	if r.rec != nil {
		res.History = r.rec.Events()
	}
	keys := make([]string, 0, len(r.props))
	for k := range r.props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		pr := *r.props[k]
		if pr.Kind == "always" || pr.Kind == "alwaysOrUnreachable" {
			// An always is true in a seed only if it held every time.
			pr.True = pr.Reached && !pr.falsified
		}
		res.Properties = append(res.Properties, pr)
	}
	sites := make([]string, 0, len(r.sites))
	for s := range r.sites {
		sites = append(sites, s)
	}
	sort.Strings(sites)
	for _, s := range sites {
		st := r.sites[s]
		res.Buggify = append(res.Buggify, SiteResult{Site: s, Reached: true, Enabled: st.enabled, Fired: st.fired})
	}
	return res, nil
}

// swarmTypes are the fault types swarm testing turns on and off, from the
// registry of fault kinds.
var swarmTypes = schedule.SwarmTypes()

// drawSwarm decides, with swarm testing, which fault types this seed uses
// and how it rescales their rates: each type is on with probability one
// half, and then its rate is scaled by a factor drawn from [0, 2).
func (r *run) drawSwarm() {
	if !r.spec.Swarm {
		return
	}
	r.swarm = map[string]float64{}
	var parts []string
	for _, t := range swarmTypes {
		s := rng.New(r.seed, "swarm", rng.Key(t))
		factor := 0.0
		if s.Chance(0.5) {
			factor = 2 * s.Float64()
		}
		r.swarm[t] = factor
		if !r.configured(t) {
			continue // the world does not use this type: nothing to say
		}
		if factor == 0 {
			parts = append(parts, t+" off")
		} else {
			parts = append(parts, fmt.Sprintf("%s x%.2f", t, factor))
		}
	}
	if len(parts) > 0 {
		r.tracef("swarm: %s", strings.Join(parts, ", "))
	}
}

// configured reports whether the world turns a swarm type on at all.
func (r *run) configured(kind string) bool {
	switch kind {
	case KindCrash:
		return r.spec.CrashPerSec > 0
	case KindClockJump:
		return r.spec.ClockJumpPerSec > 0
	case KindBuggify:
		return r.spec.Buggify
	}
	return false
}

// rate is a fault type's rate for this seed, after swarm testing.
func (r *run) rate(kind string, configured float64) float64 {
	if r.swarm == nil {
		return configured
	}
	return configured * r.swarm[kind]
}

// buggifyOn reports whether buggify sites may fire in this seed.
func (r *run) buggifyOn() bool {
	return r.spec.Buggify && (r.swarm == nil || r.swarm[KindBuggify] > 0)
}

// drawFaults plans the seed's timed faults over the fault period after
// from, keyed by seed (the run's seed, or a branch's redraw key). Each node
// and fault type has its own stream, so removing one fault never moves
// another.
func (r *run) drawFaults(seed uint64, from int64) []Fault {
	var out []Fault
	crashRate := r.rate(KindCrash, r.spec.CrashPerSec)
	jumpRate := r.rate(KindClockJump, r.spec.ClockJumpPerSec)
	for _, n := range r.nodes {
		if !n.spec.Faults {
			continue
		}
		if crashRate > 0 {
			s := rng.New(seed, "crash", rng.Key(n.spec.Name))
			for t := from; ; {
				t += s.ExpNs(crashRate)
				if t >= r.spec.DurationNs || t < 0 {
					break
				}
				down := s.Between(r.spec.RestartAfter[0], r.spec.RestartAfter[1])
				out = append(out, Fault{At: Dur(t), Kind: KindCrash, Node: n.spec.Name, Until: Dur(t + down)})
				t += down
			}
		}
		if rot := r.rate(KindBitrot, r.spec.Disk.BitrotPerSec); rot > 0 {
			s := rng.New(seed, KindBitrot+"/when", rng.Key(n.spec.Name))
			for t := from; ; {
				t += s.ExpNs(rot)
				if t >= r.spec.DurationNs || t < 0 {
					break
				}
				out = append(out, Fault{At: Dur(t), Kind: KindBitrot, Node: n.spec.Name, Until: Dur(t)})
			}
		}
		if jumpRate > 0 && r.spec.ClockJumpMaxNs > 0 {
			s := rng.New(seed, "clockjump", rng.Key(n.spec.Name))
			for t := from; ; {
				t += s.ExpNs(jumpRate)
				if t >= r.spec.DurationNs || t < 0 {
					break
				}
				d := s.Between(-r.spec.ClockJumpMaxNs, r.spec.ClockJumpMaxNs)
				out = append(out, Fault{At: Dur(t), Kind: KindClockJump, Node: n.spec.Name, Until: Dur(t), Delta: Dur(d)})
			}
		}
	}
	out = append(out, r.drawNetFaults(seed, from)...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out
}

func (r *run) wallNow() int64 { return r.wallEpoch + r.now }

// inFlight reports, when the instance in dies, the history operations it
// started and never completed: their outcome stays unknown.
func (r *run) inFlight(in *instance) {
	n := 0
	for id, owner := range r.opNode {
		if owner == in {
			n++
			delete(r.opNode, id) // it stays open in the history, but no later crash counts it again
		}
	}
	switch {
	case n == 1:
		r.tracef("%s died with 1 operation in flight, its outcome is unknown", in.name)
	case n > 1:
		r.tracef("%s died with %d operations in flight, their outcome is unknown", in.name, n)
	}
}

// start creates the next incarnation of n; it runs when the scheduler first
// hands it the baton.
func (r *run) start(n *node) {
	n.count++
	in := &instance{
		run:      r,
		node:     n,
		num:      n.count,
		name:     fmt.Sprintf("%s#%d", n.spec.Name, n.count),
		resume:   make(chan cmd),
		deadline: math.MaxInt64,
		random:   rng.New(r.seedOf(bsRandom), "random", rng.Key(n.spec.Name), uint64(n.count)),
		hashID:   uint64(n.idx)<<32 | uint64(n.count),
	}
	in.initFDs()
	n.cur = in
	n.restartAt = math.MaxInt64
	if n.count > 1 {
		if n.spec.UpgradeWasm != "" && n.count == 2 {
			m, err := r.eng.CompileFor(n.spec.UpgradeWasm, r.spec.Preempt)
			if err == nil {
				n.compiled = m
				r.tracef("restart %s, upgraded", in.name)
			}
		} else {
			r.tracef("restart %s", in.name)
		}
	}
	go in.main()
}

// loop is the scheduler.
func (r *run) loop() {
	var ready []*instance
	watchdog := time.NewTimer(time.Hour)
	watchdog.Stop()
	defer watchdog.Stop()
	for !r.ended {
		if r.opts.Interrupt != nil && r.opts.Interrupt.Load() {
			r.res.Status = StatusInterrupted
			r.tracef("interrupted")
			return
		}
		r.branchDue()
		ready = ready[:0]
		for _, n := range r.nodes {
			if in := n.cur; in != nil && in.runnable() {
				ready = append(ready, in)
			}
		}
		if len(ready) > 0 {
			in := ready[0]
			if len(ready) > 1 {
				in = ready[r.sched.Intn(len(ready))]
			}
			if r.overSteps() {
				return
			}
			r.step(in, watchdog)
			continue
		}
		next := r.nextEventAt()
		// A stop at or past the horizon leaves the horizon to end the run:
		// a liveness failure happens at the end of the recovery phase, and
		// a schedule made from it has that time as its duration.
		if stop := r.opts.StopAtNs; stop > 0 && next > stop && stop < r.horizon {
			r.stopAt(stop)
			return
		}
		if next >= r.horizon {
			r.now = max(r.now, r.horizon)
			r.branchDue()
			r.net.Advance(r.now)
			if r.reachHorizon() {
				return
			}
			continue
		}
		if next > r.now {
			r.now = next
			r.branchDue()
		}
		r.net.Advance(r.now)
		r.fireEnds()
		r.fireDue()
	}
}

// guardedLoop runs the scheduler and turns a panic in it, a broken
// invariant of the engine, into an internal failure of the run. The
// scheduler runs only while every guest is parked, so shutdown can still
// stop them.
func (r *run) guardedLoop() {
	defer func() {
		if p := recover(); p != nil {
			r.internal(nil, fmt.Sprintf("the scheduler panicked: %v", p))
		}
	}()
	r.loop()
}

// internal records a failure of sf itself: it replaces any verdict the run
// had, since that verdict cannot be trusted.
func (r *run) internal(in *instance, what string) {
	r.ended = false
	r.fail(in, ClassInternal, internalMessage(what))
}

func internalMessage(what string) string {
	return "internal error in sf: " + what + "; please report it with this seed and world"
}

// reachHorizon handles the run reaching r.horizon. Without liveness the run
// passes, as one that hit the time horizon. With liveness, the end of the
// fault period starts the recovery phase; the end of the recovery phase with
// a workload or the finally check still running fails the run. It reports
// whether the run is over.
func (r *run) reachHorizon() bool {
	switch {
	case r.spec.LivenessWithinNs > 0 && !r.recovering:
		r.startRecovery("the fault period ended")
		return false
	case r.recovering:
		who := r.unfinished()
		r.fail(nil, ClassLiveness, fmt.Sprintf("liveness: %s did not finish within %s of the recovery phase starting at %s",
			who, time.Duration(r.horizon-r.recoveryAt), fmtTime(r.recoveryAt)))
		r.res.Node = who
		return true
	}
	r.res.Status = StatusHorizon
	r.tracef("hit the time horizon")
	return true
}

// stopAt ends a run that reached Options.StopAtNs: nothing is left to do at
// or before that time, and the next event lies beyond it. It is a hard stop
// and nothing more: it neither starts the recovery phase nor fails a
// liveness bound, and the history is checked as at the time horizon, since a
// replay that gets this far without failing has run as long as it was asked
// to.
func (r *run) stopAt(stop int64) {
	r.now = max(r.now, stop)
	r.net.Advance(r.now)
	r.res.Status = StatusHorizon
	r.res.CutShort = true
	r.tracef("stop: reached the schedule's duration of %s; the run ends here", time.Duration(stop))
}

// unfinished names the first workload (or the finally check) still running.
func (r *run) unfinished() string {
	for _, n := range r.nodes {
		if (n.spec.Workload || n.spec.Finally) && !n.done && (!n.spec.Finally || n.count > 0) {
			return n.spec.Name
		}
	}
	return "the run"
}

// startRecovery ends the fault period: no fault fires from now on, and
// crashed nodes restart at once. Everything must then finish within the
// liveness bound (or, for a finally check without liveness mode, within the
// world's duration).
func (r *run) startRecovery(why string) {
	r.recovering = true
	r.recoveryAt = r.now
	r.healNetwork()
	within := r.spec.LivenessWithinNs
	if within <= 0 {
		within = r.spec.DurationNs
	}
	r.horizon = r.now + within
	restarting := 0
	for _, n := range r.nodes {
		if n.cur == nil && !n.done && n.restartAt != math.MaxInt64 {
			n.restartAt = r.now
			restarting++
		}
	}
	r.tracef("recovery: %s; faults stop, partitions, clogs, slowdowns and pauses end, %d crashed nodes restart now, everything must finish by %s",
		why, restarting, fmtTime(r.horizon))
}

func (r *run) nextEventAt() int64 {
	next := r.net.NextAt()
	for _, n := range r.nodes {
		if in := n.cur; in != nil && in.parked && in.deadline < next && n.pausedUntil <= r.now {
			next = in.deadline
		}
		if n.cur == nil && n.restartAt < next {
			next = n.restartAt
		}
	}
	next = min(next, r.nextEndAt())
	if r.next < len(r.planned) && int64(r.planned[r.next].At) < next {
		next = int64(r.planned[r.next].At)
	}
	return next
}

// restartDue starts the nodes whose restart is due.
func (r *run) restartDue() {
	for _, n := range r.nodes {
		if n.cur == nil && !n.done && n.restartAt <= r.now && !r.ended {
			r.start(n)
		}
	}
}

// fireDue applies planned faults and restarts that are due now.
func (r *run) fireDue() {
	r.restartDue()
	for r.next < len(r.planned) && int64(r.planned[r.next].At) <= r.now && !r.ended {
		f := r.planned[r.next]
		r.next++
		r.apply(f)
	}
}

func (r *run) nodeByName(name string) *node {
	for _, n := range r.nodes {
		if n.spec.Name == name {
			return n
		}
	}
	return nil
}

func (r *run) apply(f Fault) {
	if r.recovering {
		return // the fault period is over
	}
	if schedule.IsNet(f.Kind) {
		if r.quiet() {
			what := f.Describe()
			if f.Kind == KindNetReset {
				what = "reset the connections of " + r.instanceName(f.Node)
			}
			r.tracef("quiet: %s suppressed", what)
			return
		}
		r.applyNet(f)
		return
	}
	switch f.Kind {
	case KindBitrot:
		n := r.nodeByName(f.Node)
		if n == nil || r.quiet() {
			return
		}
		r.bitrot(n, f)
	case KindClockJump:
		n := r.nodeByName(f.Node)
		if n == nil {
			return
		}
		if r.quiet() {
			r.tracef("quiet: clock jump of %s suppressed", f.Node)
			return
		}
		n.jumps += int64(f.Delta)
		if r.mutant == MutantMonotonicJump && f.Delta != 0 {
			n.monoJumps += int64(f.Delta)
			r.engineHits++
		}
		r.res.Faults = append(r.res.Faults, f)
		r.tracef("fault clock jump %s by %s", f.Node, schedule.Time(int64(f.Delta)))
	case KindCrash:
		n := r.nodeByName(f.Node)
		if n == nil || n.cur == nil {
			return // down already: nothing to crash, and nothing fired
		}
		if r.quiet() {
			r.tracef("quiet: crash of %s suppressed", n.cur.name)
			return
		}
		in := n.cur
		r.res.Faults = append(r.res.Faults, f)
		r.tracef("fault crash %s, restart at %s", in.name, fmtTime(int64(f.Until)))
		r.inFlight(in)
		written := r.mmapWrittenBack(in)
		r.kill(in)
		r.crashDisk(n, 0)
		r.applyWrittenBack(n, written)
		n.cur = nil
		n.done = false
		n.restartAt = int64(f.Until)
	}
}

// step hands the baton to in and waits until it parks or exits.
func (r *run) step(in *instance, watchdog *time.Timer) {
	r.res.Steps++
	if r.res.Steps == r.opts.panicAtStep {
		panic("injected invariant failure")
	}
	in.parked = false
	in.stepStart = time.Now()
	watchdog.Reset(time.Duration(r.spec.WatchdogNs + watchdogGraceNs))
	in.hold.Store(holdHost)
	in.resume <- cmdRun
	select {
	case m := <-r.back:
		if !watchdog.Stop() {
			<-watchdog.C
		}
		r.handBack(m)
	case <-watchdog.C:
		if m, ok := r.takeBaton(in); ok {
			r.handBack(m)
			return
		}
		r.stopSpinning(in)
		r.fail(in, ClassWatchdog, fmt.Sprintf("%s ran for %s of real time without yielding and could not be stopped (watchdog); its goroutine is abandoned", in.name, time.Duration(r.spec.WatchdogNs+watchdogGraceNs)))
		in.node.cur = nil
	}
}

func (r *run) handBack(m msg) {
	if m.kind == msgExited {
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
func (r *run) takeBaton(in *instance) (msg, bool) {
	for {
		if in.hold.CompareAndSwap(holdWasm, holdAbandoned) {
			return msg{}, false
		}
		select {
		case m := <-r.back:
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
func (r *run) stopSpinning(in *instance) {
	in.abandoned = true // the scheduler's own record; the guest reads hold
	if in.mod != nil {
		in.mod.CloseWithExitCode(context.Background(), 137)
	}
}

// watchdogTick runs in the guest's own goroutine at the loop ticks the
// instrumentation adds (and at Go's own sched_yield calls): a guest that has
// run longer than the watchdog without yielding is stopped there.
func (in *instance) watchdogTick(ctx context.Context) {
	r := in.run
	if time.Since(in.stepStart) <= time.Duration(r.spec.WatchdogNs) {
		return
	}
	in.failRun(ctx, ClassWatchdog, fmt.Sprintf("ran for %s of real time without yielding (watchdog)", time.Duration(r.spec.WatchdogNs)))
}

// kill stops a parked or not yet started instance and waits for its
// goroutine to finish.
func (r *run) kill(in *instance) {
	if in.exited || in.abandoned {
		return
	}
	in.resume <- cmdKill
	for m := range r.back {
		if m.kind == msgExited && m.inst == in {
			break
		}
	}
	r.closeSockets(in)
	in.exited = true
}

func (r *run) closeSockets(in *instance) {
	var socks []*simnet.Socket
	for _, f := range in.fds {
		if f != nil && f.sock != nil {
			socks = append(socks, f.sock)
		}
	}
	r.net.Crash(socks)
}

// exited handles an instance whose _start returned on its own.
func (r *run) exited(in *instance) {
	if in.crashed {
		in.exited = true // crashInside did the rest
		return
	}
	in.exited = true
	in.flushOutput()
	n := in.node
	n.cur = nil
	r.closeSockets(in)
	if r.ended {
		return
	}
	if in.failed {
		return // the host already recorded the failure
	}
	code := in.exitCode
	switch {
	case in.hostPanic != "":
		r.internal(in, fmt.Sprintf("a host call of %s panicked: %s", in.name, in.hostPanic))
	case in.trap != "":
		r.fail(in, ClassTrap, fmt.Sprintf("%s: %s", in.name, in.trap))
	case code == 0 && n.spec.Finally:
		r.tracef("%s exited 0", in.name)
		n.done = true
		r.res.Status = StatusPass
		r.end()
	case code == 0 && n.spec.Workload:
		r.tracef("%s exited 0", in.name)
		n.done = true
		if r.allWorkloadsDone() {
			if f := r.finallyNode(); f != nil {
				if !r.recovering {
					r.startRecovery("every workload exited 0")
				}
				// The check must see every node: restart the crashed ones
				// before it starts.
				r.restartDue()
				r.start(f)
				return
			}
			r.res.Status = StatusPass
			r.end()
		}
	case code == 0:
		r.tracef("%s exited 0", in.name)
		n.done = true
	default:
		class, what := classifyExit(in)
		if r.spec.Supervise && !n.spec.Workload && class == ClassExit {
			down := rng.New(r.seedOf(bsSched), "restart", rng.Key(n.spec.Name), uint64(in.num)).Between(r.spec.RestartAfter[0], r.spec.RestartAfter[1])
			n.restartAt = r.now + down
			r.tracef("%s exited with status %d; supervised restart at %s", in.name, code, fmtTime(n.restartAt))
			return
		}
		r.fail(in, class, fmt.Sprintf("%s %s", in.name, what))
	}
}

func (r *run) finallyNode() *node {
	for _, n := range r.nodes {
		if n.spec.Finally {
			return n
		}
	}
	return nil
}

func (r *run) allWorkloadsDone() bool {
	for _, n := range r.nodes {
		if n.spec.Workload && !n.done {
			return false
		}
	}
	return true
}

// classifyExit names what a non-zero exit was, from what Go's runtime
// printed on stderr. A Go panic or fatal error prints its message line and
// then, after a blank line, "goroutine N [...]:" or "runtime stack:"; only a
// marker line followed by that counts, so a program that merely logs a line
// starting with "panic: " is not taken for one.
func classifyExit(in *instance) (class, what string) {
	if in.crashLine != "" && in.exitCode == 2 {
		if strings.Contains(in.crashLine, "out of memory") {
			return ClassOOM, fmt.Sprintf("ran out of memory (limit %d MiB): %s", GuestMemoryLimitPages/16, in.crashLine)
		}
		if strings.Contains(in.crashLine, "all goroutines are asleep - deadlock!") {
			return ClassDeadlock, "deadlocked: all goroutines are asleep"
		}
		return ClassPanic, in.crashLine
	}
	if in.oom {
		return ClassOOM, fmt.Sprintf("ran out of memory (limit %d MiB)", GuestMemoryLimitPages/16)
	}
	return ClassExit, fmt.Sprintf("exited with status %d", in.exitCode)
}

// fail records the run's failure (the first one wins) and ends the run.
func (r *run) fail(in *instance, class, message string) {
	if r.ended {
		return
	}
	r.res.Status = StatusFail
	r.res.Class = class
	r.res.Message = message
	if in != nil {
		r.res.Node = in.name
		if in.crashTail != nil {
			r.res.Tail = append([]string(nil), in.crashTail...)
		} else {
			r.res.Tail = append([]string(nil), in.stderrTail...)
		}
	}
	r.tracef("FAIL  %s", message)
	r.end()
}

func (r *run) end() { r.ended = true }

// shutdown stops every instance still alive, so no goroutine outlives the run.
func (r *run) shutdown() {
	for _, n := range r.nodes {
		if in := n.cur; in != nil && !in.exited && !in.abandoned {
			r.kill(in)
		}
	}
}

// instanceName is the name of a node's running instance ("server#2"), or
// the node's name when it has none.
func (r *run) instanceName(node string) string {
	if n := r.nodeByName(node); n != nil && n.cur != nil {
		return n.cur.name
	}
	return node
}

func (r *run) tracef(format string, args ...any) {
	line := fmt.Sprintf("%10s  ", fmtTime(r.now)) + fmt.Sprintf(format, args...)
	r.traceLimit(len(line))
	r.traceLines = append(r.traceLines, line)
}

// fmtTime renders virtual time as seconds with three decimals, as the trace
// shows it.
func fmtTime(ns int64) string {
	return fmt.Sprintf("%d.%03ds", ns/1e9, (ns%1e9)/1e6)
}

// instance is one incarnation of a node: one wasm module instance.
type instance struct {
	run    *run
	node   *node
	num    int
	name   string
	hashID uint64
	mod    api.Module
	// maps are the guest's shared writable mappings (mmap.go).
	maps     []guestMapping
	resume   chan cmd
	random   *rng.Stream
	fds      []*fdEntry
	started  bool
	parked   bool
	deadline int64
	waits    []waitSub
	// slowDeadlines maps the timer deadlines a slowdown stretched to what
	// they were stretched to.
	slowDeadlines map[int64]int64
	stepStart     time.Time
	// pCounter and gReg are, with Spec.Preempt, the guest's preemption
	// countdown and Go's g register (preempt.go); pLoaded is the countdown
	// as the host last set it.
	pCounter api.MutableGlobal
	gReg     api.Global
	pLoaded  int64
	// hold says who may touch the run's state: the scheduler or this
	// instance's goroutine (see holdSched). It is the only field both read
	// without a channel handoff between them.
	hold atomic.Int32

	exited, abandoned, failed, oom bool
	crashed                        bool // crashed inside one of its own disk operations
	exitCode                       uint32
	trap                           string
	hostPanic                      string // a host function panicked: a bug in sf

	lineBuf    [3][]byte
	sdkBuf     []byte // a partial line of Antithesis SDK output
	stderrTail []string
	// crashLine is Go's "panic: ..." or "fatal error: ..." line once the
	// stack dump that follows it has started, and crashTail that line and
	// the lines after it, for the report.
	crashLine, pendingCrash string
	pendingAge              int
	crashTail               []string
}

type waitSub struct {
	fd    int32
	write bool
}

func (in *instance) runnable() bool {
	if in.node.pausedUntil > in.run.now {
		return false // paused: it runs again when the pause ends
	}
	if !in.started {
		return true
	}
	if !in.parked {
		return false
	}
	if in.deadline <= in.run.now {
		return true
	}
	for _, w := range in.waits {
		if in.fdReady(w.fd, w.write) {
			return true
		}
	}
	return false
}

type ctxKey struct{}

func (in *instance) main() {
	r := in.run
	c := <-in.resume
	in.started = true
	if c == cmdKill {
		in.hold.Store(holdSched)
		r.back <- msg{kind: msgExited, inst: in}
		return
	}
	ctx := context.WithValue(context.Background(), ctxKey{}, in)
	ctx = experimental.WithMemoryAllocator(ctx, memoryAllocator)
	cfg := wazero.NewModuleConfig().
		WithName(fmt.Sprintf("%s@%d", in.name, instanceSerial.Add(1))).
		WithStartFunctions()
	mod, err := r.eng.rt.InstantiateModule(ctx, in.node.compiled, cfg)
	if err != nil {
		in.trap = "could not start: " + err.Error()
		in.hold.Store(holdSched)
		r.back <- msg{kind: msgExited, inst: in}
		return
	}
	in.mod = mod
	in.preemptStart(mod)
	in.hold.Store(holdWasm)
	_, err = mod.ExportedFunction("_start").Call(ctx)
	if in.hold.Swap(holdSched) == holdAbandoned {
		return // the scheduler gave up on this guest and closed its module
	}
	var exit *sys.ExitError
	switch {
	case err == nil:
		in.exitCode = 0
	case errors.As(err, &exit):
		in.exitCode = exit.ExitCode()
	default:
		msgText := err.Error()
		if i := strings.IndexByte(msgText, '\n'); i > 0 {
			msgText = msgText[:i]
		}
		// wazero reports the guest's own traps as "wasm error: ..."; any
		// other error is a Go panic in one of our host functions, which
		// it recovered and marked.
		if p, ok := strings.CutSuffix(msgText, " (recovered by wazero)"); ok || !strings.HasPrefix(msgText, "wasm error: ") {
			in.hostPanic = p
			break
		}
		if strings.Contains(msgText, "out of bounds memory") || strings.Contains(msgText, "memory") && in.oom {
			in.oom = true
		}
		in.trap = "wasm trap: " + msgText
	}
	if in.pCounter != nil {
		in.preemptSync()
	}
	mod.Close(context.Background())
	r.back <- msg{kind: msgExited, inst: in}
}

// park hands the baton back and waits for the next command. It returns only
// if the instance should go on; a kill ends the guest from inside the host
// call.
func (in *instance) park(ctx context.Context) {
	in.preemptParked()
	in.parked = true
	in.hold.Store(holdSched)
	in.run.back <- msg{kind: msgParked, inst: in}
	if c := <-in.resume; c == cmdKill {
		in.stop(ctx, 137)
	}
}

// stop ends the guest from inside a host call: closing the module alone does
// not stop it, so the call panics with an exit error that wazero turns into
// _start's result.
func (in *instance) stop(ctx context.Context, code uint32) {
	in.mod.CloseWithExitCode(ctx, code)
	panic(sys.NewExitError(code))
}

// output collects a guest's stdout and stderr into trace lines.
func (in *instance) output(fd int, p []byte) {
	buf := append(in.lineBuf[fd], p...)
	for {
		i := indexByte(buf, '\n')
		if i < 0 {
			break
		}
		in.emitLine(fd, string(buf[:i]))
		buf = buf[i+1:]
	}
	if len(buf) > 4096 {
		in.emitLine(fd, string(buf))
		buf = buf[:0]
	}
	in.lineBuf[fd] = append(in.lineBuf[fd][:0], buf...)
}

const stderrTailLines = 20

// crashContextLines is how many stderr lines from before a panic the report
// shows with it.
const crashContextLines = 5

func (in *instance) emitLine(fd int, line string) {
	in.run.tracef("%s: %s", in.name, line)
	if fd != 2 {
		return
	}
	in.stderrTail = append(in.stderrTail, line)
	if len(in.stderrTail) > stderrTailLines {
		in.stderrTail = in.stderrTail[1:]
	}
	switch {
	case in.crashLine != "":
		if len(in.crashTail) < stderrTailLines {
			in.crashTail = append(in.crashTail, line)
		}
	case strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: "):
		in.pendingCrash, in.pendingAge = line, 0
	case in.pendingCrash != "":
		in.pendingAge++
		if strings.HasPrefix(line, "goroutine ") || strings.HasPrefix(line, "runtime stack:") || strings.HasPrefix(line, "[signal ") {
			in.crashLine = in.pendingCrash
			// Keep a few lines the program wrote before it crashed, then the
			// crash itself.
			at := len(in.stderrTail) - 1
			for at > 0 && in.stderrTail[at] != in.pendingCrash {
				at--
			}
			in.crashTail = append([]string(nil), in.stderrTail[max(0, at-crashContextLines):]...)
		} else if in.pendingAge > 3 && !strings.HasPrefix(line, "\t") && line != "" {
			in.pendingCrash = "" // a log line, not a crash
		}
	}
}

func (in *instance) flushOutput() {
	for fd := 1; fd <= 2; fd++ {
		if len(in.lineBuf[fd]) > 0 {
			in.emitLine(fd, string(in.lineBuf[fd]))
			in.lineBuf[fd] = nil
		}
	}
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}
