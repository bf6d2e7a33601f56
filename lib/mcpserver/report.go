package mcpserver

// sf_report: lib/report's steps as report.Main takes them, keeping the
// sweeps it builds to return them as JSON as well as the text.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sf-dst/sf/lib/atomicfile"
	"github.com/sf-dst/sf/lib/commands"
	"github.com/sf-dst/sf/lib/record"
	"github.com/sf-dst/sf/lib/report"
)

// ReportFinding is one way a sweep fails.
type ReportFinding struct {
	Title        string   `json:"title" jsonschema:"class · message head (assert · acknowledged write lost)"`
	Class        string   `json:"class"`
	Head         string   `json:"head,omitempty"`
	Node         string   `json:"node,omitempty"`
	Seeds        []uint64 `json:"seeds" jsonschema:"its failing seeds (the first 1000)"`
	Runs         []int    `json:"runs,omitempty" jsonschema:"in an exploration, its failing runs (the first 1000)"`
	SeedsTotal   int      `json:"seeds_total"`
	FirstMessage string   `json:"first_message" jsonschema:"the first seed's failure message, or the first pin's when no seed fails this way"`
	Pins         []string `json:"pins,omitempty" jsonschema:"pinned regressions that came back this way (their pin files)"`
	Schedule     string   `json:"schedule,omitempty" jsonschema:"the shortest shrunk schedule, when sf-shrink records were given"`
	FaultsAfter  int      `json:"faults_after,omitempty" jsonschema:"faults left in that schedule"`
	Repro        string   `json:"repro" jsonschema:"the command that shows it: the shrunk schedule's replay, else the first seed's"`
	Status       string   `json:"status,omitempty" jsonschema:"new, ongoing, resolved or regressed, from the findings file"`
}

// ReportSweep is what the report says of one sweep.
type ReportSweep struct {
	World            string               `json:"world"`
	Profile          string               `json:"profile,omitempty"`
	Set              []string             `json:"set,omitempty"`
	Seeds            string               `json:"seeds"`
	ExploreBudget    int                  `json:"explore_budget,omitempty" jsonschema:"set for an exploration (sf-run -explore): its budget of runs; ran, passed and failed then count runs"`
	Status           string               `json:"status" jsonschema:"pass, fail or incomplete"`
	Ran              int                  `json:"ran"`
	Passed           int                  `json:"passed"`
	Failed           int                  `json:"failed"`
	Horizon          int                  `json:"horizon"`
	Nondeterministic int                  `json:"nondeterministic"`
	Shards           int                  `json:"shards,omitempty"`
	MissingShards    []int                `json:"missing_shards,omitempty"`
	Unfinished       []string             `json:"unfinished,omitempty" jsonschema:"streams that ended without a summary"`
	Findings         []ReportFinding      `json:"findings"`
	Resolved         []ReportFinding      `json:"resolved,omitempty" jsonschema:"findings of the findings file this sweep no longer shows"`
	Properties       []record.Property    `json:"properties"`
	PropertyFailures int                  `json:"property_failures"`
	BuggifySites     []record.BuggifySite `json:"buggify_sites,omitempty"`
	GaveUpSeeds      []uint64             `json:"gave_up_seeds,omitempty"`
	ShrinkErrors     []string             `json:"shrink_errors,omitempty"`
	PinsReplayed     int                  `json:"pins_replayed,omitempty" jsonschema:"pinned regressions replayed before the sweep"`
	PinsFailed       int                  `json:"pins_failed,omitempty" jsonschema:"of them, those that failed again"`
}

// ReportOut is sf_report's result.
type ReportOut struct {
	ExitStatus    int           `json:"exit_status" jsonschema:"sf-report's exit status: 0 every sweep passed, 1 one failed or is incomplete"`
	Sweeps        []ReportSweep `json:"sweeps"`
	Text          string        `json:"text" jsonschema:"the text report sf-report prints"`
	TextTruncated bool          `json:"text_truncated,omitempty" jsonschema:"the text was cut at 64 KiB"`
}

// seedsKept bounds each finding's seed list in a result.
const seedsKept = 1000

func (s *Server) report(ctx context.Context, _ *mcp.CallToolRequest, in json.RawMessage) (*mcp.CallToolResult, ReportOut, error) {
	var out ReportOut
	r, err := commands.ReportFromMCP(in, s.paths)
	if err != nil {
		return nil, out, err
	}
	var sweeps []*report.Sweep
	var text bytes.Buffer
	err = s.tool(ctx, func(*atomic.Bool) error {
		var err error
		sweeps, err = buildReport(r.Options, &text)
		return err
	})
	if err != nil {
		return nil, out, fmt.Errorf("sf-report: %v", err)
	}
	out.Text = text.String()
	if len(out.Text) > TextBytesMax {
		out.Text, out.TextTruncated = cut(out.Text, TextBytesMax), true
	}
	out.Sweeps = []ReportSweep{}
	for _, sw := range sweeps {
		if sw.Status() != "pass" {
			out.ExitStatus = exitProblem
		}
		rs := ReportSweep{World: sw.World, Profile: sw.Profile, Set: sw.Set, Seeds: sw.SeedsText, ExploreBudget: sw.ExploreBudget, Status: sw.Status(),
			Ran: sw.Ran, Passed: sw.Passed, Failed: sw.Failed, Horizon: sw.Horizon, Nondeterministic: sw.Nondeterministic,
			Shards: sw.Shards, MissingShards: sw.Missing, Unfinished: sw.Unfinished, Properties: sw.Properties,
			PropertyFailures: sw.PropertyFailures, BuggifySites: sw.Buggify, GaveUpSeeds: sw.GaveUpSeeds,
			ShrinkErrors: sw.ShrinkErrors, PinsReplayed: len(sw.Pins), PinsFailed: sw.PinsFailed, Findings: []ReportFinding{}}
		if rs.Properties == nil {
			rs.Properties = []record.Property{}
		}
		for _, f := range sw.Findings {
			rs.Findings = append(rs.Findings, finding(f))
		}
		for _, f := range sw.Resolved {
			rs.Resolved = append(rs.Resolved, finding(f))
		}
		out.Sweeps = append(out.Sweeps, rs)
	}
	return nil, out, nil
}

// buildReport does what sf-report does with its inputs: builds the sweeps,
// reads their shrunk schedules, updates the findings file and writes the
// text, Markdown and HTML reports.
func buildReport(o report.Options, text *bytes.Buffer) ([]*report.Sweep, error) {
	var inputs []report.Input
	for _, n := range o.Inputs {
		f, err := os.Open(n)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		inputs = append(inputs, report.Input{Name: n, R: f})
	}
	sweeps, err := report.Build(inputs)
	if err != nil {
		return nil, err
	}
	report.Schedules(sweeps, ".")
	if o.Findings != "" || o.FindingsByWorld {
		if _, err := report.UpdateFindings(sweeps, o.Findings, o.Now); err != nil {
			return nil, err
		}
	}
	report.Text(text, sweeps)
	if o.Markdown != "" {
		var b bytes.Buffer
		report.Markdown(&b, sweeps)
		if err := atomicfile.WriteFile(o.Markdown, b.Bytes(), 0o644); err != nil {
			return nil, err
		}
	}
	if o.HTML != "" {
		var b bytes.Buffer
		if err := report.HTML(&b, sweeps, report.HTMLOptions{Dir: filepath.Dir(o.HTML)}); err != nil {
			return nil, err
		}
		if err := atomicfile.WriteFile(o.HTML, b.Bytes(), 0o644); err != nil {
			return nil, err
		}
	}
	return sweeps, nil
}

func finding(f *report.Finding) ReportFinding {
	rf := ReportFinding{Title: f.Title(), Class: f.Class, Head: f.Head, Node: f.Node, SeedsTotal: len(f.Seeds),
		Seeds: f.Seeds[:min(len(f.Seeds), seedsKept)], FirstMessage: f.First.Message, Repro: f.Repro(), Status: f.Status}
	if rf.Seeds == nil {
		rf.Seeds = []uint64{}
	}
	rf.Runs = f.Runs[:min(len(f.Runs), seedsKept)]
	for _, p := range f.Pins[:min(len(f.Pins), seedsKept)] {
		rf.Pins = append(rf.Pins, p.Pin)
	}
	if len(f.Seeds) == 0 && len(f.Pins) > 0 {
		rf.FirstMessage = f.Pins[0].Message
	}
	if f.Shrunk != nil {
		rf.Schedule, rf.FaultsAfter = f.Shrunk.Schedule, f.Shrunk.FaultsAfter
	}
	rf.Title = strings.TrimSpace(rf.Title)
	return rf
}
