package runner

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/faults"
	"github.com/sf-dst/sf/lib/schedule"
)

func prepare(t testing.TB, world string, set ...string) *Prepared {
	t.Helper()
	p, err := Prepare(filepath.Join("..", "..", world), config.LoadOptions{Set: set}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Engine.Close() })
	return p
}

// sameRun fails unless two results are the same run.
func sameRun(t *testing.T, what string, got, want *engine.Result) {
	t.Helper()
	if got.Seed != want.Seed || got.Hash != want.Hash || got.Steps != want.Steps || got.Status != want.Status ||
		got.Message != want.Message || !slices.Equal(got.Trace, want.Trace) || fmt.Sprint(got.Faults) != fmt.Sprint(want.Faults) {
		t.Errorf("%s: seed %d %s %q, %d steps, hash %x, %d trace lines; want seed %d %s %q, %d steps, hash %x, %d trace lines",
			what, got.Seed, got.Status, got.Message, got.Steps, got.Hash, len(got.Trace),
			want.Seed, want.Status, want.Message, want.Steps, want.Hash, len(want.Trace))
	}
}

func one(t *testing.T, p *Prepared, j Job) *engine.Result {
	t.Helper()
	o := p.One(j, nil)
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	return o.Result
}

// TestForksStartRuns: a run that leaves forks of itself in a Forks lets
// later runs that agree with it start from one, and they end exactly as
// they do from the start; a run that leaves none at times past its bound
// takes none there.
func TestForksStartRuns(t *testing.T) {
	p := prepare(t, "examples/kvlog/seedfall.fixed.json", "faults.preset=everything")
	const seed = 7
	drawn := one(t, p, Job{Seed: seed})
	all := drawn.Faults
	if len(all) < 3 {
		t.Fatalf("seed %d fired %d faults: the test needs 3", seed, len(all))
	}
	fs := NewForks(0, max(1, drawn.Steps/8))
	base := one(t, p, Job{Seed: seed, Options: engine.Options{Faults: all}, Forks: fs, ForksBeforeNs: math.MaxInt64})
	if fs.Taken() < 4 {
		t.Fatalf("the base run left %d forks in %d steps", fs.Taken(), base.Steps)
	}
	cands := map[string][]engine.Fault{
		"the same":           all,
		"without the last":   all[:len(all)-1],
		"without the middle": append(slices.Clone(all[:len(all)/2]), all[len(all)/2+1:]...),
		"none":               {},
	}
	for _, name := range []string{"the same", "without the last", "without the middle", "none"} {
		opts := engine.Options{Faults: cands[name]}
		want := one(t, p, Job{Seed: seed, Options: opts})
		got := one(t, p, Job{Seed: seed, Options: opts, Forks: fs})
		sameRun(t, name, got, want)
	}
	if fs.Started() < 3 {
		t.Errorf("%d runs started from a fork, want the three that agree with the base run early on", fs.Started())
	}
	// Each started past step 0 and before the base run's end.
	if sk := fs.Skipped(); sk < uint64(fs.Started()) || sk >= uint64(fs.Started())*base.Steps {
		t.Errorf("the %d runs started from forks skipped %d steps in all, want between %d and %d", fs.Started(), sk, fs.Started(), uint64(fs.Started())*base.Steps)
	}
	taken := fs.Taken()
	one(t, p, Job{Seed: seed + 1, Forks: fs, ForksBeforeNs: 0})
	if fs.Taken() != taken {
		t.Errorf("a run bounded at time 0 left %d forks", fs.Taken()-taken)
	}
	fs.Release()
	if fs.Bytes() != 0 {
		t.Errorf("%d bytes held after Release", fs.Bytes())
	}
}

// TestForksStayWithinTheirBytes: forks past the bound thin out to a grid
// twice as coarse, so that what is held stays under the bound and spread
// over the run.
func TestForksStayWithinTheirBytes(t *testing.T) {
	p := prepare(t, "examples/kvlog/seedfall.fixed.json")
	const seed = 1
	whole := one(t, p, Job{Seed: seed})
	probe := NewForks(0, max(1, whole.Steps/4))
	one(t, p, Job{Seed: seed, Forks: probe, ForksBeforeNs: math.MaxInt64})
	if probe.Taken() == 0 {
		t.Fatal("no fork taken")
	}
	each := probe.Bytes() / int64(probe.Taken())
	probe.Release()
	fs := NewForks(3*each, max(1, whole.Steps/16))
	one(t, p, Job{Seed: seed, Forks: fs, ForksBeforeNs: math.MaxInt64})
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.bytes > 3*each || len(fs.held) == 0 || len(fs.held) > 3 {
		t.Errorf("%d forks of %d bytes held, the bound %d", len(fs.held), fs.bytes, 3*each)
	}
	for _, h := range fs.held {
		if h.f.Step%fs.every != 0 {
			t.Errorf("a fork at step %d, off the grid of %d", h.f.Step, fs.every)
		}
	}
	if fs.every <= whole.Steps/16 {
		t.Errorf("the grid stayed at every %d steps", fs.every)
	}
}

// TestSetupFork: every seed of a world with "fork": "setup" is the setup
// seed's run up to the setup with a branch keyed by the seed just after
// it, which a run from the start with that branch makes byte for byte;
// the same seed twice is the same run, two seeds are two; a failing seed's
// faults, replayed as a schedule, fail it the same way; and a branch
// before the setup ends is refused.
func TestSetupFork(t *testing.T) {
	p := prepare(t, "lib/runner/testdata/setupfork/seedfall.json")
	at, err := p.SetupAtNs()
	if err != nil {
		t.Fatal(err)
	}
	if at <= 1 {
		t.Fatalf("the setup ends at %dns", at)
	}
	var failed *engine.Result
	hashes := map[uint64]uint64{}
	for seed := uint64(1); seed <= 6; seed++ {
		r := one(t, p, Job{Seed: seed, Recheck: true})
		if r.Seed != seed {
			t.Errorf("seed %d's result says seed %d", seed, r.Seed)
		}
		if s, dup := hashes[r.Hash]; dup {
			t.Errorf("seeds %d and %d ran the same run", s, seed)
		}
		hashes[r.Hash] = seed
		again := one(t, p, Job{Seed: seed})
		sameRun(t, fmt.Sprintf("seed %d run twice", seed), again, r)
		whole, err := p.Engine.Run(p.Spec, SetupSeed, engine.Options{RedrawAfterBranch: true,
			Branches: []schedule.Branch{{At: schedule.Dur(at), Key: seed}}})
		if err != nil {
			t.Fatal(err)
		}
		whole.Seed = seed
		sameRun(t, fmt.Sprintf("seed %d from the start", seed), r, whole)
		if r.Status == engine.StatusFail && failed == nil {
			failed = r
		}
	}
	if failed == nil {
		t.Fatal("no seed of 1-6 failed: the replay of a schedule is not tested")
	}
	for _, f := range failed.Faults {
		if int64(f.At) < at && !faults.Positional(f.Kind) {
			t.Errorf("seed %d fired %s at %s, before its setup ended", failed.Seed, f.Kind, schedule.Time(int64(f.At)))
		}
	}
	replay := one(t, p, Job{Seed: failed.Seed, Options: p.RunOptions(&schedule.Schedule{Seed: failed.Seed, Duration: schedule.Dur(failed.AtNs), Faults: failed.Faults})})
	if replay.Status != engine.StatusFail || replay.Message != failed.Message {
		t.Errorf("seed %d's faults replayed: %s %q, the seed failed with %q", failed.Seed, replay.Status, replay.Message, failed.Message)
	}
	o := p.One(Job{Seed: 1, Options: engine.Options{Branches: []schedule.Branch{{At: schedule.Dur(at - 1), Key: 3}}}}, nil)
	if o.Err == nil {
		t.Error("a branch before the setup ended was taken")
	}
}
