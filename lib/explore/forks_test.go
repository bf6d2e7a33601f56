package explore

import (
	"io"
	"os"
	"reflect"
	"testing"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/runner"
	"github.com/sf-dst/sf/lib/schedule"
)

// explored is an exploration's outcome, its failures' results without the
// real time they took, and the bytes of every artifact it wrote.
type explored struct {
	out       Outcome
	results   []engine.Result
	artifacts map[string]string
}

func explore(t *testing.T, p *runner.Prepared, o Options) explored {
	t.Helper()
	out, err := Run(p, o, func(Found) {})
	if err != nil {
		t.Fatal(err)
	}
	e := explored{artifacts: map[string]string{}}
	for i, f := range out.Found {
		r := *f.Result
		r.RealNs = 0
		e.results = append(e.results, r)
		out.Found[i].Result = nil
		if f.Artifacts == nil {
			t.Fatalf("run %d failed and has no artifacts", f.Run)
		}
		for _, path := range []string{f.Artifacts.Trace, f.Artifacts.Faults, f.Artifacts.History, f.Artifacts.Timeline} {
			if path == "" {
				continue
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			e.artifacts[path] = string(b)
		}
	}
	e.out = *out
	return e
}

// TestForksExploreTheSame: an exploration whose branches start from forks
// of the runs they branch makes the runs, keeps the corpus, finds the
// failures and writes the artifacts, byte for byte, of one whose branches
// all run from the start, for a world of one node (kvlog, whose seed 17
// passes and the others fail) and one of two nodes on the network
// (httpkv); its branches do start from forks, and it branches branches,
// whose runs leave forks too.
func TestForksExploreTheSame(t *testing.T) {
	for _, c := range []struct {
		world string
		seeds []uint64
		runs  int
		// chains: the exploration keeps branches and branches them, so
		// more runs leave forks than seeds are branched.
		chains bool
	}{
		{"kvlog", []uint64{1, 2, 17}, 30, false},
		{"httpkv", []uint64{1, 2}, 24, false},
		// raftkv's properties (a leader in a later term, a write committed
		// with a follower unreachable, ...) keep branches of seed 1.
		{"raftkv", []uint64{1}, 24, true},
	} {
		t.Run(c.world, func(t *testing.T) {
			if c.world == "raftkv" && testing.Short() {
				t.Skip("builds hashicorp/raft for wasm; runs without -short")
			}
			if c.world != "kvlog" && raceEnabled {
				t.Skip("the detector watches kvlog's exploration; make test runs this world without it")
			}
			p, err := runner.Prepare("../../examples/"+c.world+"/seedfall.json", config.LoadOptions{}, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Engine.Close()
			o := Options{Seeds: c.seeds, Runs: c.runs, Jobs: 2, Config: "seedfall.json"}
			got := explore(t, p, o)
			o.NoForks = true
			want := explore(t, p, o)
			branches := got.out.Runs - got.out.SeedRuns
			if want.out.Forked != 0 {
				t.Errorf("%d branches started from a fork with NoForks", want.out.Forked)
			}
			if branches == 0 || got.out.Forked < branches/2 {
				t.Errorf("%d of %d branches started from a fork", got.out.Forked, branches)
			}
			if want.out.ForkRuns != 0 {
				t.Errorf("%d runs left forks with NoForks", want.out.ForkRuns)
			}
			if got.out.ForkRuns < 1 || c.chains && got.out.ForkRuns <= len(c.seeds) {
				t.Errorf("%d runs left forks from %d seeds (chains: %v)", got.out.ForkRuns, len(c.seeds), c.chains)
			}
			forked, forkRuns := got.out.Forked, got.out.ForkRuns
			got.out.Forked, got.out.ForkRuns = 0, 0
			// The steps the runs take from t=0 are the same; what the
			// forks skipped and what the runs that took them ran are not.
			if got.out.cost.skipped == 0 || want.out.cost.skipped != 0 || want.out.cost.rerunSteps != 0 {
				t.Errorf("skipped %d steps with forks and %d without, reran %d without", got.out.cost.skipped, want.out.cost.skipped, want.out.cost.rerunSteps)
			}
			got.out.cost.skipped, got.out.cost.rerunSteps, got.out.cost.forksTaken = 0, 0, 0
			for _, c := range []*cost{&got.out.cost, &want.out.cost} {
				c.realNs, c.checkNs = 0, 0 // real time
			}
			if !reflect.DeepEqual(got.out, want.out) {
				t.Errorf("with forks:\n%+v\nfrom the start:\n%+v", got.out, want.out)
			}
			if !reflect.DeepEqual(got.results, want.results) {
				t.Errorf("the failures' results differ")
			}
			if !reflect.DeepEqual(got.artifacts, want.artifacts) {
				t.Errorf("the artifacts differ: with forks %d files, from the start %d", len(got.artifacts), len(want.artifacts))
			}
			t.Logf("%d runs, %d branches, %d from a fork, %d runs left forks, %d failures found", got.out.Runs, branches, forked, forkRuns, len(got.out.Found))
		})
	}
}

// TestForksOfABranch: a branch of a kept branch starts from a fork of the
// kept branch's own run, past that run's branch point (a fork of the seed's
// run could only take it up to there), and ends as it does from the start;
// when one batch branches a seed's run and a branch of it, the branch's
// run, which leaves its forks, goes second and starts from the seed's.
func TestForksOfABranch(t *testing.T) {
	p, err := runner.Prepare("../../examples/kvlog/seedfall.json", config.LoadOptions{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Engine.Close()
	const seed = 17 // passes
	o := Options{Jobs: 2}
	run := func(c candidate, fs *runner.Forks) *engine.Result {
		t.Helper()
		rs, err := runAll(p, []candidate{c}, o, fs)
		if err != nil {
			t.Fatal(err)
		}
		return rs[0]
	}
	base := run(candidate{seed: seed, parent: -1}, nil)
	if base.Status != engine.StatusPass {
		t.Fatalf("seed %d %s: the test needs a pass", seed, base.Status)
	}
	t1, t2 := base.AtNs*2/5, base.AtNs*4/5
	entryOf := func(c candidate, r *engine.Result) entry {
		return entry{seed: c.seed, branches: c.branches, end: r.AtNs, steps: r.Steps, hash: r.Hash}
	}
	kept := candidate{seed: seed, branches: []schedule.Branch{{At: schedule.Dur(t1), Key: 1}}, parent: 0}
	keptRun := run(kept, nil)
	corpus := []entry{entryOf(candidate{seed: seed}, base), entryOf(kept, keptRun)}
	// The step at which the kept branch passes t1, its branch point.
	var stepAtT1 uint64
	o2 := engine.Options{Branches: kept.branches, RedrawAfterBranch: true, AtStep: func(s engine.StepPoint) {
		if stepAtT1 == 0 && s.AtNs > t1 {
			stepAtT1 = s.Step
		}
	}}
	if out := p.One(runner.Job{Seed: seed, Options: o2}, nil); out.Err != nil || out.Result.Hash != keptRun.Hash {
		t.Fatalf("the kept branch ran differently the second time: %v", out.Err)
	}

	child := candidate{seed: seed, branches: append(append([]schedule.Branch{}, kept.branches...), schedule.Branch{At: schedule.Dur(t2), Key: 2}), parent: 1}
	sibling := candidate{seed: seed, branches: []schedule.Branch{{At: schedule.Dur(t2), Key: 3}}, parent: 0}
	rf := newRunForks()
	defer rf.release()
	if err := rf.take(p, corpus, []candidate{child, sibling}, o); err != nil {
		t.Fatal(err)
	}
	if rf.runs() != 2 || rf.rerunStarts != 1 {
		t.Errorf("%d runs left forks, %d of them from a fork; want the seed's and then the kept branch's from the seed's", rf.runs(), rf.rerunStarts)
	}
	skipped := rf.fs.Skipped()
	got := run(child, rf.forks())
	if from := rf.fs.Skipped() - skipped; from <= stepAtT1 {
		t.Errorf("the branch of the branch started at step %d, not past its parent's branch point at step %d", from, stepAtT1)
	}
	want := run(child, nil)
	if got.Hash != want.Hash || got.Steps != want.Steps || got.AtNs != want.AtNs || !reflect.DeepEqual(got.Trace, want.Trace) {
		t.Errorf("from a fork: %d steps, hash %016x; from the start: %d steps, hash %016x", got.Steps, got.Hash, want.Steps, want.Hash)
	}
	if rf.started() != 1 {
		t.Errorf("%d branches started from a fork, want 1", rf.started())
	}
}
