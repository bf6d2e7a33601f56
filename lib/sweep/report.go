package sweep

// This file turns results into what people read: failure blocks, replays,
// disk listings, the summary table, and the records' repro lines.

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/sf-dst/sf/lib/check"
	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/record"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/textfmt"
)

func historyVerdict(r *engine.Result) string {
	if r.Check == nil {
		return ""
	}
	return string(r.Check.Verdict)
}

// repro is the command that runs seed again exactly: the same world,
// profile, overrides and schedule.
func repro(o Options, seed uint64) string {
	if o.From != "" && (o.Faults != "" || o.Branched) {
		// The schedule applies from the snapshot on, and the branch at its
		// moment: from the seed's start it would be another run (the
		// schedule a failure writes holds the branch and every fault that
		// fired, for that).
		args := append(worldArgs(o), "-from", o.From)
		if o.Faults != "" {
			args = append(args, "-faults", o.Faults)
		}
		if o.Branched {
			args = append(args, "-branch", strconv.FormatUint(o.Branch, 10))
		}
		return ShellJoin(args)
	}
	args := []string{o.Tool, "-c", o.Config, "-seed", strconv.FormatUint(seed, 10)}
	if o.Profile != "" {
		args = append(args, "-profile", o.Profile)
	}
	for _, s := range o.Set {
		args = append(args, "-set", s)
	}
	if o.Faults != "" && o.Faults != "-" {
		args = append(args, "-faults", o.Faults)
	}
	return ShellJoin(args)
}

// SeedRecord is the seed record of a run: sf-run -explore starts from it
// for each failing run and adds the run's number and branches.
func SeedRecord(o Options, r *engine.Result) record.Seed { return seedRecord(o, r) }

func seedRecord(o Options, r *engine.Result) record.Seed {
	return record.Seed{
		Kind: record.KindSeed, Seed: r.Seed, Config: o.Config, Profile: o.Profile, Set: o.Set, FaultsFile: o.Faults,
		Status: string(r.Status), Class: r.Class,
		Message: r.Message, Property: r.Property, Node: r.Node, AtNs: r.AtNs, Steps: r.Steps, HostCalls: r.HostCalls,
		RealNs: r.RealNs, DeterminismHash: fmt.Sprintf("%016x", r.Hash), Faults: len(r.Faults),
		Repro: repro(o, r.Seed), HistoryCheck: historyVerdict(r),
	}
}

// failureBlock is the report of one failing seed: the header, what failed,
// the faults before it and how to replay it. It holds no real time, so a
// replay writes the same block.
func failureBlock(o Options, r *engine.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "FAIL seed %d at t=%s (%d scheduler steps)\n", r.Seed, time.Duration(r.AtNs), r.Steps)
	fmt.Fprintf(&b, "  %s\n", r.Message)
	if r.Class == engine.ClassPanic || r.Class == engine.ClassExit || r.Class == engine.ClassOOM || r.Class == engine.ClassDeadlock {
		if len(r.Tail) > 0 {
			fmt.Fprintf(&b, "\nlast lines of %s's stderr:\n", r.Node)
			for _, l := range r.Tail {
				fmt.Fprintf(&b, "    %s\n", l)
			}
		}
	}
	fmt.Fprintf(&b, "\nfaults before the failure (%d):\n", len(r.Faults))
	writeFaults(&b, r)
	fmt.Fprintf(&b, "\nreplay: %s\n", repro(o, r.Seed))
	return b.String()
}

// FailLine is the line a sweep prints for a failing seed after the first:
// "FAIL seed 7 at t=1.2s: message". simtest heads a failing seed's subtest
// with it.
func FailLine(seed uint64, atNs int64, message string) string {
	return fmt.Sprintf("FAIL seed %d at t=%s: %s", seed, time.Duration(atNs), message)
}

// faultLinesMax is how many faults a report lists; the seed's schedule file
// and its trace hold them all.
const faultLinesMax = 20

func writeFaults(w io.Writer, r *engine.Result) {
	for i, f := range r.Faults {
		if i == faultLinesMax {
			fmt.Fprintf(w, "  ... and %d more: the seed's faults.json and trace.log hold them all\n", len(r.Faults)-faultLinesMax)
			break
		}
		fmt.Fprintf(w, "  %14s  %s\n", schedule.Time(int64(f.At)), f.Describe())
	}
}

func printFailure(w io.Writer, o Options, r *engine.Result) {
	block := failureBlock(o, r)
	// The header on screen also says how long the run took in real time.
	block = strings.Replace(block, " scheduler steps)", fmt.Sprintf(" scheduler steps, %dms real)", r.RealNs/1e6), 1)
	fmt.Fprint(w, block)
	fmt.Fprintln(w)
}

func printReplay(w io.Writer, o Options, r *engine.Result, arts *record.Artifacts) {
	// A schedule's duration is when the run it was made from failed, so a
	// pass that ends before it (the workloads finished under the schedule's
	// budget) is as much a pass within it as one that the stop cut short.
	within := r.CutShort || (o.stopAtNs > 0 && r.Status == engine.StatusPass)
	if r.Status == engine.StatusFail || r.Status == engine.StatusNondeterministic {
		printFailure(w, o, r)
	} else {
		what := "passed"
		switch {
		case within:
			what = "passed within the schedule's duration"
		case r.Status == engine.StatusHorizon:
			what = "passed (hit the time horizon)"
		}
		if r.Check != nil && r.Check.Verdict == check.Unknown {
			hint := "see -history-timeout and limits.check_steps"
			if r.Check.NoneCompleted() {
				hint = "does the workload reach the system it tests?"
			}
			fmt.Fprintf(w, "GAVE UP seed %d at t=%s (%d scheduler steps, %dms real): %s, so the seed neither passed nor failed (%s)\n\n",
				r.Seed, time.Duration(r.AtNs), r.Steps, r.RealNs/1e6, r.Check.Summary, hint)
		} else {
			fmt.Fprintf(w, "ok  seed %d %s at t=%s (%d scheduler steps, %dms real)\n\n", r.Seed, what, time.Duration(r.AtNs), r.Steps, r.RealNs/1e6)
		}
		fmt.Fprintf(w, "faults (%d):\n", len(r.Faults))
		writeFaults(w, r)
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "trace:")
	for _, l := range r.Trace {
		fmt.Fprintln(w, l)
	}
	if len(r.Disks) > 0 {
		fmt.Fprintln(w)
		printDisks(w, r.Disks)
	}
	if within {
		ran := fmt.Sprintf("only ran for the schedule's duration (%s)", schedule.RoundedDuration(r.AtNs))
		if !r.CutShort {
			ran = fmt.Sprintf("ended within the schedule's duration (%s)", schedule.RoundedDuration(o.stopAtNs))
		}
		fmt.Fprintf(w, "\nnote: this replay passed, but %s, when the run it was made\n"+
			"from failed. A pass within it shows that a fault it needs is missing, not that the bug is fixed; run\n"+
			"without -faults to test a fix.\n", ran)
	}
	fmt.Fprintf(w, "\ndeterminism hash %016x over %d host calls\n", r.Hash, r.HostCalls)
	if o.Check && r.Status != engine.StatusNondeterministic && r.Status != engine.StatusInterrupted {
		fmt.Fprintln(w, "deterministic: "+ranAlike)
	}
	if arts != nil {
		for _, a := range []struct{ what, path string }{{"trace", arts.Trace}, {"schedule", arts.Faults}, {"history", arts.History}, {"history timeline", arts.Timeline}} {
			if a.path != "" && !(a.what == "schedule" && o.Faults != "" && o.Faults != "-" && sameFile(o.Faults, a.path)) {
				fmt.Fprintf(w, "wrote %s %s\n", a.what, a.path)
			}
		}
	}
}

// printDisks is the -inspect view: each node's files with what is durable,
// what is pending and what is damaged, and how full the disk is.
func printDisks(w io.Writer, disks []engine.NodeDisk) {
	fmt.Fprintln(w, "disks at the end of the run:")
	printFiles(w, disks)
}

// printNodes is the -snapshot -inspect view: each node's disk, then the
// descriptors of its running instance, at the snapshot's moment.
func printNodes(w io.Writer, when string, disks []engine.NodeDisk, fds []engine.NodeFDs) {
	fmt.Fprintf(w, "disks %s:\n", when)
	printFiles(w, disks)
	fmt.Fprintf(w, "open descriptors %s:\n", when)
	for _, n := range fds {
		if n.Instance == "" {
			fmt.Fprintf(w, "  %s: down\n", n.Node)
			continue
		}
		fmt.Fprintf(w, "  %s:\n", n.Instance)
		for _, f := range n.FDs {
			fmt.Fprintf(w, "    %3d  %s\n", f.FD, f.What)
		}
	}
}

// printFiles lists each node's disk usage and files.
func printFiles(w io.Writer, disks []engine.NodeDisk) {
	for _, d := range disks {
		if d.CapacityBytes > 0 {
			fmt.Fprintf(w, "  %s: %d of %d bytes used (%.1f%%)\n", d.Node, d.UsageBytes, d.CapacityBytes, 100*float64(d.UsageBytes)/float64(d.CapacityBytes))
		} else {
			fmt.Fprintf(w, "  %s: %d bytes used\n", d.Node, d.UsageBytes)
		}
		if len(d.Files) == 0 {
			fmt.Fprintln(w, "    (empty)")
		}
		for _, f := range d.Files {
			switch f.Type {
			case disk.TypeDir:
				fmt.Fprintf(w, "    %s/\n", f.Path)
				continue
			case disk.TypeSymlink:
				fmt.Fprintf(w, "    %s (symlink)\n", f.Path)
				continue
			}
			fmt.Fprintf(w, "    %-32s %8d bytes  durable %8d  pending %d bytes in %d writes", f.Path, f.Size, f.DurableSize, f.PendingBytes, f.PendingOps)
			if len(f.Corrupted) > 0 {
				fmt.Fprint(w, "  corrupted ranges:")
				for _, c := range f.Corrupted {
					fmt.Fprintf(w, " [%d,%d)", c[0], c[1])
				}
			}
			fmt.Fprintln(w)
		}
	}
}

// ranAlike is what -check found of a seed whose two runs agreed.
const ranAlike = "the seed ran twice alike (the same determinism hash, host calls and trace)"

// checkLine is a -check sweep's verdict on determinism over the seeds that
// finished, for its summary: a sweep that found nothing must say so, or the
// reader cannot tell a deterministic world from a check that never ran.
func checkLine(s record.Summary) string {
	if s.Nondeterministic == 0 {
		if s.Seeds == 1 {
			return "deterministic: " + ranAlike
		}
		return fmt.Sprintf("deterministic: each of the %d seeds ran twice alike (the same determinism hash, host calls and trace)", s.Seeds)
	}
	return fmt.Sprintf("NONDETERMINISTIC: %d of %d seeds ran differently the second time (their FAIL lines name the first host call that differs); %d ran alike",
		s.Nondeterministic, s.Seeds, s.Seeds-s.Nondeterministic)
}

func printSummary(w io.Writer, s record.Summary, took time.Duration, check bool) {
	if more := s.Failed - 1 - failureLinesMax; more > 0 {
		fmt.Fprintf(w, "... and %d more failing seeds: %s\n", more, textfmt.SeedList(s.FailedSeeds[1+failureLinesMax:], 20, "in all; -json lists every seed"))
	}
	if s.Failed > 1 {
		fmt.Fprintln(w)
	}
	PrintTables(w, s, "seeds")
	if s.GaveUp > 0 {
		fmt.Fprintf(w, "%s: gave up checking the history (see -history-timeout and limits.check_steps), or no operation in it completed (the trace says which); they neither passed nor failed on it\n", textfmt.Plural(s.GaveUp, "seed"))
	}
	if s.HostStalls > 0 {
		fmt.Fprintf(w, "%s: host stall: the first run hit the real-time watchdog and a second run did not, so each counts as its second run came out\n", textfmt.Plural(s.HostStalls, "seed"))
	}
	d := roundDuration(took)
	if check && s.Seeds > 0 {
		fmt.Fprintln(w, checkLine(s))
	}
	if s.Interrupted {
		fmt.Fprintf(w, "interrupted: the sweep was stopped; the counts below cover the %d seeds that finished\n", s.Seeds)
	}
	// Seeds whose history check gave up and that did not fail otherwise
	// are neither passed nor failed.
	gaveUp := s.Seeds - s.Passed - s.Failed
	switch {
	case s.Failed > 0:
		fmt.Fprintf(w, "FAIL %d of %d seeds failed (%d passed", s.Failed, s.Seeds, s.Passed)
		if gaveUp > 0 {
			fmt.Fprintf(w, ", %d gave up checking their history", gaveUp)
		}
		fmt.Fprintf(w, ", %d hit the time horizon", s.Horizon)
		if s.Nondeterministic > 0 {
			fmt.Fprintf(w, ", %d nondeterministic", s.Nondeterministic)
		}
		fmt.Fprintf(w, ") in %s\n", d)
		if s.PropertyFailures > 0 {
			fmt.Fprintln(w, propertyFailLine(s))
		}
	case gaveUp > 0:
		fmt.Fprintf(w, "GAVE UP %d of %d seeds gave up checking their history (%d passed, %d hit the time horizon) in %s\n",
			gaveUp, s.Seeds, s.Passed, s.Horizon, d)
		if s.PropertyFailures > 0 {
			fmt.Fprintln(w, propertyFailLine(s))
		}
	case s.PropertyFailures > 0:
		fmt.Fprintln(w, propertyFailLine(s))
	default:
		fmt.Fprintf(w, "ok  %s passed (%d hit the time horizon) in %s\n", plural(s.Seeds, "seed"), s.Horizon, d)
	}
	printPinsSummary(w, s)
}

// PrintTables writes a summary's property and buggify tables, each with a
// blank line after it; nothing for a table the summary does not have. The
// counts are of unit: "seeds" in a sweep's summary, "runs" in an
// exploration's.
func PrintTables(w io.Writer, s record.Summary, unit string) {
	if len(s.Properties) > 0 {
		fmt.Fprintf(w, "property               %13s  %10s\n", unit+" reached", unit+" true")
		for _, p := range s.Properties {
			line := fmt.Sprintf("  %-20s %12d %11d  %s", p.Kind, p.SeedsReached, p.SeedsTrue, p.Message)
			if p.Margin != nil {
				which := "smallest"
				if p.Kind == "sometimes" {
					which = "largest"
				}
				line += fmt.Sprintf("  (%s margin %s)", which, p.Margin)
			}
			if p.Verdict != "" {
				line += "  <- " + p.Verdict
				if p.Location != "" {
					line += " (" + p.Location + ")"
				}
			}
			fmt.Fprintln(w, line)
		}
		fmt.Fprintln(w)
	}
	if len(s.BuggifySites) > 0 {
		fmt.Fprintf(w, "buggify  %13s  %13s  %11s  fired\n", unit+" reached", unit+" enabled", unit+" fired")
		for _, b := range s.BuggifySites {
			line := fmt.Sprintf("         %13d  %13d  %11d  %5d  %s", b.SeedsReached, b.SeedsEnabled, b.SeedsFired, b.Fired, b.Site)
			if b.Verdict != "" {
				line += "  <- " + b.Verdict
				if b.Location != "" {
					line += " (" + b.Location + ")"
				}
			}
			fmt.Fprintln(w, line)
		}
		fmt.Fprintln(w)
	}
}

// printPinsSummary is the line on the pinned regressions a sweep replayed
// first; nothing when the world has none.
func printPinsSummary(w io.Writer, s record.Summary) {
	switch {
	case s.PinsFailed > 0:
		fmt.Fprintf(w, "FAIL %d of %s failed\n", s.PinsFailed, textfmt.Plural(s.Pins, "pinned regression"))
	case s.Pins > 0:
		fmt.Fprintf(w, "ok  %s passed\n", textfmt.Plural(s.Pins, "pinned regression"))
	}
}

func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

// ShellJoin joins args into a command line a POSIX shell reads back as the
// same words, quoting only the words that need it.
func ShellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./=:,+@%", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// propertyFailLine is the summary line of the properties that failed a
// sweep.
func propertyFailLine(s record.Summary) string {
	if s.PropertyFailures == 1 {
		return fmt.Sprintf("FAIL 1 property was never reached or never true in %s", plural(s.Seeds, "seed"))
	}
	return fmt.Sprintf("FAIL %d properties were never reached or never true in %s", s.PropertyFailures, plural(s.Seeds, "seed"))
}

// plural counts n of a noun that takes an s: "1 seed", "3 seeds".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
