package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/textfmt"
)

// Markdown writes the report as GitHub-flavoured Markdown, for a CI job
// summary or a pull request comment.
func Markdown(w io.Writer, sweeps []*Sweep) {
	for i, s := range sweeps {
		if i > 0 {
			fmt.Fprintln(w)
		}
		markdown(w, s)
	}
}

// cell makes text safe inside a table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

// code makes text an inline code span, whatever backticks it holds.
func code(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

var statusIcon = map[string]string{"pass": "✅", "fail": "❌", "incomplete": "⚠️"}

func markdown(w io.Writer, s *Sweep) {
	fmt.Fprintf(w, "## %s sf-report: %s\n\n", statusIcon[s.Status()], s.Title())
	fmt.Fprintf(w, "**%s**: %s", strings.ToUpper(s.Status()), s.Counts())
	if s.RealNs > 0 {
		what := ""
		if s.Shards > 0 {
			what = ", longest shard"
		}
		fmt.Fprintf(w, " (real time %s%s)", schedule.RoundedDuration(s.RealNs), what)
	}
	fmt.Fprintln(w)
	for _, warn := range s.Warnings() {
		fmt.Fprintf(w, "\n> [!WARNING]\n> %s\n", warn)
	}
	if len(s.Pins) > 0 {
		fmt.Fprintf(w, "\n### Pinned regressions (%d replayed, %d failed)\n\n", len(s.Pins), s.PinsFailed)
		fmt.Fprintln(w, "| pin | original seed | result | failure |\n|---|---:|---|---|")
		for _, p := range s.Pins {
			result, failure := "✅ "+PinOutcome(p), ""
			if PinFailed(p) {
				result = "❌ " + PinOutcome(p)
				failure = fmt.Sprintf("at t=%s: %s", schedule.Time(p.AtNs), p.Message)
			}
			fmt.Fprintf(w, "| %s | %d | %s | %s |\n", cell(code(p.Pin)), p.Seed, result, cell(failure))
		}
	}
	if len(s.Findings) > 0 {
		fmt.Fprintf(w, "\n### Findings (%d)\n\n", len(s.Findings))
		tracked := s.Findings[0].Status != ""
		if tracked {
			fmt.Fprintf(w, "| # | status | finding | %s | shrunk | repro |\n", s.Counted())
			fmt.Fprintln(w, "|---:|---|---|---|---|---|")
		} else {
			fmt.Fprintf(w, "| # | finding | %s | shrunk | repro |\n", s.Counted())
			fmt.Fprintln(w, "|---:|---|---|---|---|")
		}
		for i, f := range s.Findings {
			shrunk := ""
			if f.Shrunk != nil {
				shrunk = fmt.Sprintf("%d → %s, fails at %s", f.Shrunk.FaultsBefore, textfmt.Plural(f.Shrunk.FaultsAfter, "fault"), f.Shrunk.Duration)
			}
			status := ""
			if tracked {
				status = " " + cell(statusText(f)) + " |"
			}
			runs := fmt.Sprintf("%d: %s", f.size()-len(f.Pins), f.SeedsText())
			if len(f.Pins) > 0 {
				runs = fmt.Sprintf("%d: %s", f.size(), runsText(f))
			}
			fmt.Fprintf(w, "| %d |%s %s | %s | %s | %s |\n", i+1, status, cell(f.Title()), cell(runs), cell(shrunk), cell(code(f.Repro())))
		}
		for i, f := range s.Findings {
			fmt.Fprintf(w, "\n<details><summary>%d. %s</summary>\n\n", i+1, htmlEscape(f.Title()))
			if len(f.Seeds) > 0 {
				who := fmt.Sprintf("Seed %d", f.First.Seed)
				if f.First.ExploreRun > 0 {
					who = fmt.Sprintf("Run %d (seed %d, %s", f.First.ExploreRun, f.First.Seed, textfmt.Plural(f.First.Branches, "branch"))
					if f.First.FaultsFile != "" {
						who += ", schedule `" + f.First.FaultsFile + "`"
					}
					who += ")"
				}
				fmt.Fprintf(w, "%s failed at t=%s:\n\n```\n%s\n```\n", who, schedule.Time(f.First.AtNs), f.First.Message)
			}
			for j, p := range f.Pins {
				if j > 0 || len(f.Seeds) > 0 {
					fmt.Fprintln(w)
				}
				fmt.Fprintf(w, "Pinned regression %s (original seed %d) %s at t=%s:\n\n```\n%s\n```\n", code(p.Pin), p.Seed, PinOutcome(p), schedule.Time(p.AtNs), p.Message)
			}
			if sh := f.Shrunk; sh != nil {
				fmt.Fprintf(w, "\nShrunk %s from %s to %d; it fails at %s (%s):\n\n```\n", runOf(sh.Seed, sh.ExploreRun), textfmt.Plural(sh.FaultsBefore, "fault"), sh.FaultsAfter, sh.Duration, code(sh.Schedule))
				if f.Schedule != nil {
					for _, l := range schedule.Lines(f.Schedule.Faults) {
						fmt.Fprintln(w, l)
					}
				} else if f.ScheduleErr != "" {
					fmt.Fprintf(w, "(cannot read it: %s)\n", f.ScheduleErr)
				}
				fmt.Fprintln(w, "```")
			}
			if c := f.Cause; c != nil {
				fmt.Fprintf(w, "\nCause of %s, %d branches per moment: **%s**\n\n", runOf(c.Seed, c.ExploreRun), c.Branches(), cell(c.Verdict()))
				fmt.Fprintln(w, "| branch at | same way | share | faults kept since the moment before |\n|---:|---:|---:|---|")
				for _, p := range c.Points {
					fmt.Fprintf(w, "| %s | %d/%d | %.0f%% | %s |\n", p.At, p.Same, p.Branches, 100*p.Share, cell(strings.Join(p.Faults, "; ")))
				}
			}
			if f.Timeline != "" {
				fmt.Fprintf(w, "\nHistory timeline: %s\n", code(f.Timeline))
			}
			fmt.Fprintf(w, "\nReplay it:\n\n```sh\n%s\n```\n\n</details>\n", f.Repro())
		}
	}
	if len(s.Resolved) > 0 {
		fmt.Fprintf(w, "\n### Resolved (%d)\n\nThese seeds ran again and no longer fail this way.\n\n", len(s.Resolved))
		fmt.Fprintln(w, "| finding | status | first seen | last seen | seeds |")
		fmt.Fprintln(w, "|---|---|---|---|---|")
		for _, f := range s.Resolved {
			runs := textfmt.SeedList(f.Seeds, seedItemsMax, "seeds in all")
			if len(f.Pins) > 0 {
				runs = runsText(f)
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", cell(f.Title()), f.Status, f.FirstSeen, f.LastSeen, cell(runs))
		}
	}
	if len(s.Properties) > 0 {
		u := s.Counted()
		fmt.Fprintf(w, "\n### Properties\n\n| kind | %s reached | %s true | margin | property | verdict |\n|---|---:|---:|---:|---|---|\n", u, u)
		for _, p := range s.Properties {
			msg := cell(p.Message)
			if p.Location != "" {
				msg += " (" + cell(code(p.Location)) + ")"
			}
			verdict := "ok"
			if p.Verdict != "" {
				verdict = "❌ " + p.Verdict
			}
			fmt.Fprintf(w, "| %s | %d | %d | %s | %s | %s |\n", p.Kind, p.SeedsReached, p.SeedsTrue, Margin(p), msg, verdict)
		}
	}
	if len(s.Buggify) > 0 {
		u := s.Counted()
		fmt.Fprintf(w, "\n### Buggify sites\n\n| site | %s reached | %s enabled | %s fired | fired | note |\n|---|---:|---:|---:|---:|---|\n", u, u, u)
		for _, b := range s.Buggify {
			site := cell(b.Site)
			if b.Location != "" {
				site += " (" + cell(code(b.Location)) + ")"
			}
			fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %s |\n", site, b.SeedsReached, b.SeedsEnabled, b.SeedsFired, b.Fired, b.Verdict)
		}
	}
	if len(s.ShrinkErrors) > 0 {
		fmt.Fprintf(w, "\n### Seeds sf-shrink could not shrink\n\n")
		for _, e := range s.ShrinkErrors {
			fmt.Fprintf(w, "- %s\n", cell(e))
		}
	}
	if len(s.GaveUpSeeds) > 0 {
		count, list := s.gaveUpText()
		fmt.Fprintf(w, "\n### History checks that gave up\n\n%s neither passed nor failed on their history: %s\n", count, list)
	}
	if len(s.HostStallSeeds) > 0 {
		count, list := s.hostStallText()
		fmt.Fprintf(w, "\n### Host stalls\n\n%s hit the real-time watchdog on a first run and not on a second, which counts: %s\n", count, list)
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
