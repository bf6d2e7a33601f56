package core_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/engine/core"
	"github.com/sf-dst/sf/lib/wire"
)

// TestForkEncodeResume forks the runs of TestForkResume's worlds at a spread
// of steps, encodes each fork, decodes it and resumes the decoded fork: it
// must hold the same state as the fork it was encoded from, field by field,
// encode to the same bytes, and end exactly as the run that was never
// forked. A fork decoded in another engine ends the same.
func TestForkEncodeResume(t *testing.T) {
	worlds := forkWorlds
	switch {
	case raceEnabled:
		// The resumption's goroutines on one world; the encoding is
		// sequential, and the run without -race does every world.
		worlds = worlds[:1]
	case testing.Short():
		worlds = worlds[:3]
	}
	for _, w := range worlds {
		t.Run(strings.TrimPrefix(w.world, "examples/")+strings.Join(w.set, ","), func(t *testing.T) {
			p := prepareWorld(t, w.world, w.set)
			seed := w.seeds[0]
			whole, err := p.Engine.Run(p.Spec, seed, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			steps := stepsOf(whole.Steps)
			if raceEnabled {
				// Two resumptions are enough for -race to watch their
				// goroutines; the run without it does every step.
				steps = []uint64{steps[0], steps[len(steps)/2]}
			}
			at := map[uint64]bool{}
			for _, s := range steps {
				at[s] = true
			}
			done := 0
			_, err = p.Engine.Run(p.Spec, seed, engine.Options{AtStep: func(s engine.StepPoint) {
				if !at[s.Step] {
					return
				}
				f, err := s.Fork()
				if err != nil {
					t.Errorf("seed %d: %v", seed, err)
					return
				}
				defer f.Release()
				enc := encode(t, f)
				d, err := p.Engine.DecodeFork(wire.NewReader(enc), p.Spec)
				if err != nil {
					t.Fatalf("step %d: decoding: %v", s.Step, err)
				}
				if diff := core.ForkDiff(f, d); len(diff) > 0 {
					t.Errorf("step %d: the decoded fork differs from the one encoded:\n%s", s.Step, strings.Join(diff, "\n"))
				}
				if again := encode(t, d); !bytes.Equal(again, enc) {
					t.Errorf("step %d: the decoded fork encodes to other bytes (%d, the fork %d)", s.Step, len(again), len(enc))
				}
				res, err := p.Engine.Resume(d, engine.Options{})
				if err != nil {
					t.Fatal(err)
				}
				same(t, fmt.Sprintf("seed %d decoded at step %d of %d", seed, s.Step, whole.Steps), res, whole)
				done++
			}})
			if err != nil {
				t.Fatal(err)
			}
			if done != len(steps) {
				t.Errorf("%d forks encoded and resumed of %d", done, len(steps))
			}
		})
	}
}

func encode(t *testing.T, f *engine.Fork) []byte {
	t.Helper()
	w := wire.NewWriter(0)
	if err := f.Encode(w); err != nil {
		t.Fatal(err)
	}
	return w.Data()
}

// TestForkDecodeCorrupt: a fork's encoding cut short anywhere, or with a
// byte changed anywhere in its state, decodes to an error that says it is
// corrupt, or to a fork, and never panics; a fork decoded for a world with
// other nodes is refused with an error that names them.
func TestForkDecodeCorrupt(t *testing.T) {
	if raceEnabled {
		t.Skip("decoding runs on one goroutine: nothing for -race to watch; the run without -race does it")
	}
	p := prepareWorld(t, "examples/kvlog/seedfall.fixed.json", []string{"faults.preset=everything"})
	f := forkAt(t, func(o engine.Options) (*engine.Result, error) { return p.Engine.Run(p.Spec, 1, o) }, 40)
	enc := encode(t, f)
	// The state comes before the images, which take all but a few bytes
	// of the end: cut and change it there.
	stateEnd := len(enc) - f.MemoryBytes()
	for n := 0; n < stateEnd; n += 1 + n/50 {
		_, err := p.Engine.DecodeFork(wire.NewReader(enc[:n]), p.Spec)
		if !errors.Is(err, wire.ErrCorrupt) {
			t.Fatalf("the first %d bytes: error %v, want one that says it is corrupt", n, err)
		}
	}
	if _, err := p.Engine.DecodeFork(wire.NewReader(enc[:len(enc)-1]), p.Spec); !errors.Is(err, wire.ErrCorrupt) {
		t.Errorf("all but the last byte: error %v", err)
	}
	for i := 0; i < stateEnd; i += 1 + i/200 {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			b := bytes.Clone(enc)
			b[i] ^= x
			p.Engine.DecodeFork(wire.NewReader(b), p.Spec)
		}
	}
	other := *p.Spec
	other.Nodes = other.Nodes[:1]
	if _, err := p.Engine.DecodeFork(wire.NewReader(enc), &other); err == nil || !strings.Contains(err.Error(), "the fork holds 2 nodes, the world 1") {
		t.Errorf("decoded for a world of one node: error %v", err)
	}
}

// TestResumeWithFaults: a fork resumed with a schedule for the rest of the
// run. Given the faults the whole run fired, it ends as the whole run does;
// given none, no fault fires after the fork, those before it stay, and the
// run ends otherwise than the whole run, which had faults after the fork.
func TestResumeWithFaults(t *testing.T) {
	p := prepareWorld(t, "examples/kvlog/seedfall.fixed.json", []string{"faults.preset=everything"})
	// The first seed of a few with faults both before and after the
	// fork, taken just after its first fault.
	var (
		whole  *engine.Result
		f      *engine.Fork
		before int
	)
	for seed := uint64(1); seed <= 20 && f == nil; seed++ {
		w, err := p.Engine.Run(p.Spec, seed, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(w.Faults) < 2 || w.Faults[0].At == w.Faults[len(w.Faults)-1].At {
			continue
		}
		_, err = p.Engine.Run(p.Spec, seed, engine.Options{AtStep: func(s engine.StepPoint) {
			if f == nil && s.AtNs > int64(w.Faults[0].At) {
				f, _ = s.Fork()
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		whole = w
	}
	if f == nil {
		t.Fatal("no seed of 1-20 fired faults at two moments and forked after the first")
	}
	defer f.Release()
	for _, fl := range whole.Faults {
		if int64(fl.At) < f.AtNs {
			before++
		}
	}
	if before == len(whole.Faults) {
		t.Fatalf("seed %d: all %d faults fired before the fork at t=%dns", whole.Seed, before, f.AtNs)
	}
	step := f.Step
	res, err := p.Engine.ResumeRest(f, engine.Options{Faults: whole.Faults})
	if err != nil {
		t.Fatal(err)
	}
	same(t, fmt.Sprintf("resumed at step %d with the whole run's faults", step), res, whole)

	res, err = p.Engine.ResumeRest(f, engine.Options{Faults: []engine.Fault{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Faults) != before || fmt.Sprint(res.Faults) != fmt.Sprint(whole.Faults[:before]) {
		t.Errorf("resumed with no faults: %d faults %v, want the %d before the fork", len(res.Faults), res.Faults, before)
	}
	if res.Hash == whole.Hash {
		t.Errorf("resumed with no faults, it ended with the whole run's hash %x", res.Hash)
	}
}
