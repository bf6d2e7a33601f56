package faults

import (
	"fmt"
	"sort"
	"time"

	"github.com/sf-dst/sf/lib/simnet"
)

// Kind is one kind of fault, everything sf knows about it in one value:
// the world-file fields that turn it on and shape it, how a seed draws it,
// how a run applies it or at which numbered event it fires, how swarm
// testing switches it, how it reads in reports and traces, and what a
// schedule entry of it must say. The world file's loader, the engine's
// spec, the schedule checks (sf-run -faults, sf-faults, sf-shrink) and the
// docs' lists ask the registry below rather than name kinds of their own.
//
// A kind planned in time (a crash, a partition) has Draw and Apply: Draw
// gives the next fault of the kind for one generator, and Apply applies it
// when its time comes. A kind that fires at a numbered event of a node (a
// disk operation, a datagram) has a Counter instead: the engine counts
// those events per node, and at each decides whether the kind fires there,
// from the schedule being replayed or from a stream keyed by the seed, the
// kind, the node and the event's number, so that removing one fault never
// moves another.
type Kind struct {
	// Name is the kind's name in schedules, traces and records.
	Name string
	// Makes, when set, is the kind of the faults this one makes: it is a
	// source of faults of another kind, not a kind of a schedule's own
	// (swizzle, which makes clogs, is switched by swarm testing apart from
	// plain clogs).
	Makes string
	// Fields are the world file's faults.* fields the kind declares: its
	// rate or probability first, then those that shape each fault.
	Fields []Field
	// Uses names fields that another kind declares and this one reads too
	// (crash_on_io's downtime is crash's restart_after).
	Uses []string
	// Swarm says swarm testing turns the kind on and off per seed and
	// rescales its rate.
	Swarm bool
	// Counter, for a kind that fires at a numbered event of its node, is
	// that event; a fault's op is its number, and its at only records when
	// it happened.
	Counter Counter
	// Draw draws the next event of k, a timed kind, for generator g and
	// returns its faults, none once g is done. Apply applies a timed kind's
	// fault to the run.
	Draw  func(p *Plan, g *Gen, k *Kind) []Fault
	Apply func(w World, f Fault)
	// Span says a fault of the kind lasts from at to until, so until may not
	// be before at, and a shift moves both.
	Span bool
	// Describe says what a fault of the kind did, as reports, sf-faults and
	// sf-shrink list it ("crash server, restart at 791.388ms").
	Describe func(f Fault) string
	// Check checks a schedule entry of the kind on its own: the fields the
	// kind needs and the values they may take. lib/schedule checks what
	// every entry needs (a known kind, nodes of the world, at and until in
	// the run) before it.
	Check func(f Fault, c Context) error

	scope     scope
	drawOrder int    // among the timed kinds, for faults at one time
	stream    string // the purpose of the kind's stream
	// enabled, when set, is a condition besides a rate above 0.
	enabled func(v Values) bool
}

// Positional reports whether faults of the kind fire at a numbered event of
// a node rather than at a time.
func (k *Kind) Positional() bool { return k.Counter != 0 }

// Context is what a kind's Check may need to know of the world.
type Context struct {
	// PreemptPCT says the world's preempt.strategy is pct.
	PreemptPCT bool
}

// Counter is an event of a node that positional kinds fire at. The engine
// numbers each from 1, per node, across the node's restarts.
type Counter uint8

// The counters.
const (
	// DiskOp is a write, truncate or fsync of a file, or a dirty page of
	// a shared mapping weighed at a crash.
	DiskOp Counter = iota + 1
	// DiskRead is a read of a file.
	DiskRead
	// BuggifyHit is a hit of one sim.Buggify site, counted per site.
	BuggifyHit
	// Datagram is a UDP datagram the node sends.
	Datagram
	// CountedCall is a call preempt's instrumentation counts.
	CountedCall
	// ReadCall and WriteCall are the node's fd_read, fd_pread, fd_write and
	// fd_pwrite calls on a file or a socket: the WASI boundary, where a
	// call may move fewer bytes than it asked for.
	ReadCall
	WriteCall
	// NumCounters is one more than the last counter.
	NumCounters
)

var counterNames = [NumCounters]string{"", "disk op", "disk read", "buggify hit", "datagram", "counted call", "read call", "write call"}

// String names the counter as messages and schedules' docs do ("disk op").
func (c Counter) String() string {
	if c < NumCounters {
		return counterNames[c]
	}
	return fmt.Sprintf("counter %d", c)
}

// Fault kinds.
const (
	KindCrash       = "crash"
	KindCrashIO     = "crash_io"
	KindBuggify     = "buggify"
	KindClockJump   = "clock_jump"
	KindBitrot      = "bitrot"
	KindFsyncEIO    = "fsync_eio"
	KindWriteEIO    = "write_eio"
	KindWriteENOSPC = "write_enospc"
	KindReadEIO     = "read_eio"
	KindReadCorrupt = "read_corrupt"
	KindLostWrite   = "lost_write"
	KindMisdirected = "misdirected_write"
	KindPartition   = "partition"
	KindClog        = "clog"
	KindNetReset    = "net_reset"
	KindSlow        = "slow"
	KindPause       = "pause"
	KindUDPDrop     = "udp_drop"
	KindUDPDup      = "udp_dup"
	KindPreempt     = "preempt"
	KindMmapWB      = "mmap_early_writeback"
	KindShortRead   = "short_read"
	KindShortWrite  = "short_write"
	// Swizzle makes clog faults: it is no kind of a schedule's.
	Swizzle = "swizzle"
)

// The closed vocabularies of kind fields, in the order messages list them.
var (
	// Topologies are the shapes a network partition can take.
	Topologies = []string{"half", "one", "majority", "majorities_ring", "random_groups"}
	// ClogModes are the modes a clog can take.
	ClogModes = []string{simnet.ClogStop, simnet.ClogSlow, simnet.ClogJam}
)

func rate(name string) Field { return Field{Name: name, Type: Rate} }
func prob(name string) Field { return Field{Name: name, Type: Prob} }
func span(name string, lo, hi time.Duration) Field {
	return Field{Name: name, Type: Range, Default: [2]int64{int64(lo), int64(hi)}}
}

// registry is every kind, in the order swarm testing draws them and the
// docs list them. The timed kinds' order among themselves, when faults of
// several fall at one time, is their drawOrder (planOrder).
var registry = []*Kind{
	{Name: KindCrash, Swarm: true, Span: true,
		Fields: []Field{rate("crash_per_sec"), span("restart_after", 10*time.Millisecond, time.Second)},
		scope:  perNode, drawOrder: 1, stream: "crash", Draw: drawCrash, Apply: applyCrash,
		Describe: func(f Fault) string {
			return fmt.Sprintf("crash %s, restart at %s", f.Node, Time(int64(f.Until)))
		}, Check: onNode},
	{Name: KindClockJump, Swarm: true,
		Fields: []Field{rate("clock_jump_per_sec"), {Name: "clock_jump_max", Type: Duration, Default: int64(10 * time.Second)}},
		scope:  perNode, drawOrder: 3, stream: "clockjump", Draw: drawClockJump, Apply: applyClockJump,
		enabled: func(v Values) bool { return v.Duration("clock_jump_max") > 0 },
		Describe: func(f Fault) string {
			return fmt.Sprintf("clock jump %s by %s", f.Node, time.Duration(f.Delta))
		}, Check: func(f Fault, c Context) error {
			if f.Delta == 0 {
				// The generator never draws a jump by 0, so this is a slip
				// in a hand-written or edited schedule.
				return entryErr("delta", "missing: a clock_jump moves the node's wall clock by delta, so without one it does nothing")
			}
			return onNode(f, c)
		}},
	{Name: KindBuggify, Swarm: true, Counter: BuggifyHit, Fields: []Field{{Name: "buggify", Type: Switch}},
		Describe: func(f Fault) string {
			return fmt.Sprintf("buggify %q fires on %s at hit #%d", f.Site, f.Node, f.Op)
		}, Check: func(f Fault, c Context) error {
			if err := counted(f, c); err != nil {
				return err
			}
			if f.Site == "" {
				return entryErr("site", "missing: a buggify fault names its site")
			}
			return nil
		}},
	{Name: KindCrashIO, Swarm: true, Span: true, Counter: DiskOp, Fields: []Field{prob("crash_on_io")}, Uses: []string{"restart_after"},
		Describe: func(f Fault) string {
			return fmt.Sprintf("crash %s during disk op #%d%s, restart at %s", f.Node, f.Op, pathText(f.Path), Time(int64(f.Until)))
		}, Check: counted},
	{Name: KindFsyncEIO, Swarm: true, Counter: DiskOp, Fields: []Field{prob("fsync_eio")}, Describe: diskText, Check: counted},
	{Name: KindWriteEIO, Swarm: true, Counter: DiskOp, Fields: []Field{prob("write_eio")}, Describe: diskText, Check: counted},
	{Name: KindWriteENOSPC, Swarm: true, Counter: DiskOp, Fields: []Field{prob("write_enospc")}, Describe: diskText, Check: counted},
	{Name: KindReadEIO, Swarm: true, Counter: DiskRead, Fields: []Field{prob("read_eio")}, Describe: diskText, Check: counted},
	{Name: KindReadCorrupt, Swarm: true, Counter: DiskRead, Fields: []Field{prob("read_corrupt")}, Describe: diskText, Check: counted},
	{Name: KindLostWrite, Swarm: true, Counter: DiskOp, Fields: []Field{prob("lost_write")}, Describe: diskText, Check: counted},
	{Name: KindMisdirected, Swarm: true, Counter: DiskOp, Fields: []Field{prob("misdirected_write")}, Describe: diskText, Check: counted},
	{Name: KindBitrot, Swarm: true, Fields: []Field{rate("bitrot_per_sec")},
		scope: perNode, drawOrder: 2, stream: "bitrot/when", Draw: drawBitrot, Apply: applyBitrot,
		Describe: func(f Fault) string {
			return fmt.Sprintf("bitrot %s: %s at byte %d", f.Node, f.Path, f.Offset)
		}, Check: onNode},
	{Name: KindPartition, Swarm: true, Span: true,
		Fields: []Field{rate("partition_per_sec"), span("partition_for", 50*time.Millisecond, 2*time.Second),
			{Name: "partition_topologies", Type: Choices, Default: []string{"half"}, Choices: Topologies, Noun: "topology",
				ChoiceNodes: map[string]int{"majority": 3, "majorities_ring": 4}}},
		scope: perWorld, drawOrder: 4, stream: KindPartition, Draw: drawPartition, Apply: applyNet,
		Describe: describePartition, Check: checkPartition},
	{Name: KindClog, Swarm: true, Span: true,
		Fields: []Field{rate("clog_per_sec"), span("clog_for", 100*time.Millisecond, 2*time.Second),
			{Name: "clog_modes", Type: Choices, Default: ClogModes, Choices: ClogModes, Noun: "clog mode"},
			span("clog_delay", 10*time.Millisecond, 200*time.Millisecond)},
		scope: perWorld, drawOrder: 5, stream: KindClog, Draw: drawClog, Apply: applyNet,
		Describe: func(f Fault) string {
			return fmt.Sprintf("clog %s until %s", ClogText(f), Time(int64(f.Until)))
		}, Check: checkClog},
	{Name: Swizzle, Makes: KindClog, Swarm: true, Fields: []Field{rate("swizzle_per_sec")}, Uses: []string{"clog_for"},
		scope: perWorld, drawOrder: 6, stream: Swizzle, Draw: drawSwizzle, Apply: applyNet},
	{Name: KindNetReset, Swarm: true, Fields: []Field{rate("reset_per_sec")},
		scope: perNetNode, drawOrder: 7, stream: KindNetReset, Draw: drawReset, Apply: applyNet,
		Describe: func(f Fault) string { return "reset the connections of " + f.Node }, Check: onNode},
	{Name: KindSlow, Swarm: true, Span: true,
		Fields: []Field{rate("slow_per_sec"), span("slow_for", 500*time.Millisecond, 5*time.Second),
			{Name: "slow_factor", Type: Factor, Default: 10.0}},
		scope: perNetNode, drawOrder: 8, stream: KindSlow, Draw: drawSlow, Apply: applyNet,
		Describe: func(f Fault) string {
			return fmt.Sprintf("slow %s by %gx until %s", f.Node, f.Factor, Time(int64(f.Until)))
		}, Check: func(f Fault, c Context) error {
			if err := onNode(f, c); err != nil {
				return err
			}
			if f.Factor < 1 {
				return entryErr("factor", "%g is below 1", f.Factor)
			}
			return nil
		}},
	{Name: KindPause, Swarm: true, Span: true, Fields: []Field{rate("pause_per_sec"), span("pause_for", 100*time.Millisecond, 3*time.Second)},
		scope: perNetNode, drawOrder: 9, stream: KindPause, Draw: drawPause, Apply: applyNet,
		Describe: func(f Fault) string {
			return fmt.Sprintf("pause %s until %s", f.Node, Time(int64(f.Until)))
		}, Check: onNode},
	{Name: KindUDPDrop, Swarm: true, Counter: Datagram, Fields: []Field{prob("udp_loss")}, Describe: datagramText, Check: counted},
	{Name: KindUDPDup, Swarm: true, Counter: Datagram, Fields: []Field{prob("udp_dup")}, Describe: datagramText, Check: counted},
	{Name: KindPreempt, Counter: CountedCall,
		Describe: func(f Fault) string {
			return fmt.Sprintf("preempt %s at counted call #%d", f.Node, f.Op)
		}, Check: func(f Fault, c Context) error {
			if !c.PreemptPCT {
				return entryErr("kind", "a preempt fault needs preempt.strategy pct in the world")
			}
			return counted(f, c)
		}},
	{Name: KindMmapWB, Swarm: true, Counter: DiskOp,
		Fields: []Field{{Name: "mmap_early_writeback", Type: Prob,
			Needs: "compat_overlay", Why: "only a shared mapping made through its shims can be written back early"}},
		Describe: diskText, Check: counted},
	// A short read or write returns fewer bytes than the call asked for, at
	// least one, as POSIX allows of any read or write and Go's io.ReadFull
	// and io.Writer contract handle; bytes is how many it moved.
	{Name: KindShortRead, Swarm: true, Counter: ReadCall, Fields: []Field{prob("short_read")}, Describe: shortText, Check: checkShort},
	{Name: KindShortWrite, Swarm: true, Counter: WriteCall, Fields: []Field{prob("short_write")}, Describe: shortText, Check: checkShort},
}

func shortText(f Fault) string {
	moved := ""
	switch {
	case f.Bytes == 1:
		moved = ": 1 byte"
	case f.Bytes > 1:
		moved = fmt.Sprintf(": %d bytes", f.Bytes)
	}
	return fmt.Sprintf("%s %s at %s #%d%s%s", f.Kind, f.Node, kinds[f.Kind].Counter, f.Op, moved, pathText(f.Path))
}

func checkShort(f Fault, c Context) error {
	if err := counted(f, c); err != nil {
		return err
	}
	if f.Bytes < 0 {
		return entryErr("bytes", "negative: a short read or write moves at least 1 byte, or leaves bytes out to draw it")
	}
	return nil
}

// kinds finds a kind of the registry by name, swizzle included. It is
// filled in by init, not by its declaration: the registry's functions read
// it, and a declaration would make that a cycle.
var kinds map[string]*Kind

func init() {
	kinds = make(map[string]*Kind, len(registry))
	for _, k := range registry {
		kinds[k.Name] = k
	}
}

// Lookup returns the kind of a schedule's faults named name.
func Lookup(name string) (*Kind, bool) {
	k, ok := kinds[name]
	if !ok || k.Makes != "" {
		return nil, false
	}
	return k, true
}

// Kinds returns the names of every kind a schedule may hold, sorted.
func Kinds() []string {
	var out []string
	for _, k := range registry {
		if k.Makes == "" {
			out = append(out, k.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Registry returns every kind, swizzle included, in the registry's order.
// The kinds are shared: callers read them and never change them.
func Registry() []*Kind { return registry }

// Positional reports whether faults of the named kind fire at a numbered
// event of a node; false for unknown kinds.
func Positional(name string) bool {
	k, ok := kinds[name]
	return ok && k.Positional()
}

// SwarmTypes are the fault types swarm testing turns on and off, in the
// order it draws them: every kind with Swarm, swizzle after clog.
func SwarmTypes() []string {
	var out []string
	for _, k := range registry {
		if k.Swarm {
			out = append(out, k.Name)
		}
	}
	return out
}

// RateField is the world file's field that gives the named kind (or
// swizzle) its rate or probability, or "" for a kind that has none
// (preempt).
func RateField(kind string) string {
	if k, ok := kinds[kind]; ok && len(k.Fields) > 0 {
		return k.Fields[0].Name
	}
	return ""
}

// onNode checks an entry of a kind that strikes one node.
func onNode(f Fault, _ Context) error {
	if f.Node == "" {
		return entryErr("node", "missing: a %s fault names its node", f.Kind)
	}
	if len(f.Side) > 0 || len(f.Groups) > 0 {
		return entryErr("", "only a partition has side or groups")
	}
	return nil
}

// counted checks an entry of a kind that fires at a numbered event of its
// node.
func counted(f Fault, c Context) error {
	if err := onNode(f, c); err != nil {
		return err
	}
	if k, ok := kinds[f.Kind]; ok && f.Op < 1 {
		return entryErr("op", "a %s fault fires at a numbered %s, from 1", f.Kind, k.Counter)
	}
	return nil
}

func diskText(f Fault) string {
	return fmt.Sprintf("%s %s at %s #%d%s", f.Kind, f.Node, kinds[f.Kind].Counter, f.Op, pathText(f.Path))
}

func datagramText(f Fault) string {
	return fmt.Sprintf("%s: datagram #%d of %s to %s", f.Kind, f.Op, f.Node, f.To)
}
