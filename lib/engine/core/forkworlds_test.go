package core_test

import (
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/build"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/runner"
)

// forkWorldsFlag runs TestForkEveryWorld under -short too.
var forkWorldsFlag = flag.Bool("fork-worlds", false, "run TestForkEveryWorld even with -short")

// cannotFork are the example worlds TestForkEveryWorld does not fork, each
// with the reason; a world here that forks, or one missing that does not,
// fails the test, so the list says what is true.
var cannotFork = map[string]string{}

// TestForkEveryWorld forks seed 1 of every world under examples/ (each
// examples/*/seedfall*.json, so a new world is covered when it is added) at
// every step of a run of at most 100 steps and at a spread of 20 steps of
// a longer one, and resumes each fork: the resumed run must end exactly as
// the run that was never forked, trace, faults, steps, host calls and
// determinism hash alike. In each world a fork resumed and forked again
// resumes to the same end, and so does a fork resumed in a new runtime
// (another engine, which loads the compiled modules anew). A step where a
// node waits where it cannot be resumed (at the end of a preemption time
// slice) is passed for the next one, and counted. The race worlds run their
// one node to its end in a single step, so their only fork is the one before
// it.
//
// TestForkResume keeps its nine worlds, with fault presets and preemption
// turned up, under -short; this test runs without -short (make test-long)
// or with -fork-worlds, and with -fork-all forks every step (make
// fork-check).
func TestForkEveryWorld(t *testing.T) {
	if testing.Short() && !*forkWorldsFlag {
		t.Skip("forks every example world; runs without -short (make test-long), or with -fork-worlds")
	}
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	worlds, err := filepath.Glob(filepath.Join(root, "examples", "*", "seedfall*.json"))
	if err != nil || len(worlds) < 40 {
		t.Fatalf("%d example worlds (%v): the glob found too few to trust", len(worlds), err)
	}
	for name := range cannotFork {
		if !slices.Contains(worlds, filepath.Join(root, name)) {
			t.Errorf("cannotFork lists %s, which is not an example world", name)
		}
	}
	start := time.Now()
	for _, path := range worlds {
		name, _ := filepath.Rel(root, path)
		t.Run(strings.TrimPrefix(name, "examples/"), func(t *testing.T) {
			forkWorld(t, name, cannotFork[name])
		})
	}
	t.Logf("%d worlds in %s", len(worlds), time.Since(start).Round(time.Second))
}

// forkWorld forks seed 1 of world as TestForkEveryWorld says; refused, when
// set, is why the world cannot be forked, which the fork's error must say.
func forkWorld(t *testing.T, world, refused string) {
	p := prepareWorld(t, world, nil)
	const seed = 1
	whole, err := p.Engine.Run(p.Spec, seed, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := spreadSteps(whole.Steps)
	var (
		kept                   *engine.Fork // the first fork from a third of the run on, for forkOfFork
		forked, late, refusals int
		other                  error
	)
	pending := false // a wanted step was refused: fork at the next one
	taker, err := p.Engine.Run(p.Spec, seed, engine.Options{AtStep: func(s engine.StepPoint) {
		if !at[s.Step] && !pending {
			return
		}
		f, err := s.Fork()
		switch {
		case err != nil && strings.Contains(err.Error(), "preemption time slice"):
			pending, refusals = true, refusals+1
			return
		case err != nil:
			if other == nil {
				other = err
			}
			return
		}
		if pending && !at[s.Step] {
			late++
		}
		pending = false
		forked++
		// Each fork is resumed at once, as the run that took it goes on:
		// the forks of a large world together would hold gigabytes.
		resumed, err := p.Engine.Resume(f, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		same(t, fmt.Sprintf("resumed at step %d of %d", f.Step, whole.Steps), resumed, whole)
		if kept == nil && f.Step >= whole.Steps/3 {
			kept = f
			return
		}
		f.Release()
	}})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "the run that forked", taker, whole)
	if kept != nil {
		defer kept.Release()
	}
	switch {
	case refused != "" && other == nil:
		t.Fatalf("listed in cannotFork (%s), but every fork was taken", refused)
	case refused != "":
		if !strings.Contains(other.Error(), refused) {
			t.Fatalf("refused with %q, listed in cannotFork as %q", other, refused)
		}
		t.Logf("refused, as cannotFork says: %v", other)
		return
	case other != nil:
		t.Fatalf("a fork was refused: %v (list the world in cannotFork with the reason if that is expected)", other)
	case forked == 0 || kept == nil:
		t.Fatalf("%d forks in a run of %d steps, none from a third of it on", forked, whole.Steps)
	}
	forkOfFork(t, p, kept, whole)
	t.Logf("%d of %d steps forked and resumed (%d moved to a later step, %d refusals at the end of a time slice)",
		forked, whole.Steps, late, refusals)
}

// forkOfFork resumes f, forks the resumed run halfway to its end and resumes
// that; and resumes f in a new engine. Each must end as whole does.
func forkOfFork(t *testing.T, p *runner.Prepared, f *engine.Fork, whole *engine.Result) {
	t.Helper()
	second := f.Step + (whole.Steps-f.Step)/2
	var inner *engine.Fork
	var innerErr error
	if _, err := p.Engine.Resume(f, engine.Options{AtStep: func(s engine.StepPoint) {
		if inner == nil && innerErr == nil && s.Step >= second {
			inner, innerErr = s.Fork()
			if innerErr != nil && strings.Contains(innerErr.Error(), "preemption time slice") {
				innerErr = nil // the next step, then
			}
		}
	}}); err != nil {
		t.Fatal(err)
	}
	switch {
	case innerErr != nil:
		t.Errorf("a fork of the run resumed at step %d: %v", f.Step, innerErr)
	case inner != nil:
		resumed, err := p.Engine.Resume(inner, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		same(t, fmt.Sprintf("a fork at step %d of the run resumed at step %d", inner.Step, f.Step), resumed, whole)
		inner.Release()
	case whole.Steps > f.Step+1:
		t.Errorf("the run resumed at step %d took no fork at or after step %d", f.Step, second)
	}

	other, err := engine.New(build.CacheDir(p.World))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for _, n := range p.Spec.Nodes {
		for _, w := range []string{n.Wasm, n.UpgradeWasm} {
			if w == "" {
				continue
			}
			if _, err := other.CompileFor(w, p.Spec.Preempt); err != nil {
				t.Fatal(err)
			}
		}
	}
	elsewhere, err := other.Resume(f, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	same(t, fmt.Sprintf("resumed at step %d in a new engine", f.Step), elsewhere, whole)
}

// spreadSteps are the steps TestForkEveryWorld forks a run of n steps at:
// every one of a run of at most 100 steps (or, with -fork-all, of at most
// forkAllMax), and otherwise 20 spread over it, the last step among them.
func spreadSteps(n uint64) map[uint64]bool {
	at := map[uint64]bool{}
	every := max(1, n/20)
	switch {
	case *forkAll:
		every = max(1, n/forkAllMax)
	case n <= 100:
		every = 1
	}
	for k := uint64(0); k < n; k += every {
		at[k] = true
	}
	if n > 0 {
		at[n-1] = true
	}
	return at
}
