package runner

// This file is "fork": "setup": a world whose seeds share one run of its
// setup. The setup seed's run goes until a node calls sim.SetupComplete,
// and is forked at the top of the next scheduler step; every seed N then
// resumes that fork with a branch of every stream just after it, keyed by
// N, which also draws the planned faults again from there (as sf-run
// -explore's branches do). So seed N of such a world is, by definition,
// the setup seed's run with that branch: a replay of it from the start
// ends the same, byte for byte (TestSetupForkIsTheBranchedRun).

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/schedule"
)

// SetupSeed is the seed whose run up to sim.SetupComplete every seed of a
// world with "fork": "setup" shares.
const SetupSeed = 0

// setupFork is one world's setup, run once: the fork at its end, or why
// there is none.
type setupFork struct {
	once sync.Once
	fork *engine.Fork
	err  error
}

// SetupsHeld is how many setups' forks a Prepared holds at most: one per
// world and runtime mutant (sf-mutate runs a world under many), each a copy
// of every guest's memory (4 to 10 MiB a guest for the examples). The
// oldest is let go past it, and run again if it is asked for again.
const SetupsHeld = 4

// setupKey names a setup: a world (sf-mutate -app runs rebuilt ones) and a
// runtime mutant, which weakens the setup's run too.
type setupKey struct {
	spec   *engine.Spec
	mutant string
}

// forksAtSetup reports whether the world's seeds share a run of its setup.
func (p *Prepared) forksAtSetup() bool { return p.World != nil && p.World.Fork == config.ForkSetup }

// setup returns the fork at the end of the setup of spec with mutant, and
// runs the setup the first time it is asked for.
func (p *Prepared) setup(spec *engine.Spec, mutant string) (*engine.Fork, error) {
	p.setupMu.Lock()
	if p.setups == nil {
		p.setups = map[setupKey]*setupFork{}
	}
	k := setupKey{spec, mutant}
	s := p.setups[k]
	if s == nil {
		s = &setupFork{}
		p.setups[k] = s
		p.setupOrder = append(p.setupOrder, k)
		if len(p.setupOrder) > SetupsHeld {
			// Not released: a run may be resuming it; the collector takes
			// it once none is.
			delete(p.setups, p.setupOrder[0])
			p.setupOrder = p.setupOrder[1:]
		}
	}
	p.setupMu.Unlock()
	s.once.Do(func() { s.fork, s.err = p.runSetup(spec, mutant) })
	return s.fork, s.err
}

// runSetup runs the setup seed until a node has called sim.SetupComplete
// and forks it at the first scheduler step after, where it can: a node
// waiting at the end of a preemption time slice cannot be copied, and the
// next step is taken then.
func (p *Prepared) runSetup(spec *engine.Spec, mutant string) (*engine.Fork, error) {
	var stop atomic.Bool
	var fork *engine.Fork
	var ferr error
	res, err := p.Engine.Run(spec, SetupSeed, engine.Options{Mutant: mutant, Interrupt: &stop, AtStep: func(s engine.StepPoint) {
		if !s.SetupDone || fork != nil {
			return
		}
		f, err := s.Fork()
		if err != nil {
			ferr = err
			return
		}
		fork = f
		stop.Store(true)
	}})
	switch {
	case err != nil:
		return nil, fmt.Errorf("fork \"setup\": the setup seed's run: %w", err)
	case fork != nil:
		return fork, nil
	case ferr != nil:
		return nil, fmt.Errorf("fork \"setup\": the setup seed's run could not be forked after its setup: %w", ferr)
	case res.Status == engine.StatusFail:
		return nil, fmt.Errorf("fork \"setup\": the setup seed's run failed at t=%s before any node called sim.SetupComplete: %s",
			schedule.Time(res.AtNs), res.Message)
	}
	return nil, fmt.Errorf("fork \"setup\": the setup seed's run ended (%s at t=%s) without any node calling sim.SetupComplete",
		res.Status, schedule.Time(res.AtNs))
}

// SetupAtNs is the virtual time at which the seeds of a world with "fork":
// "setup" part from its setup seed's run: a branch of theirs comes after
// it. It is 0 for a world without.
func (p *Prepared) SetupAtNs() (int64, error) {
	if !p.forksAtSetup() {
		return 0, nil
	}
	f, err := p.setup(p.Spec, "")
	if err != nil {
		return 0, err
	}
	return f.AtNs + 1, nil
}

// setupOptions are the options that make seed's run from the setup fork f:
// a branch of every stream 1ns after the fork, keyed by the seed and
// redrawing the planned faults, then the job's own branches, which must
// come after it.
func setupOptions(f *engine.Fork, seed uint64, opts engine.Options) (engine.Options, error) {
	at := schedule.Dur(f.AtNs + 1)
	for _, b := range opts.Branches {
		if b.At < at {
			return opts, fmt.Errorf("fork \"setup\": a branch at %s comes before the end of the setup at %s, which every seed shares", schedule.Time(int64(b.At)), schedule.Time(int64(at)))
		}
	}
	o := opts
	o.Branches = append([]schedule.Branch{{At: at, Key: seed}}, opts.Branches...)
	o.RedrawAfterBranch = true
	return o, nil
}
