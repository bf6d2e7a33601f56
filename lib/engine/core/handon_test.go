package core_test

import (
	"slices"
	"testing"

	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/engine/core"
)

// TestHandOnChangesNothing runs seeds of kvlog, with its faults, twice: with
// parking nodes taking the scheduler's plain turns and handing the baton on
// themselves, and with every turn on the scheduler's goroutine (an AtStep
// hook, even one that does nothing, keeps them there). The two runs must be
// the same run: steps, host calls, hash and trace.
func TestHandOnChangesNothing(t *testing.T) {
	p := prepareWorld(t, "examples/kvlog/seedfall.fixed.json", []string{"faults.preset=everything"})
	for seed := uint64(1); seed <= 3; seed++ {
		var counts [2]int
		off := core.CountHandOns(&counts)
		direct, err := p.Engine.Run(p.Spec, seed, engine.Options{})
		off()
		if err != nil {
			t.Fatal(err)
		}
		if counts[0] == 0 || counts[1] == 0 {
			t.Errorf("seed %d: batons handed on to the parking node itself %d times, to another %d times; want both above 0", seed, counts[0], counts[1])
		}
		var none [2]int
		off = core.CountHandOns(&none)
		viaScheduler, err := p.Engine.Run(p.Spec, seed, engine.Options{AtStep: func(core.StepPoint) {}})
		off()
		if err != nil {
			t.Fatal(err)
		}
		if none != [2]int{} {
			t.Errorf("seed %d: with an AtStep hook, batons were still handed on: %v", seed, none)
		}
		if direct.Steps != viaScheduler.Steps || direct.HostCalls != viaScheduler.HostCalls || direct.Hash != viaScheduler.Hash || direct.Status != viaScheduler.Status {
			t.Errorf("seed %d: direct handoffs gave steps %d, host calls %d, hash %x, %s; the scheduler alone %d, %d, %x, %s", seed,
				direct.Steps, direct.HostCalls, direct.Hash, direct.Status, viaScheduler.Steps, viaScheduler.HostCalls, viaScheduler.Hash, viaScheduler.Status)
		}
		if !slices.Equal(direct.Trace, viaScheduler.Trace) {
			t.Errorf("seed %d: the traces differ (%d and %d lines)", seed, len(direct.Trace), len(viaScheduler.Trace))
		}
		if t.Failed() {
			return
		}
		t.Logf("seed %d: %d steps, %d handed on to the same node, %d to another", seed, direct.Steps, counts[0], counts[1])
	}
}
