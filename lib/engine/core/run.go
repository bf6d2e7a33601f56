package core

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/faults"
	"github.com/sf-dst/sf/lib/history"
	"github.com/sf-dst/sf/lib/rng"
	"github.com/sf-dst/sf/lib/simnet"
	"github.com/sf-dst/sf/lib/wasmrewrite"
)

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
	Kind msgKind
	inst *Instance
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

// Run is one seed of one world: the scheduler, the clock, the planned
// faults and everything the nodes share.
type Run struct {
	Spec *Spec
	Seed uint64
	Opts Options
	// Now is virtual time, in nanoseconds from the start of the run.
	Now   int64
	Nodes []*Node
	Net   *simnet.Net

	sched *rng.Stream
	exec  *runExec

	// plan is what the timed faults are drawn from, fixed for the run;
	// planner hands them out as their time comes.
	plan    *faults.Plan
	planner *faults.Planner
	res     *Result
	ended   bool

	sites         map[string]*siteState
	scheduledHits map[siteKey]bool
	scheduledOps  map[opKey]Fault
	// rates are, by kind, the kinds' rates and probabilities for this seed,
	// after swarm testing.
	rates      map[string]float64
	quietUntil int64
	rec        *history.Recorder
	opNode     map[int64]*Instance // open history operation -> the instance that started it

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

// runExec is what runs a run: its modules, the channel the driver hands
// the baton back to the scheduler on, and the driver's own. It is not state
// (snapshot.go).
type runExec struct {
	mods Modules
	back chan msg
	// drive is the driver's channel (baton.go).
	drive chan driveReq
	// cur is the instance that holds the baton in a step, and curStart
	// when the step began (since monoBase): the watchdog reads them while
	// instances hand the baton on among themselves (handOn).
	cur      atomic.Pointer[Instance]
	curStart atomic.Int64
	// clockReads counts the clock reads the guests answered themselves
	// (clock.go).
	clockReads uint64
	// ready is handOn's list of ready instances, kept for its memory.
	ready []*Instance
	// snapshot is Result.Snapshot, and restored says Options.Restore is
	// done: neither is part of the run's state.
	snapshot *Snapshot
	restored bool
	// counted says whether any counted kind has a positive rate in this
	// seed, once Fires has asked (rates do not change in a run): most
	// worlds turn none on, and their every read and write asked the rates
	// map by a string key.
	counted countedState
	// lastStep is the step Options.AtStep last saw, once stepSeen.
	lastStep uint64
	stepSeen bool
	// traceBuf is where Tracef makes a line, kept for its memory.
	traceBuf []byte
}

// Modules gives a run its compiled guests and the runtime to instantiate
// them in, with the host modules of every adapter already there.
type Modules interface {
	// CompileFor returns the compiled module at path, instrumented for the
	// preemption settings p (nil for none).
	CompileFor(path string, p *Preempt) (wazero.CompiledModule, error)
	Runtime() wazero.Runtime
	// ForkInfo says how to copy and resume a guest of the module at path,
	// compiled before, or why it cannot fork.
	ForkInfo(path string) (*wasmrewrite.ForkInfo, error)
	// DataRange is the run [lo, hi) of memory that instantiating the
	// module at path, compiled before, writes whole from its data
	// segments (wasmrewrite.DataRange): a reused memory need not be
	// cleared there. lo == hi when there is none.
	DataRange(path string) (lo, hi uint64)
	// Instances keeps ended guests' instances for reuse (reuse.go); nil
	// for none.
	Instances() *InstancePool
}

const wallEpochNs = 1_700_000_000 * int64(time.Second)

var instanceSerial atomic.Uint64

// DefaultWatchdogNs is the watchdog a Spec without one gets: 30s of real
// time, the world file's default.
const DefaultWatchdogNs = int64(30 * time.Second)

const maxTime = int64(math.MaxInt64)

// Run runs one seed of the world described by spec.
// Execute runs one seed of the world described by spec, with the guests
// mods compiles.
func Execute(mods Modules, spec *Spec, seed uint64, opts Options) (*Result, error) {
	start := time.Now()
	if spec.WatchdogNs <= 0 {
		s := *spec
		s.WatchdogNs = DefaultWatchdogNs
		spec = &s
	}
	r := &Run{
		Spec: spec, Seed: seed, Opts: opts,
		exec:      &runExec{mods: mods, back: make(chan msg)},
		sched:     rng.New(seed, "sched"),
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
		m, err := mods.CompileFor(ns.Wasm, spec.Preempt)
		if err != nil {
			return nil, fmt.Errorf("node %s: %w", ns.Name, err)
		}
		n := &Node{Idx: i, Spec: ns, compiled: m, wasm: ns.Wasm, restartAt: math.MaxInt64, Slow: 1}
		n.FS = disk.New(func() int64 { return r.Wall(n) })
		n.FS.StrictDirs = spec.Disk.StrictDirs
		if spec.Disk.CapacityBytes > 0 {
			n.FS.SetCapacity(spec.Disk.CapacityBytes)
		}
		for _, f := range ns.Seed {
			if err := n.FS.AddFile(f.Path, f.Data); err != nil {
				return nil, fmt.Errorf("node %s: seeding its disk: %w", ns.Name, err)
			}
		}
		if ns.Faults && spec.ClockSkewNs > 0 {
			n.skew = rng.New(seed, "clock", rng.Key(ns.Name)).Between(-spec.ClockSkewNs, spec.ClockSkewNs)
		}
		r.Nodes = append(r.Nodes, n)
	}
	r.Net = simnet.New(seed, spec.LatencyNs, names)
	if err := r.Net.SetLinks(spec.Net.Links); err != nil {
		return nil, err
	}
	if opts.Mutant != "" {
		if err := r.setMutant(opts.Mutant); err != nil {
			return nil, err
		}
	}
	r.horizon = spec.DurationNs
	r.drawSwarm()
	r.rates = map[string]float64{}
	for _, k := range faults.Registry() {
		r.rates[k.Name] = r.Rate(k.Name, spec.Kinds.Rate(k.Name))
	}
	r.plan = r.newPlan()
	if opts.Faults != nil {
		var timed []Fault
		r.scheduledHits, r.scheduledOps, timed = r.scheduleOf(opts.Faults)
		r.planner = faults.ListPlanner(timed)
	} else {
		r.planner = faults.NewPlanner(r.plan, seed, 0)
	}
	r.initPreempt()
	for _, n := range r.Nodes {
		if !n.Spec.Finally {
			r.start(n)
		}
	}
	r.startDriver()
	r.guardedLoop()
	return r.finish(start, opts.Inspect), nil
}

// scheduleOf is a replayed schedule as a run fires it: the buggify hits and
// the faults at numbered events it lists, and its timed faults, a
// partition's side turned into its groups.
func (r *Run) scheduleOf(list []Fault) (hits map[siteKey]bool, ops map[opKey]Fault, timed []Fault) {
	hits, ops = map[siteKey]bool{}, map[opKey]Fault{}
	for _, f := range list {
		n := r.NodeByName(f.Node)
		switch {
		case n == nil:
		case f.Kind == faults.KindBuggify:
			hits[siteKey{n.Idx, f.Site, f.Op}] = true
		case faults.Positional(f.Kind):
			ops[opKey{f.Kind, n.Idx, f.Op}] = f
		}
	}
	// A side is cut from the other programs that network faults reach;
	// one with "faults": false stays out of every group and talks to all.
	var netNames []string
	for _, ns := range r.Spec.Nodes {
		if ns.NetFaults {
			netNames = append(netNames, ns.Name)
		}
	}
	for _, f := range list {
		if f.Kind == faults.KindPartition && len(f.Side) > 0 {
			f.Groups, f.Side = f.PartitionGroups(netNames), nil
		}
		if !faults.Positional(f.Kind) {
			timed = append(timed, f)
		}
	}
	return hits, ops, timed
}

// finish stops what still runs and returns the run's result, with each
// node's disk listing if inspect.
func (r *Run) finish(start time.Time, inspect bool) *Result {
	r.shutdown()
	r.stopDriver()
	r.preemptTrace()
	if r.res.Status == StatusPass || r.res.Status == StatusHorizon {
		r.checkHistory()
	}
	res := r.res
	res.AtNs = r.Now
	res.HostCalls = r.calls
	res.Hash = r.hash
	clockReadsAnswered.Add(r.exec.clockReads)
	res.RealNs = time.Since(start).Nanoseconds()
	res.Trace = r.traceLines
	res.MutantHits = r.mutantHits()
	res.Snapshot = r.exec.snapshot
	if inspect {
		for _, n := range r.Nodes {
			res.Disks = append(res.Disks, NodeDisk{Node: n.Spec.Name, UsageBytes: n.FS.Usage(), CapacityBytes: n.FS.Capacity(), Files: n.FS.Files()})
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
	return res
}

// WallNow is the wall clock of a node without skew or jumps.
func (r *Run) WallNow() int64 { return r.wallEpoch + r.Now }

// MonoNow is the monotonic clock every node reads: virtual time plus 1ns,
// since Go's runtime dies if nanotime reads 0.
func (r *Run) MonoNow() int64 { return r.Now + 1 }

// inFlight reports, when the instance in dies, the history operations it
// started and never completed: their outcome stays unknown.
func (r *Run) inFlight(in *Instance) {
	n := 0
	for id, owner := range r.opNode {
		if owner == in {
			n++
			delete(r.opNode, id) // it stays open in the history, but no later crash counts it again
		}
	}
	switch {
	case n == 1:
		r.Tracef("%s died with 1 operation in flight, its outcome is unknown", in.Name)
	case n > 1:
		r.Tracef("%s died with %d operations in flight, their outcome is unknown", in.Name, n)
	}
}

// start creates the next incarnation of n; it runs when the scheduler first
// hands it the baton.
func (r *Run) start(n *Node) {
	n.count++
	in := &Instance{
		InstanceState: InstanceState{
			Run:      r,
			Node:     n,
			Num:      n.count,
			Name:     fmt.Sprintf("%s#%d", n.Spec.Name, n.count),
			deadline: math.MaxInt64,
			Random:   rng.New(r.SeedOf(bsRandom), "random", rng.Key(n.Spec.Name), uint64(n.count)),
			hashID:   uint64(n.Idx)<<32 | uint64(n.count),
		},
		exec: &instExec{},
	}
	in.initFDs()
	n.Cur = in
	n.restartAt = math.MaxInt64
	if n.count > 1 {
		if n.Spec.UpgradeWasm != "" && n.count == 2 {
			m, err := r.exec.mods.CompileFor(n.Spec.UpgradeWasm, r.Spec.Preempt)
			if err == nil {
				n.compiled, n.wasm = m, n.Spec.UpgradeWasm
				r.Tracef("restart %s, upgraded", in.Name)
			}
		} else {
			r.Tracef("restart %s", in.Name)
		}
	}
	in.newCoroutine()
}

// loop is the scheduler.
func (r *Run) loop() {
	// The watchdog's timer is not set again for every step, which cost a
	// measurable part of a step: when it fires, step compares the time the
	// step has run with the limit and sets it for the rest.
	watchdog := time.NewTimer(time.Duration(r.Spec.WatchdogNs + watchdogGraceNs))
	defer watchdog.Stop()
	for {
		in := r.turns(false)
		if in == nil {
			return
		}
		r.step(in, watchdog)
	}
}

// turns runs the scheduler's turns until one picks an instance to step, and
// returns it with its step begun. On the scheduler's goroutine (inline
// false) it does all a turn may do, and returns nil when the run is over.
// Inline, on the goroutine of an instance about to park (handOn), it stops
// instead, returning nil, at the start of the first turn that would do more
// than move virtual time and the network on and pick an instance; the
// scheduler's goroutine then takes that turn, so that what happens, in what
// order, is the same either way.
func (r *Run) turns(inline bool) *Instance {
	// Inline, one read of the clock serves every turn's check and the step
	// begun: they are microseconds apart, the check is about seconds.
	var now time.Duration
	if inline {
		now = time.Since(monoBase)
	}
	for !r.ended {
		if inline && !r.plainTurn(now) {
			return nil
		}
		if !r.atSnapshotPoint() {
			return nil
		}
		r.atStep()
		if r.Opts.Interrupt != nil && r.Opts.Interrupt.Load() {
			if inline {
				return nil // set since plainTurn looked: the scheduler ends the run
			}
			r.res.Status = StatusInterrupted
			r.Tracef("interrupted")
			return nil
		}
		r.branchDue()
		r.exec.ready = r.readyInstances(r.exec.ready[:0])
		if in := r.pickReady(r.exec.ready); in != nil {
			if r.overSteps() {
				return nil
			}
			r.beginStep(in, now)
			return in
		}
		next := r.nextEventAt()
		if inline && !r.plainAdvance(next) {
			return nil
		}
		// A stop at or past the horizon leaves the horizon to end the run:
		// a liveness failure happens at the end of the recovery phase, and
		// a schedule made from it has that time as its duration.
		if stop := r.Opts.StopAtNs; stop > 0 && next > stop && stop < r.horizon {
			r.stopAt(stop)
			return nil
		}
		if next >= r.horizon {
			r.Now = max(r.Now, r.horizon)
			r.branchDue()
			r.Net.Advance(r.Now)
			if r.reachHorizon() {
				return nil
			}
			continue
		}
		if next > r.Now {
			r.Now = next
			r.branchDue()
		}
		r.Net.Advance(r.Now)
		r.fireEnds()
		r.fireDue()
	}
	return nil
}

// guardedLoop runs the scheduler and turns a panic in it, a broken
// invariant of the engine, into an internal failure of the run. The
// scheduler runs only while every guest is parked, so shutdown can still
// stop them.
func (r *Run) guardedLoop() {
	defer func() {
		if p := recover(); p != nil {
			r.internal(nil, fmt.Sprintf("the scheduler panicked: %v", p))
		}
	}()
	r.loop()
}

// internal records a failure of sf itself: it replaces any verdict the run
// had, since that verdict cannot be trusted.
func (r *Run) internal(in *Instance, what string) {
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
func (r *Run) reachHorizon() bool {
	switch {
	case r.Spec.LivenessWithinNs > 0 && !r.recovering:
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
	r.Tracef("hit the time horizon")
	return true
}

// stopAt ends a run that reached Options.StopAtNs: nothing is left to do at
// or before that time, and the next event lies beyond it. It is a hard stop
// and nothing more: it neither starts the recovery phase nor fails a
// liveness bound, and the history is checked as at the time horizon, since a
// replay that gets this far without failing has run as long as it was asked
// to.
func (r *Run) stopAt(stop int64) {
	r.Now = max(r.Now, stop)
	r.Net.Advance(r.Now)
	r.res.Status = StatusHorizon
	r.res.CutShort = true
	r.Tracef("stop: reached the schedule's duration of %s; the run ends here", time.Duration(stop))
}

// unfinished names the first workload (or the finally check) still running.
func (r *Run) unfinished() string {
	for _, n := range r.Nodes {
		if (n.Spec.Workload || n.Spec.Finally) && !n.done && (!n.Spec.Finally || n.count > 0) {
			return n.Spec.Name
		}
	}
	return "the run"
}

// startRecovery ends the fault period: no fault fires from now on, and
// crashed nodes restart at once. Everything must then finish within the
// liveness bound (or, for a finally check without liveness mode, within the
// world's duration).
func (r *Run) startRecovery(why string) {
	r.recovering = true
	r.recoveryAt = r.Now
	r.HealNetwork()
	within := r.Spec.LivenessWithinNs
	if within <= 0 {
		within = r.Spec.DurationNs
	}
	r.horizon = r.Now + within
	restarting := 0
	for _, n := range r.Nodes {
		if n.Cur == nil && !n.done && n.restartAt != math.MaxInt64 {
			n.restartAt = r.Now
			restarting++
		}
	}
	r.Tracef("recovery: %s; faults stop, partitions, clogs, slowdowns and pauses end, %d crashed nodes restart now, everything must finish by %s",
		why, restarting, fmtTime(r.horizon))
}

func (r *Run) nextEventAt() int64 {
	next := r.Net.NextAt()
	for _, n := range r.Nodes {
		if in := n.Cur; in != nil && in.parked && in.deadline < next && n.pausedUntil <= r.Now {
			next = in.deadline
		}
		if n.Cur == nil && n.restartAt < next {
			next = n.restartAt
		}
	}
	next = min(next, r.nextEndAt())
	if f, ok := r.planner.Peek(); ok && int64(f.At) < next {
		next = int64(f.At)
	}
	return next
}

// restartDue starts the nodes whose restart is due.
func (r *Run) restartDue() {
	for _, n := range r.Nodes {
		if n.Cur == nil && !n.done && n.restartAt <= r.Now && !r.ended {
			r.start(n)
		}
	}
}

// fireDue applies planned faults and restarts that are due now.
func (r *Run) fireDue() {
	r.restartDue()
	for !r.ended {
		f, ok := r.planner.Peek()
		if !ok || int64(f.At) > r.Now {
			return
		}
		r.planner.Pop(r.plan)
		r.apply(f)
	}
}

func (r *Run) NodeByName(name string) *Node {
	for _, n := range r.Nodes {
		if n.Spec.Name == name {
			return n
		}
	}
	return nil
}

func (r *Run) apply(f Fault) {
	if r.recovering {
		return // the fault period is over
	}
	faults.Apply(faultWorld{r}, f)
}

// kill stops a parked or not yet started instance and waits for its
// goroutine to finish.
func (r *Run) kill(in *Instance) {
	if in.exited || in.exec.abandoned {
		return
	}
	r.exec.drive <- driveReq{in, cmdKill}
	for m := range r.exec.back {
		if m.Kind == msgExited && m.inst == in {
			break
		}
	}
	r.closeSockets(in)
	in.exited = true
}

func (r *Run) closeSockets(in *Instance) {
	var socks []*simnet.Socket
	for _, f := range in.FDs {
		if f != nil && f.Sock != nil {
			socks = append(socks, f.Sock)
		}
	}
	r.Net.Crash(socks)
}

// exited handles an instance whose _start returned on its own.
func (r *Run) exited(in *Instance) {
	if in.crashed {
		in.exited = true // crashInside did the rest
		return
	}
	in.exited = true
	in.flushOutput()
	n := in.Node
	n.Cur = nil
	r.closeSockets(in)
	if r.ended {
		return
	}
	if in.failed {
		return // the host already recorded the failure
	}
	code := in.ExitCode
	switch {
	case in.resumeFailed != "":
		r.internal(in, fmt.Sprintf("%s %s", in.Name, in.resumeFailed))
	case in.hostPanic != "":
		r.internal(in, fmt.Sprintf("a host call of %s panicked: %s", in.Name, in.hostPanic))
	case in.trap != "":
		r.fail(in, ClassTrap, fmt.Sprintf("%s: %s", in.Name, in.trap))
	case code == 0 && n.Spec.Finally:
		r.Tracef("%s exited 0", in.Name)
		n.done = true
		r.res.Status = StatusPass
		r.end()
	case code == 0 && n.Spec.Workload:
		r.Tracef("%s exited 0", in.Name)
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
		r.Tracef("%s exited 0", in.Name)
		n.done = true
	default:
		class, what := classifyExit(in)
		if r.Spec.Supervise && !n.Spec.Workload && class == ClassExit {
			down := rng.New(r.SeedOf(bsSched), "restart", rng.Key(n.Spec.Name), uint64(in.Num)).Between(r.restartAfter())
			n.restartAt = r.Now + down
			r.Tracef("%s exited with status %d; supervised restart at %s", in.Name, code, fmtTime(n.restartAt))
			return
		}
		r.fail(in, class, fmt.Sprintf("%s %s", in.Name, what))
	}
}

func (r *Run) finallyNode() *Node {
	for _, n := range r.Nodes {
		if n.Spec.Finally {
			return n
		}
	}
	return nil
}

func (r *Run) allWorkloadsDone() bool {
	for _, n := range r.Nodes {
		if n.Spec.Workload && !n.done {
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
func classifyExit(in *Instance) (class, what string) {
	if in.crashLine != "" && in.ExitCode == 2 {
		if strings.Contains(in.crashLine, "out of memory") {
			return ClassOOM, fmt.Sprintf("ran out of memory (limit %d MiB%s): %s", GuestMemoryLimitPages/16, in.mappingsHeld(), in.crashLine)
		}
		if strings.Contains(in.crashLine, "all goroutines are asleep - deadlock!") {
			return ClassDeadlock, "deadlocked: all goroutines are asleep"
		}
		return ClassPanic, in.crashLine
	}
	if in.oom {
		return ClassOOM, fmt.Sprintf("ran out of memory (limit %d MiB%s)", GuestMemoryLimitPages/16, in.mappingsHeld())
	}
	return ClassExit, fmt.Sprintf("exited with status %d", in.ExitCode)
}

// fail records the run's failure (the first one wins) and ends the run.
func (r *Run) fail(in *Instance, class, message string) {
	if r.ended {
		return
	}
	r.res.Status = StatusFail
	r.res.Class = class
	r.res.Message = message
	if in != nil {
		r.res.Node = in.Name
		if in.crashTail != nil {
			r.res.Tail = append([]string(nil), in.crashTail...)
		} else {
			r.res.Tail = append([]string(nil), in.stderrTail...)
		}
	}
	r.Tracef("FAIL  %s", message)
	r.end()
}

func (r *Run) end() { r.ended = true }

// shutdown stops every instance still alive, so no goroutine outlives the run.
func (r *Run) shutdown() {
	for _, n := range r.Nodes {
		if in := n.Cur; in != nil && !in.exited && !in.exec.abandoned {
			r.kill(in)
		}
	}
}

func (r *Run) Tracef(format string, args ...any) {
	var buf []byte
	if r.exec != nil {
		buf = r.exec.traceBuf[:0]
	}
	buf = fmt.Appendf(appendTraceTime(buf, r.Now), format, args...)
	if r.exec != nil {
		r.exec.traceBuf = buf
	}
	line := string(buf)
	r.traceLimit(len(line))
	r.traceLines = append(r.traceLines, line)
}

// appendTraceTime appends what starts a trace line: the time ns as fmtTime
// writes it, right-aligned in ten columns, and two spaces. It formats with
// strconv instead of fmt, since every line of the trace starts so.
func appendTraceTime(b []byte, ns int64) []byte {
	if ns < 0 {
		return fmt.Appendf(b, "%10s  ", fmtTime(ns))
	}
	var t [24]byte
	d := strconv.AppendInt(t[:0], ns/1e9, 10)
	ms := (ns % 1e9) / 1e6
	d = append(d, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 's')
	for i := len(d); i < 10; i++ {
		b = append(b, ' ')
	}
	return append(append(b, d...), ' ', ' ')
}

// fmtTime renders virtual time as seconds with three decimals, as the trace
// shows it.
func fmtTime(ns int64) string {
	return fmt.Sprintf("%d.%03ds", ns/1e9, (ns%1e9)/1e6)
}
