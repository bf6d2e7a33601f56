package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/build"
	"github.com/sf-dst/sf/lib/commands"
	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/exitcode"
	"github.com/sf-dst/sf/lib/manual"
	"github.com/sf-dst/sf/lib/stopsignal"
)

//go:embed doc.go
var docSource string

func main() {
	stopsignal.Install(stopsignal.ExitAtOnce)
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// run is sf-build on the given arguments (args[0] is its name) and streams;
// it returns the exit status. Tests call it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return manual.Main(manual.Command{
		Name:  "sf-build",
		Usage: "build a world's Go packages for wasip1 and print the manifest",
		Doc:   docSource,
		Flags: []cli.Flag{
			commands.WorldFlag(),
			&cli.BoolFlag{Name: "q", Usage: "quiet: no progress lines on stderr"},
		},
		Action: func(c *cli.Context) error {
			if err := manual.NoArgs(c); err != nil {
				return err
			}
			w, err := config.LoadWith(c.String("c"), config.LoadOptions{Stdin: stdin})
			if err != nil {
				return cli.Exit(err.Error(), exitcode.Usage)
			}
			log := stderr
			if c.Bool("q") {
				log = nil
			}
			man, err := build.Build(w, build.Options{Log: log, LogCached: true, NetOverlay: w.NetOverlay, CompatOverlay: w.CompatOverlay})
			if err != nil {
				return cli.Exit(err.Error(), exitcode.Usage)
			}
			data, _ := json.MarshalIndent(man, "", "  ")
			fmt.Fprintln(stdout, string(data))
			return nil
		},
	}, args, stdin, stdout, stderr)
}
