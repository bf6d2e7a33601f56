package runner

import (
	"fmt"
	"strings"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/simnet"
)

// EngineSpec turns a world's settings into the engine's spec, without its
// nodes: every field of the world file that changes a run goes through
// here, and a test checks that each one reaches the spec. The fault kinds'
// fields go as they are, by name (Spec.Kinds), so that a new kind's fields
// reach the engine with no code here.
func EngineSpec(w *config.World) (*engine.Spec, error) {
	f := w.Faults
	spec := &engine.Spec{
		DurationNs:       int64(w.Duration),
		LatencyNs:        [2]int64{int64(w.Latency[0]), int64(w.Latency[1])},
		WatchdogNs:       int64(w.Watchdog),
		Supervise:        w.Supervise,
		Kinds:            f.Kinds.Clone(),
		LivenessWithinNs: int64(w.Liveness.Within),
		ClockSkewNs:      int64(f.ClockSkew),
		Swarm:            f.Swarm,
		FaultsAfterSetup: w.FaultsAfterSetup,
		CheckerModel:     w.Checker.Model,
		NetOverlay:       w.NetOverlay,
		Limits: engine.Limits{
			StepsMax: w.Limits.Steps, TraceBytesMax: w.Limits.TraceBytes, FDsMax: w.Limits.FDs,
			CheckStepsMax: w.Limits.CheckSteps,
		},
		Disk: engine.DiskFaults{
			Torn: f.TornWrites, TornSector: f.TornSector, Reorder: f.ReorderWrites, StrictDirs: f.StrictDirs, CorruptOnCrash: f.CorruptOnCrash,
			CapacityBytes: f.DiskBytes, LatencyNs: [2]int64{int64(f.DiskLatency[0]), int64(f.DiskLatency[1])},
		},
	}
	if preemptSet(w) {
		p := w.Preempt
		strategy := p.Strategy
		if p.Interleave && (strategy == "none" || strategy == "") {
			strategy = "random" // what loading does already; kept for worlds built in code
		}
		spec.Preempt = &engine.Preempt{Strategy: strategy, Depth: p.Depth, Steps: p.Steps, Calls: p.Calls, Loops: p.Loops}
	}
	for _, l := range w.Links {
		spec.Net.Links = append(spec.Net.Links, simnet.Link{From: l.From, To: l.To, LatencyNs: rangeNs(l.Latency)})
	}
	if f.FSModel != "" {
		m, err := disk.ParseFSModel(f.FSModel)
		if err != nil {
			return nil, fmt.Errorf("%s: faults.fs_model: %w", w.File, err)
		}
		spec.Disk.Model = m
	}
	return spec, nil
}

func rangeNs(r config.Range) [2]int64 { return [2]int64{int64(r[0]), int64(r[1])} }

// preemptSet reports whether the world sets any preempt field: only then do
// its programs count calls, so a world without one runs as it always did.
func preemptSet(w *config.World) bool {
	for _, p := range w.Set {
		if strings.HasPrefix(p, "preempt.") {
			return true
		}
	}
	return false
}
