package mcpserver

// sf_shrink, sf_faults_edit, sf_check and sf_mutate: each the lib/ code of
// its command in JSON mode, with the output decoded.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sf-dst/sf/lib/check"
	"github.com/sf-dst/sf/lib/commands"
	"github.com/sf-dst/sf/lib/faultsedit"
	"github.com/sf-dst/sf/lib/history"
	"github.com/sf-dst/sf/lib/manual"
	"github.com/sf-dst/sf/lib/mutate"
	"github.com/sf-dst/sf/lib/record"
	"github.com/sf-dst/sf/lib/shrink"
)

// ShrinkOut is sf_shrink's result.
type ShrinkOut struct {
	ExitStatus int                  `json:"exit_status" jsonschema:"sf-shrink's exit status: 1 shrunk, 0 nothing to shrink"`
	Shrinks    []record.Shrink      `json:"shrinks" jsonschema:"one record per seed: faults before and after, the shrunk schedule's file and its replay"`
	Summary    record.ShrinkSummary `json:"summary"`
}

func (s *Server) shrink(ctx context.Context, _ *mcp.CallToolRequest, in json.RawMessage) (*mcp.CallToolResult, ShrinkOut, error) {
	var out ShrinkOut
	sh, err := commands.ShrinkFromMCP(in, s.paths)
	if err != nil {
		return nil, out, err
	}
	c := sh.Command
	c.RunTool, c.Confine = s.opts.RunTool, s.worldConfiner("sf_shrink")
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

// FaultsEditOut is sf_faults_edit's result.
type FaultsEditOut struct {
	Header   string         `json:"header" jsonschema:"where the schedule came from, what was edited and where it was written"`
	Faults   []string       `json:"faults" jsonschema:"the resulting faults as sf-faults lists them, numbered from 1"`
	Duration string         `json:"duration" jsonschema:"the schedule's duration line"`
	Replay   string         `json:"replay" jsonschema:"the sf-run command that replays the result"`
	Schedule map[string]any `json:"schedule" jsonschema:"the resulting schedule, as its file holds it"`
}

func (s *Server) faultsEdit(ctx context.Context, _ *mcp.CallToolRequest, in json.RawMessage) (*mcp.CallToolResult, FaultsEditOut, error) {
	const tool = "sf_faults_edit"
	var out FaultsEditOut
	f, err := commands.FaultsFromMCP(in, s.paths)
	if err != nil {
		return nil, out, err
	}
	if f.Out == "" {
		if err := s.confine(tool, "faults", f.Faults, "without out the edit is written over it"); err != nil {
			return nil, out, err
		}
	}
	o := f.Options
	o.RunTool = s.opts.RunTool
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
	prefix := fmt.Sprintf("seed %d, ", o.Seed)
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

func (s *Server) check(ctx context.Context, _ *mcp.CallToolRequest, in json.RawMessage) (*mcp.CallToolResult, check.Record, error) {
	var out check.Record
	c, err := commands.CheckFromMCP(in, s.paths)
	if err != nil {
		return nil, out, err
	}
	if c.Timeline == "" {
		if err := s.confine("sf_check", "history", c.History, "without timeline a violation's timeline is written next to it"); err != nil {
			return nil, out, err
		}
	}
	o := c.CommandOptions
	o.MaxBytes = history.InputBytesMax
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

// MutateOut is sf_mutate's result.
type MutateOut struct {
	ExitStatus int                  `json:"exit_status" jsonschema:"sf-mutate's exit status: 0 every exercised mutant killed, 1 one survived or the baseline failed"`
	Mutants    []record.Mutant      `json:"mutants" jsonschema:"one verdict per mutant, in the order they ran"`
	Summary    record.MutateSummary `json:"summary" jsonschema:"counts, the mutation score and the status"`
}

func (s *Server) mutate(ctx context.Context, _ *mcp.CallToolRequest, in json.RawMessage) (*mcp.CallToolResult, MutateOut, error) {
	var out MutateOut
	m, err := commands.MutateFromMCP(in, s.paths)
	if err != nil {
		return nil, out, err
	}
	c := m.Command
	c.Tool, c.RunTool = manual.Sibling([]string{s.opts.RunTool}, "sf-mutate"), s.opts.RunTool
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
