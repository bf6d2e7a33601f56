package core_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/faults"
	"github.com/sf-dst/sf/lib/runner"
	"github.com/sf-dst/sf/lib/schedule"
)

// forksOf runs seed with opts and forks it at n steps spread over the run.
func forksOf(t *testing.T, p *runner.Prepared, seed uint64, opts engine.Options, n int) []*engine.Fork {
	t.Helper()
	whole, err := p.Engine.Run(p.Spec, seed, opts)
	if err != nil {
		t.Fatal(err)
	}
	var forks []*engine.Fork
	opts.AtStep = func(s engine.StepPoint) {
		if s.Step == 0 || s.Step%max(1, whole.Steps/uint64(n)) != 0 {
			return
		}
		f, err := s.Fork()
		if err != nil {
			t.Fatalf("step %d: %v", s.Step, err)
		}
		forks = append(forks, f)
	}
	if _, err := p.Engine.Run(p.Spec, seed, opts); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, f := range forks {
			f.Release()
		}
	})
	return forks
}

// startsFromForks runs each candidate from the start, and from every fork
// that admits it: the two must end exactly alike. It returns how many
// forks admitted a candidate and how many refused one.
func startsFromForks(t *testing.T, p *runner.Prepared, seed uint64, forks []*engine.Fork, cands map[string]engine.Options) (admitted, refused int) {
	t.Helper()
	names := make([]string, 0, len(cands))
	for name := range cands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		opts := cands[name]
		want, err := p.Engine.Run(p.Spec, seed, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range forks {
			if err := f.Admits(seed, opts); err != nil {
				refused++
				if _, rerr := p.Engine.ResumeAs(f, seed, opts); rerr == nil || !strings.Contains(rerr.Error(), err.Error()) {
					t.Errorf("%s at step %d: Admits says %v, ResumeAs %v", name, f.Step, err, rerr)
				}
				continue
			}
			admitted++
			got, err := p.Engine.ResumeAs(f, seed, opts)
			if err != nil {
				t.Fatal(err)
			}
			same(t, fmt.Sprintf("%s from the fork at step %d (%s)", name, f.Step, schedule.Time(f.AtNs)), got, want)
		}
	}
	return admitted, refused
}

// TestResumeAsSchedule: a fork of a run that replays a schedule starts the
// runs of other schedules that agree with it up to the fork (sf-shrink's
// candidates: faults taken out, moved, added, at a time or at a numbered
// disk operation) and they end exactly as when run from the start; a fork
// refuses those that do not agree with it.
func TestResumeAsSchedule(t *testing.T) {
	p := prepareWorld(t, "examples/kvlog/seedfall.fixed.json", []string{"faults.preset=everything"})
	// The first seed that fires two timed faults and one at a numbered
	// disk operation.
	var seed uint64
	var drawn *engine.Result
	var timed, positional []int
	for seed = 1; seed <= 40 && (len(timed) < 2 || len(positional) < 1); seed++ {
		var err error
		if drawn, err = p.Engine.Run(p.Spec, seed, engine.Options{}); err != nil {
			t.Fatal(err)
		}
		timed, positional = nil, nil
		for i, f := range drawn.Faults {
			if faults.Positional(f.Kind) {
				positional = append(positional, i)
			} else {
				timed = append(timed, i)
			}
		}
	}
	seed--
	if len(timed) < 2 || len(positional) < 1 {
		t.Fatal("no seed of 1-40 fires two timed faults and one at a disk operation")
	}
	all := drawn.Faults
	forks := forksOf(t, p, seed, engine.Options{Faults: all}, 8)
	without := func(drop ...int) []engine.Fault {
		var out []engine.Fault
		for i, f := range all {
			if !slices.Contains(drop, i) {
				out = append(out, f)
			}
		}
		return out
	}
	moved := slices.Clone(all)
	last := timed[len(timed)-1]
	moved[last].At += engine.Dur(time.Millisecond)
	if moved[last].Until != 0 {
		moved[last].Until += engine.Dur(time.Millisecond)
	}
	later := slices.Clone(all)
	pos := positional[len(positional)/2]
	later[pos].Op += 2
	added := append(slices.Clone(all), engine.Fault{At: 0, Kind: faults.KindFsyncEIO, Node: "server", Op: later[pos].Op + 40})
	var secondHalf []int
	for i, f := range all {
		if int64(f.At) > drawn.AtNs/2 {
			secondHalf = append(secondHalf, i)
		}
	}
	cands := map[string]engine.Options{
		"the same schedule":        {Faults: all},
		"no faults":                {Faults: []engine.Fault{}},
		"without the first fault":  {Faults: without(timed[0])},
		"without the last fault":   {Faults: without(len(all) - 1)},
		"without a disk fault":     {Faults: without(pos)},
		"without the second half":  {Faults: without(secondHalf...)},
		"the last timed one later": {Faults: moved},
		"a disk fault moved later": {Faults: later},
		"a disk fault added, at 0": {Faults: added},
	}
	admitted, refused := startsFromForks(t, p, seed, forks, cands)
	if admitted < len(cands) || refused < len(cands) {
		t.Errorf("%d starts from forks admitted and %d refused: the candidates do not exercise both", admitted, refused)
	}
	t.Logf("%d faults, %d forks: %d starts from a fork, %d refused", len(all), len(forks), admitted, refused)
}

// TestResumeAsBranches: a fork starts the runs of other branches that agree
// with its run's up to the fork (sf-run -explore's and sf-shrink -cause's:
// one more branch, a branch replaced by a later one), and refuses a run
// whose branch comes before the fork.
func TestResumeAsBranches(t *testing.T) {
	p := prepareWorld(t, "examples/kvlog/seedfall.fixed.json", []string{"faults.preset=everything"})
	const seed = 1
	whole, err := p.Engine.Run(p.Spec, seed, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	third := engine.Dur(whole.AtNs / 3)
	base := []schedule.Branch{{At: third, Key: 11}}
	forks := forksOf(t, p, seed, engine.Options{Branches: base, RedrawAfterBranch: true}, 8)
	cands := map[string]engine.Options{
		"the same branch":                {Branches: base, RedrawAfterBranch: true},
		"one more branch":                {Branches: append(slices.Clone(base), schedule.Branch{At: 2 * third, Key: 12}), RedrawAfterBranch: true},
		"the branch replaced":            {Branches: []schedule.Branch{{At: third + third/2, Key: 13}}, RedrawAfterBranch: true},
		"its key changed":                {Branches: []schedule.Branch{{At: third, Key: 14}}, RedrawAfterBranch: true},
		"no branch":                      {RedrawAfterBranch: true},
		"a branch of the network stream": {Branches: append(slices.Clone(base), schedule.Branch{At: 2 * third, Key: 15, Stream: "net"}), RedrawAfterBranch: true},
	}
	admitted, refused := startsFromForks(t, p, seed, forks, cands)
	if admitted < len(cands) || refused < len(cands) {
		t.Errorf("%d starts from forks admitted and %d refused: the candidates do not exercise both", admitted, refused)
	}
	if err := forks[0].Admits(seed, engine.Options{Branches: base}); err == nil || !strings.Contains(err.Error(), "redraws") {
		t.Errorf("a run that does not redraw after its branch: %v", err)
	}
}

// TestResumeAsBudget: a fork taken before any node called sim.Budget starts
// a run with another cap, exactly; one taken after refuses a cap that
// changes an answer sim.Budget gave before it, and admits one that does not.
func TestResumeAsBudget(t *testing.T) {
	p := prepareWorld(t, "examples/kvlog/seedfall.json", nil)
	const seed = 1
	var early, late *engine.Fork
	if _, err := p.Engine.Run(p.Spec, seed, engine.Options{AtStep: func(s engine.StepPoint) {
		var err error
		switch s.Step {
		case 0:
			early, err = s.Fork()
		case 200:
			late, err = s.Fork()
		}
		if err != nil {
			t.Fatal(err)
		}
	}}); err != nil {
		t.Fatal(err)
	}
	defer early.Release()
	defer late.Release()
	capped := engine.Options{Budget: 50}
	want, err := p.Engine.Run(p.Spec, seed, capped)
	if err != nil {
		t.Fatal(err)
	}
	if want.BudgetAsked == 0 {
		t.Fatal("no node called sim.Budget: the test proves nothing")
	}
	got, err := p.Engine.ResumeAs(early, seed, capped)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "a cap of 50 from step 0", got, want)
	if err := late.Admits(seed, capped); err == nil || !strings.Contains(err.Error(), "called sim.Budget(200) before the fork") {
		t.Errorf("a cap after sim.Budget was called: %v", err)
	}
	// A cap no call before the fork asked past answers those calls as no
	// cap does: the late fork starts such a run, exactly.
	asked := engine.Options{Budget: want.BudgetAsked}
	if err := late.Admits(seed, asked); err != nil {
		t.Fatalf("a cap at the largest budget asked: %v", err)
	}
	got, err = p.Engine.ResumeAs(late, seed, asked)
	if err != nil {
		t.Fatal(err)
	}
	wantAsked, err := p.Engine.Run(p.Spec, seed, asked)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "a cap of the largest budget asked from step 200", got, wantAsked)
	if err := early.Admits(seed+1, capped); err == nil || !strings.Contains(err.Error(), "the fork is of seed 1, the run of seed 2") {
		t.Errorf("another seed: %v", err)
	}
}

// TestResumeWithASchedule: a fork of a run that drew its own faults, taken
// before any fired, goes on with a schedule of faults after it as a replay
// of that schedule does; one taken after a fault fired refuses a schedule.
func TestResumeWithASchedule(t *testing.T) {
	p := prepareWorld(t, "examples/kvlog/seedfall.json", nil)
	const seed = 1
	drawn, err := p.Engine.Run(p.Spec, seed, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(drawn.Faults) == 0 {
		t.Fatal("the seed fired no fault: the test proves nothing")
	}
	first := int64(drawn.Faults[0].At)
	var before, after *engine.Fork
	if _, err := p.Engine.Run(p.Spec, seed, engine.Options{AtStep: func(s engine.StepPoint) {
		var err error
		switch {
		case before == nil && s.Step > 10:
			before, err = s.Fork()
		case after == nil && s.AtNs > first+int64(time.Millisecond):
			after, err = s.Fork()
		}
		if err != nil {
			t.Fatal(err)
		}
	}}); err != nil {
		t.Fatal(err)
	}
	defer before.Release()
	defer after.Release()
	if before.AtNs >= first {
		t.Fatalf("the early fork is at %s, not before the first fault at %s", schedule.Time(before.AtNs), schedule.Time(first))
	}
	list := engine.Options{Faults: drawn.Faults}
	want, err := p.Engine.Run(p.Spec, seed, list)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Engine.Resume(before, list)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "the drawn run's faults as a schedule from a fork before them", got, want)
	if _, err := p.Engine.Resume(after, list); err == nil || !strings.Contains(err.Error(), "had fired by the fork") {
		t.Errorf("a schedule after a fault fired: %v", err)
	}
	if err := before.Admits(seed, list); err == nil || !strings.Contains(err.Error(), "one run replays a schedule and the other draws its faults") {
		t.Errorf("ResumeAs of a schedule from a run that drew its faults: %v", err)
	}
}
