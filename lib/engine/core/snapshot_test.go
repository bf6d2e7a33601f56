package core_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/engine/core"
	"github.com/sf-dst/sf/lib/runner"
)

// snapshotWorlds are worlds that reach every part of a run's state between
// them: disks with crash rules and disk faults, swarm and buggify, the net
// overlay's TCP under partitions, clogs, slowdowns and pauses, UDP with
// lost and repeated datagrams, liveness and a finally check, buggify sites
// and pct
// preemption, and a history recorded by a workload that crashes. -short
// keeps the first four.
var snapshotWorlds = []struct {
	world string
	set   []string
}{
	{"examples/kvlog/seedfall.fixed.json", []string{"faults.preset=everything"}},
	{"examples/race/seedfall.pct.json", nil},
	{"examples/buggify/seedfall.json", nil},
	{"lib/determinism/testdata/worlds/history/seedfall.json", nil},
	{"examples/httpkv/seedfall.fixed.json", []string{"faults.preset=high_availability"}},
	{"lib/determinism/testdata/worlds/udp/seedfall.json", nil},
	{"examples/liveness/seedfall.fixed.json", nil},
}

// TestSnapshotRestore: a run's state taken at a scheduler step and put back
// into a replay of the same seed at that step lets the replay go on exactly
// as the run did: the same trace, faults, steps, host calls and hash. The
// run the snapshot came from goes on too, so a snapshot that shared state
// with it would be changed by then; and the replay clears its own state
// before the restore, so a field the snapshot leaves out shows.
func TestSnapshotRestore(t *testing.T) {
	defer core.ScrambleBeforeRestore()()
	defer core.CheckSnapshots(func(shared []string) {
		if len(shared) > 0 {
			t.Errorf("the snapshot shares with its run: %s", strings.Join(shared, ", "))
		}
	})()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	worlds := snapshotWorlds
	seeds := uint64(2)
	switch {
	case raceEnabled:
		// One seed of two worlds for the detector (TestForkResume says
		// why); make test runs them all without it.
		worlds, seeds = worlds[:2], 1
	case testing.Short():
		worlds = worlds[:4]
	}
	for _, w := range worlds {
		t.Run(strings.TrimPrefix(w.world, "examples/"), func(t *testing.T) {
			p, err := runner.Prepare(filepath.Join(root, w.world), config.LoadOptions{Set: w.set}, os.Stderr)
			if err != nil {
				t.Fatal(err)
			}
			// The snapshots of a world are independent runs of one
			// engine, which runs them side by side as a sweep does; the
			// engine closes after the last.
			t.Cleanup(func() { p.Engine.Close() })
			for seed := uint64(1); seed <= seeds; seed++ {
				whole, err := p.Engine.Run(p.Spec, seed, engine.Options{})
				if err != nil {
					t.Fatal(err)
				}
				for _, at := range stepsOf(whole.Steps) {
					t.Run(fmt.Sprintf("seed %d step %d of %d", seed, at, whole.Steps), func(t *testing.T) {
						t.Parallel()
						from, err := p.Engine.Run(p.Spec, seed, engine.Options{SnapshotAt: at})
						if err != nil {
							t.Fatal(err)
						}
						if from.Snapshot == nil {
							t.Fatalf("no snapshot at step %d of %d", at, from.Steps)
						}
						same(t, "the run that took the snapshot", from, whole)
						resumed, err := p.Engine.Run(p.Spec, seed, engine.Options{Restore: from.Snapshot})
						if err != nil {
							t.Fatal(err)
						}
						same(t, "the replay that restored it", resumed, whole)
					})
				}
			}
		})
	}
}

// stepsOf are the steps a run of n steps is snapshotted at: the first ones,
// a spread, and the last.
func stepsOf(n uint64) []uint64 {
	var out []uint64
	for _, k := range []uint64{1, 2, 3, n / 7, n / 3, n / 2, 2 * n / 3, n - 1} {
		if k >= 1 && k < n && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func same(t *testing.T, what string, got, want *engine.Result) {
	t.Helper()
	if got.Hash != want.Hash || got.Steps != want.Steps || got.HostCalls != want.HostCalls || got.Status != want.Status || got.Message != want.Message {
		t.Errorf("%s ended %s %q after %d steps and %d calls, hash %x; the whole run %s %q after %d and %d, hash %x",
			what, got.Status, got.Message, got.Steps, got.HostCalls, got.Hash, want.Status, want.Message, want.Steps, want.HostCalls, want.Hash)
	}
	if !slices.Equal(got.Trace, want.Trace) {
		for i := range min(len(got.Trace), len(want.Trace)) {
			if got.Trace[i] != want.Trace[i] {
				t.Errorf("%s: trace line %d is %q, want %q", what, i+1, got.Trace[i], want.Trace[i])
				return
			}
		}
		t.Errorf("%s: %d trace lines, want %d", what, len(got.Trace), len(want.Trace))
	}
	if fmt.Sprint(got.Faults) != fmt.Sprint(want.Faults) || !slices.Equal(got.Checkpoints, want.Checkpoints) ||
		fmt.Sprint(got.History) != fmt.Sprint(want.History) || props(got) != props(want) ||
		fmt.Sprint(got.Buggify) != fmt.Sprint(want.Buggify) {
		t.Errorf("%s: other faults, checkpoints, history, properties or buggify sites than the whole run's", what)
	}
}

// props shows a run's properties, margins by value.
func props(r *engine.Result) string {
	var b strings.Builder
	for _, p := range r.Properties {
		m := "-"
		if p.Margin != nil {
			m = fmt.Sprint(*p.Margin)
		}
		fmt.Fprintf(&b, "%s %q %v %v %d %s %d %d %d\n", p.Kind, p.Message, p.Reached, p.True, p.Hits, m, p.FirstNs, p.FirstTrueNs, p.MarginNs)
	}
	return b.String()
}
