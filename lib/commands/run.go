package commands

import (
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/cmdspec"
	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/explore"
	"github.com/sf-dst/sf/lib/manual"
	"github.com/sf-dst/sf/lib/sweep"
)

// Bounds of an sf_run or sf_replay call's result.
const (
	// FailuresDefault and FailuresMax bound the failing seeds' records
	// sf_run returns in full; failed_seeds still lists every one.
	FailuresDefault = 20
	FailuresMax     = 1000
	// EventsDefault and EventsMax bound the trace events sf_replay returns.
	EventsDefault = 1000
	EventsMax     = 10000
	// MatchesDefault and MatchesMax bound sf_trace_search's matches.
	MatchesDefault = 100
	MatchesMax     = 1000
	// PatternBytesMax bounds sf_trace_search's regular expression.
	PatternBytesMax = 1000
)

// Run is what sf-run's options fill, and sf_run's and sf_replay's fields.
type Run struct {
	sweep.Options
	// Explore and ExploreRuns are -explore and -explore-runs.
	Explore     bool
	ExploreRuns int
	// MaxFailures and Records (sf_run) and MaxEvents (sf_replay) bound and
	// keep what a call returns.
	MaxFailures int
	Records     string
	MaxEvents   int
	// Pattern, Node, MaxMatches and ReplayTrace are what sf_trace_search
	// looks for in a seed's trace, and whether it replays the seed for it.
	Pattern     *regexp.Regexp
	Node        string
	MaxMatches  int
	ReplayTrace bool

	seed           uint64
	shardK, shardN int
}

const historyTimeoutDefault = 30 * time.Second

func runSpec(r *Run) *cmdspec.Command {
	return &cmdspec.Command{Name: "sf-run", Options: []*cmdspec.Option{
		worldOption(&r.Config),
		seedsOption(&r.Seeds, &r.SeedsText, "the seeds to run, a `RANGE` such as 1-500, 7 or 1-5,9",
			"seeds to run: 1-100, 7 or 1-5,9 (default 1-100); at most 10000"),
		{Flag: "seed", Usage: "replay seed `N` alone and print its whole trace", Doc: "the seed to replay",
			Required: "missing: name the seed to replay", Value: cmdspec.Seed(&r.seed)},
		{Flag: "faults", Usage: "with -seed (or -from, for the rest): apply the schedule in `FILE` (- for stdin), drawing no faults",
			Doc: "a fault schedule file to apply instead of drawing faults (sf-run -faults)", Stdin: true, Path: cmdspec.Input,
			Value: cmdspec.String(&r.Faults, "")},
		jobsOption(&r.Jobs, "run `N` seeds at once", "parallel workers (default: the number of CPUs)", 0),
		{Flag: "check", Usage: "run every seed twice and fail a seed whose two runs differ",
			Doc: "run every seed twice and fail seeds whose runs differ", Value: cmdspec.Bool(&r.Check)},
		jsonOption(&r.JSON, "JSONL records on stdout, the report on stderr (on a pipe, unasked)"),
		{Flag: "shard", Usage: "run only the K-th of N slices of the seeds, `K/N` such as 2/4",
			Doc: "K/N: run only the K-th of N slices of the seeds", Value: cmdspec.StringFunc("", func(s string) error {
				k, n, err := sweep.ParseShard(s)
				r.Shard, r.shardK, r.shardN = s, k, n
				return err
			})},
		profileOption(&r.Profile),
		{Flag: "inspect", Usage: "with -seed: list each node's files and disk use after the run; with -snapshot: its files, descriptors and sockets at the snapshot",
			Doc:   "also return each node's disk after the run: files, sizes, durable and pending bytes, corrupted ranges (sf-run -inspect)",
			Value: cmdspec.Bool(&r.Inspect)},
		setOption(&r.Set),
		{Flag: "pin", Usage: "with -seed: pin the failing schedule, which every sweep then replays first",
			Doc:   "store a failing seed's schedule as a pinned regression under .seedfall/pinned/, which every sweep replays first (sf-run -pin); the record's pinned names the file",
			Value: cmdspec.Bool(&r.Pin)},
		{Flag: "compress", Usage: "write traces and histories as zstd files (seed-N.trace.log.zst)",
			Doc: "write failing seeds' traces and histories as zstd files (seed-N.trace.log.zst)", Value: cmdspec.Bool(&r.Compress)},
		{Flag: "stop-at", Usage: "with -seed and -snapshot: stop the run at virtual time `DURATION`, such as 2.5s",
			Doc:      "the virtual time to fork the run at, a Go duration such as 2.5s: the first scheduler step at or after it",
			Required: "missing: give the virtual time to fork at, such as 2.5s", Value: cmdspec.Duration(&r.StopAt, 0, func(d time.Duration) error {
				if d <= 0 {
					return cmdspec.Errorf("%v: must be more than 0", d)
				}
				return nil
			})},
		{Flag: "snapshot", Usage: "with -seed and -stop-at: write the world at that moment to `FILE`",
			Doc: "the file to write the snapshot to (sf-run -snapshot)", Required: "missing: name the snapshot file to write",
			Path: cmdspec.Output, Value: cmdspec.String(&r.Snapshot, "")},
		{Flag: "from", Usage: "continue the snapshot in `FILE` as a replay of its seed",
			Doc: "the snapshot file to continue, as sf_fork wrote it (sf-run -from)", Required: "missing: name the snapshot file to continue",
			Path: cmdspec.Input, Value: cmdspec.String(&r.From, "")},
		{Flag: "branch", Usage: "with -from: re-key every random stream of the continued run with `KEY` just after the snapshot, as a schedule's branch does",
			Doc: "re-key every random stream of the continued run with this key just after the snapshot's moment, as a schedule's branch " +
				"there would (sf-run -from FILE -branch KEY): the run a replay of the seed with that branch gives",
			Nullable: true, Value: cmdspec.Key(&r.Branch)},
		{Flag: "explore", Usage: "explore by branching from the passing seeds of -seeds (default 1-10)",
			CLIOnly: "no tool explores yet: an exploration's records go to sf_report", Value: cmdspec.Bool(&r.Explore)},
		{Flag: "explore-runs", Usage: "with -explore: make `N` runs, the starting seeds included",
			CLIOnly: "it goes with -explore", Value: cmdspec.Int(&r.ExploreRuns, explore.DefaultRuns)},
		{Flag: "history-timeout", Usage: "give up a history's check after `DURATION` of real time",
			Doc: "real-time limit of each recorded history's check, a Go duration (default 30s)",
			Value: cmdspec.Duration(&r.HistoryTimeout, historyTimeoutDefault, func(d time.Duration) error {
				if d <= 0 {
					return cmdspec.Errorf("%v: must be more than 0, since checking a history may take exponential time", d)
				}
				return nil
			})},
		{Field: "max_failures", Doc: "how many failing seeds' records to return in full, in seed order (default 20, at most 1000; 0 returns none, only the counts)",
			// 0 is an answer of its own here, not "the default".
			Nullable: true, MCPMax: FailuresMax, Value: cmdspec.Int(&r.MaxFailures, FailuresDefault, cmdspec.NotNegative[int])},
		{Field: "records", Doc: "also write the sweep's JSONL records (sf-run -json) to this file, whole, for sf_report and sf_shrink",
			Path: cmdspec.Output, Value: cmdspec.String(&r.Records, "")},
		{Field: "max_events", Doc: "how many events, and how many lines of output, to return, from the start (default 1000, at most 10000)",
			MCPMax: EventsMax, Value: cmdspec.Int(&r.MaxEvents, EventsDefault, cmdspec.AtLeast(1))},
		{Field: "pattern", Doc: "a Go regular expression (RE2) matched against each trace line after its time; (?i) for any case",
			Required: "missing: give a regular expression, such as FAIL|fault", Value: cmdspec.StringFunc("", r.pattern)},
		{Field: "node", Doc: "only lines naming this node (server: any instance of it) or instance (server#2)",
			Value: cmdspec.String(&r.Node, "")},
		{Field: "max_matches", Doc: "how many matches to return, from the start (default 100, at most 1000)",
			MCPMax: MatchesMax, Value: cmdspec.Int(&r.MaxMatches, MatchesDefault, cmdspec.AtLeast(1))},
		{Field: "replay", Doc: "replay the seed even when sf-run's trace file exists (it may be stale after a code change)",
			Value: cmdspec.Bool(&r.ReplayTrace)},
	}, Tools: []cmdspec.Tool{
		{Name: "sf_run", Description: "Run a world over seeds on the deterministic simulator (sf-run -seeds). Returns the counts, " +
			"the failing seeds with their class, message, artifacts and replay command, the property table with " +
			"margins, and the buggify sites. exit_status 1 means a seed or a property failed.",
			Fields: []string{"config", "profile", "set", "seeds", "shard", "jobs", "check", "history_timeout", "max_failures", "records", "compress"}},
		{Name: "sf_replay", Description: "Replay one seed (sf-run -seed N [-faults FILE]) and return its record, its events (name, node " +
			"instance, virtual time, details as JSON) and, apart, the lines its programs printed. The same seed and " +
			"binary always give the same run.",
			Fields: []string{"config", "profile", "set", "seed", "faults", "max_events", "inspect", "pin"}},
		{Name: "sf_trace_search", Description: "Search one seed's trace with a regular expression, optionally only lines naming a node. " +
			"Reads the trace sf-run wrote under .seedfall/ for a failing seed, or replays the seed when there is none " +
			"(or when replay or faults is given).",
			Fields: []string{"config", "profile", "set", "seed", "pattern", "node", "max_matches", "faults", "replay"},
			Docs: map[string]string{"seed": "the seed whose trace to search",
				"faults": "replay with this fault schedule file instead of reading the trace sf-run wrote"}},
		{Name: "sf_fork", Description: "Run one seed up to a virtual time and write the whole world there to a snapshot file " +
			"(sf-run -seed N -stop-at D -snapshot FILE): every node's memory, disks, network, timers, faults and trace so far. " +
			"sf_resume continues it. Returns the step and time it was taken at and the file's size; with inspect, each node's " +
			"disk and open descriptors at that moment.",
			Fields: []string{"config", "profile", "set", "seed", "stop_at", "snapshot", "inspect"},
			Docs: map[string]string{"seed": "the seed to run and fork",
				"inspect": "also return each node's disk (files, sizes, durable and pending bytes) and its running instance's open " +
					"descriptors (files with their offsets, sockets with their state) at the snapshot (sf-run -snapshot FILE -inspect)"}},
		{Name: "sf_resume", Description: "Continue a snapshot sf_fork wrote (sf-run -from FILE), as a replay of its seed: the same " +
			"record, determinism hash, events and output as sf_replay of that seed. Give the world, profile and set it was " +
			"taken with; a snapshot of another world, module build or sf version is refused, naming the difference. With faults, " +
			"a schedule replaces the seed's faults from the snapshot on; with branch, the random streams are re-keyed just after it.",
			Fields: []string{"config", "profile", "set", "from", "faults", "branch", "max_events", "inspect"},
			Docs: map[string]string{"faults": "a fault schedule file for the rest of the run (sf-run -from FILE -faults FILE): its faults " +
				"and branches after the snapshot's time apply; a branch at or before it is refused"}},
	}}
}

// pattern compiles sf_trace_search's regular expression.
func (r *Run) pattern(p string) error {
	if len(p) > PatternBytesMax {
		return cmdspec.Errorf("%d bytes, more than %d", len(p), PatternBytesMax)
	}
	re, err := regexp.Compile(p)
	r.Pattern = re
	return err
}

// RunMain is sf-run on args (args[0] is its name, as the replay lines it
// prints spell it) with the manual doc; it returns the exit status.
func RunMain(doc string, args []string, s Streams) int {
	r := new(Run)
	spec := runSpec(r)
	return runCommand(spec, "run a world over seeds on the deterministic simulator", doc, args, s, func(c *cli.Context) error {
		if err := manual.NoArgs(c); err != nil {
			return err
		}
		r.Tool, r.Stdin, r.Stdout, r.Stderr = toolName(args), s.Stdin, s.Stdout, s.Stderr
		if r.Explore || spec.Given("explore-runs") {
			return r.exploreMain(spec, c, s)
		}
		if err := r.snapshotFlags(spec); err != nil {
			return err
		}
		if err := r.fromCLI(spec, c); err != nil {
			return err
		}
		return manual.Status(sweep.Main(r.Options))
	})
}

// fromCLI makes r the sweep or the replay the command line asks for.
func (r *Run) fromCLI(spec *cmdspec.Command, c *cli.Context) error {
	switch {
	case spec.Given("seed") && spec.Given("seeds"):
		return usage("give -seed or -seeds, not both")
	case spec.Given("seed"):
		r.Seeds, r.SeedsText, r.Replay = []uint64{r.seed}, c.String("seed"), true
	case spec.Given("shard"):
		if err := r.shard(spec); err != nil {
			return usageError(spec, err)
		}
	}
	switch {
	case spec.Given("shard") && r.Replay:
		return usage("-shard slices a sweep (-seeds), not one seed")
	case r.Pin && !r.Replay:
		return usage("-pin needs -seed N: it pins one failing seed")
	case r.Inspect && !r.Replay:
		return usage("-inspect needs -seed N")
	case r.Faults != "" && !r.Replay:
		return usage("-faults needs -seed N: a schedule belongs to one seed")
	case r.Config == "-" && r.Faults == "-":
		return usage("-c - and -faults - cannot both read stdin")
	}
	if !r.Replay {
		r.JSON, r.PipeNote = wantJSON(spec, r.JSON)
	}
	return nil
}

// snapshotFlags checks -stop-at, -snapshot and -from against the other
// flags; -from makes the run a replay, of the seed the snapshot names.
func (r *Run) snapshotFlags(spec *cmdspec.Command) error {
	switch {
	case r.From != "":
		for _, f := range []string{"seed", "seeds", "shard", "check", "pin", "snapshot", "stop-at"} {
			if spec.Given(f) {
				return usage("-from does not take -%s: it continues the snapshot's own seed", f)
			}
		}
		r.Replay, r.Branched = true, spec.Given("branch")
	case spec.Given("branch"):
		return usage("-branch needs -from FILE: it branches the run a snapshot continues")
	case spec.Given("snapshot") != spec.Given("stop-at"):
		return usage("-snapshot FILE and -stop-at DURATION go together")
	case r.Snapshot != "":
		if !spec.Given("seed") {
			return usage("-snapshot needs -seed N: it snapshots one seed's run")
		}
		for _, f := range []string{"check", "pin", "faults", "json"} {
			if spec.Given(f) {
				return usage("-snapshot does not take -%s", f)
			}
		}
		if r.Snapshot == "-" {
			return usage("-snapshot writes a file, not stdout")
		}
	}
	return nil
}

// shard keeps the slice of the seeds -shard or a call's shard names.
func (r *Run) shard(spec *cmdspec.Command) error {
	if r.shardN > len(r.Seeds) {
		return spec.Errorf("shard", "%s: the sweep has only %d seeds, fewer than its %d shards", r.Shard, len(r.Seeds), r.shardN)
	}
	r.Seeds = sweep.ShardSeeds(r.Seeds, r.shardK, r.shardN)
	return nil
}

// RunFromMCP reads a call of sf_run, sf_replay or sf_trace_search (tool)
// as sf-run reads its flags; paths checks the paths it names. The result
// runs with sweep.Main, its Tool and streams still to set.
func RunFromMCP(tool string, args json.RawMessage, paths cmdspec.PathCheck) (*Run, error) {
	r := new(Run)
	spec := runSpec(r)
	if err := spec.FromMCP(tool, args, paths); err != nil {
		return nil, err
	}
	r.JSON = true
	if tool != "sf_run" {
		r.Seeds, r.SeedsText, r.Replay, r.Jobs = []uint64{r.seed}, strconv.FormatUint(r.seed, 10), true, 1
		r.Branched = spec.Given("branch")
		return r, nil
	}
	if err := seedsBound(spec, r.Seeds, r.SeedsText, ": split it (shard, or smaller ranges)"); err != nil {
		return nil, err
	}
	if spec.Given("shard") {
		if err := r.shard(spec); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func usage(format string, args ...any) error {
	return manual.Usage("sf-run", format, args...)
}

// wantJSON says whether a sweep or an exploration writes records, and
// whether it was stdout being a pipe that chose them (which the tool then
// says on stderr). Piped into another tool (sf-report, sf-shrink), records
// are what that tool reads, and the report still reaches the terminal on
// stderr; -json=false keeps the report on the pipe.
func wantJSON(spec *cmdspec.Command, json bool) (bool, bool) {
	return sweep.ChooseJSON(spec.Given("json"), json, os.Stdout)
}

// toolName is how the user invoked sf-run, for the replay commands it prints.
func toolName(args []string) string {
	if len(args) > 0 && args[0] != "" {
		return args[0]
	}
	return "sf-run"
}

// exploreMain is sf-run -explore. It takes the world's flags and -seeds,
// -j, -compress and -explore-runs; the other flags of a sweep or a replay
// mean nothing to it.
func (r *Run) exploreMain(spec *cmdspec.Command, c *cli.Context, s Streams) error {
	if !r.Explore {
		return usage("-explore-runs needs -explore")
	}
	for _, f := range []string{"seed", "faults", "shard", "check", "inspect", "history-timeout", "pin", "stop-at", "snapshot", "from", "branch"} {
		if spec.Given(f) {
			return usage("-explore does not take -%s", f)
		}
	}
	if n := r.ExploreRuns; n < 1 || n > explore.MaxRuns {
		return usage("-explore-runs %d: must be between 1 and %d", n, explore.MaxRuns)
	}
	if r.Config == "-" {
		return usage("-explore reads the world from a file, not stdin")
	}
	if !spec.Given("seeds") {
		seeds, err := config.ParseSeeds("1-10")
		if err != nil {
			return err
		}
		r.Seeds, r.SeedsText = seeds, "1-10"
	}
	o := explore.Options{Seeds: r.Seeds, Runs: r.ExploreRuns, Jobs: r.Jobs, Config: r.Config, Profile: r.Profile, Set: r.Set,
		Tool: r.Tool, SeedsText: r.SeedsText, Compress: r.Compress}
	o.JSON, o.PipeNote = wantJSON(spec, r.JSON)
	return manual.Status(explore.Main(o, s.Stdout, s.Stderr))
}
