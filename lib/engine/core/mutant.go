package core

import (
	"fmt"
	"strings"

	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/simnet"
)

// MutantInfo describes one runtime mutant: a guarantee of the simulated
// world that Options.Mutant weakens.
type MutantInfo struct {
	Name string
	// Breaks says what stops holding, in a sentence fragment.
	Breaks string
	// Operation names what the mutant weakens, for the "not exercised"
	// verdict: it never happened in any seed.
	Operation string

	disk disk.Mutant
	net  simnet.Mutant
}

// Runtime mutant names.
const (
	MutantFsyncNoop          = "fsync_noop"
	MutantDirsyncNoop        = "dirsync_noop"
	MutantOSyncIgnored       = "osync_ignored"
	MutantFsyncCorrupts      = "fsync_corrupts"
	MutantRenameNotAtomic    = "rename_not_atomic"
	MutantTruncateNotDurable = "truncate_not_durable"
	MutantNetDropAfterClose  = "net_drop_after_close"
	MutantNetDupChunk        = "net_dup_chunk"
	MutantMonotonicJump      = "monotonic_jump"
)

// Mutants lists the runtime mutants in the order sf-mutate runs them.
var Mutants = []MutantInfo{
	{Name: MutantFsyncNoop, disk: disk.MutantFsyncNoop,
		Breaks:    "file fsync reports success and makes nothing durable",
		Operation: "fsync of a file with unsynced writes"},
	{Name: MutantDirsyncNoop, disk: disk.MutantDirsyncNoop,
		Breaks:    "directory fsync does nothing (it matters only with strict_dirs)",
		Operation: "directory fsync that would make an entry durable (needs strict_dirs)"},
	{Name: MutantOSyncIgnored,
		Breaks:    "writes to O_SYNC and O_DSYNC files are no longer synchronous",
		Operation: "write to a file opened with O_SYNC or O_DSYNC"},
	{Name: MutantFsyncCorrupts, disk: disk.MutantFsyncCorrupts,
		Breaks:    "fsync makes data durable with one bit flipped in the last write it covers",
		Operation: "fsync of a file with unsynced writes"},
	{Name: MutantRenameNotAtomic, disk: disk.MutantRenameNotAtomic,
		Breaks:    "a rename over an existing file leaves neither name durable until the next fsync",
		Operation: "rename over an existing file"},
	{Name: MutantTruncateNotDurable, disk: disk.MutantTruncateNotDurable,
		Breaks:    "fsync makes writes durable but not truncations, so a crash brings back the old length and bytes",
		Operation: "fsync of a file truncated shorter"},
	{Name: MutantNetDropAfterClose, net: simnet.MutantDropAfterClose,
		Breaks:    "closing a connection drops the last chunk the peer has not read",
		Operation: "close of a connection whose last chunk was still unread"},
	{Name: MutantNetDupChunk, net: simnet.MutantDupChunk,
		Breaks:    "a seeded 5% of connection writes are delivered twice, which TCP never does",
		Operation: "connection write to a node that takes faults"},
	{Name: MutantMonotonicJump,
		Breaks:    "clock jumps move the monotonic clock too, so elapsed time can run backwards or leap",
		Operation: "clock jump (needs clock_jump_per_sec)"},
}

// LookupMutant returns the runtime mutant called name.
func LookupMutant(name string) (MutantInfo, bool) {
	for _, m := range Mutants {
		if m.Name == name {
			return m, true
		}
	}
	return MutantInfo{}, false
}

// MutantNames lists the runtime mutants' names, in order.
func MutantNames() []string {
	out := make([]string, len(Mutants))
	for i, m := range Mutants {
		out[i] = m.Name
	}
	return out
}

// setMutant weakens the run's nodes that take faults with the mutant called
// name.
func (r *Run) setMutant(name string) error {
	m, ok := LookupMutant(name)
	if !ok {
		return fmt.Errorf("unknown mutant %q (the runtime mutants are %s)", name, strings.Join(MutantNames(), ", "))
	}
	r.mutant = name
	var affected []string
	for _, n := range r.Nodes {
		if !n.Spec.Faults || n.Spec.Finally {
			continue
		}
		affected = append(affected, n.Spec.Name)
		if m.disk != disk.MutantNone {
			n.FS.SetMutant(m.disk)
		}
	}
	if m.net != simnet.MutantNone {
		r.Net.SetMutant(m.net, affected)
	}
	return nil
}

// mutantHits adds up how often the run's mutant weakened an operation.
func (r *Run) mutantHits() int {
	if r.mutant == "" {
		return 0
	}
	total := r.Net.MutantHits() + r.engineHits
	for _, n := range r.Nodes {
		total += n.FS.MutantHits()
	}
	return total
}

// osyncIgnored reports whether osync_ignored weakens this instance's
// O_SYNC writes.
func (in *Instance) OsyncIgnored() bool {
	return in.Run.mutant == MutantOSyncIgnored && in.Node.Spec.Faults && !in.Node.Spec.Finally
}

// MutantHit counts one operation that the run's mutant weakened and that an
// adapter handles itself (an O_SYNC write that osync_ignored let through).
func (r *Run) MutantHit() { r.engineHits++ }
