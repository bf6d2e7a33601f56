package schedule

import (
	"slices"
	"sort"
)

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
)

// Kind says how faults of one kind are placed and checked.
type Kind struct {
	Name string
	// Counter, when set, is what the fault's op counts: it fires at that
	// numbered event of its node ("disk op", "disk read", "buggify hit",
	// "datagram", "counted call"), and its at only records when that
	// happened. Empty for faults planned in time.
	Counter string
	// Span says the fault lasts from at to until, so until may not be
	// before at.
	Span bool
	// LinkOrGroups marks partition and clog, which may name nodes in from,
	// to, side or groups instead of node.
	LinkOrGroups bool
	// Unsupported, when set, says why this version refuses the kind.
	Unsupported string
	// Fields are the world file's faults.* fields that make a seed draw
	// faults of this kind: its rate or probability first, then the ranges
	// and choices that shape each fault.
	Fields []string
	// Swarm says swarm testing turns the kind on and off per seed and
	// rescales its rate.
	Swarm bool
}

// Positional reports whether faults of the kind fire at a numbered event of
// a node rather than at a time.
func (k Kind) Positional() bool { return k.Counter != "" }

var kinds = map[string]Kind{}

func init() {
	for _, k := range registry {
		kinds[k.Name] = k
	}
}

// registry is every fault kind, in the order swarm testing draws them.
var registry = []Kind{
	{Name: KindCrash, Span: true, Swarm: true, Fields: []string{"crash_per_sec", "restart_after"}},
	{Name: KindClockJump, Swarm: true, Fields: []string{"clock_jump_per_sec", "clock_jump_max"}},
	{Name: KindBuggify, Counter: "buggify hit", Swarm: true, Fields: []string{"buggify"}},
	{Name: KindCrashIO, Counter: "disk op", Span: true, Swarm: true, Fields: []string{"crash_on_io", "restart_after"}},
	{Name: KindFsyncEIO, Counter: "disk op", Swarm: true, Fields: []string{"fsync_eio"}},
	{Name: KindWriteEIO, Counter: "disk op", Swarm: true, Fields: []string{"write_eio"}},
	{Name: KindWriteENOSPC, Counter: "disk op", Swarm: true, Fields: []string{"write_enospc"}},
	{Name: KindReadEIO, Counter: "disk read", Swarm: true, Fields: []string{"read_eio"}},
	{Name: KindReadCorrupt, Counter: "disk read", Swarm: true, Fields: []string{"read_corrupt"}},
	{Name: KindLostWrite, Counter: "disk op", Swarm: true, Fields: []string{"lost_write"}},
	{Name: KindMisdirected, Counter: "disk op", Swarm: true, Fields: []string{"misdirected_write"}},
	{Name: KindBitrot, Swarm: true, Fields: []string{"bitrot_per_sec"}},
	{Name: KindPartition, Span: true, LinkOrGroups: true, Swarm: true, Fields: []string{"partition_per_sec", "partition_for", "partition_topologies"}},
	{Name: KindClog, Span: true, LinkOrGroups: true, Swarm: true, Fields: []string{"clog_per_sec", "clog_for", "clog_modes", "clog_delay", "swizzle_per_sec"}},
	{Name: KindNetReset, Swarm: true, Fields: []string{"reset_per_sec"}},
	{Name: KindSlow, Span: true, Swarm: true, Fields: []string{"slow_per_sec", "slow_for", "slow_factor"}},
	{Name: KindPause, Span: true, Swarm: true, Fields: []string{"pause_per_sec", "pause_for"}},
	{Name: KindUDPDrop, Counter: "datagram", Swarm: true, Fields: []string{"udp_loss"}},
	{Name: KindUDPDup, Counter: "datagram", Swarm: true, Fields: []string{"udp_dup"}},
	{Name: KindPreempt, Counter: "counted call"},
	{Name: KindMmapWB, Counter: "disk op", Swarm: true, Fields: []string{"mmap_early_writeback"}},
}

// Swizzle is the swarm type of swizzle-clogging: it makes clog faults, so
// it is no kind of its own, but swarm testing turns it on and off apart
// from plain clogs.
const Swizzle = "swizzle"

// SwarmTypes are the fault types swarm testing turns on and off, in the
// order it draws them: every kind with Swarm, and swizzle after clog.
func SwarmTypes() []string {
	var out []string
	for _, k := range registry {
		if k.Swarm {
			out = append(out, k.Name)
			if k.Name == KindClog {
				out = append(out, Swizzle)
			}
		}
	}
	return out
}

// Lookup returns the kind named name.
func Lookup(name string) (Kind, bool) {
	k, ok := kinds[name]
	return k, ok
}

// Positional reports whether faults of the named kind fire at a numbered
// event of a node; false for unknown kinds.
func Positional(name string) bool { return kinds[name].Counter != "" }

// Kinds returns the names of every kind, sorted.
func Kinds() []string {
	out := make([]string, 0, len(kinds))
	for n := range kinds {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// IsNet reports whether the kind acts on the network rather than on one
// node's process or disk.
func IsNet(name string) bool {
	return slices.Contains([]string{KindPartition, KindClog, KindNetReset, KindSlow, KindPause}, name)
}
