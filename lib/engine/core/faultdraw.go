package core

import (
	"fmt"
	"strings"

	"github.com/sf-dst/sf/lib/faults"
	"github.com/sf-dst/sf/lib/rng"
	"github.com/sf-dst/sf/lib/schedule"
)

// swarmTypes are the fault types swarm testing turns on and off, from the
// registry of fault kinds.
var swarmTypes = schedule.SwarmTypes()

// drawSwarm decides, with swarm testing, which fault types this seed uses
// and how it rescales their rates: each type is on with probability one
// half, and then its rate is scaled by a factor drawn from [0, 2).
func (r *Run) drawSwarm() {
	if !r.Spec.Swarm {
		return
	}
	r.swarm = map[string]float64{}
	var parts []string
	for _, t := range swarmTypes {
		s := rng.New(r.Seed, "swarm", rng.Key(t))
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
		r.Tracef("swarm: %s", strings.Join(parts, ", "))
	}
}

// configured reports whether the world turns a swarm type on at all: its
// rate or probability is above 0 (buggify is a switch of its own).
func (r *Run) configured(kind string) bool {
	if kind == KindBuggify {
		return r.Spec.Buggify
	}
	return r.Spec.Rates[faults.RateField(kind)] > 0
}

// kindRate is the named kind's rate or probability for this seed, after
// swarm testing.
func (r *Run) kindRate(kind string) float64 {
	return r.Rate(kind, r.Spec.Rates[faults.RateField(kind)])
}

// rate is a fault type's rate for this seed, after swarm testing.
func (r *Run) Rate(kind string, configured float64) float64 {
	if r.swarm == nil {
		return configured
	}
	return configured * r.swarm[kind]
}

// buggifyOn reports whether buggify sites may fire in this seed.
func (r *Run) buggifyOn() bool {
	return r.Spec.Buggify && (r.swarm == nil || r.swarm[KindBuggify] > 0)
}

// newPlan is what the run's timed faults are drawn from.
func (r *Run) newPlan() *faults.Plan {
	sp := r.Spec
	p := &faults.Plan{
		Settings: &faults.Settings{
			RestartAfter: sp.RestartAfter, ClockJumpMaxNs: sp.ClockJumpMaxNs,
			PartitionForNs: sp.Net.PartitionForNs, PartitionTopologies: sp.Net.PartitionTopologies,
			ClogForNs: sp.Net.ClogForNs, ClogModes: sp.Net.ClogModes, ClogDelayNs: sp.Net.ClogDelayNs,
			SlowForNs: sp.Net.SlowForNs, SlowFactor: sp.Net.SlowFactor, PauseForNs: sp.Net.PauseForNs,
		},
		Rates: sp.Rates,
		Until: sp.DurationNs,
		Swarm: r.swarm,
	}
	for _, n := range r.Nodes {
		p.Nodes = append(p.Nodes, faults.PlanNode{Name: n.Spec.Name, Faults: n.Spec.Faults, NetFaults: n.Spec.NetFaults})
	}
	return p
}
