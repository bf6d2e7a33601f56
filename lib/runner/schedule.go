package runner

import (
	"fmt"
	"io"

	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/textfmt"
)

// ScheduleWorld is what a schedule for this world is checked against.
func (p *Prepared) ScheduleWorld() schedule.World {
	w := schedule.World{File: p.World.File, Nodes: p.nodeNames(), DurationNs: p.Spec.DurationNs,
		PreemptPCT: p.World.Preempt.Strategy == "pct", Liveness: p.Spec.LivenessWithinNs > 0 || p.World.Finally != nil,
		NoFaults: map[string]string{}}
	for _, n := range p.World.AllNodes() {
		switch {
		case n == p.World.Finally:
			w.NoFaults[n.Name] = "the finally check never takes any"
		case n.Faults != nil && !*n.Faults:
			w.NoFaults[n.Name] = `"faults": false in the world`
		}
	}
	return w
}

// ReadSchedule reads the schedule at path ("-" for stdin) and checks it
// against the world.
func (p *Prepared) ReadSchedule(path string, stdin io.Reader) (*schedule.Schedule, error) {
	s, err := schedule.ReadFile(path, stdin)
	if err != nil {
		return nil, fmt.Errorf("-faults: %w", err)
	}
	if err := s.Check(p.ScheduleWorld()); err != nil {
		return nil, fmt.Errorf("-faults: %s: %w", textfmt.InputName(path), err)
	}
	return s, nil
}

// RunOptions are the engine options that replay sched; with a nil sched
// the seed draws its own faults.
func (p *Prepared) RunOptions(sched *schedule.Schedule) engine.Options {
	if sched == nil {
		return engine.Options{}
	}
	faults := sched.Faults
	if faults == nil {
		faults = []engine.Fault{}
	}
	return engine.Options{Faults: faults, StopAtNs: int64(sched.Duration), Budget: sched.Budget, Branches: sched.Branches}
}
