package core

import (
	"fmt"
	"strings"

	"github.com/sf-dst/sf/lib/faults"
	"github.com/sf-dst/sf/lib/rng"
)

// swarmTypes are the fault types swarm testing turns on and off, from the
// registry of fault kinds.
var swarmTypes = faults.SwarmTypes()

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
// rate or probability is above 0.
func (r *Run) configured(kind string) bool {
	return r.Spec.Kinds.Rate(kind) > 0
}

// kindRate is the named kind's rate or probability for this seed, after
// swarm testing.
func (r *Run) kindRate(kind string) float64 { return r.rates[kind] }

// rate is a fault type's rate for this seed, after swarm testing.
func (r *Run) Rate(kind string, configured float64) float64 {
	if r.swarm == nil {
		return configured
	}
	return configured * r.swarm[kind]
}

// buggifyOn reports whether buggify sites may fire in this seed.
func (r *Run) buggifyOn() bool {
	return r.Spec.Kinds.Rate(faults.KindBuggify) > 0 && (r.swarm == nil || r.swarm[faults.KindBuggify] > 0)
}

// newPlan is what the run's timed faults are drawn from.
func (r *Run) newPlan() *faults.Plan {
	sp := r.Spec
	p := &faults.Plan{Values: sp.Kinds, Until: sp.DurationNs, Swarm: r.swarm}
	for _, n := range r.Nodes {
		p.Nodes = append(p.Nodes, faults.PlanNode{Name: n.Spec.Name, Faults: n.Spec.Faults, NetFaults: n.Spec.NetFaults})
	}
	return p
}

// restartAfter is the range a node's downtime is drawn from: the crash
// kind's restart_after, which supervised restarts and crash_on_io take too.
func (r *Run) restartAfter() (lo, hi int64) {
	ra := r.Spec.Kinds.Range("restart_after")
	return ra[0], ra[1]
}
