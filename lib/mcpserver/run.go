package mcpserver

// sf_run and sf_replay: lib/sweep, as sf-run runs it, with its records
// decoded.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sf-dst/sf/lib/atomicfile"
	"github.com/sf-dst/sf/lib/commands"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/margin"
	"github.com/sf-dst/sf/lib/record"
	"github.com/sf-dst/sf/lib/sweep"
)

// Margin is a property with its margin: how far from failing an always
// came at its closest, or how close a sometimes came to holding.
type Margin struct {
	Kind     string       `json:"kind"`
	Message  string       `json:"message"`
	Margin   margin.Value `json:"margin" jsonschema:"a number, exact for integers; +Inf, -Inf or NaN as a string"`
	Location string       `json:"location,omitempty"`
}

// RunOut is sf_run's result.
type RunOut struct {
	Status     string `json:"status" jsonschema:"pass or fail, as sf-run's exit status says"`
	ExitStatus int    `json:"exit_status" jsonschema:"sf-run's exit status: 0 every seed passed, 1 a seed or a property failed or a history check gave up"`
	Seeds      string `json:"seeds" jsonschema:"the seeds as given"`
	Ran        int    `json:"ran"`
	Passed     int    `json:"passed" jsonschema:"seeds that passed; a seed whose history check gave up is not one"`
	Failed     int    `json:"failed"`
	Horizon    int    `json:"horizon" jsonschema:"seeds that reached the time horizon (counted in passed)"`
	// Nondeterministic counts seeds whose two runs differed (with check).
	Nondeterministic int                  `json:"nondeterministic"`
	FailedSeeds      []uint64             `json:"failed_seeds"`
	Failures         []SeedView           `json:"failures" jsonschema:"the records of the first failing seeds (up to max_failures): class, message, node, artifacts, history_file, timeline_file, repro"`
	FailuresOmitted  int                  `json:"failures_omitted" jsonschema:"failing seeds past max_failures whose records are left out"`
	Properties       []record.Property    `json:"properties" jsonschema:"the property table"`
	Margins          []Margin             `json:"margins" jsonschema:"the comparison properties and their margins"`
	PropertyFailures int                  `json:"property_failures"`
	BuggifySites     []record.BuggifySite `json:"buggify_sites" jsonschema:"the buggify table (empty when buggify is off)"`
	GaveUp           int                  `json:"gave_up" jsonschema:"seeds whose history check gave up: not counted in passed, and they make exit_status 1"`
	Pins             []record.Pin         `json:"pins" jsonschema:"the world's pinned regressions (.seedfall/pinned/), replayed before the sweep; a failing one fails it"`
	PinsFailed       int                  `json:"pins_failed"`
	RealNs           int64                `json:"real_ns"`
}

func (s *Server) run(ctx context.Context, _ *mcp.CallToolRequest, in json.RawMessage) (*mcp.CallToolResult, RunOut, error) {
	var out RunOut
	r, err := commands.RunFromMCP("sf_run", in, s.paths)
	if err != nil {
		return nil, out, err
	}
	o, maxFail, text := r.Options, r.MaxFailures, r.SeedsText
	o.Tool = s.opts.RunTool
	var stdout, stderr bytes.Buffer
	var code int
	err = s.tool(ctx, func(interrupt *atomic.Bool) error {
		o.Interrupt, o.Stdout, o.Stderr = interrupt, &stdout, &stderr
		code = sweep.Main(o)
		return nil
	})
	if err != nil {
		return nil, out, err
	}
	if code != exitPass && code != exitProblem {
		return nil, out, commandError("sf-run", code, stderr.String())
	}
	recs, err := readRecords("sf-run", stdout.Bytes())
	if err != nil {
		return nil, out, err
	}
	if r.Records != "" {
		if err := atomicfile.WriteFile(r.Records, stdout.Bytes(), 0o644); err != nil {
			return nil, out, fmt.Errorf("sf_run: records: %v", err)
		}
	}
	out.ExitStatus, out.Seeds = code, text
	out.Failures, out.FailedSeeds, out.Properties, out.Margins, out.BuggifySites = []SeedView{}, []uint64{}, []record.Property{}, []Margin{}, []record.BuggifySite{}
	out.Pins = []record.Pin{}
	for _, r := range recs {
		switch {
		case r.Pin != nil:
			out.Pins = append(out.Pins, *r.Pin)
		case r.Seed != nil && r.Seed.Status != "pass" && r.Seed.Status != "horizon":
			if len(out.Failures) < maxFail {
				out.Failures = append(out.Failures, seedView(*r.Seed))
			} else {
				out.FailuresOmitted++
			}
		case r.Summary != nil:
			sum := r.Summary
			out.Status, out.Ran, out.Passed, out.Failed, out.Horizon = sum.Status, sum.Seeds, sum.Passed, sum.Failed, sum.Horizon
			out.Nondeterministic, out.PropertyFailures, out.GaveUp, out.RealNs = sum.Nondeterministic, sum.PropertyFailures, sum.GaveUp, sum.RealNs
			out.PinsFailed = sum.PinsFailed
			if sum.FailedSeeds != nil {
				out.FailedSeeds = sum.FailedSeeds
			}
			if sum.Properties != nil {
				out.Properties = sum.Properties
			}
			if sum.BuggifySites != nil {
				out.BuggifySites = sum.BuggifySites
			}
			for _, p := range sum.Properties {
				if p.Margin != nil {
					out.Margins = append(out.Margins, Margin{Kind: p.Kind, Message: p.Message, Margin: *p.Margin, Location: p.Location})
				}
			}
		}
	}
	if out.Status == "" {
		return nil, out, fmt.Errorf("sf-run: its records ended without a summary")
	}
	return nil, out, nil
}

// Disk is one node's disk after a run, as sf-run -inspect lists it.
type Disk struct {
	Node          string `json:"node"`
	UsageBytes    int64  `json:"usage_bytes"`
	CapacityBytes int64  `json:"capacity_bytes,omitempty" jsonschema:"the disk's capacity; left out when it has none"`
	Files         []File `json:"files"`
	FilesOmitted  int    `json:"files_omitted" jsonschema:"files past the first 1000, left out"`
}

// File is one path on a node's disk.
type File struct {
	Path         string     `json:"path"`
	Type         string     `json:"type"`
	Size         int64      `json:"size"`
	DurableSize  int64      `json:"durable_size" jsonschema:"the size a crash would keep"`
	PendingBytes int64      `json:"pending_bytes" jsonschema:"bytes written since the last sync"`
	PendingOps   int        `json:"pending_ops" jsonschema:"writes and truncates since the last sync"`
	Corrupted    [][2]int64 `json:"corrupted,omitempty" jsonschema:"durable byte ranges [start, end) holding wrong data"`
}

// filesMax bounds the files listed per disk.
const filesMax = 1000

// ReplayOut is sf_replay's result.
type ReplayOut struct {
	ExitStatus    int      `json:"exit_status" jsonschema:"sf-run -seed's exit status: 0 passed, 1 failed or its history check gave up"`
	Result        SeedView `json:"result" jsonschema:"the seed's record: status, class, message, node, determinism hash, artifacts, history_file, timeline_file, repro"`
	Lines         int      `json:"lines" jsonschema:"lines in the whole trace: events and output"`
	Events        []Event  `json:"events" jsonschema:"what happened in the run, in order, apart from the programs' output"`
	EventsTotal   int      `json:"events_total" jsonschema:"events in the whole run"`
	EventsOmitted int      `json:"events_omitted" jsonschema:"events past max_events or the result's size bound, left out"`
	Output        []Line   `json:"output" jsonschema:"the lines the programs printed, in order, each with its instance"`
	OutputTotal   int      `json:"output_total" jsonschema:"lines of output in the whole run"`
	OutputOmitted int      `json:"output_omitted" jsonschema:"lines of output past max_events or the result's size bound, left out"`
	Disks         []Disk   `json:"disks,omitempty" jsonschema:"with inspect: each node's disk at the end of the run"`
}

func (s *Server) replay(ctx context.Context, _ *mcp.CallToolRequest, in json.RawMessage) (*mcp.CallToolResult, ReplayOut, error) {
	return s.replayTool(ctx, "sf_replay", in)
}

// resume is sf_resume: sf_replay's result for the seed a snapshot
// continues.
func (s *Server) resume(ctx context.Context, _ *mcp.CallToolRequest, in json.RawMessage) (*mcp.CallToolResult, ReplayOut, error) {
	return s.replayTool(ctx, "sf_resume", in)
}

// replayTool is sf_replay, or sf_resume, which replays as sf-run -from.
func (s *Server) replayTool(ctx context.Context, tool string, in json.RawMessage) (*mcp.CallToolResult, ReplayOut, error) {
	var out ReplayOut
	r, err := commands.RunFromMCP(tool, in, s.paths)
	if err != nil {
		return nil, out, err
	}
	maxEvents := r.MaxEvents
	rec, res, code, err := s.replayRun(ctx, r.Options)
	if err != nil {
		return nil, out, err
	}
	trace := res.Trace
	out.ExitStatus, out.Result, out.Lines, out.Disks = code, seedView(rec), len(trace), disksOf(res.Disks)
	out.Events, out.Output = []Event{}, []Line{}
	size := 0
	for i, l := range trace {
		line := parseLine(i+1, l)
		size += len(line.Text)
		full := size > ResultBytesMax
		if isOutput(line) {
			out.OutputTotal++
			if len(out.Output) >= maxEvents || full {
				out.OutputOmitted++
				continue
			}
			out.Output = append(out.Output, outputOf(line))
			continue
		}
		out.EventsTotal++
		if len(out.Events) >= maxEvents || full {
			out.EventsOmitted++
			continue
		}
		out.Events = append(out.Events, eventOf(line))
	}
	return nil, out, nil
}

// disksOf is each node's disk as a result shows it.
func disksOf(disks []engine.NodeDisk) []Disk {
	var out []Disk
	for _, d := range disks {
		od := Disk{Node: d.Node, UsageBytes: d.UsageBytes, CapacityBytes: d.CapacityBytes, Files: []File{}}
		for _, f := range d.Files {
			if len(od.Files) == filesMax {
				od.FilesOmitted++
				continue
			}
			od.Files = append(od.Files, File{Path: f.Path, Type: f.Type.String(), Size: f.Size, DurableSize: f.DurableSize,
				PendingBytes: f.PendingBytes, PendingOps: f.PendingOps, Corrupted: f.Corrupted})
		}
		out = append(out, od)
	}
	return out
}

// Descriptors are a node's open descriptors at a snapshot.
type Descriptors struct {
	Node     string       `json:"node"`
	Instance string       `json:"instance,omitempty" jsonschema:"the running instance (server#2); left out when the node is down"`
	Down     bool         `json:"down,omitempty" jsonschema:"the node was not running at the snapshot"`
	FDs      []Descriptor `json:"fds"`
	Omitted  int          `json:"fds_omitted" jsonschema:"descriptors past the first 1000, left out"`
}

// Descriptor is one open descriptor: a file with its offset, a directory,
// a socket with its state.
type Descriptor struct {
	FD   int    `json:"fd"`
	What string `json:"what" jsonschema:"what it is, as sf-run -snapshot -inspect lists it: file data/kv.log (read, write) at offset 882, socket tcp listening on port 7000, ..."`
}

// descriptorsOf is each node's open descriptors as a result shows them.
func descriptorsOf(fds []engine.NodeFDs) []Descriptors {
	var out []Descriptors
	for _, n := range fds {
		d := Descriptors{Node: n.Node, Instance: n.Instance, Down: n.Instance == "", FDs: []Descriptor{}}
		for _, f := range n.FDs {
			if len(d.FDs) == filesMax {
				d.Omitted++
				continue
			}
			d.FDs = append(d.FDs, Descriptor{FD: f.FD, What: f.What})
		}
		out = append(out, d)
	}
	return out
}

// replayRun replays one seed as sf-run -seed does, o being what
// commands.RunFromMCP read, and returns its record, its result and sf-run's
// exit status.
func (s *Server) replayRun(ctx context.Context, o sweep.Options) (record.Seed, *engine.Result, int, error) {
	o.Tool = s.opts.RunTool
	var (
		stdout, stderr bytes.Buffer
		code           int
		res            *engine.Result
	)
	o.OnResult = func(r *engine.Result) { res = r }
	err := s.tool(ctx, func(interrupt *atomic.Bool) error {
		o.Interrupt, o.Stdout, o.Stderr = interrupt, &stdout, &stderr
		code = sweep.Main(o)
		return nil
	})
	if err != nil {
		return record.Seed{}, nil, 0, err
	}
	if code != exitPass && code != exitProblem {
		return record.Seed{}, nil, 0, commandError("sf-run", code, stderr.String())
	}
	recs, err := readRecords("sf-run", stdout.Bytes())
	if err != nil {
		return record.Seed{}, nil, 0, err
	}
	for _, r := range recs {
		if r.Seed != nil && res != nil {
			return *r.Seed, res, code, nil
		}
	}
	return record.Seed{}, nil, 0, fmt.Errorf("sf-run: its records hold no seed record")
}

// ForkOut is sf_fork's result.
type ForkOut struct {
	Snapshot   string `json:"snapshot" jsonschema:"the snapshot file written: sf_resume's from"`
	Seed       uint64 `json:"seed" jsonschema:"the seed forked"`
	Step       uint64 `json:"step" jsonschema:"the scheduler step it was forked at"`
	AtNs       int64  `json:"at_ns" jsonschema:"the virtual time it was forked at, in nanoseconds: the first step at or after stop_at"`
	Bytes      int    `json:"bytes" jsonschema:"the file's size"`
	StateBytes int    `json:"state_bytes" jsonschema:"the snapshot's size uncompressed"`
	// Disks and Descriptors are what inspect asks for.
	Disks       []Disk        `json:"disks,omitempty" jsonschema:"with inspect: each node's disk at the snapshot"`
	Descriptors []Descriptors `json:"descriptors,omitempty" jsonschema:"with inspect: each node's open descriptors at the snapshot (files, sockets), or down"`
}

// fork is sf_fork: sf-run -seed N -stop-at D -snapshot FILE.
func (s *Server) fork(ctx context.Context, _ *mcp.CallToolRequest, in json.RawMessage) (*mcp.CallToolResult, ForkOut, error) {
	var out ForkOut
	r, err := commands.RunFromMCP("sf_fork", in, s.paths)
	if err != nil {
		return nil, out, err
	}
	o := r.Options
	o.Tool = s.opts.RunTool
	var (
		stdout, stderr bytes.Buffer
		code           int
		wrote          *sweep.SnapshotWritten
	)
	o.OnSnapshot = func(w sweep.SnapshotWritten) { wrote = &w }
	err = s.tool(ctx, func(interrupt *atomic.Bool) error {
		o.Interrupt, o.Stdout, o.Stderr = interrupt, &stdout, &stderr
		code = sweep.Main(o)
		return nil
	})
	if err != nil {
		return nil, out, err
	}
	if code != exitPass || wrote == nil {
		return nil, out, commandError("sf-run", code, stderr.String())
	}
	return nil, ForkOut{Snapshot: o.Snapshot, Seed: wrote.Seed, Step: wrote.Step, AtNs: wrote.AtNs, Bytes: wrote.Bytes, StateBytes: wrote.StateBytes,
		Disks: disksOf(wrote.Disks), Descriptors: descriptorsOf(wrote.FDs)}, nil
}
