package mcpserver

// sf_shrink, sf_faults_edit, sf_check and sf_mutate: each the lib/ code of
// its command in JSON mode, with the output decoded.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sf-dst/sf/lib/check"
	"github.com/sf-dst/sf/lib/faultsedit"
	"github.com/sf-dst/sf/lib/history"
	"github.com/sf-dst/sf/lib/mutate"
	"github.com/sf-dst/sf/lib/record"
	"github.com/sf-dst/sf/lib/shrink"
)

// ShrinkIn is sf_shrink's input: one seed of a world, or the failing
// seeds of sf-run record files.
type ShrinkIn struct {
	Config  string   `json:"config,omitempty" jsonschema:"with seed: the world file (seedfall.json)"`
	Profile string   `json:"profile,omitempty" jsonschema:"with seed: apply this named profile of the world file"`
	Set     []string `json:"set,omitempty" jsonschema:"with seed: overrides of world-file fields, path=value, applied in order"`
	Seed    *uint64  `json:"seed,omitempty" jsonschema:"the failing seed to shrink (with config)"`
	Faults  string   `json:"faults,omitempty" jsonschema:"with seed: shrink this schedule file instead of the seed's own faults"`
	Records []string `json:"records,omitempty" jsonschema:"instead of seed: sf-run -json record files whose failing seeds to shrink"`
	Max     int      `json:"max,omitempty" jsonschema:"with records: shrink at most this many failing seeds (default 10, at most 100)"`
	Jobs    int      `json:"jobs,omitempty" jsonschema:"replays run at once (default: the number of CPUs)"`
	Pin     bool     `json:"pin,omitempty" jsonschema:"also store each shrunk schedule as a pinned regression under .seedfall/pinned/ (sf-shrink -pin)"`
}

// ShrinkOut is sf_shrink's result.
type ShrinkOut struct {
	ExitStatus int                  `json:"exit_status" jsonschema:"sf-shrink's exit status: 1 shrunk, 0 nothing to shrink"`
	Shrinks    []record.Shrink      `json:"shrinks" jsonschema:"one record per seed: faults before and after, the shrunk schedule's file and its replay"`
	Summary    record.ShrinkSummary `json:"summary"`
}

func (s *Server) shrink(ctx context.Context, _ *mcp.CallToolRequest, in ShrinkIn) (*mcp.CallToolResult, ShrinkOut, error) {
	const tool = "sf_shrink"
	var out ShrinkOut
	max, err := clamp(tool, "max", in.Max, shrink.DefaultMax, ShrinkMax)
	if err != nil {
		return nil, out, err
	}
	jobs, err := clamp(tool, "jobs", in.Jobs, runtime.NumCPU(), 1024)
	if err != nil {
		return nil, out, err
	}
	c := shrink.Command{Max: max, Jobs: jobs, JSON: true, RunTool: s.opts.RunTool, Pin: in.Pin, Confine: s.worldConfiner(tool)}
	switch {
	case in.Seed != nil && len(in.Records) > 0:
		return nil, out, inputError(tool, "records", "give seed or records, not both")
	case in.Seed != nil:
		if err := s.checkWorld(tool, World{Config: in.Config}); err != nil {
			return nil, out, err
		}
		if in.Faults == "-" {
			return nil, out, inputError(tool, "faults", "\"-\" reads standard input, which is the protocol's here: name a file")
		}
		c.Config, c.Profile, c.Set, c.Faults, c.Seed, c.HasSeed = in.Config, in.Profile, in.Set, in.Faults, *in.Seed, true
	case len(in.Records) > 0:
		for _, f := range []struct {
			name string
			set  bool
		}{{"config", in.Config != ""}, {"faults", in.Faults != ""}, {"profile", in.Profile != ""}, {"set", len(in.Set) > 0}} {
			if f.set {
				return nil, out, inputError(tool, f.name, "needs seed; reading records, the world comes from them")
			}
		}
		for _, r := range in.Records {
			if r == "-" || r == "" {
				return nil, out, inputError(tool, "records", "%q: name a file", r)
			}
		}
		c.Inputs = in.Records
	default:
		return nil, out, inputError(tool, "seed", "missing: give config and seed, or records")
	}
	var stdout, stderr bytes.Buffer
	var code int
	if err := s.tool(ctx, func(interrupt *atomic.Bool) error {
		c.Interrupt, c.Stdout, c.Stderr = interrupt, &stdout, &stderr
		code = shrink.Main(c)
		return nil
	}); err != nil {
		return nil, out, err
	}
	if code != exitPass && code != exitProblem {
		return nil, out, commandError("sf-shrink", code, stderr.String())
	}
	recs, err := readRecords("sf-shrink", stdout.Bytes())
	if err != nil {
		return nil, out, err
	}
	out.ExitStatus, out.Shrinks = code, []record.Shrink{}
	for _, r := range recs {
		switch {
		case r.Shrink != nil:
			out.Shrinks = append(out.Shrinks, *r.Shrink)
		case r.ShrinkSummary != nil:
			out.Summary = *r.ShrinkSummary
		}
	}
	return nil, out, nil
}

// FaultsEditIn is sf_faults_edit's input.
type FaultsEditIn struct {
	World
	Seed   uint64           `json:"seed" jsonschema:"the seed whose schedule to list or edit"`
	Faults string           `json:"faults,omitempty" jsonschema:"the schedule file to start from (default: the seed's .seedfall/<world>/seed-N.shrunk.faults.json, else its seed-N.faults.json, else the faults the seed draws)"`
	Remove []int            `json:"remove,omitempty" jsonschema:"remove these faults, by position in the listing, from 1"`
	Shift  []string         `json:"shift,omitempty" jsonschema:"move faults: N=-50ms for a fault in time, N=+2 for one at a numbered operation"`
	Add    []map[string]any `json:"add,omitempty" jsonschema:"add faults, each as a schedule's fault object: {\"at\":\"1s\",\"kind\":\"pause\",\"node\":\"server\",\"until\":\"1.5s\"}"`
	Out    string           `json:"out,omitempty" jsonschema:"write the result here (default: the file it came from)"`
}

// FaultsEditOut is sf_faults_edit's result.
type FaultsEditOut struct {
	Header   string         `json:"header" jsonschema:"where the schedule came from, what was edited and where it was written"`
	Faults   []string       `json:"faults" jsonschema:"the resulting faults as sf-faults lists them, numbered from 1"`
	Duration string         `json:"duration" jsonschema:"the schedule's duration line"`
	Replay   string         `json:"replay" jsonschema:"the sf-run command that replays the result"`
	Schedule map[string]any `json:"schedule" jsonschema:"the resulting schedule, as its file holds it"`
}

func (s *Server) faultsEdit(ctx context.Context, _ *mcp.CallToolRequest, in FaultsEditIn) (*mcp.CallToolResult, FaultsEditOut, error) {
	const tool = "sf_faults_edit"
	var out FaultsEditOut
	if err := s.checkWorld(tool, in.World); err != nil {
		return nil, out, err
	}
	if in.Out != "" {
		if err := s.confineOut(tool, "out", in.Out); err != nil {
			return nil, out, err
		}
	} else if err := s.confine(tool, "faults", in.Faults, "without out the edit is written over it"); err != nil {
		return nil, out, err
	}
	if in.Faults == "-" {
		return nil, out, inputError(tool, "faults", "\"-\" reads standard input, which is the protocol's here: name a file")
	}
	o := faultsedit.Options{Config: in.Config, Seed: in.Seed, Faults: in.Faults, Profile: in.Profile, Set: in.Set,
		Shift: in.Shift, Out: in.Out, JSON: true, RunTool: s.opts.RunTool}
	for _, n := range in.Remove {
		o.Remove = append(o.Remove, strconv.Itoa(n))
	}
	for i, f := range in.Add {
		b, err := json.Marshal(f)
		if err != nil {
			return nil, out, inputError(tool, fmt.Sprintf("add[%d]", i), "%v", err)
		}
		o.Add = append(o.Add, string(b))
	}
	var stdout, stderr bytes.Buffer
	var code int
	if err := s.tool(ctx, func(*atomic.Bool) error {
		o.Stdout, o.Stderr = &stdout, &stderr
		code = faultsedit.Main(o)
		return nil
	}); err != nil {
		return nil, out, err
	}
	if code != exitPass {
		return nil, out, commandError("sf-faults", code, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), &out.Schedule); err != nil {
		return nil, out, fmt.Errorf("sf-faults: reading the schedule it wrote: %v", err)
	}
	// The listing on stderr, after any build lines: the header, a line per
	// fault, the duration, the replay line.
	out.Faults = []string{}
	prefix := fmt.Sprintf("seed %d, ", in.Seed)
	for _, l := range strings.Split(stderr.String(), "\n") {
		switch {
		case strings.HasPrefix(l, prefix) && out.Header == "":
			out.Header = l
		case out.Header == "" || out.Replay != "":
		case strings.HasPrefix(l, "duration "):
			out.Duration = strings.TrimPrefix(l, "duration ")
		case strings.HasPrefix(l, "replay: "):
			out.Replay = strings.TrimPrefix(l, "replay: ")
		case out.Duration == "" && strings.TrimSpace(l) != "":
			out.Faults = append(out.Faults, strings.TrimSpace(l))
		}
	}
	if out.Header == "" || out.Replay == "" {
		return nil, out, fmt.Errorf("sf-faults: its listing was not as expected:\n%s", cut(stderr.String(), errorBytesMax))
	}
	return nil, out, nil
}

// CheckIn is sf_check's input.
type CheckIn struct {
	History  string `json:"history" jsonschema:"the history file (JSONL or EDN, maybe zstd or gzip compressed)"`
	Model    string `json:"model,omitempty" jsonschema:"the model to check against (default kv)"`
	Format   string `json:"format,omitempty" jsonschema:"auto, jsonl or edn (default auto)"`
	Timeline string `json:"timeline,omitempty" jsonschema:"where to write the timeline of a violation (default: next to the history)"`
	Timeout  string `json:"timeout,omitempty" jsonschema:"give up checking linearizability after this much real time, a Go duration (default 30s)"`
	MaxSteps int64  `json:"max_steps,omitempty" jsonschema:"give up after this many model steps per key, the same on every machine (default: no step limit)"`
}

func (s *Server) check(ctx context.Context, _ *mcp.CallToolRequest, in CheckIn) (*mcp.CallToolResult, check.Record, error) {
	const tool = "sf_check"
	var out check.Record
	if strings.TrimSpace(in.History) == "" || in.History == "-" {
		return nil, out, inputError(tool, "history", "missing: name the history file")
	}
	if in.MaxSteps < 0 {
		return nil, out, inputError(tool, "max_steps", "must not be negative")
	}
	if in.Timeline != "" {
		if err := s.confineOut(tool, "timeline", in.Timeline); err != nil {
			return nil, out, err
		}
	} else if err := s.confine(tool, "history", in.History, "without timeline a violation's timeline is written next to it"); err != nil {
		return nil, out, err
	}
	o := check.CommandOptions{History: in.History, Model: in.Model, Format: in.Format, Timeline: in.Timeline, JSON: true,
		Timeout: check.TimeoutDefault, MaxSteps: in.MaxSteps, MaxBytes: history.InputBytesMax}
	if o.Format == "" {
		o.Format = "auto"
	}
	if in.Timeout != "" {
		d, err := time.ParseDuration(in.Timeout)
		if err != nil {
			return nil, out, inputError(tool, "timeout", "%v", err)
		}
		if d <= 0 {
			return nil, out, inputError(tool, "timeout", "%v: must be more than 0, since checking linearizability may take exponential time", d)
		}
		o.Timeout = d
	}
	var stdout, stderr bytes.Buffer
	var code int
	if err := s.tool(ctx, func(interrupt *atomic.Bool) error {
		o.Interrupt, o.Stdout, o.Stderr = interrupt, &stdout, &stderr
		code = check.Command(o)
		return nil
	}); err != nil {
		return nil, out, err
	}
	if code != exitPass && code != exitProblem {
		return nil, out, commandError("sf-check", code, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return nil, out, fmt.Errorf("sf-check: reading its verdict: %v", err)
	}
	return nil, out, nil
}

// MutateIn is sf_mutate's input.
type MutateIn struct {
	World
	Seeds    string   `json:"seeds,omitempty" jsonschema:"seeds each mutant runs: 1-100, 7 or 1-5,9 (default 1-100); at most 10000"`
	Only     []string `json:"only,omitempty" jsonschema:"run only these runtime mutants (fsync_noop, ...)"`
	App      bool     `json:"app,omitempty" jsonschema:"mutate the node packages' source instead of the simulated world"`
	Mutants  int      `json:"mutants,omitempty" jsonschema:"with app: how many source mutants to pick (default 10, at most 100)"`
	Markdown string   `json:"md,omitempty" jsonschema:"also write the result as a Markdown table to this file"`
	Jobs     int      `json:"jobs,omitempty" jsonschema:"seeds run at once (default: the number of CPUs)"`
}

// MutateOut is sf_mutate's result.
type MutateOut struct {
	ExitStatus int                  `json:"exit_status" jsonschema:"sf-mutate's exit status: 0 every exercised mutant killed, 1 one survived or the baseline failed"`
	Mutants    []record.Mutant      `json:"mutants" jsonschema:"one verdict per mutant, in the order they ran"`
	Summary    record.MutateSummary `json:"summary" jsonschema:"counts, the mutation score and the status"`
}

func (s *Server) mutate(ctx context.Context, _ *mcp.CallToolRequest, in MutateIn) (*mcp.CallToolResult, MutateOut, error) {
	const tool = "sf_mutate"
	var out MutateOut
	if err := s.checkWorld(tool, in.World); err != nil {
		return nil, out, err
	}
	if err := s.confineOut(tool, "md", in.Markdown); err != nil {
		return nil, out, err
	}
	jobs, err := clamp(tool, "jobs", in.Jobs, runtime.NumCPU(), 1024)
	if err != nil {
		return nil, out, err
	}
	if in.Mutants != 0 && !in.App {
		return nil, out, inputError(tool, "mutants", "needs app")
	}
	mutants, err := clamp(tool, "mutants", in.Mutants, mutate.DefaultAppMutants, MutantsMax)
	if err != nil {
		return nil, out, err
	}
	seeds, text, err := seedsInput(tool, in.Seeds, "")
	if err != nil {
		return nil, out, err
	}
	if in.App && len(in.Only) > 0 {
		return nil, out, inputError(tool, "only", "picks runtime mutants and cannot be combined with app")
	}
	if len(in.Only) > 0 {
		if err := mutate.ValidateOnly(in.Only); err != nil {
			return nil, out, fmt.Errorf("%s: %v", tool, err)
		}
	}
	c := mutate.Command{Config: in.Config, Profile: in.Profile, Set: in.Set, Seeds: seeds, SeedsText: text, Only: in.Only,
		App: in.App, AppMutants: mutants, Jobs: jobs, JSON: true, Markdown: in.Markdown,
		Tool: siblingTool(s.opts.RunTool, "sf-mutate"), RunTool: s.opts.RunTool}
	var stdout, stderr bytes.Buffer
	var code int
	if err := s.tool(ctx, func(interrupt *atomic.Bool) error {
		c.Interrupt, c.Stdout, c.Stderr = interrupt, &stdout, &stderr
		code = mutate.Main(c)
		return nil
	}); err != nil {
		return nil, out, err
	}
	if code != exitPass && code != exitProblem {
		return nil, out, commandError("sf-mutate", code, stderr.String())
	}
	recs, err := readRecords("sf-mutate", stdout.Bytes())
	if err != nil {
		return nil, out, err
	}
	out.ExitStatus, out.Mutants = code, []record.Mutant{}
	for _, r := range recs {
		switch {
		case r.Mutant != nil:
			out.Mutants = append(out.Mutants, *r.Mutant)
		case r.MutateSummary != nil:
			out.Summary = *r.MutateSummary
		}
	}
	if out.Summary.Status == "" {
		return nil, out, fmt.Errorf("sf-mutate: its records ended without a summary")
	}
	return nil, out, nil
}

// siblingTool is the tool name next to runTool: bin/sf-run gives
// bin/sf-mutate.
func siblingTool(runTool, name string) string {
	if i := strings.LastIndex(runTool, "/"); i >= 0 {
		return runTool[:i+1] + name
	}
	return name
}
