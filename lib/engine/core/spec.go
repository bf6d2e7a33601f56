package core

import (
	"sync/atomic"

	"github.com/sf-dst/sf/lib/check"
	"github.com/sf-dst/sf/lib/faults"
	"github.com/sf-dst/sf/lib/history"
	"github.com/sf-dst/sf/lib/margin"
	"github.com/sf-dst/sf/lib/schedule"
)

// GuestMemoryLimitPages caps each guest's linear memory: 16384 pages of 64
// KiB is 1 GiB. A guest that needs more fails with class oom.
const GuestMemoryLimitPages = 16384

// GuestMemoryBytes is GuestMemoryLimitPages in bytes.
const GuestMemoryBytes = GuestMemoryLimitPages * 65536

// NodeSpec is one program of the world as the engine needs it: a name, its
// module and its command line.
type NodeSpec struct {
	Name     string
	Wasm     string // path of the built module
	Args     []string
	Env      map[string]string
	Workload bool
	// Finally marks the check that starts once every workload has exited 0.
	Finally bool
	// Seed lists files copied onto the node's disk before it first starts,
	// durable and synced (the world's disk and files fields).
	Seed []SeedFile
	// UpgradeWasm is the module the node runs from its first restart on.
	UpgradeWasm string
	// NetFaults says whether partitions, clogs and resets reach this
	// program.
	NetFaults bool
	// Faults says whether the per-node faults (crashes, clock skew and
	// jumps) reach this program: by default nodes take them and workloads
	// and the finally check do not.
	Faults bool
}

// SeedFile is one file of a seeded disk.
type SeedFile struct {
	Path string
	Data []byte
}

// Spec is what a run needs from the world file.
type Spec struct {
	Nodes      []NodeSpec // crashable nodes first, then workloads
	DurationNs int64
	LatencyNs  [2]int64
	WatchdogNs int64
	Supervise  bool
	// Kinds are the world's settings of the fault kinds' fields, by the
	// world file's field name (crash_per_sec, restart_after, udp_loss...):
	// each kind finds its rate or probability under its first field
	// (faults.RateField), and the shape of its faults under the others. A
	// field missing is 0: nothing of that kind, and restarts at once.
	Kinds faults.Values
	// LivenessWithinNs turns on liveness mode: at DurationNs the faults stop
	// and crashed nodes restart, and the workloads (and the finally check)
	// must then finish within this much virtual time. 0 is off.
	LivenessWithinNs int64
	// ClockSkewNs offsets each node's wall clock by a seeded amount in
	// [-skew, +skew].
	ClockSkewNs int64
	// Swarm turns each fault type on or off per seed and rescales its rate.
	Swarm bool
	// Net holds the network's settings.
	Net NetFaults
	// Disk holds the disk settings and fault rates.
	Disk DiskFaults
	// CheckerModel is the model recorded histories are checked against.
	// Defaults to kv.
	CheckerModel string
	// HistoryTimeoutNs is the real-time limit of a linearizability check.
	// Defaults to 30s.
	HistoryTimeoutNs int64
	// FaultsAfterSetup holds every fault back until a node calls
	// sim.SetupComplete.
	FaultsAfterSetup bool
	// Limits bound the run's steps, trace and descriptors, and the
	// history check's work (limits.go). Defaults to the Default*Max
	// constants.
	Limits Limits
	// Preempt, when not nil, preempts goroutines inside every program
	// (preempt.go). Defaults to nil: no counting and no preemption, the
	// module runs as it did before preemption existed.
	Preempt *Preempt
	// NetOverlay puts /etc/hosts and /etc/nsswitch.conf on every node's disk
	// before it starts, so that guests built with the net_overlay resolve
	// node names (netoverlay.go).
	NetOverlay bool
}

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
	// PanicAtCall and PanicAtStep, when not 0, make a host call (by index)
	// or the scheduler (at a step) panic: tests use them to break an
	// invariant of the engine on purpose.
	PanicAtCall, PanicAtStep uint64
	// HostClock makes every clock read of every guest a host call, as
	// before the clock rewrite answered them inside the guest (clock.go):
	// the runs are the same either way, which tests check with it.
	HostClock bool
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
	// SnapshotAt, when above 0, copies the run's state (snapshot.go) into
	// Result.Snapshot once that many scheduler steps have run, before the
	// next. Defaults to 0, no snapshot.
	SnapshotAt uint64
	// Restore, when set, replaces the run's state with the snapshot's once
	// as many steps have run as had when it was taken. The run must be one
	// whose guests then stand where the snapshot's did: the same world and
	// seed, with options that do not change the run before that step.
	// Defaults to nil.
	Restore *Snapshot
	// AtStep, when set, is called at the top of the scheduler's loop once
	// before the first step and once after every step, where every node is
	// parked, with the point's step, virtual time and the means to fork the
	// world there (StepPoint.Fork). The run waits while it runs. Defaults
	// to nil.
	AtStep func(StepPoint)
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
	Margin *margin.Value `json:"margin,omitempty"`
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
	// Snapshot is the state Options.SnapshotAt asked for; nil if the run
	// ended first.
	Snapshot *Snapshot
}
