package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/manual"

	"github.com/sf-dst/sf/lib/build"
	"github.com/sf-dst/sf/lib/config"
)

//go:embed doc.go
var docSource string

func main() {
	app := &cli.App{
		Name:            "sf-build",
		Usage:           "build a world's Go packages for wasip1 and print the manifest",
		UsageText:       "sf-build [-c seedfall.json] [-q]",
		HideHelpCommand: true,
		// Errors are printed below, prefixed with the tool's name; urfave/cli
		// would otherwise print them bare and exit on its own.
		ExitErrHandler: func(*cli.Context, error) {},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "c", Value: "seedfall.json", Usage: "the world file"},
			&cli.BoolFlag{Name: "q", Usage: "no progress lines on stderr"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cli.Exit(fmt.Sprintf("unexpected argument %q (see sf-build -h)", c.Args().First()), 2)
			}
			w, err := config.Load(c.String("c"))
			if err != nil {
				return cli.Exit(err.Error(), 2)
			}
			var log io.Writer = os.Stderr
			if c.Bool("q") {
				log = nil
			}
			man, err := build.Build(w, build.Options{Log: log, LogCached: true, NetOverlay: w.NetOverlay})
			if err != nil {
				return cli.Exit(err.Error(), 2)
			}
			data, _ := json.MarshalIndent(man, "", "  ")
			fmt.Println(string(data))
			return nil
		},
	}
	manual.Install(app, docSource)
	if err := app.Run(os.Args); err != nil {
		if ec, ok := err.(cli.ExitCoder); ok {
			if ec.Error() != "" {
				fmt.Fprintln(os.Stderr, "sf-build:", ec.Error())
			}
			os.Exit(ec.ExitCode())
		}
		fmt.Fprintln(os.Stderr, "sf-build:", err)
		os.Exit(2)
	}
}
