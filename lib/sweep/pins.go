package sweep

// This file replays a world's pinned regressions before its sweep, and
// writes the pin of a failing replay (sf-run -pin -seed N).

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/pin"
	"github.com/sf-dst/sf/lib/record"
	"github.com/sf-dst/sf/lib/runner"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/textfmt"
)

// pinOutcome is what the replays of a world's pins came to.
type pinOutcome struct {
	pins, failed int
	interrupted  bool
}

// replayPins replays every pin of the world, in order of seed, before the
// sweep starts: pins are few and short (most are shrunk), and their report
// comes first. A pin that does not read, or does not fit the world, is an
// input error naming the file.
func (s *sweeper) replayPins() (pinOutcome, error) {
	var out pinOutcome
	p, o := s.p, s.o
	paths, err := pin.List(p.World)
	if err != nil || len(paths) == 0 {
		return out, err
	}
	scheds := make([]*schedule.Schedule, len(paths))
	jobs := make([]runner.Job, len(paths))
	for i, path := range paths {
		shown := textfmt.Display(path)
		sched, err := schedule.ReadFile(shown, nil)
		if err != nil {
			return out, fmt.Errorf("pinned regression %w", err)
		}
		if err := sched.Check(p.ScheduleWorld()); err != nil {
			return out, fmt.Errorf("pinned regression %s: %w", shown, err)
		}
		scheds[i], jobs[i] = sched, s.job(sched.Seed, sched)
	}
	fmt.Fprintf(s.human, "replaying %s of %s (%s)\n", textfmt.Plural(len(paths), "pinned regression"), o.Config, textfmt.Display(pin.Dir(p.World)))
	err = p.Run(jobs, runner.Pool{Workers: o.Jobs, Interrupt: s.interrupt}, func(res runner.Outcome) error {
		if res.Err != nil {
			return res.Err
		}
		if out.interrupted || res.Interrupted {
			// The pins after the first one the signal stopped are not
			// reported, finished or not: their report is in order.
			out.interrupted = true
			return nil
		}
		sched := scheds[res.Index]
		po := o
		po.Faults, po.Replay, po.artifactPrefix = textfmt.Display(paths[res.Index]), false, "pin-seed-"
		po.budget, po.branches, po.stopAtNs = sched.Budget, sched.Branches, int64(sched.Duration)
		out.pins++
		r := res.Result
		rec := record.Pin{Kind: record.KindPin, Pin: po.Faults, Seed: r.Seed, Config: o.Config, Profile: o.Profile, Set: o.Set,
			Status: string(r.Status), Class: r.Class, Message: r.Message, Property: r.Property, Node: r.Node, AtNs: r.AtNs,
			Steps: r.Steps, HostCalls: r.HostCalls, RealNs: r.RealNs, DeterminismHash: fmt.Sprintf("%016x", r.Hash),
			Faults: len(r.Faults), Repro: repro(po, r.Seed)}
		if sched.Pinned != nil {
			rec.PinnedMessage, rec.PinnedFingerprint = sched.Pinned.Message, sched.Pinned.Fingerprint
		}
		if r.Status == engine.StatusFail || r.Status == engine.StatusNondeterministic {
			out.failed++
			if r.Status == engine.StatusFail {
				rec.Fingerprint = pin.FailureOf(r).String()
				rec.SameFailure = rec.PinnedFingerprint != "" && rec.Fingerprint == rec.PinnedFingerprint
			}
			arts, err := writeArtifacts(p, po, r)
			if err != nil {
				fmt.Fprintf(s.human, "sf-run: pin %s: %v\n", rec.Pin, err)
			}
			rec.Artifacts = arts
		}
		if s.jw != nil {
			s.jw.Write(rec)
		}
		fmt.Fprint(s.human, PinReport(rec))
		return nil
	})
	if err != nil {
		return out, err
	}
	fmt.Fprintln(s.human)
	return out, nil
}

// PinReport is the report of one pin's replay, as sf-run prints it: a line
// when it passes, or the failure with the pinned one and a replay line
// when it comes back. simtest fails a pin's subtest with the same text.
func PinReport(rec record.Pin) string {
	var b strings.Builder
	name := filepath.Base(rec.Pin)
	if rec.Status != string(engine.StatusFail) && rec.Status != string(engine.StatusNondeterministic) {
		fmt.Fprintf(&b, "ok   pin %s (seed %d) passed: the regression it pins stays fixed\n", name, rec.Seed)
		return b.String()
	}
	how := "failed again"
	switch {
	case rec.Status == string(engine.StatusNondeterministic):
		how = "failed as nondeterministic"
	case rec.PinnedFingerprint == "":
		how = "failed" // a schedule copied into the folder by hand: no failure to compare with
	case !rec.SameFailure:
		how = "failed differently"
	}
	fmt.Fprintf(&b, "FAIL pin %s (original seed %d) %s at t=%s: %s\n", rec.Pin, rec.Seed, how, time.Duration(rec.AtNs), rec.Message)
	if rec.PinnedFingerprint != "" {
		fmt.Fprintf(&b, "  pinned failure: %s (%s)\n", rec.PinnedMessage, rec.PinnedFingerprint)
		if !rec.SameFailure && rec.Fingerprint != "" {
			fmt.Fprintf(&b, "  fails now as: %s\n", rec.Fingerprint)
		}
	}
	if rec.Artifacts != nil && rec.Artifacts.Trace != "" {
		fmt.Fprintf(&b, "  trace: %s\n", rec.Artifacts.Trace)
	}
	fmt.Fprintf(&b, "  replay: %s\n", rec.Repro)
	return b.String()
}

// pinSchedule is the schedule a pin of the failing run r keeps: the faults
// that fired and the budget and branches it ran with (pin.Make leaves the
// duration out).
func pinSchedule(o Options, r *engine.Result) *schedule.Schedule {
	return &schedule.Schedule{Seed: r.Seed, Config: o.Config, Profile: o.Profile, Set: o.Set,
		Budget: o.budget, Branches: o.branches, Faults: r.Faults}
}
