package main

import (
	_ "embed"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/manual"
	"github.com/sf-dst/sf/lib/shrink"
)

//go:embed doc.go
var docSource string

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// run is sf-shrink on the given arguments (args[0] is its name) and streams;
// it returns the exit status. Tests call it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return manual.Main(manual.Command{
		Name:      "sf-shrink",
		Usage:     "cut a failing seed down to the faults that make it fail",
		UsageText: "sf-shrink -c seedfall.json -seed N [-faults FILE] [-pin] | sf-run ... -json | sf-shrink [-max 10] [-pin] [-cause]",
		Doc:       docSource,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "c", Usage: "the world file (with -seed)"},
			&cli.StringFlag{Name: "seed", Usage: "the failing seed to shrink"},
			&cli.StringFlag{Name: "faults", Usage: "with -seed: shrink this schedule instead of the seed's own faults"},
			&cli.StringFlag{Name: "profile", Usage: "with -seed: apply this named profile of the world file"},
			&cli.StringSliceFlag{Name: "set", Usage: "with -seed: override a world-file field, path=value (repeatable)"},
			&cli.IntFlag{Name: "max", Value: shrink.DefaultMax, Usage: "reading records: shrink at most this many failing seeds"},
			manual.JobsFlag("replays run at once"),
			manual.JSONFlag(),
			&cli.BoolFlag{Name: "pin", Usage: "also store each shrunk schedule as a pinned regression under .seedfall/pinned/, which every sweep of sf-run replays first"},
			&cli.BoolFlag{Name: "cause", Usage: "instead of shrinking, branch each failing seed at moments up to its failure and show how often it still fails"},
			&cli.IntFlag{Name: "cause-moments", Value: shrink.DefaultCauseMoments, Usage: "with -cause: moments spread over the run, and latest faults to branch around"},
			&cli.IntFlag{Name: "cause-branches", Value: shrink.DefaultCauseBranches, Usage: "with -cause: branches run at each moment"},
		},
		Action: func(c *cli.Context) error {
			cmd := shrink.Command{Config: c.String("c"), Profile: c.String("profile"), Set: c.StringSlice("set"),
				Faults: c.String("faults"), Max: c.Int("max"), Jobs: c.Int("j"), JSON: c.Bool("json"), Pin: c.Bool("pin"), RunTool: manual.Sibling(args, "sf-run"),
				Cause: c.Bool("cause"), CauseMoments: c.Int("cause-moments"), CauseBranches: c.Int("cause-branches"),
				Stdin: stdin, Stdout: stdout, Stderr: stderr}
			switch {
			case c.Int("j") < 1:
				return usage("-j must be at least 1")
			case c.Int("max") < 1:
				return usage("-max must be at least 1")
			case (c.IsSet("cause-moments") || c.IsSet("cause-branches")) && !c.Bool("cause"):
				return usage("-cause-moments and -cause-branches need -cause")
			case c.Int("cause-moments") < 1 || c.Int("cause-branches") < 1:
				return usage("-cause-moments and -cause-branches must be at least 1")
			case c.Int("cause-moments") > 1000 || c.Int("cause-branches") > 1000:
				return usage("-cause-moments and -cause-branches must be at most 1000")
			case c.Bool("cause") && c.IsSet("faults"):
				return usage("-cause branches the seed's own faults; it does not take -faults")
			case c.IsSet("seed"):
				s, err := manual.Seed(c)
				if err != nil {
					return err
				}
				if c.NArg() > 0 {
					return usage("give -seed or record files, not both")
				}
				cmd.Seed, cmd.HasSeed = s, true
				if cmd.Config == "" {
					cmd.Config = "seedfall.json"
				}
			default:
				for _, f := range []string{"c", "faults", "profile", "set"} {
					if c.IsSet(f) {
						return usage("-%s needs -seed N; reading records, the world comes from them", f)
					}
				}
				cmd.Inputs = c.Args().Slice()
			}
			return manual.Status(shrink.Main(cmd))
		},
	}, args, stdin, stdout, stderr)
}

func usage(format string, args ...any) error {
	return manual.Usage("sf-shrink", format, args...)
}
