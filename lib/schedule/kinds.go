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
}

// Positional reports whether faults of the kind fire at a numbered event of
// a node rather than at a time.
func (k Kind) Positional() bool { return k.Counter != "" }

var kinds = map[string]Kind{}

func init() {
	for _, k := range []Kind{
		{Name: KindCrash, Span: true},
		{Name: KindCrashIO, Counter: "disk op", Span: true},
		{Name: KindBuggify, Counter: "buggify hit"},
		{Name: KindClockJump},
		{Name: KindBitrot},
		{Name: KindFsyncEIO, Counter: "disk op"},
		{Name: KindWriteEIO, Counter: "disk op"},
		{Name: KindWriteENOSPC, Counter: "disk op"},
		{Name: KindReadEIO, Counter: "disk read"},
		{Name: KindReadCorrupt, Counter: "disk read"},
		{Name: KindLostWrite, Counter: "disk op"},
		{Name: KindMisdirected, Counter: "disk op"},
		{Name: KindPartition, Span: true, LinkOrGroups: true},
		{Name: KindClog, Span: true, LinkOrGroups: true},
		{Name: KindNetReset},
		{Name: KindSlow, Span: true},
		{Name: KindPause, Span: true},
		{Name: KindUDPDrop, Counter: "datagram"},
		{Name: KindUDPDup, Counter: "datagram"},
		{Name: KindPreempt, Counter: "counted call", Unsupported: "goroutine preemption (preempt.strategy) is not supported by this version"},
		{Name: KindMmapWB, Counter: "disk op", Unsupported: "shared mappings (compat_overlay) are not supported by this version"},
	} {
		kinds[k.Name] = k
	}
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
