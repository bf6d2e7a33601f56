package main

import (
	_ "embed"
	"io"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/manual"
	"github.com/sf-dst/sf/lib/stopsignal"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/explore"
	"github.com/sf-dst/sf/lib/sweep"
)

//go:embed doc.go
var docSource string

func main() {
	stopsignal.Install(stopsignal.StopWork)
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// run is sf-run on the given arguments (args[0] is its name, as the replay
// lines it prints spell it) and streams; it returns the exit status. Tests
// call it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return manual.Main(manual.Command{
		Name:  "sf-run",
		Usage: "run a world over seeds on the deterministic simulator",
		Doc:   docSource,
		Flags: []cli.Flag{
			manual.WorldFlag(),
			&cli.StringFlag{Name: "seeds", DefaultText: "1-100", Usage: "the seeds to run, a `RANGE` such as 1-500, 7 or 1-5,9"},
			&cli.StringFlag{Name: "seed", Usage: "replay seed `N` alone and print its whole trace"},
			&cli.StringFlag{Name: "faults", Usage: "with -seed: apply the schedule in `FILE` (- for stdin), drawing no faults"},
			manual.JobsFlag("run `N` seeds at once"),
			&cli.BoolFlag{Name: "check", Usage: "run every seed twice and fail a seed whose two runs differ"},
			&cli.BoolFlag{Name: "json", Usage: "JSONL records on stdout, the report on stderr (on a pipe, unasked)"},
			&cli.StringFlag{Name: "shard", Usage: "run only the K-th of N slices of the seeds, `K/N` such as 2/4"},
			manual.ProfileFlag(),
			&cli.BoolFlag{Name: "inspect", Usage: "with -seed: list each node's files and disk use after the run"},
			&cli.StringSliceFlag{Name: "set", Usage: "override a world-file field, `PATH=VALUE` (repeatable)"},
			&cli.BoolFlag{Name: "pin", Usage: "with -seed: pin the failing schedule, which every sweep then replays first"},
			&cli.BoolFlag{Name: "compress", Usage: "write traces and histories as zstd files (seed-N.trace.log.zst)"},
			&cli.BoolFlag{Name: "explore", Usage: "explore by branching from the passing seeds of -seeds (default 1-10)"},
			&cli.IntFlag{Name: "explore-runs", Value: explore.DefaultRuns, Usage: "with -explore: make `N` runs, the starting seeds included"},
			&cli.DurationFlag{Name: "history-timeout", Value: 30 * time.Second, Usage: "give up a history's check after `DURATION` of real time"},
		},
		Action: func(c *cli.Context) error {
			if err := manual.NoArgs(c); err != nil {
				return err
			}
			o := sweep.Options{Config: c.String("c"), Jobs: c.Int("j"), Check: c.Bool("check"), JSON: c.Bool("json"),
				Faults: c.String("faults"), Tool: toolName(args), Profile: c.String("profile"), Set: c.StringSlice("set"),
				HistoryTimeout: c.Duration("history-timeout"), Inspect: c.Bool("inspect"), Compress: c.Bool("compress"), Pin: c.Bool("pin"),
				Stdin: stdin, Stdout: stdout, Stderr: stderr}
			if c.Bool("explore") || c.IsSet("explore-runs") {
				return exploreMain(c, args, stdout, stderr)
			}
			if o.HistoryTimeout <= 0 {
				return usage("-history-timeout %v: must be more than 0, since checking a history may take exponential time", o.HistoryTimeout)
			}
			switch {
			case c.IsSet("seed") && c.IsSet("seeds"):
				return usage("give -seed or -seeds, not both")
			case c.IsSet("seed"):
				s, err := manual.Seed(c)
				if err != nil {
					return err
				}
				o.Seeds, o.SeedsText, o.Replay = []uint64{s}, c.String("seed"), true
			default:
				seeds, text, err := manual.Seeds(c)
				if err != nil {
					return err
				}
				o.Seeds, o.SeedsText = seeds, text
				if c.IsSet("shard") {
					k, n, err := sweep.ParseShard(c.String("shard"))
					if err != nil {
						return usage("-shard: %v", err)
					}
					if n > len(seeds) {
						return usage("-shard %s: the sweep has only %d seeds, fewer than its %d shards", c.String("shard"), len(seeds), n)
					}
					o.Seeds, o.Shard = sweep.ShardSeeds(seeds, k, n), c.String("shard")
				}
			}
			if c.IsSet("shard") && o.Replay {
				return usage("-shard slices a sweep (-seeds), not one seed")
			}
			if o.Pin && !o.Replay {
				return usage("-pin needs -seed N: it pins one failing seed")
			}
			if o.Inspect && !o.Replay {
				return usage("-inspect needs -seed N")
			}
			if o.Faults != "" && !o.Replay {
				return usage("-faults needs -seed N: a schedule belongs to one seed")
			}
			if o.Config == "-" && o.Faults == "-" {
				return usage("-c - and -faults - cannot both read stdin")
			}
			if o.Jobs < 1 {
				return usage("-j must be at least 1")
			}
			if !o.Replay {
				o.JSON, o.PipeNote = wantJSON(c)
			}
			return manual.Status(sweep.Main(o))
		},
	}, args, stdin, stdout, stderr)
}

func usage(format string, args ...any) error {
	return manual.Usage("sf-run", format, args...)
}

// wantJSON says whether a sweep or an exploration writes records, and
// whether it was stdout being a pipe that chose them (which the tool then
// says on stderr). Piped into another tool (sf-report, sf-shrink), records
// are what that tool reads, and the report still reaches the terminal on
// stderr; -json=false keeps the report on the pipe.
func wantJSON(c *cli.Context) (json, pipeNote bool) {
	return sweep.ChooseJSON(c.IsSet("json"), c.Bool("json"), os.Stdout)
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
func exploreMain(c *cli.Context, args []string, stdout, stderr io.Writer) error {
	if !c.Bool("explore") {
		return usage("-explore-runs needs -explore")
	}
	for _, f := range []string{"seed", "faults", "shard", "check", "inspect", "history-timeout", "pin"} {
		if c.IsSet(f) {
			return usage("-explore does not take -%s", f)
		}
	}
	if c.Int("j") < 1 {
		return usage("-j must be at least 1")
	}
	if n := c.Int("explore-runs"); n < 1 || n > explore.MaxRuns {
		return usage("-explore-runs %d: must be between 1 and %d", n, explore.MaxRuns)
	}
	if c.String("c") == "-" {
		return usage("-explore reads the world from a file, not stdin")
	}
	text := "1-10"
	if c.IsSet("seeds") {
		text = c.String("seeds")
	}
	seeds, err := config.ParseSeeds(text)
	if err != nil {
		return usage("-seeds: %v", err)
	}
	o := explore.Options{Seeds: seeds, Runs: c.Int("explore-runs"), Jobs: c.Int("j"), Config: c.String("c"),
		Profile: c.String("profile"), Set: c.StringSlice("set"), Tool: toolName(args), SeedsText: text, Compress: c.Bool("compress")}
	o.JSON, o.PipeNote = wantJSON(c)
	return manual.Status(explore.Main(o, stdout, stderr))
}
