package mutate

import (
	"fmt"
	"io"
	"strings"

	"github.com/sf-dst/sf/lib/atomicfile"
	"github.com/sf-dst/sf/lib/record"
)

// label is how a verdict's mutant is named for people: the runtime
// mutant's name, or file:line for a source mutant, followed by the node
// when its package runs on more than one.
func label(v Verdict) string {
	if v.Source == "app" {
		if v.SharedPkg && v.Node != "" {
			return fmt.Sprintf("%s:%d %s", v.File, v.Line, v.Node)
		}
		return fmt.Sprintf("%s:%d", v.File, v.Line)
	}
	return v.Name
}

// Detail is the one-line account of a verdict after its name.
func Detail(v Verdict, seeds int) string {
	switch v.Verdict {
	case record.VerdictKilled:
		return fmt.Sprintf("killed     seed %d: %s", v.KilledBySeed, v.Reason)
	case record.VerdictSurvived:
		switch {
		case v.SeedsGaveUp > 0 && v.Source == "app":
			return "SURVIVED   no seed failed: " + gaveUpNote(v)
		case v.SeedsGaveUp > 0:
			return fmt.Sprintf("SURVIVED   no seed failed although the operation was weakened %d times: %s", v.Hits, gaveUpNote(v))
		case v.Source == "app":
			return fmt.Sprintf("SURVIVED   %d seeds passed (or the mutated code never ran)", v.SeedsPassed)
		}
		return fmt.Sprintf("SURVIVED   %d seeds passed although the operation was weakened %d times", v.SeedsPassed, v.Hits)
	case record.VerdictNotExercised:
		return fmt.Sprintf("not exercised: no %s in %d seeds", v.Operation, seeds)
	case record.VerdictDidNotBuild:
		return "did not build: " + v.Reason
	}
	return v.Verdict
}

// gaveUpNote is how a survivor's seeds came out when some of them gave up
// checking their history: those did not pass, and a mutant that makes every
// operation fail leaves the checker nothing to check, which is a blind spot
// of the workload worth a look.
func gaveUpNote(v Verdict) string {
	return fmt.Sprintf("%d passed, %d gave up checking their history (seed %d: %s)", v.SeedsPassed, v.SeedsGaveUp, v.GaveUpSeed, v.GaveUpReason)
}

// printVerdict writes one mutant's lines of the table.
func printVerdict(w io.Writer, v Verdict, seeds int) {
	name := label(v)
	fmt.Fprintf(w, "  %-22s %s\n", name, Detail(v, seeds))
	what := v.Breaks
	if v.Source == "app" {
		what = v.Change
	}
	if what != "" {
		fmt.Fprintf(w, "  %-22s %s\n", "", what)
	}
	if v.Repro != "" {
		fmt.Fprintf(w, "  %-22s replay: %s\n", "", v.Repro)
	}
	fmt.Fprintln(w)
}

// printSummary writes the closing lines.
func printSummary(w io.Writer, s record.MutateSummary) {
	switch {
	case s.Mutants == 0:
		fmt.Fprintln(w, "no mutants to run")
	case s.Survived == 0:
		fmt.Fprintln(w, "every exercised mutant was killed")
	case s.Survived == 1:
		fmt.Fprintln(w, "1 mutant survived: the workload does not notice that guarantee disappearing")
	default:
		fmt.Fprintf(w, "%d mutants survived: the workload does not notice those guarantees disappearing\n", s.Survived)
	}
	if s.Killed+s.Survived > 0 {
		fmt.Fprintf(w, "mutation score %d/%d (%.0f%%)", s.Killed, s.Killed+s.Survived, 100*s.Score)
		var rest []string
		if s.NotExercised > 0 {
			rest = append(rest, fmt.Sprintf("%d not exercised", s.NotExercised))
		}
		if s.DidNotBuild > 0 {
			rest = append(rest, fmt.Sprintf("%d did not build", s.DidNotBuild))
		}
		if len(rest) > 0 {
			fmt.Fprintf(w, "; %s", strings.Join(rest, ", "))
		}
		fmt.Fprintln(w)
	}
	if s.HostStalls > 0 {
		fmt.Fprintf(w, "%d seed runs hit the real-time watchdog and passed it on a second run: the host stalled, and each counts as its second run came out\n", s.HostStalls)
	}
}

// Markdown renders the result as a Markdown table, for a pull request or a
// CI job summary.
func Markdown(c *Command, s record.MutateSummary, vs []Verdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### sf-mutate: `%s`, seeds %s\n\n", c.Config, c.SeedsText)
	if s.Baseline != "pass" {
		fmt.Fprintf(&b, "The baseline fails with no mutant (seed %d: %s), so no mutant was judged.\n\nReplay: `%s`\n",
			s.BaselineSeed, mdEscape(s.BaselineReason), s.BaselineRepro)
		return b.String()
	}
	b.WriteString("| Mutant | Source | Verdict | Detail |\n|---|---|---|---|\n")
	for _, v := range vs {
		verdict, detail := v.Verdict, ""
		switch v.Verdict {
		case record.VerdictKilled:
			detail = fmt.Sprintf("seed %d: %s", v.KilledBySeed, v.Reason)
		case record.VerdictSurvived:
			verdict = "**SURVIVED**"
			seeds := fmt.Sprintf("%d seeds passed", v.SeedsPassed)
			if v.SeedsGaveUp > 0 {
				seeds = "no seed failed: " + gaveUpNote(v)
			}
			if v.Source == "app" {
				detail = fmt.Sprintf("%s; %s", seeds, v.Change)
			} else {
				detail = fmt.Sprintf("%s, operation weakened %d times; %s", seeds, v.Hits, v.Breaks)
			}
		case record.VerdictNotExercised:
			verdict, detail = "not exercised", "no "+v.Operation
		case record.VerdictDidNotBuild:
			verdict, detail = "did not build", v.Change
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mdEscape(label(v)), v.Source, verdict, mdEscape(detail))
	}
	fmt.Fprintf(&b, "\nMutation score: %d of %d exercised mutants killed", s.Killed, s.Killed+s.Survived)
	if s.Killed+s.Survived > 0 {
		fmt.Fprintf(&b, " (%.0f%%)", 100*s.Score)
	}
	b.WriteString(".\n")
	return b.String()
}

func mdEscape(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

func writeMarkdown(path string, c *Command, s record.MutateSummary, vs []Verdict) error {
	if err := atomicfile.WriteFile(path, []byte(Markdown(c, s, vs)), 0o644); err != nil {
		return fmt.Errorf("-md: %w", err)
	}
	return nil
}
