package core_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sf-dst/sf/lib/build"
	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/engine/core"
	"github.com/sf-dst/sf/lib/runner"
	"github.com/sf-dst/sf/lib/schedule"
)

// forkAll forks every step of every seed in TestForkResume (make
// fork-check); without it the test forks a spread of steps.
var forkAll = flag.Bool("fork-all", false, "fork at every scheduler step in TestForkResume")

// forkAllMax is how many steps -fork-all forks a long run at.
const forkAllMax = 1000

// forkWorlds are worlds whose runs TestForkResume forks: a workload that
// waits out fsyncs below a frame it returns from (testdata/forkframes), a
// node with disk
// faults and fsync latency that crashes and restarts, the same world with
// goroutines preempted at random counted calls and loops, worlds of several nodes with network faults (the net overlay
// and compat_overlay's mappings in raftkv), buggify, a history recorded by
// a workload that crashes, UDP with lost and repeated datagrams, and
// liveness with a finally check. -short keeps the first three.
// TestForkEveryWorld forks every world under examples/ as it is.
var forkWorlds = []struct {
	world string
	set   []string
	seeds []uint64
}{
	{"lib/engine/core/testdata/forkframes/seedfall.json", nil, []uint64{1}},
	{"examples/kvlog/seedfall.fixed.json", []string{"faults.preset=everything"}, []uint64{1, 2}},
	{"examples/kvlog/seedfall.fixed.json", []string{"preempt.strategy=random", "preempt.loops=true"}, []uint64{1}},
	{"examples/httpkv/seedfall.fixed.json", []string{"faults.preset=high_availability"}, []uint64{1}},
	{"examples/raftkv/seedfall.json", nil, []uint64{1}},
	{"examples/buggify/seedfall.json", nil, []uint64{1}},
	{"lib/determinism/testdata/worlds/history/seedfall.json", nil, []uint64{1}},
	{"lib/determinism/testdata/worlds/udp/seedfall.json", nil, []uint64{1}},
	{"examples/liveness/seedfall.fixed.json", nil, []uint64{1}},
}

// TestForkResume forks runs at many scheduler steps and resumes each fork
// in the engine it came from: the resumed run must end exactly as the run
// that was never forked, with the same trace, faults, steps, host calls and
// determinism hash, and one step after the fork its guests' memory and
// globals (the loop ticks' and preemption's countdowns among them) must be
// those of the run that was never forked. The run that takes the forks must
// not change either.
func TestForkResume(t *testing.T) {
	worlds := forkWorlds
	switch {
	case raceEnabled:
		// A guest alone and a client with its server, one seed each, at
		// two steps: the detector watches a resumption's goroutines as well
		// there as anywhere, and make test runs the rest without it.
		worlds = worlds[:2]
	case testing.Short():
		worlds = worlds[:3]
	}
	for _, w := range worlds {
		t.Run(strings.TrimPrefix(w.world, "examples/")+strings.Join(w.set, ","), func(t *testing.T) {
			p := prepareWorld(t, w.world, w.set)
			seeds := w.seeds
			if raceEnabled {
				seeds = seeds[:1]
			}
			for _, seed := range seeds {
				whole, err := p.Engine.Run(p.Spec, seed, engine.Options{})
				if err != nil {
					t.Fatal(err)
				}
				at := forkSteps(whole.Steps)
				if raceEnabled {
					steps := stepsOf(whole.Steps)
					at = map[uint64]bool{steps[0]: true, steps[len(steps)/2]: true}
				}
				forked := 0
				// next holds, by step, the images a resumed run had one step
				// after its fork, which the forking run's own must equal.
				next := map[uint64]string{}
				taker, err := p.Engine.Run(p.Spec, seed, engine.Options{AtStep: func(s engine.StepPoint) {
					if want, ok := next[s.Step]; ok {
						if got := digestAt(t, s); got != want {
							t.Errorf("seed %d: the guests at step %d differ from those of the run resumed a step before:\n%s\nwant\n%s", seed, s.Step, got, want)
						}
					}
					if !at[s.Step] {
						return
					}
					f, err := s.Fork()
					if err != nil {
						t.Errorf("seed %d: %v", seed, err)
						return
					}
					forked++
					resumed, err := p.Engine.Resume(f, engine.Options{AtStep: func(r engine.StepPoint) {
						if r.Step == s.Step+1 {
							next[r.Step] = digestAt(t, r)
						}
					}})
					if err != nil {
						t.Fatal(err)
					}
					same(t, fmt.Sprintf("seed %d resumed at step %d of %d", seed, s.Step, whole.Steps), resumed, whole)
					f.Release()
				}})
				if err != nil {
					t.Fatal(err)
				}
				same(t, fmt.Sprintf("seed %d, the run that forked", seed), taker, whole)
				if forked != len(at) {
					t.Errorf("seed %d: %d forks of %d steps", seed, forked, len(at))
				}
				t.Logf("seed %d: %d of its %d steps forked and resumed", seed, forked, whole.Steps)
			}
		})
	}
}

// digestAt forks the world at s and shows its guests' images.
func digestAt(t *testing.T, s engine.StepPoint) string {
	f, err := s.Fork()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Release()
	return core.ImageDigest(f)
}

// forkSteps are the steps a run of n steps is forked at: with -fork-all
// every one, or for a run longer than forkAllMax steps that many spread
// over it; every one of a run of at most 100 steps; a spread with -short;
// and every n/40th otherwise.
func forkSteps(n uint64) map[uint64]bool {
	at := map[uint64]bool{}
	switch {
	case *forkAll || n <= 100:
		for k := uint64(0); k < n; k += max(1, n/forkAllMax) {
			at[k] = true
		}
	case testing.Short():
		for _, k := range stepsOf(n) {
			at[k] = true
		}
	default:
		for k := uint64(0); k < n; k += max(1, n/40) {
			at[k] = true
		}
		at[n-1] = true
	}
	return at
}

// TestForkOfAFork: a resumed run forks again, and that fork resumes to the
// same end; a fork resumed in another engine, with its own runtime, does
// too, and so do two resumes of one fork at once; a fork resumed with a
// branch ends as a replay from the start with that branch does; and a
// released fork is not resumed.
func TestForkOfAFork(t *testing.T) {
	p := prepareWorld(t, "examples/kvlog/seedfall.fixed.json", []string{"faults.preset=everything"})
	const seed = 1
	whole, err := p.Engine.Run(p.Spec, seed, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	first, second := whole.Steps/3, 2*whole.Steps/3
	f := forkAt(t, func(o engine.Options) (*engine.Result, error) { return p.Engine.Run(p.Spec, seed, o) }, first)
	if n := f.MemoryBytes(); n < 1<<20 || n%65536 != 0 {
		t.Errorf("the fork's images hold %d bytes, want whole pages of two Go guests", n)
	}

	inner := forkAt(t, func(o engine.Options) (*engine.Result, error) { return p.Engine.Resume(f, o) }, second)
	resumed, err := p.Engine.Resume(inner, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "a fork of a fork", resumed, whole)

	// Another runtime, sharing the compilation cache: what is tested is a
	// fork resumed in instances of modules that runtime loaded itself, and
	// a cold compile under -race took most of this test's time.
	other, err := engine.New(build.CacheDir(p.World))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for _, n := range p.Spec.Nodes {
		if _, err := other.CompileFor(n.Wasm, p.Spec.Preempt); err != nil {
			t.Fatal(err)
		}
	}
	elsewhere, err := other.Resume(f, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "a fork resumed in another engine", elsewhere, whole)

	// Resumed twice at once, in the two engines: the fork is only read.
	var wg sync.WaitGroup
	twice := make([]*engine.Result, 2)
	errs := make([]error, 2)
	for i, e := range []*engine.Engine{p.Engine, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			twice[i], errs[i] = e.Resume(f, engine.Options{})
		}()
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	same(t, "a fork resumed twice at once, the first", twice[0], whole)
	same(t, "a fork resumed twice at once, the second", twice[1], whole)

	b := []schedule.Branch{{At: schedule.Dur(f.AtNs + 1), Key: 7}}
	replay, err := p.Engine.Run(p.Spec, seed, engine.Options{Branches: b})
	if err != nil {
		t.Fatal(err)
	}
	if replay.Hash == whole.Hash {
		t.Fatal("the branch changed nothing: the test would prove nothing")
	}
	branched, err := p.Engine.Resume(f, engine.Options{Branches: b})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "a fork resumed with a branch", branched, replay)

	f.Release()
	if _, err := p.Engine.Resume(f, engine.Options{}); err == nil || !strings.Contains(err.Error(), "the fork was released") {
		t.Errorf("resuming a released fork: error %v", err)
	}
}

// forkAt runs run with a fork taken at step and returns the fork.
func forkAt(t *testing.T, run func(engine.Options) (*engine.Result, error), step uint64) *engine.Fork {
	t.Helper()
	var f *engine.Fork
	var ferr error
	if _, err := run(engine.Options{AtStep: func(s engine.StepPoint) {
		if s.Step == step {
			f, ferr = s.Fork()
		}
	}}); err != nil {
		t.Fatal(err)
	}
	if ferr != nil || f == nil {
		t.Fatalf("no fork at step %d: %v", step, ferr)
	}
	return f
}

func prepareWorld(t testing.TB, world string, set []string) *runner.Prepared {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	p, err := runner.Prepare(filepath.Join(root, world), config.LoadOptions{Set: set}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Engine.Close() })
	return p
}
