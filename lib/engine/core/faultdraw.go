package core

import (
	"fmt"
	"sort"
	"strings"

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

// configured reports whether the world turns a swarm type on at all.
func (r *Run) configured(kind string) bool {
	switch kind {
	case KindCrash:
		return r.Spec.CrashPerSec > 0
	case KindClockJump:
		return r.Spec.ClockJumpPerSec > 0
	case KindBuggify:
		return r.Spec.Buggify
	}
	return false
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

// drawFaults plans the seed's timed faults over the fault period after
// from, keyed by seed (the run's seed, or a branch's redraw key). Each node
// and fault type has its own stream, so removing one fault never moves
// another.
func (r *Run) drawFaults(seed uint64, from int64) []Fault {
	var out []Fault
	crashRate := r.Rate(KindCrash, r.Spec.CrashPerSec)
	jumpRate := r.Rate(KindClockJump, r.Spec.ClockJumpPerSec)
	for _, n := range r.Nodes {
		if !n.Spec.Faults {
			continue
		}
		if crashRate > 0 {
			s := rng.New(seed, "crash", rng.Key(n.Spec.Name))
			for t := from; ; {
				t += s.ExpNs(crashRate)
				if t >= r.Spec.DurationNs || t < 0 {
					break
				}
				down := s.Between(r.Spec.RestartAfter[0], r.Spec.RestartAfter[1])
				out = append(out, Fault{At: Dur(t), Kind: KindCrash, Node: n.Spec.Name, Until: Dur(t + down)})
				t += down
			}
		}
		if rot := r.Rate(KindBitrot, r.Spec.Disk.BitrotPerSec); rot > 0 {
			s := rng.New(seed, KindBitrot+"/when", rng.Key(n.Spec.Name))
			for t := from; ; {
				t += s.ExpNs(rot)
				if t >= r.Spec.DurationNs || t < 0 {
					break
				}
				out = append(out, Fault{At: Dur(t), Kind: KindBitrot, Node: n.Spec.Name, Until: Dur(t)})
			}
		}
		if jumpRate > 0 && r.Spec.ClockJumpMaxNs > 0 {
			s := rng.New(seed, "clockjump", rng.Key(n.Spec.Name))
			for t := from; ; {
				t += s.ExpNs(jumpRate)
				if t >= r.Spec.DurationNs || t < 0 {
					break
				}
				d := s.Between(-r.Spec.ClockJumpMaxNs, r.Spec.ClockJumpMaxNs)
				out = append(out, Fault{At: Dur(t), Kind: KindClockJump, Node: n.Spec.Name, Until: Dur(t), Delta: Dur(d)})
			}
		}
	}
	out = append(out, r.drawNetFaults(seed, from)...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out
}
