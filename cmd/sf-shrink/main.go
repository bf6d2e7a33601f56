package main

import (
	_ "embed"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/manual"
	"github.com/sf-dst/sf/lib/shrink"
	"github.com/sf-dst/sf/lib/stopsignal"
)

//go:embed doc.go
var docSource string

func main() {
	stopsignal.Install(stopsignal.StopWork)
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// run is sf-shrink on the given arguments (args[0] is its name) and streams;
// it returns the exit status. Tests call it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return manual.Main(manual.Command{
		Name:  "sf-shrink",
		Usage: "cut a failing seed down to the faults that make it fail",
		Doc:   docSource,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "c", DefaultText: "seedfall.json", Usage: "with -seed: the world `FILE`"},
			&cli.StringFlag{Name: "seed", Usage: "shrink the failing seed `N`"},
			&cli.StringFlag{Name: "faults", Usage: "with -seed: shrink the schedule in `FILE` instead of the seed's own faults"},
			&cli.StringFlag{Name: "profile", Usage: "with -seed: apply the world file's profile `NAME`"},
			&cli.StringSliceFlag{Name: "set", Usage: "with -seed: override a world-file field, `PATH=VALUE` (repeatable)"},
			&cli.IntFlag{Name: "max", Value: shrink.DefaultMax, Usage: "reading records: shrink at most `N` failing seeds"},
			manual.JobsFlag("run `N` replays at once"),
			manual.JSONFlag(),
			&cli.BoolFlag{Name: "pin", Usage: "also pin each shrunk schedule, which every sweep of sf-run then replays first"},
			&cli.BoolFlag{Name: "cause", Usage: "instead of shrinking, show how often branches of each seed still fail"},
			&cli.IntFlag{Name: "cause-moments", Value: shrink.DefaultCauseMoments, Usage: "with -cause: branch at `K` moments, and around the K latest faults"},
			&cli.IntFlag{Name: "cause-branches", Value: shrink.DefaultCauseBranches, Usage: "with -cause: run `M` branches at each moment"},
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
