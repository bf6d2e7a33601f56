package main

import (
	_ "embed"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/faultsedit"
	"github.com/sf-dst/sf/lib/manual"
)

//go:embed doc.go
var docSource string

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// run is sf-faults on the given arguments (args[0] is its name) and streams;
// it returns the exit status. Tests call it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return manual.Main(manual.Command{
		Name:        "sf-faults",
		Usage:       "list, edit and check one seed's fault schedule",
		UsageText:   "sf-faults -c seedfall.json -seed N [-faults FILE] [-remove N] [-shift N=AMOUNT] [-add JSON] [-out FILE] [-json]",
		Description: "Removes, shifts or adds faults of a seed's schedule, checks the result against the world, writes it and prints the sf-run command that replays it. Exit status: 0 done, 2 usage or input error.",
		Doc:         docSource,
		Flags: []cli.Flag{
			manual.WorldFlag(),
			&cli.StringFlag{Name: "seed", Usage: "the seed whose schedule to edit (required)"},
			&cli.StringFlag{Name: "faults", Usage: "the schedule to start from (- for stdin); default the seed's .seedfall/<world>/seed-N.faults.json, else the faults the seed draws"},
			&cli.StringSliceFlag{Name: "remove", Usage: "remove fault N, counting from 1 as listed (repeatable)"},
			&cli.StringSliceFlag{Name: "shift", Usage: "move fault N: N=-50ms for a fault in time, N=+2 for one at a numbered disk op, read, hit or datagram (repeatable)"},
			&cli.StringSliceFlag{Name: "add", Usage: `add one fault, as JSON: {"at":"1s","kind":"pause","node":"server","until":"1.5s"} (repeatable)`},
			&cli.StringFlag{Name: "out", Usage: "write the result here; default the file it came from"},
			&cli.BoolFlag{Name: "json", Usage: "write the resulting schedule on stdout and the listing on stderr"},
			manual.ProfileFlag(),
			manual.SetFlag(),
		},
		Action: func(c *cli.Context) error {
			if err := manual.NoArgs(c); err != nil {
				return err
			}
			if !c.IsSet("seed") {
				return usage("-seed N is required: a schedule belongs to one seed")
			}
			seed, err := manual.Seed(c)
			if err != nil {
				return err
			}
			o := faultsedit.Options{Config: c.String("c"), Seed: seed, Faults: c.String("faults"),
				Profile: c.String("profile"), Set: c.StringSlice("set"), Remove: c.StringSlice("remove"),
				Shift: c.StringSlice("shift"), Add: c.StringSlice("add"), Out: c.String("out"), JSON: c.Bool("json"),
				RunTool: runTool(args), Stdin: stdin, Stdout: stdout, Stderr: stderr}
			return manual.Status(faultsedit.Main(o))
		},
	}, args, stdin, stdout, stderr)
}

func usage(format string, args ...any) error {
	return manual.Usage("sf-faults", format, args...)
}

// runTool is how the replay line calls sf-run: next to this sf-faults when
// the user called it by a path (bin/sf-faults gives bin/sf-run), else by
// name.
func runTool(args []string) string {
	if len(args) == 0 || !strings.Contains(args[0], "/") {
		return "sf-run"
	}
	return args[0][:strings.LastIndex(args[0], "/")+1] + "sf-run"
}
