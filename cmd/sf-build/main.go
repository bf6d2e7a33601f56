// Sf-build compiles the Go packages of a world for GOOS=wasip1 GOARCH=wasm
// into a content-addressed store and prints the manifest.
//
// Usage:
//
//	sf-build [-c seedfall.json] [-q]
//
// Each node's pkg is built with -trimpath into
// .seedfall/build/<sha256>.wasm next to the world file; nodes that name a
// prebuilt wasm module are copied into the store unchanged. The manifest
// (node, package, module path, sha256, size, and whether the module was
// already in the store) is written to .seedfall/build/manifest.json and
// printed on stdout; progress lines go to stderr. sf-run builds what it needs
// by itself, so sf-build is for Makefiles, caches and CI steps.
//
// Exit status: 0 built, 2 bad usage or input (a broken world file, a
// missing package, a compile error, no Go toolchain).
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/build"
	"github.com/sf-dst/sf/lib/config"
)

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
