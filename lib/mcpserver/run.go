package mcpserver

// sf_run and sf_replay: lib/sweep, as sf-run runs it, with its records
// decoded.

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sf-dst/sf/lib/atomicfile"
	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/margin"
	"github.com/sf-dst/sf/lib/record"
	"github.com/sf-dst/sf/lib/sweep"
)

// World names a world file and how to load it, as -c, -profile and -set do.
type World struct {
	Config  string   `json:"config" jsonschema:"the world file (seedfall.json), relative to the server's working directory"`
	Profile string   `json:"profile,omitempty" jsonschema:"apply this named profile of the world file"`
	Set     []string `json:"set,omitempty" jsonschema:"overrides of world-file fields, path=value, applied in order (faults.crash_per_sec=1)"`
}

// checkWorld checks a call's world: named, not standard input, and inside
// the server's folder.
func (s *Server) checkWorld(tool string, w World) error {
	if err := w.check(tool); err != nil {
		return err
	}
	return s.confineWorld(tool, "config", w.Config)
}

func (w World) check(tool string) error {
	if strings.TrimSpace(w.Config) == "" {
		return inputError(tool, "config", "missing: name the world file, such as seedfall.json")
	}
	if w.Config == "-" {
		return inputError(tool, "config", "\"-\" reads standard input, which is the protocol's here: name a file")
	}
	return nil
}

// RunIn is sf_run's input.
type RunIn struct {
	World
	Seeds          string `json:"seeds,omitempty" jsonschema:"seeds to run: 1-100, 7 or 1-5,9 (default 1-100); at most 10000"`
	Shard          string `json:"shard,omitempty" jsonschema:"K/N: run only the K-th of N slices of the seeds"`
	Jobs           int    `json:"jobs,omitempty" jsonschema:"parallel workers (default: the number of CPUs)"`
	Check          bool   `json:"check,omitempty" jsonschema:"run every seed twice and fail seeds whose runs differ"`
	HistoryTimeout string `json:"history_timeout,omitempty" jsonschema:"real-time limit of each recorded history's check, a Go duration (default 30s)"`
	MaxFailures    *int   `json:"max_failures,omitempty" jsonschema:"how many failing seeds' records to return in full, in seed order (default 20, at most 1000; 0 returns none, only the counts)"`
	Records        string `json:"records,omitempty" jsonschema:"also write the sweep's JSONL records (sf-run -json) to this file, whole, for sf_report and sf_shrink"`
	Compress       bool   `json:"compress,omitempty" jsonschema:"write failing seeds' traces and histories as zstd files (seed-N.trace.log.zst)"`
}

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

func (s *Server) run(ctx context.Context, _ *mcp.CallToolRequest, in RunIn) (*mcp.CallToolResult, RunOut, error) {
	const tool = "sf_run"
	var out RunOut
	if err := s.checkWorld(tool, in.World); err != nil {
		return nil, out, err
	}
	o, err := s.sweepOptions(tool, in.World, in.Jobs, in.HistoryTimeout)
	if err != nil {
		return nil, out, err
	}
	o.Check, o.Compress = in.Check, in.Compress
	maxFail := FailuresDefault
	if m := in.MaxFailures; m != nil {
		// 0 is an answer of its own here, not "the default": only counts.
		switch {
		case *m < 0:
			return nil, out, inputError(tool, "max_failures", "%d: must not be negative", *m)
		case *m > FailuresMax:
			return nil, out, inputError(tool, "max_failures", "%d: at most %d", *m, FailuresMax)
		}
		maxFail = *m
	}
	seeds, text, err := seedsInput(tool, in.Seeds, ": split it (shard, or smaller ranges)")
	if err != nil {
		return nil, out, err
	}
	o.Seeds, o.SeedsText = seeds, text
	if in.Shard != "" {
		k, n, err := sweep.ParseShard(in.Shard)
		if err != nil {
			return nil, out, inputError(tool, "shard", "%v", err)
		}
		if n > len(seeds) {
			return nil, out, inputError(tool, "shard", "%s: the sweep has only %d seeds, fewer than its %d shards", in.Shard, len(seeds), n)
		}
		o.Seeds, o.Shard = sweep.ShardSeeds(seeds, k, n), in.Shard
	}
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
	if in.Records != "" {
		if err := atomicfile.WriteFile(in.Records, stdout.Bytes(), 0o644); err != nil {
			return nil, out, fmt.Errorf("%s: records: %v", tool, err)
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

// sweepOptions are the sweep.Options every sweep tool shares.
func (s *Server) sweepOptions(tool string, w World, jobs int, historyTimeout string) (sweep.Options, error) {
	o := sweep.Options{Config: w.Config, Profile: w.Profile, Set: w.Set, JSON: true, Jobs: jobs,
		HistoryTimeout: 30 * time.Second, Tool: s.opts.RunTool}
	switch {
	case jobs < 0:
		return o, inputError(tool, "jobs", "%d: must be at least 1", jobs)
	case jobs == 0:
		o.Jobs = runtime.NumCPU()
	}
	if historyTimeout != "" {
		d, err := time.ParseDuration(historyTimeout)
		if err != nil {
			return o, inputError(tool, "history_timeout", "%v", err)
		}
		if d <= 0 {
			return o, inputError(tool, "history_timeout", "%v: must be more than 0, since checking a history may take exponential time", d)
		}
		o.HistoryTimeout = d
	}
	return o, nil
}

// ReplayIn is sf_replay's input.
type ReplayIn struct {
	World
	Seed      uint64 `json:"seed" jsonschema:"the seed to replay"`
	Faults    string `json:"faults,omitempty" jsonschema:"a fault schedule file to apply instead of drawing faults (sf-run -faults)"`
	MaxEvents int    `json:"max_events,omitempty" jsonschema:"how many events, and how many lines of output, to return, from the start (default 1000, at most 10000)"`
	Inspect   bool   `json:"inspect,omitempty" jsonschema:"also return each node's disk after the run: files, sizes, durable and pending bytes, corrupted ranges (sf-run -inspect)"`
	Pin       bool   `json:"pin,omitempty" jsonschema:"store a failing seed's schedule as a pinned regression under .seedfall/pinned/, which every sweep replays first (sf-run -pin); the record's pinned names the file"`
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

func (s *Server) replay(ctx context.Context, _ *mcp.CallToolRequest, in ReplayIn) (*mcp.CallToolResult, ReplayOut, error) {
	const tool = "sf_replay"
	var out ReplayOut
	maxEvents, err := clamp(tool, "max_events", in.MaxEvents, EventsDefault, EventsMax)
	if err != nil {
		return nil, out, err
	}
	rec, res, code, err := s.replayRun(ctx, tool, in.World, in.Seed, in.Faults, in.Inspect, in.Pin)
	if err != nil {
		return nil, out, err
	}
	trace := res.Trace
	out.ExitStatus, out.Result, out.Lines = code, seedView(rec), len(trace)
	for _, d := range res.Disks {
		od := Disk{Node: d.Node, UsageBytes: d.UsageBytes, CapacityBytes: d.CapacityBytes, Files: []File{}}
		for _, f := range d.Files {
			if len(od.Files) == filesMax {
				od.FilesOmitted++
				continue
			}
			od.Files = append(od.Files, File{Path: f.Path, Type: f.Type.String(), Size: f.Size, DurableSize: f.DurableSize,
				PendingBytes: f.PendingBytes, PendingOps: f.PendingOps, Corrupted: f.Corrupted})
		}
		out.Disks = append(out.Disks, od)
	}
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

// replayRun replays one seed as sf-run -seed does (with -inspect and -pin
// when inspect and pin are set), and returns its record, its result and
// sf-run's exit status.
func (s *Server) replayRun(ctx context.Context, tool string, w World, seed uint64, faults string, inspect, pin bool) (record.Seed, *engine.Result, int, error) {
	if err := s.checkWorld(tool, w); err != nil {
		return record.Seed{}, nil, 0, err
	}
	if faults == "-" {
		return record.Seed{}, nil, 0, inputError(tool, "faults", "\"-\" reads standard input, which is the protocol's here: name a file")
	}
	o, err := s.sweepOptions(tool, w, 1, "")
	if err != nil {
		return record.Seed{}, nil, 0, err
	}
	o.Seeds, o.SeedsText, o.Replay, o.Faults, o.Inspect, o.Pin = []uint64{seed}, strconv.FormatUint(seed, 10), true, faults, inspect, pin
	var (
		stdout, stderr bytes.Buffer
		code           int
		res            *engine.Result
	)
	o.OnResult = func(r *engine.Result) { res = r }
	err = s.tool(ctx, func(interrupt *atomic.Bool) error {
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

// seedsInput reads a tool's seeds field, 1-100 when empty, and refuses more
// than SeedsMax; hint is added to that refusal.
func seedsInput(tool, text, hint string) ([]uint64, string, error) {
	if strings.TrimSpace(text) == "" {
		text = "1-100"
	}
	seeds, err := config.ParseSeeds(text)
	if err != nil {
		return nil, text, inputError(tool, "seeds", "%v", err)
	}
	if len(seeds) > SeedsMax {
		return nil, text, inputError(tool, "seeds", "%s is %d seeds, more than the %d one call may run%s", text, len(seeds), SeedsMax, hint)
	}
	return seeds, text, nil
}
