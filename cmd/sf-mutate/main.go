package main

import (
	_ "embed"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/manual"
	"github.com/sf-dst/sf/lib/mutate"
	"github.com/sf-dst/sf/lib/stopsignal"
)

//go:embed doc.go
var docSource string

func main() {
	stopsignal.Install(stopsignal.StopWork)
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// run is sf-mutate on the given arguments (args[0] is its name) and
// streams; it returns the exit status. Tests call it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return manual.Main(manual.Command{
		Name:  "sf-mutate",
		Usage: "measure whether a world's checks catch the bugs they exist for",
		Doc:   docSource,
		Flags: []cli.Flag{
			manual.WorldFlag(),
			&cli.StringFlag{Name: "seeds", DefaultText: "1-100", Usage: "the seeds each mutant runs, a `RANGE` such as 1-500, 7 or 1-5,9"},
			&cli.StringFlag{Name: "only", Usage: "run only the runtime mutants in `LIST`, separated by commas"},
			&cli.BoolFlag{Name: "app", Usage: "mutate the node packages' source instead of the simulated world"},
			&cli.IntFlag{Name: "mutants", Value: mutate.DefaultAppMutants, Usage: "with -app: pick `N` source mutants"},
			&cli.StringFlag{Name: "md", Usage: "also write the result as a Markdown table to `FILE`"},
			manual.ProfileFlag(),
			manual.SetFlag(),
			manual.JobsFlag("run `N` seeds at once"),
			manual.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usage("unexpected argument %q: sf-mutate takes only flags", c.Args().First())
			}
			if err := manual.OutputFile("sf-mutate", "md", c.String("md")); err != nil {
				return err
			}
			cmd := mutate.Command{Config: c.String("c"), Profile: c.String("profile"), Set: c.StringSlice("set"),
				App: c.Bool("app"), AppMutants: c.Int("mutants"), Jobs: c.Int("j"), JSON: c.Bool("json"),
				Markdown: c.String("md"), Tool: manual.Sibling(args, "sf-mutate"), RunTool: manual.Sibling(args, "sf-run"),
				Stdin: stdin, Stdout: stdout, Stderr: stderr}
			seeds, text, err := manual.Seeds(c)
			if err != nil {
				return err
			}
			cmd.Seeds, cmd.SeedsText = seeds, text
			if c.IsSet("only") {
				for _, n := range strings.Split(c.String("only"), ",") {
					if n = strings.TrimSpace(n); n != "" {
						cmd.Only = append(cmd.Only, n)
					}
				}
				if len(cmd.Only) == 0 {
					return usage("-only is empty: name runtime mutants, such as fsync_noop,net_dup_chunk")
				}
				if err := mutate.ValidateOnly(cmd.Only); err != nil {
					return usage("%v", err)
				}
			}
			switch {
			case cmd.App && len(cmd.Only) > 0:
				return usage("-only picks runtime mutants and cannot be combined with -app")
			case c.IsSet("mutants") && !cmd.App:
				return usage("-mutants needs -app")
			case cmd.AppMutants < 1:
				return usage("-mutants must be at least 1")
			case cmd.Jobs < 1:
				return usage("-j must be at least 1")
			}
			return manual.Status(mutate.Main(cmd))
		},
	}, args, stdin, stdout, stderr)
}

func usage(format string, args ...any) error {
	return manual.Usage("sf-mutate", format, args...)
}
