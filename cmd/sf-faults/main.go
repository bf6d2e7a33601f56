package main

import (
	_ "embed"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/faultsedit"
	"github.com/sf-dst/sf/lib/manual"
	"github.com/sf-dst/sf/lib/stopsignal"
)

//go:embed doc.go
var docSource string

func main() {
	stopsignal.Install(stopsignal.ExitAtOnce)
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// run is sf-faults on the given arguments (args[0] is its name) and streams;
// it returns the exit status. Tests call it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return manual.Main(manual.Command{
		Name:  "sf-faults",
		Usage: "list, edit and check one seed's fault schedule",
		Doc:   docSource,
		Flags: []cli.Flag{
			manual.WorldFlag(),
			&cli.StringFlag{Name: "seed", Usage: "the seed `N` whose schedule to list or edit (required)"},
			&cli.StringFlag{Name: "faults", DefaultText: "the seed's artifact, else its run", Usage: "start from the schedule in `FILE` (- for stdin)"},
			&cli.StringSliceFlag{Name: "remove", Usage: "remove fault `N`, counting from 1 as listed (repeatable)"},
			&cli.StringSliceFlag{Name: "shift", Usage: "move a fault, `N=AMOUNT`: 2=-50ms in time, 2=+2 at a numbered event (repeatable)"},
			&cli.StringSliceFlag{Name: "add", Usage: "add a fault written as in a schedule, `JSON` such as {\"at\":\"1s\",\"kind\":...} (repeatable)"},
			&cli.StringFlag{Name: "out", DefaultText: "the file it came from", Usage: "write the result to `FILE`"},
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
			if err := manual.OutputFile("sf-faults", "out", c.String("out")); err != nil {
				return err
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
