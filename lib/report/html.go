package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sf-dst/sf/lib/record"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/textfmt"
)

//go:embed page.html
var pageTemplate string

// TimelineEmbedBytesMax is the largest history timeline page the report
// embeds; a larger one is only linked, so the report stays quick to open.
const TimelineEmbedBytesMax = 2 << 20

// HTMLOptions tune the page.
type HTMLOptions struct {
	// Dir is the folder the page is written to: links to artifacts are
	// relative to it. Defaults to the working directory.
	Dir string
}

// Page is everything the HTML page shows, worked out before any HTML is
// written, so that tests can check the numbers without a browser.
type Page struct {
	Sweeps []PageSweep
}

// PageSweep is one sweep on the page.
type PageSweep struct {
	*Sweep
	ID       string
	Status   string
	Findings []PageFinding
	// GaveUpCount counts the seeds whose history check gave up ("2
	// seeds"), or in an exploration the runs.
	GaveUpCount string
}

// PageFinding is one finding on the page.
type PageFinding struct {
	*Finding
	ID        string
	SeedsText string
	// Count is how many seeds failed this way, or for an exploration how
	// many runs; Counted names them ("seeds", "runs") and SeedsLabel heads
	// SeedsText.
	Count      int
	Counted    string
	SeedsLabel string
	FirstAt    string
	// FirstWho names the finding's first failing seed, "Seed 3", or in an
	// exploration its run: "Run 6 (seed 1, 1 branch)".
	FirstWho string
	Timeline *Timeline
	Faults   []string
	// HistoryLink is the history timeline's path relative to the page;
	// HistoryPage its content when small enough to embed.
	HistoryLink string
	HistoryPage string
	// Curve is the cause curve laid out for the chart, when there is one.
	Curve *PageCurve
}

// PageCurve is a cause curve as the chart draws it: x from the start of the
// run (0) to the failure (chartWidth), y from a share of 100% (chartTop) to
// 0% (chartBottom).
type PageCurve struct {
	*Curve
	Points   []PagePoint
	Polyline string // the points of the SVG polyline
	Verdict  string
	// InevitableX is where the chart marks the failure inevitable; -1 when
	// it never is.
	InevitableX float64
}

// PagePoint is one moment of the chart.
type PagePoint struct {
	X, Y     float64
	At       string
	Same     int
	Branches int
	Share    string // "70%"
	Faults   []string
}

// The chart's frame, in SVG user units.
const (
	chartWidth  = 600.0
	chartTop    = 10.0
	chartBottom = 130.0
)

func layoutCurve(c *Curve) *PageCurve {
	pc := &PageCurve{Curve: c, Verdict: c.Verdict(), InevitableX: -1}
	var pts []string
	for i, p := range c.Points {
		x := 0.0
		if c.FailAtNs > 0 {
			x = chartWidth * float64(p.AtNs) / float64(c.FailAtNs)
		}
		y := chartBottom - (chartBottom-chartTop)*p.Share
		pc.Points = append(pc.Points, PagePoint{X: x, Y: y, At: p.At, Same: p.Same, Branches: p.Branches,
			Share: fmt.Sprintf("%.0f%%", 100*p.Share), Faults: p.Faults})
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
		if i == c.Inevitable() {
			pc.InevitableX = x
		}
	}
	pc.Polyline = strings.Join(pts, " ")
	return pc
}

// BuildPage works out the page of sweeps; dir is where the page will live.
func BuildPage(sweeps []*Sweep, dir string) Page {
	var p Page
	for i, s := range sweeps {
		ps := PageSweep{Sweep: s, ID: fmt.Sprintf("sweep-%d", i+1), Status: s.Status()}
		ps.GaveUpCount, _ = s.gaveUpText()
		for j, f := range s.Findings {
			pf := PageFinding{Finding: f, ID: fmt.Sprintf("%s-finding-%d", ps.ID, j+1),
				SeedsText: f.SeedsText(), FirstAt: schedule.Time(f.First.AtNs),
				Count: len(f.Seeds), Counted: "seeds", SeedsLabel: "Seeds"}
			pf.FirstWho = fmt.Sprintf("Seed %d", f.First.Seed)
			if len(f.Runs) > 0 {
				pf.Count, pf.Counted, pf.SeedsLabel = len(f.Runs), "runs", "Runs"
				pf.FirstWho = fmt.Sprintf("Run %d (seed %d, %s)", f.First.ExploreRun, f.First.Seed, textfmt.Plural(f.First.Branches, "branch"))
			}
			if f.Schedule != nil {
				t := Layout(f.Schedule, f.Shrunk.DurationNs)
				pf.Timeline = &t
				pf.Faults = faultItems(f.Schedule.Faults)
			}
			if f.Cause != nil {
				pf.Curve = layoutCurve(f.Cause)
			}
			if f.Timeline != "" {
				pf.HistoryLink = relativeTo(dir, f.Timeline)
				if fi, err := os.Stat(f.Timeline); err == nil && fi.Size() <= TimelineEmbedBytesMax {
					if data, err := os.ReadFile(f.Timeline); err == nil {
						pf.HistoryPage = string(data)
					}
				}
			}
			ps.Findings = append(ps.Findings, pf)
		}
		p.Sweeps = append(p.Sweeps, ps)
	}
	return p
}

// faultItems are a schedule's faults as the page's numbered list shows
// them: when and what, without the number schedule.Lines puts first, which
// the list draws itself ("1. 90.319ms crash server", not "1. 1 90.319ms
// crash server").
func faultItems(faults []schedule.Fault) []string {
	items := make([]string, len(faults))
	for i, f := range faults {
		items[i] = schedule.Time(int64(f.At)) + "  " + f.Describe()
	}
	return items
}

// relativeTo is path (relative to the working directory) as a link from a
// page in dir.
func relativeTo(dir, path string) string {
	if dir == "" {
		dir = "."
	}
	absDir, err1 := filepath.Abs(dir)
	absPath, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return filepath.ToSlash(path)
	}
	rel, err := filepath.Rel(absDir, absPath)
	if err != nil {
		return filepath.ToSlash(absPath)
	}
	return filepath.ToSlash(rel)
}

// htmlDir is the folder of the page's file; the working directory for
// stdout.
func htmlDir(path string) string {
	if path == "-" {
		return "."
	}
	return filepath.Dir(path)
}

var funcs = template.FuncMap{
	"margin":  func(p record.Property) string { return Margin(p) },
	"upper":   strings.ToUpper,
	"time":    schedule.Time,
	"rounded": schedule.RoundedDuration,
	"pct":     func(f float64) string { return fmt.Sprintf("%.2f%%", f) },
	"add1":    func(i int) int { return i + 1 },
	"status":  statusText,
	"runof":   runOf,
	"plural":  textfmt.Plural,
	// pinfailed and pinoutcome say how a pin's replay came out.
	"pinfailed":  PinFailed,
	"pinoutcome": PinOutcome,
}

var page = template.Must(template.New("page").Funcs(funcs).Parse(pageTemplate))

// HTML writes the report as one self-contained page: its style and script
// are inline and it fetches nothing.
func HTML(w io.Writer, sweeps []*Sweep, o HTMLOptions) error {
	return page.Execute(w, BuildPage(sweeps, o.Dir))
}
