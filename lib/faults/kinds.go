package faults

import (
	"fmt"

	"github.com/sf-dst/sf/lib/schedule"
)

// Kind is one kind of fault. A kind planned in time (a crash, a partition)
// is drawn by Draw and applied by Apply when its time comes; a kind that
// fires at a numbered event of a node (a disk operation, a datagram) has a
// Counter, and the engine decides at each such event whether it fires, from
// the schedule being replayed or from a stream keyed by the kind, the node
// and the event's number.
type Kind struct {
	Name string
	// Counter, when set, is what the fault's op counts.
	Counter string
	// Fields are the world file's faults.* fields that make a seed draw the
	// kind: its rate or probability first, whose value the run finds in
	// Plan.Rates (and core.Spec.Rates) by that name.
	Fields []string
	// Swarm says swarm testing turns the kind on and off per seed and
	// rescales its rate.
	Swarm bool

	// Draw draws the next event of k, a timed kind, for generator g and
	// returns its faults, none once g is done.
	Draw func(p *Plan, g *Gen, k *Kind) []Fault
	// Apply applies a timed kind's fault to the run.
	Apply func(w World, f Fault)

	scope     scope
	drawOrder int    // among the timed kinds, for faults at one time
	stream    string // the purpose of the kind's stream
	swarm     string // the name swarm testing rescales the rate under
	// enabled, when set, is a condition besides a rate above 0.
	enabled func(*Settings) bool
}

// World is what a timed fault acts on: the run it fires in.
type World interface {
	// Quiet says faults are held back now (a quiet period, before setup
	// completes when the world waits for it).
	Quiet() bool
	Tracef(format string, args ...any)
	// Record adds a fault to those that fired.
	Record(f Fault)
	// Instance names node's running instance ("server#2"), or "" when the
	// node is down or unknown.
	Instance(node string) string
	// Node reports whether the world has a node of that name.
	Node(node string) bool
	// Crash stops node's instance and applies the crash rules to its
	// disk; it restarts at until.
	Crash(node string, until int64)
	// JumpClock moves node's wall clock by delta.
	JumpClock(node string, delta int64)
	// Bitrot flips one bit of node's durable data, records the fault with
	// where it struck, and says so in the trace; nothing when the node's
	// disk holds no durable data.
	Bitrot(node string, f Fault)
	// Partition, Clog, Reset, Slow and Pause change the network and the
	// nodes, and undo what lasts at the fault's until. Partition and Clog
	// return an error when the fault does not fit the network; Reset
	// returns the connections it reset; Pause reports false when the node
	// is paused until then already.
	Partition(f Fault) error
	Clog(f Fault) error
	Reset(node string) int
	Slow(f Fault)
	Pause(f Fault) bool
}

// registry is every kind, in the order swarm testing draws and names them.
// The timed kinds' order among themselves, when faults of several fall at
// one time, is their drawOrder (planOrder).
var registry = []*Kind{
	{Name: schedule.KindCrash, Swarm: true, Fields: []string{"crash_per_sec", "restart_after"},
		scope: perNode, drawOrder: 1, stream: "crash", swarm: schedule.KindCrash, Draw: drawCrash, Apply: applyCrash},
	{Name: schedule.KindClockJump, Swarm: true, Fields: []string{"clock_jump_per_sec", "clock_jump_max"},
		scope: perNode, drawOrder: 3, stream: "clockjump", swarm: schedule.KindClockJump,
		enabled: func(s *Settings) bool { return s.ClockJumpMaxNs > 0 }, Draw: drawClockJump, Apply: applyClockJump},
	{Name: schedule.KindBuggify, Counter: "buggify hit", Swarm: true, Fields: []string{"buggify"}},
	{Name: schedule.KindCrashIO, Counter: "disk op", Swarm: true, Fields: []string{"crash_on_io", "restart_after"}},
	{Name: schedule.KindFsyncEIO, Counter: "disk op", Swarm: true, Fields: []string{"fsync_eio"}},
	{Name: schedule.KindWriteEIO, Counter: "disk op", Swarm: true, Fields: []string{"write_eio"}},
	{Name: schedule.KindWriteENOSPC, Counter: "disk op", Swarm: true, Fields: []string{"write_enospc"}},
	{Name: schedule.KindReadEIO, Counter: "disk read", Swarm: true, Fields: []string{"read_eio"}},
	{Name: schedule.KindReadCorrupt, Counter: "disk read", Swarm: true, Fields: []string{"read_corrupt"}},
	{Name: schedule.KindLostWrite, Counter: "disk op", Swarm: true, Fields: []string{"lost_write"}},
	{Name: schedule.KindMisdirected, Counter: "disk op", Swarm: true, Fields: []string{"misdirected_write"}},
	{Name: schedule.KindBitrot, Swarm: true, Fields: []string{"bitrot_per_sec"},
		scope: perNode, drawOrder: 2, stream: "bitrot/when", swarm: schedule.KindBitrot, Draw: drawBitrot, Apply: applyBitrot},
	{Name: schedule.KindPartition, Swarm: true, Fields: []string{"partition_per_sec", "partition_for", "partition_topologies"},
		scope: perWorld, drawOrder: 4, stream: schedule.KindPartition, swarm: schedule.KindPartition, Draw: drawPartition, Apply: applyNet},
	{Name: schedule.KindClog, Swarm: true, Fields: []string{"clog_per_sec", "clog_for", "clog_modes", "clog_delay"},
		scope: perWorld, drawOrder: 5, stream: schedule.KindClog, swarm: schedule.KindClog, Draw: drawClog, Apply: applyNet},
	// Swizzles make clog faults, so they are no kind of a schedule's, but
	// swarm testing turns them on and off apart from plain clogs.
	{Name: schedule.Swizzle, Swarm: true, Fields: []string{"swizzle_per_sec", "clog_for"},
		scope: perWorld, drawOrder: 6, stream: schedule.Swizzle, swarm: schedule.Swizzle, Draw: drawSwizzle, Apply: applyNet},
	{Name: schedule.KindNetReset, Swarm: true, Fields: []string{"reset_per_sec"},
		scope: perNetNode, drawOrder: 7, stream: schedule.KindNetReset, swarm: schedule.KindNetReset, Draw: drawReset, Apply: applyNet},
	{Name: schedule.KindSlow, Swarm: true, Fields: []string{"slow_per_sec", "slow_for", "slow_factor"},
		scope: perNetNode, drawOrder: 8, stream: schedule.KindSlow, swarm: schedule.KindSlow, Draw: drawSlow, Apply: applyNet},
	{Name: schedule.KindPause, Swarm: true, Fields: []string{"pause_per_sec", "pause_for"},
		scope: perNetNode, drawOrder: 9, stream: schedule.KindPause, swarm: schedule.KindPause, Draw: drawPause, Apply: applyNet},
	{Name: schedule.KindUDPDrop, Counter: "datagram", Swarm: true, Fields: []string{"udp_loss"}},
	{Name: schedule.KindUDPDup, Counter: "datagram", Swarm: true, Fields: []string{"udp_dup"}},
	{Name: schedule.KindPreempt, Counter: "counted call"},
	{Name: schedule.KindMmapWB, Counter: "disk op", Swarm: true, Fields: []string{"mmap_early_writeback"}},
}

func init() {
	for _, k := range registry {
		if k.swarm == "" {
			k.swarm = k.Name
		}
	}
}

// RateField is the world file's field that gives the named kind its rate or
// probability, or "" for a kind that has none (preempt).
func RateField(kind string) string {
	if k, ok := Lookup(kind); ok && len(k.Fields) > 0 {
		return k.Fields[0]
	}
	return ""
}

// Lookup returns the kind named name.
func Lookup(name string) (*Kind, bool) {
	for _, k := range registry {
		if k.Name == name {
			return k, true
		}
	}
	return nil, false
}

// Apply applies a planned fault of any timed kind to w.
func Apply(w World, f Fault) {
	if k, ok := Lookup(f.Kind); ok && k.Apply != nil {
		k.Apply(w, f)
	}
}

func applyCrash(w World, f Fault) {
	in := w.Instance(f.Node)
	if in == "" {
		return // down already: nothing to crash, and nothing fired
	}
	if w.Quiet() {
		w.Tracef("quiet: crash of %s suppressed", in)
		return
	}
	w.Record(f)
	w.Tracef("fault crash %s, restart at %s", in, fmtTime(int64(f.Until)))
	w.Crash(f.Node, int64(f.Until))
}

func applyBitrot(w World, f Fault) {
	if !w.Node(f.Node) || w.Quiet() {
		return
	}
	w.Bitrot(f.Node, f)
}

func applyClockJump(w World, f Fault) {
	if !w.Node(f.Node) {
		return
	}
	if w.Quiet() {
		w.Tracef("quiet: clock jump of %s suppressed", f.Node)
		return
	}
	w.JumpClock(f.Node, int64(f.Delta))
	w.Record(f)
	w.Tracef("fault clock jump %s by %s", f.Node, schedule.Time(int64(f.Delta)))
}

// applyNet applies a fault of the network or of a node's process: a
// partition, clog, reset, slowdown or pause.
func applyNet(w World, f Fault) {
	if w.Quiet() {
		what := f.Describe()
		if f.Kind == schedule.KindNetReset {
			what = "reset the connections of " + instanceOr(w, f.Node)
		}
		w.Tracef("quiet: %s suppressed", what)
		return
	}
	switch f.Kind {
	case schedule.KindPartition:
		if err := w.Partition(f); err != nil {
			w.Tracef("partition not applied: %v", err)
			return
		}
		w.Record(f)
		w.Tracef("fault partition %s until %s", schedule.GroupsText(f.Groups), fmtTime(int64(f.Until)))
	case schedule.KindClog:
		if err := w.Clog(f); err != nil {
			w.Tracef("clog not applied: %v", err)
			return
		}
		w.Record(f)
		w.Tracef("fault clog %s until %s", schedule.ClogText(f), fmtTime(int64(f.Until)))
	case schedule.KindNetReset:
		n := w.Reset(f.Node)
		w.Record(f)
		if n == 1 {
			w.Tracef("fault reset 1 connection of %s", instanceOr(w, f.Node))
		} else {
			w.Tracef("fault reset %d connections of %s", n, instanceOr(w, f.Node))
		}
	case schedule.KindSlow:
		if !w.Node(f.Node) {
			return
		}
		w.Slow(f)
		w.Record(f)
		w.Tracef("fault slow %s by %gx until %s", f.Node, f.Factor, fmtTime(int64(f.Until)))
	case schedule.KindPause:
		if !w.Node(f.Node) || !w.Pause(f) {
			return
		}
		w.Record(f)
		w.Tracef("fault pause %s until %s", f.Node, fmtTime(int64(f.Until)))
	}
}

// instanceOr names node's running instance, or the node when it is down.
func instanceOr(w World, node string) string {
	if in := w.Instance(node); in != "" {
		return in
	}
	return node
}

// fmtTime renders virtual time as the trace shows it: seconds with three
// decimals.
func fmtTime(ns int64) string {
	return fmt.Sprintf("%d.%03ds", ns/1e9, (ns%1e9)/1e6)
}
