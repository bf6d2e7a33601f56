package report

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sf-dst/sf/lib/record"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/textfmt"
)

// Schedules reads the shrunk schedule of every finding that has one, with
// paths taken relative to dir, so that reports can list and draw its
// faults. A schedule that cannot be read is noted on the finding.
func Schedules(sweeps []*Sweep, dir string) {
	for _, sw := range sweeps {
		for _, f := range sw.Findings {
			if f.Shrunk == nil || f.Shrunk.Schedule == "" {
				continue
			}
			p := f.Shrunk.Schedule
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			s, err := schedule.ReadFile(p, nil)
			if err != nil {
				f.ScheduleErr = err.Error()
				continue
			}
			f.Schedule = s
		}
	}
}

// seedItemsMax is how many seeds or ranges a report lists per finding.
const seedItemsMax = 20

// Title is the sweep's heading: its world, seeds and shards.
func (s *Sweep) Title() string {
	t := s.World
	if s.Profile != "" {
		t += " (profile " + s.Profile + ")"
	}
	for _, v := range s.Set {
		t += " -set " + v
	}
	if s.causeOnly {
		return t + ": seeds sf-shrink -cause branched"
	}
	if s.ShrinkOnly {
		return t + ": shrunk seeds"
	}
	if s.ExploreBudget > 0 {
		return t + fmt.Sprintf(", explored from seeds %s with a budget of %s", s.SeedsText, textfmt.Plural(s.ExploreBudget, "run"))
	}
	t += ", seeds " + s.SeedsText
	if s.Shards > 0 {
		t += fmt.Sprintf(", %d shards", s.Shards)
	}
	return t
}

// Counts is the sweep's one-line summary.
func (s *Sweep) Counts() string {
	if s.causeOnly {
		return fmt.Sprintf("%s among the seeds branched", textfmt.Plural(len(s.Findings), "way of failing"))
	}
	if s.ShrinkOnly {
		return fmt.Sprintf("%s among the shrunk seeds", textfmt.Plural(len(s.Findings), "way of failing"))
	}
	if s.ExploreBudget > 0 {
		return s.exploreCounts()
	}
	gaveUp := ""
	if n := s.GaveUpOnly(); n > 0 {
		gaveUp = fmt.Sprintf(", %d gave up checking their history", n)
	}
	c := fmt.Sprintf("%d of %s failed (%d passed%s, %d hit the time horizon, %d nondeterministic); %s; %s failed",
		s.Failed, textfmt.Plural(s.Ran, "seed"), s.Passed, gaveUp, s.Horizon, s.Nondeterministic, textfmt.Plural(len(s.Findings), "finding"),
		textfmt.Plural(s.PropertyFailures, "property"))
	if p := s.PinsCount(); p != "" {
		c += "; " + p
	}
	return c
}

// exploreCounts is Counts for an exploration: its runs, not seeds.
func (s *Sweep) exploreCounts() string {
	e := s.Explore
	if e == nil {
		return fmt.Sprintf("%s before the stream ended; %s", textfmt.Plural(s.Failed, "failing run"), textfmt.Plural(len(s.Findings), "finding"))
	}
	gaveUp := ""
	if n := s.GaveUpOnly(); n > 0 {
		gaveUp = fmt.Sprintf(", %d gave up checking their history", n)
	}
	c := fmt.Sprintf("%d of %s failed, %d of them branched (%s, %s; %d passed%s, %d hit the time horizon); %s; %s kept for reaching %s",
		s.Failed, textfmt.Plural(s.Ran, "run"), e.BranchedFailures, textfmt.Plural(e.StartingSeeds, "starting seed"), textfmt.Plural(e.Branches, "branch"),
		s.Passed, gaveUp, s.Horizon, textfmt.Plural(len(s.Findings), "finding"), textfmt.Plural(e.Corpus, "run"), textfmt.Plural(e.NewStates, "new state"))
	if s.PropertyFailures > 0 {
		// Over every run, a property never reached or never true fails
		// the exploration as it fails a sweep.
		c += fmt.Sprintf("; %s failed", textfmt.Plural(s.PropertyFailures, "property"))
	}
	return c
}

// Counted names what the sweep's tables count: "seeds", or "runs" in an
// exploration, whose property and buggify rows are summed over its runs
// (several of them runs of one seed).
func (s *Sweep) Counted() string {
	if s.ExploreBudget > 0 {
		return "runs"
	}
	return "seeds"
}

// runOf names the seed a shrink or cause curve is of: "seed 3", or "run 13
// (seed 1)" for a run of an exploration.
func runOf(seed uint64, run int) string {
	if run > 0 {
		return fmt.Sprintf("run %d (seed %d)", run, seed)
	}
	return fmt.Sprintf("seed %d", seed)
}

// gaveUpText and hostStallText list the seeds whose history check gave up
// and those that hit a host stall, counted and listed as runs in an
// exploration: "2 runs", "runs 3 5 (seed 1)".
func (s *Sweep) gaveUpText() (count, list string) {
	return s.seedsOrRuns(s.GaveUpSeeds, s.GaveUpRuns)
}

func (s *Sweep) hostStallText() (count, list string) {
	return s.seedsOrRuns(s.HostStallSeeds, s.HostStallRuns)
}

func (s *Sweep) seedsOrRuns(seeds []uint64, runs []int) (count, list string) {
	if s.ExploreBudget == 0 || len(runs) == 0 {
		return textfmt.Plural(len(seeds), "seed"), textfmt.SeedList(seeds, seedItemsMax, "seeds in all")
	}
	f := &Finding{Runs: runs}
	for _, seed := range seeds {
		if !slices.Contains(f.Seeds, seed) {
			f.Seeds = append(f.Seeds, seed)
		}
	}
	return textfmt.Plural(len(runs), "run"), f.SeedsText()
}

// Kind is what the report calls the stream: "sweep", or "exploration" for
// sf-run -explore.
func (s *Sweep) Kind() string {
	if s.ExploreBudget > 0 {
		return "exploration"
	}
	return "sweep"
}

// PinsCount says how the pinned regressions came out, "1 of 2 pinned
// regressions failed" or "2 pinned regressions passed"; "" when the sweep
// replayed none.
func (s *Sweep) PinsCount() string {
	switch {
	case len(s.Pins) == 0:
		return ""
	case s.PinsFailed > 0:
		return fmt.Sprintf("%d of %s failed", s.PinsFailed, textfmt.Plural(len(s.Pins), "pinned regression"))
	}
	return textfmt.Plural(len(s.Pins), "pinned regression") + " passed"
}

// PinOutcome says how a pin's replay came out, as sf-run does: "passed",
// "failed again" (as it was pinned), "failed differently", "failed as
// nondeterministic", or "failed" for a pin that keeps no failure to
// compare with.
func PinOutcome(p record.Pin) string {
	switch {
	case !PinFailed(p):
		return "passed"
	case p.Status == "nondeterministic":
		return "failed as nondeterministic"
	case p.PinnedFingerprint == "":
		return "failed"
	case !p.SameFailure:
		return "failed differently"
	}
	return "failed again"
}

// PinLine is one pin's replay on a line: the file, its original seed, and
// how it failed (when, and the message) or that it passed.
func PinLine(p record.Pin) string {
	l := fmt.Sprintf("%s (original seed %d) %s", p.Pin, p.Seed, PinOutcome(p))
	if PinFailed(p) {
		l += fmt.Sprintf(" at t=%s: %s", schedule.Time(p.AtNs), p.Message)
	}
	return l
}

// runsText names a finding's failing runs on one line: "seeds 1-3",
// "pins .seedfall/pinned/w/seed-3.json", or both.
func runsText(f *Finding) string {
	var parts []string
	if len(f.Seeds) > 0 || len(f.Pins) == 0 {
		parts = append(parts, "seeds "+textfmt.SeedList(f.Seeds, seedItemsMax, "seeds in all"))
	}
	if len(f.Pins) > 0 {
		var names []string
		for _, p := range f.Pins {
			names = append(names, p.Pin)
		}
		parts = append(parts, "pins "+strings.Join(names, " "))
	}
	return strings.Join(parts, "; ")
}

// Warnings are what makes the sweep incomplete.
func (s *Sweep) Warnings() []string {
	var out []string
	if len(s.Missing) > 0 {
		var ks []string
		for _, k := range s.Missing {
			ks = append(ks, fmt.Sprintf("%d/%d", k, s.Shards))
		}
		out = append(out, fmt.Sprintf("missing shards: %s; the report covers only the shards given", strings.Join(ks, ", ")))
	}
	for _, u := range s.Unfinished {
		out = append(out, fmt.Sprintf("the stream starting at %s ended without a summary: its run was stopped; its finished seeds are counted", u))
	}
	if s.Interrupted {
		if s.ExploreBudget > 0 {
			out = append(out, "the exploration was interrupted: the counts cover the runs that finished")
		} else {
			out = append(out, "the sweep was interrupted: the counts cover the seeds that finished")
		}
	}
	if slices.Contains(s.Missing, 1) {
		out = append(out, "shard 1 replays the world's pinned regressions: without it the report has none")
	}
	for _, u := range s.PinsUnseen {
		out = append(out, u+": the report cannot say how the others came out")
	}
	return out
}

// Margin formats a property's margin; "" when it has none.
func Margin(p record.Property) string {
	if p.Margin == nil {
		return ""
	}
	return p.Margin.String()
}

// statusText is the finding's status with when it was first seen.
func statusText(f *Finding) string {
	switch f.Status {
	case "":
		return ""
	case StatusNew:
		return "new"
	}
	return fmt.Sprintf("%s, first seen %s", f.Status, f.FirstSeen)
}

// Text writes the report for people.
func Text(w io.Writer, sweeps []*Sweep) {
	for i, s := range sweeps {
		if i > 0 {
			fmt.Fprintln(w)
		}
		text(w, s)
	}
}

func text(w io.Writer, s *Sweep) {
	fmt.Fprintf(w, "%s %s\n", s.Kind(), s.Title())
	fmt.Fprintf(w, "%s %s\n", strings.ToUpper(s.Status()), s.Counts())
	if s.RealNs > 0 {
		what := ""
		if s.Shards > 0 {
			what = " (longest shard)"
		}
		fmt.Fprintf(w, "real time %s%s\n", schedule.RoundedDuration(s.RealNs), what)
	}
	for _, warn := range s.Warnings() {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	if len(s.Pins) > 0 {
		fmt.Fprintf(w, "\npinned regressions (%d replayed, %d failed):\n", len(s.Pins), s.PinsFailed)
		for _, p := range s.Pins {
			mark := "ok  "
			if PinFailed(p) {
				mark = "FAIL"
			}
			fmt.Fprintf(w, "  %s %s\n", mark, PinLine(p))
		}
	}
	if len(s.Findings) > 0 {
		fmt.Fprintf(w, "\nfindings (%d):\n", len(s.Findings))
	}
	for i, f := range s.Findings {
		st := statusText(f)
		if st != "" {
			st = "  [" + st + "]"
		}
		fmt.Fprintf(w, "%2d. %s%s\n", i+1, f.Title(), st)
		switch {
		case len(f.Runs) > 0:
			fmt.Fprintf(w, "    %s: %s\n", textfmt.Plural(len(f.Runs), "run"), f.SeedsText())
			fmt.Fprintf(w, "    run %d, seed %d (%s) at t=%s: %s\n", f.First.ExploreRun, f.First.Seed, textfmt.Plural(f.First.Branches, "branch"),
				schedule.Time(f.First.AtNs), f.First.Message)
			if f.First.FaultsFile != "" {
				fmt.Fprintf(w, "    schedule: %s\n", f.First.FaultsFile)
			}
		case len(f.Seeds) > 0:
			fmt.Fprintf(w, "    %s: %s\n", textfmt.Plural(len(f.Seeds), "seed"), textfmt.SeedList(f.Seeds, seedItemsMax, "seeds in all"))
			fmt.Fprintf(w, "    seed %d at t=%s: %s\n", f.First.Seed, schedule.Time(f.First.AtNs), f.First.Message)
		}
		for _, p := range f.Pins {
			fmt.Fprintf(w, "    pin %s\n", PinLine(p))
		}
		if sh := f.Shrunk; sh != nil {
			fmt.Fprintf(w, "    shrunk: %s from %s to %d, fails at %s: %s\n", runOf(sh.Seed, sh.ExploreRun), textfmt.Plural(sh.FaultsBefore, "fault"), sh.FaultsAfter, sh.Duration, sh.Schedule)
			if f.Schedule != nil {
				for _, l := range schedule.Lines(f.Schedule.Faults) {
					fmt.Fprintf(w, "    %s\n", l)
				}
			} else if f.ScheduleErr != "" {
				fmt.Fprintf(w, "      (cannot read it: %s)\n", f.ScheduleErr)
			}
		}
		if f.Cause != nil {
			var b strings.Builder
			curveText(&b, f.Cause, "    ")
			fmt.Fprint(w, b.String())
		}
		if f.Timeline != "" {
			fmt.Fprintf(w, "    history timeline: %s\n", f.Timeline)
		}
		fmt.Fprintf(w, "    repro: %s\n", f.Repro())
	}
	if len(s.Resolved) > 0 {
		fmt.Fprintf(w, "\nresolved (%d): these seeds ran again and no longer fail this way\n", len(s.Resolved))
		for _, f := range s.Resolved {
			fmt.Fprintf(w, "  %s  (first seen %s, last seen %s; %s)\n", f.Title(), f.FirstSeen, f.LastSeen, runsText(f))
		}
	}
	if len(s.Properties) > 0 {
		fmt.Fprintln(w, "\nproperties:")
		// The columns keep a sweep's widths, so an exploration's narrower
		// "runs" labels leave its numbers where a sweep's are.
		u := s.Counted()
		fmt.Fprintf(w, "  %-19s  %13s  %10s  %8s  %s\n", "kind", u+" reached", u+" true", "margin", "property")
		for _, p := range s.Properties {
			line := p.Message
			if p.Verdict != "" {
				line += "  <- " + p.Verdict
			}
			if p.Location != "" {
				line += " (" + p.Location + ")"
			}
			fmt.Fprintf(w, "  %-19s  %13d  %10d  %8s  %s\n", p.Kind, p.SeedsReached, p.SeedsTrue, Margin(p), line)
		}
	}
	if len(s.Buggify) > 0 {
		fmt.Fprintln(w, "\nbuggify sites:")
		u := s.Counted()
		fmt.Fprintf(w, "  %13s  %13s  %11s  %6s  %s\n", u+" reached", u+" enabled", u+" fired", "fired", "site")
		for _, b := range s.Buggify {
			line := b.Site
			if b.Verdict != "" {
				line += "  <- " + b.Verdict
			}
			if b.Location != "" {
				line += " (" + b.Location + ")"
			}
			fmt.Fprintf(w, "  %13d  %13d  %11d  %6d  %s\n", b.SeedsReached, b.SeedsEnabled, b.SeedsFired, b.Fired, line)
		}
	}
	if len(s.ShrinkErrors) > 0 {
		fmt.Fprintf(w, "\nseeds sf-shrink could not shrink (%d):\n", len(s.ShrinkErrors))
		for _, e := range s.ShrinkErrors {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
	if len(s.GaveUpSeeds) > 0 {
		count, list := s.gaveUpText()
		fmt.Fprintf(w, "\nhistory checks that gave up (%s; they neither passed nor failed on their history): %s\n", count, list)
	}
	if len(s.HostStallSeeds) > 0 {
		count, list := s.hostStallText()
		fmt.Fprintf(w, "\nhost stalls (%s; the first run hit the real-time watchdog, a second did not, and counts): %s\n", count, list)
	}
}

// Now is the time findings are stamped with: the UTC time, to the second,
// or SOURCE_DATE_EPOCH when it is set (for reproducible reports).
func Now(epoch string) string {
	t := time.Now()
	if epoch != "" {
		var sec int64
		if _, err := fmt.Sscan(epoch, &sec); err == nil {
			t = time.Unix(sec, 0)
		}
	}
	return t.UTC().Format(time.RFC3339)
}
