package engine

import (
	"github.com/sf-dst/sf/lib/engine/core"
	"github.com/sf-dst/sf/lib/engine/netoverlay"
	"github.com/sf-dst/sf/lib/faults"
)

// The types a driver of the engine needs, which the core defines.
type (
	Spec       = core.Spec
	NodeSpec   = core.NodeSpec
	SeedFile   = core.SeedFile
	Options    = core.Options
	Result     = core.Result
	Status     = core.Status
	Property   = core.Property
	SiteResult = core.SiteResult
	NodeDisk   = core.NodeDisk
	NodeFDs    = core.NodeFDs
	FDView     = core.FDView
	Limits     = core.Limits
	Preempt    = core.Preempt
	NetFaults  = core.NetFaults
	DiskFaults = core.DiskFaults
	MutantInfo = core.MutantInfo
	Fault      = core.Fault
	Dur        = core.Dur
)

// Run outcomes and failure classes (core.Status, core.Class*).
const (
	StatusPass             = core.StatusPass
	StatusFail             = core.StatusFail
	StatusHorizon          = core.StatusHorizon
	StatusNondeterministic = core.StatusNondeterministic
	StatusInterrupted      = core.StatusInterrupted

	ClassAssert   = core.ClassAssert
	ClassFail     = core.ClassFail
	ClassPanic    = core.ClassPanic
	ClassExit     = core.ClassExit
	ClassOOM      = core.ClassOOM
	ClassWatchdog = core.ClassWatchdog
	ClassDeadlock = core.ClassDeadlock
	ClassTrap     = core.ClassTrap
	ClassNondet   = core.ClassNondet
	ClassLiveness = core.ClassLiveness
	ClassInternal = core.ClassInternal
	ClassLimit    = core.ClassLimit

	KindCrash   = faults.KindCrash
	KindBuggify = faults.KindBuggify

	CheckpointEvery       = core.CheckpointEvery
	GuestMemoryLimitPages = core.GuestMemoryLimitPages
	DefaultWatchdogNs     = core.DefaultWatchdogNs
)

// Mutants lists the runtime mutants in the order sf-mutate runs them.
var Mutants = core.Mutants

// LookupMutant returns the runtime mutant called name.
func LookupMutant(name string) (MutantInfo, bool) { return core.LookupMutant(name) }

// MutantNames lists the runtime mutants' names, in order.
func MutantNames() []string { return core.MutantNames() }

// FirstDivergence compares two runs' checkpoints (core.FirstDivergence).
func FirstDivergence(a, b []uint64) int { return core.FirstDivergence(a, b) }

// DescribeDivergence names the first host call at which two recordings of
// the same window differ (core.DescribeDivergence).
func DescribeDivergence(firstCall uint64, a, b []string) string {
	return core.DescribeDivergence(firstCall, a, b)
}

// HostsFile is the /etc/hosts that net_overlay gives every node of a world
// whose programs are named names (netoverlay.HostsFile).
func HostsFile(names []string) []byte { return netoverlay.HostsFile(names) }

// Run runs one seed of the world described by spec.
func (e *Engine) Run(spec *Spec, seed uint64, opts Options) (*Result, error) {
	if spec.NetOverlay {
		spec = withOverlayFiles(spec)
	}
	return core.Execute(e, spec, seed, opts)
}

// Fork is a running world copied at a scheduler step (core.Fork), and
// StepPoint where Options.AtStep may take one.
type (
	Fork      = core.Fork
	StepPoint = core.StepPoint
)

// Resume continues a fork in this engine's runtime (core.Resume).
func (e *Engine) Resume(f *Fork, opts Options) (*Result, error) {
	return core.Resume(e, f, opts)
}

// ResumeRest continues a fork with a schedule for the rest of the run only
// (core.ResumeRest).
func (e *Engine) ResumeRest(f *Fork, opts Options) (*Result, error) {
	return core.ResumeRest(e, f, opts)
}

// ResumeAs makes, from a fork, the run Run(spec, seed, opts) makes, byte
// for byte, when the run agrees with the fork's up to the fork
// (core.ResumeAs, Fork.Admits).
func (e *Engine) ResumeAs(f *Fork, seed uint64, opts Options) (*Result, error) {
	return core.ResumeAs(e, f, seed, opts)
}

// withOverlayFiles returns spec with net_overlay's /etc/hosts and
// /etc/nsswitch.conf added to every node's seeded disk.
func withOverlayFiles(spec *Spec) *Spec {
	s := *spec
	names := make([]string, len(s.Nodes))
	for i := range s.Nodes {
		names[i] = s.Nodes[i].Name
	}
	s.Nodes = append([]NodeSpec(nil), s.Nodes...)
	for i := range s.Nodes {
		s.Nodes[i].Seed = netoverlay.SeedFiles(names, s.Nodes[i].Seed)
	}
	return &s
}
