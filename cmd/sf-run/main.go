// Sf-run runs a world over seeds on the deterministic simulator and reports
// which seeds fail.
//
// Usage:
//
//	sf-run [-c seedfall.json] [-seeds 1-100 | -seed N [-faults FILE]] [-j N] [-check] [-json]
//	       [-profile NAME] [-set path=value ...] [-history-timeout 30s] [-inspect]
//
// It builds the world's packages for wasip1 (as sf-build does), runs every
// seed with its own faults, and prints the first failure in full (what
// failed, the faults before it, and a command that replays it), one line for
// each later failure, the property table, and a summary line. A failing seed
// writes .seedfall/seed-N.trace.log and .seedfall/seed-N.faults.json next to
// the world file.
//
// -seed N replays one seed and prints its whole trace: every fault, every
// line each node printed (with virtual time and instance, such as server#2)
// and the failure, identical to that seed's run in a sweep. With -faults FILE
// the run applies that schedule instead of drawing faults.
//
// -check runs every seed twice and fails a seed whose two runs differ, naming
// the first host call where they part. -json writes JSONL records (start,
// one seed record per seed, summary) on stdout and the human report on
// stderr. -j sets the number of parallel workers; the records do not depend
// on it.
//
// -profile applies a named profile of the world file and -set path=value
// overrides one field (repeatable), after everything else. When the
// workload records a history (sim.Put, sim.Get, sim.Invoke, sim.Txn), the
// run checks it against the world's checker model once the workloads are
// done; -history-timeout bounds that check in real time. -inspect, with
// -seed, lists each node's disk after the run: every file with its size, the
// bytes that would survive a crash and those still pending, the ranges a
// fault corrupted, and how full the disk is.
//
// Exit status: 0 every seed passed, 1 a seed failed or a property was never
// true, 2 bad usage or input (a broken world file, a failed build).
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/sweep"
)

func main() {
	app := &cli.App{
		Name:            "sf-run",
		Usage:           "run a world over seeds on the deterministic simulator",
		UsageText:       "sf-run [-c seedfall.json] [-seeds 1-100 | -seed N [-faults FILE]] [-j N] [-check] [-json]",
		Description:     "Builds the world's Go packages for wasip1, runs each seed with its faults, and reports failures with a command that replays them. Exit status: 0 passed, 1 a seed failed, 2 usage or input error.",
		HideHelpCommand: true,
		// -set values are JSON and may hold commas: never split them.
		DisableSliceFlagSeparator: true,
		// Errors are printed below, prefixed with the tool's name; urfave/cli
		// would otherwise print them bare and exit on its own.
		ExitErrHandler: func(*cli.Context, error) {},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "c", Value: "seedfall.json", Usage: "the world file"},
			&cli.StringFlag{Name: "seeds", Usage: "seeds to run: 1-100, 7, or 1-5,9 (default 1-100)"},
			&cli.StringFlag{Name: "seed", Usage: "replay one seed and print its trace"},
			&cli.StringFlag{Name: "faults", Usage: "with -seed: apply this fault schedule instead of drawing faults"},
			&cli.IntFlag{Name: "j", Value: runtime.NumCPU(), Usage: "parallel workers"},
			&cli.BoolFlag{Name: "check", Usage: "run every seed twice and fail seeds whose runs differ"},
			&cli.BoolFlag{Name: "json", Usage: "write JSONL records on stdout, the report on stderr"},
			&cli.StringFlag{Name: "profile", Usage: "apply this named profile of the world file"},
			&cli.BoolFlag{Name: "inspect", Usage: "with -seed: list each node's files after the run (sizes, durable vs pending bytes, corrupted ranges, disk usage)"},
			&cli.StringSliceFlag{Name: "set", Usage: "override a world-file field, path=value (repeatable): -set faults.crash_per_sec=1"},
			&cli.DurationFlag{Name: "history-timeout", Value: 30 * time.Second, Usage: "real-time limit of each recorded history's check; past it the seed neither passes nor fails on it"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usage("unexpected argument %q", c.Args().First())
			}
			o := sweep.Options{Config: c.String("c"), Jobs: c.Int("j"), Check: c.Bool("check"), JSON: c.Bool("json"),
				Faults: c.String("faults"), Tool: toolName(), Profile: c.String("profile"), Set: c.StringSlice("set"),
				HistoryTimeout: c.Duration("history-timeout"), Inspect: c.Bool("inspect")}
			switch {
			case c.IsSet("seed") && c.IsSet("seeds"):
				return usage("give -seed or -seeds, not both")
			case c.IsSet("seed"):
				s, err := strconv.ParseUint(c.String("seed"), 10, 64)
				if err != nil {
					return usage("-seed: %q is not a seed (a whole number)", c.String("seed"))
				}
				o.Seeds, o.SeedsText, o.Replay = []uint64{s}, c.String("seed"), true
			default:
				text := c.String("seeds")
				if text == "" {
					text = "1-100"
				}
				seeds, err := config.ParseSeeds(text)
				if err != nil {
					return usage("-seeds: %v", err)
				}
				o.Seeds, o.SeedsText = seeds, text
			}
			if o.Inspect && !o.Replay {
				return usage("-inspect needs -seed N")
			}
			if o.Faults != "" && !o.Replay {
				return usage("-faults needs -seed N: a schedule belongs to one seed")
			}
			if o.Jobs < 1 {
				return usage("-j must be at least 1")
			}
			if code := sweep.Main(o); code != 0 {
				return cli.Exit("", code)
			}
			return nil
		},
	}
	if err := app.Run(os.Args); err != nil {
		if ec, ok := err.(cli.ExitCoder); ok {
			if ec.Error() != "" {
				fmt.Fprintln(os.Stderr, "sf-run:", ec.Error())
			}
			os.Exit(ec.ExitCode())
		}
		fmt.Fprintln(os.Stderr, "sf-run:", err)
		os.Exit(sweep.ExitUsage)
	}
}

func usage(format string, args ...any) error {
	return cli.Exit(fmt.Sprintf(format, args...)+" (see sf-run -h)", sweep.ExitUsage)
}

// toolName is how the user invoked sf-run, for the replay commands it prints.
func toolName() string {
	if len(os.Args) > 0 && os.Args[0] != "" {
		return os.Args[0]
	}
	return "sf-run"
}
