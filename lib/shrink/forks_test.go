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
	for _, seed := range []uint64{1, 2, 3, 10} {
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
		t.Fatal("no seed of 1, 2, 3, 10 failed")
	}
	// The bisection of a budget starts every replay from the start: the
	// client calls sim.Budget first thing, and a fork holds its cap.
	if forked == 0 {
		t.Errorf("none of %d replays started from a fork", runs)
	}
	t.Logf("%d of %d replays started from a fork", forked, runs)
}
