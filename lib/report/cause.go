package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sf-dst/sf/lib/record"
)

// Curve is a failing seed's cause curve: the share of branches that still
// failed the same way when the run was branched at each moment.
type Curve struct {
	Seed uint64
	// ExploreRun is the run of sf-run -explore the curve is of, 0 for a
	// sweep's seed.
	ExploreRun int
	Failure    string
	FailAtNs   int64
	Points     []record.Cause
}

// Inevitable is the index of the first point from which every point is
// inevitable, or -1.
func (c *Curve) Inevitable() int {
	for i, p := range c.Points {
		if p.Inevitable {
			return i
		}
	}
	return -1
}

// Branches is the number of branches per moment (the first point's).
func (c *Curve) Branches() int {
	if len(c.Points) == 0 {
		return 0
	}
	return c.Points[0].Branches
}

// Verdict says where the failure became inevitable, or that it never did.
func (c *Curve) Verdict() string {
	if i := c.Inevitable(); i >= 0 {
		return "inevitable from " + c.Points[i].At
	}
	if n := len(c.Points); n > 0 {
		return fmt.Sprintf("never inevitable: %d of %d branches at the last moment, %s", c.Points[n-1].Same, c.Points[n-1].Branches, c.Points[n-1].At)
	}
	return "no moments"
}

// causeKey is a curve's world, seed and explore run.
func causeKey(c *record.Cause) string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%d\x00%d", c.Config, c.Profile, strings.Join(c.Set, "\x00"), c.Seed, c.ExploreRun)
}

// attachCauses gives each finding the first curve drawn for one of its
// seeds. Curves whose seed is in no finding make sweeps of their own, one
// per world, with a finding per way of failing, which it returns.
func attachCauses(sweeps []*Sweep, streams []*stream) []*Sweep {
	curves := map[string]*Curve{}
	var order []*record.Cause
	for _, st := range streams {
		for i := range st.causes {
			c := &st.causes[i]
			k := causeKey(c)
			cv := curves[k]
			if cv == nil {
				cv = &Curve{Seed: c.Seed, ExploreRun: c.ExploreRun, Failure: c.Failure, FailAtNs: c.FailAtNs}
				curves[k] = cv
				order = append(order, c)
			}
			cv.Points = append(cv.Points, *c)
		}
	}
	var orphans []*Sweep
	for _, c := range order {
		cv := curves[causeKey(c)]
		// An explore run's curve goes to the exploration's finding that
		// holds the run, as its shrink does.
		sh := &record.Shrink{Seed: c.Seed, Config: c.Config, Profile: c.Profile, Set: c.Set, ExploreRun: c.ExploreRun}
		if f := findingOf(sweeps, sh); f != nil {
			if f.Cause == nil {
				f.Cause = cv
			}
			continue
		}
		if f := findingOf(orphans, sh); f != nil {
			continue // a second world stream of the same seed
		}
		sw := worldSweep(orphans, sh)
		if sw == nil {
			sw = &Sweep{World: c.Config, Profile: c.Profile, Set: c.Set, ShrinkOnly: true, causeOnly: true, ran: map[uint64]bool{}}
			orphans = append(orphans, sw)
		}
		// The failure is "class: head", or "liveness · node".
		f := &Finding{Cause: cv, Seeds: []uint64{c.Seed}}
		if class, head, ok := strings.Cut(c.Failure, ": "); ok {
			f.Class, f.Head = class, head
		} else if node, ok := strings.CutPrefix(c.Failure, "liveness · "); ok {
			f.Class, f.Node = "liveness", node
		} else {
			f.Class = c.Failure
		}
		var g *Finding
		for _, x := range sw.Findings {
			if x.key() == f.key() {
				g = x
			}
		}
		if g == nil {
			f.First = record.Seed{Seed: c.Seed, Config: c.Config, Status: "fail", Class: f.Class, Message: c.Failure, AtNs: c.FailAtNs,
				Repro: c.Repro}
			sw.Findings = append(sw.Findings, f)
			continue
		}
		if !slices.Contains(g.Seeds, c.Seed) {
			g.Seeds = append(g.Seeds, c.Seed) // two runs of one exploration's seed
		}
	}
	for _, o := range orphans {
		sortFindings(o.Findings)
	}
	return orphans
}

// curveText writes the curve as a table with a bar per moment.
func curveText(w *strings.Builder, c *Curve, indent string) {
	fmt.Fprintf(w, "%scause of %s (%d branches per moment): %s\n", indent, runOf(c.Seed, c.ExploreRun), c.Branches(), c.Verdict())
	fmt.Fprintf(w, "%s  %14s  %9s  %5s\n", indent, "branch at", "same way", "share")
	for _, p := range c.Points {
		for _, f := range p.Faults {
			fmt.Fprintf(w, "%s  %14s  fault %s\n", indent, "", f)
		}
		filled := int(p.Share*20 + 0.5)
		fmt.Fprintf(w, "%s  %14s  %9s  %4.0f%%  %s%s\n", indent, p.At, fmt.Sprintf("%d/%d", p.Same, p.Branches), 100*p.Share,
			strings.Repeat("#", filled), strings.Repeat(".", 20-filled))
	}
}
