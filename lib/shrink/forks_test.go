package shrink

import (
	"io"
	"reflect"
	"testing"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/runner"
	"github.com/sf-dst/sf/lib/schedule"
)

// TestForksShrinkTheSame: shrinking with candidates started from forks of
// the starting schedule's run gives the schedule, count of replays and
// final run that replaying every candidate from the start gives, for the
// seeds sf-shrink's tests shrink and from a schedule (-faults), and
// replays start from forks.
func TestForksShrinkTheSame(t *testing.T) {
	p, err := runner.Prepare("../../examples/kvlog/seedfall.json", config.LoadOptions{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Engine.Close()
	forked, runs := 0, 0
	seeds := []uint64{1, 2, 3, 10}
	for _, seed := range seeds {
		if raceEnabled && runs > 0 {
			break // one failing seed's shrinks for the detector
		}
		r, err := p.Engine.Run(p.Spec, seed, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != engine.StatusFail {
			continue
		}
		for _, start := range []*schedule.Schedule{nil, {Seed: seed, Faults: r.Faults}} {
			from := Options{Jobs: 2, Start: start}
			want, err := Seed(p, seed, Options{Jobs: 2, Start: start, NoForks: true})
			if err != nil {
				t.Fatal(err)
			}
			got, err := Seed(p, seed, from)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Schedule, want.Schedule) || got.Runs != want.Runs || got.Final.Hash != want.Final.Hash ||
				!reflect.DeepEqual(got.Final.Trace, want.Final.Trace) {
				t.Errorf("seed %d (from a schedule: %v): with forks %d faults in %d runs, hash %x; from the start %d faults in %d runs, hash %x",
					seed, start != nil, len(got.Schedule.Faults), got.Runs, got.Final.Hash, len(want.Schedule.Faults), want.Runs, want.Final.Hash)
			}
			if want.Forked != 0 {
				t.Errorf("seed %d: %d replays started from a fork with NoForks", seed, want.Forked)
			}
			forked += got.Forked
			runs += got.Runs
		}
	}
	if runs == 0 {
		t.Fatalf("no seed of %v failed", seeds)
	}
	// The bisection of a budget starts every replay from the start: the
	// client calls sim.Budget first thing, and a fork holds its cap.
	if forked == 0 {
		t.Errorf("none of %d replays started from a fork", runs)
	}
	t.Logf("%d of %d replays started from a fork", forked, runs)
}

// TestForksCauseTheSame: a cause curve whose branches start from forks of
// the seed's run is the curve of branches run from the start, for a seed of
// its own and for a run of an exploration (branches of its own), and the
// branches do start from forks.
func TestForksCauseTheSame(t *testing.T) {
	p, err := runner.Prepare("../../examples/kvlog/seedfall.json", config.LoadOptions{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Engine.Close()
	seed := uint64(0)
	var r *engine.Result
	for s := uint64(1); s <= 20 && seed == 0; s++ {
		if r, err = p.Engine.Run(p.Spec, s, engine.Options{}); err != nil {
			t.Fatal(err)
		}
		if r.Status == engine.StatusFail {
			seed = s
		}
	}
	if seed == 0 {
		t.Fatal("no seed of 1-20 failed")
	}
	// A run of an exploration: the seed with a branch that still fails.
	var explored []schedule.Branch
	for key := uint64(1); key <= 20 && explored == nil; key++ {
		br := []schedule.Branch{{At: schedule.Dur(r.AtNs / 4), Key: key}}
		o := p.One(runner.Job{Seed: seed, Options: engine.Options{Branches: br, RedrawAfterBranch: true}}, nil)
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		if o.Result.Status == engine.StatusFail {
			explored = br
		}
	}
	if explored == nil {
		t.Fatalf("no branch of seed %d at %dns with keys 1-20 fails", seed, r.AtNs/4)
	}
	for _, base := range [][]schedule.Branch{nil, explored} {
		o := CauseOptions{Moments: 4, Branches: 3, Jobs: 2, Base: base}
		got, err := Cause(p, seed, o)
		if err != nil {
			t.Fatal(err)
		}
		o.NoForks = true
		want, err := Cause(p, seed, o)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Points, want.Points) || got.Inevitable != want.Inevitable || got.Runs != want.Runs {
			t.Errorf("seed %d, base %v: with forks %+v (inevitable %d, %d runs); from the start %+v (inevitable %d, %d runs)",
				seed, base, got.Points, got.Inevitable, got.Runs, want.Points, want.Inevitable, want.Runs)
		}
		if want.Forked != 0 || got.Forked < got.Runs/2 {
			t.Errorf("seed %d, base %v: %d of %d branches started from a fork, %d with NoForks", seed, base, got.Forked, got.Runs-1, want.Forked)
		}
		t.Logf("seed %d, base %v: %d of %d branches started from a fork", seed, base, got.Forked, got.Runs-1)
	}
}
