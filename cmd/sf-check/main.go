package main

import (
	_ "embed"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/check"
	"github.com/sf-dst/sf/lib/history"
	"github.com/sf-dst/sf/lib/manual"
)

//go:embed doc.go
var docSource string

func main() {
	app := &cli.App{
		Name:            "sf-check",
		Usage:           "check a recorded history for linearizability or serializability",
		HideHelpCommand: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "history", Usage: "the history file, - for standard input"},
			&cli.StringFlag{Name: "model", Value: check.ModelDefault, Usage: "kv, cas, append, queue, set, counter or list-append"},
			&cli.StringFlag{Name: "format", Value: "auto", Usage: "auto, jsonl or edn"},
			&cli.StringFlag{Name: "timeline", Usage: "where to write the timeline of a violation (default: next to the history)"},
			&cli.BoolFlag{Name: "json", Usage: "print a JSON verdict record"},
			&cli.DurationFlag{Name: "timeout", Value: check.TimeoutDefault, Usage: "give up checking linearizability after this much real time"},
			&cli.Int64Flag{Name: "max-bytes", Value: history.InputBytesMax, Usage: "refuse a history larger than this many bytes (each line is limited to 64 MiB)"},
		},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return cli.Exit("sf-check: "+err.Error()+" (see sf-check -h)", check.ExitUsage)
		},
		Action: func(c *cli.Context) error {
			hist := c.String("history")
			switch {
			case c.NArg() > 1 || (c.NArg() == 1 && hist != ""):
				return cli.Exit("sf-check: unexpected argument "+c.Args().Get(c.NArg()-1)+" (see sf-check -h)", check.ExitUsage)
			case c.NArg() == 1:
				hist = c.Args().First()
			case hist == "" && isTerminal(os.Stdin):
				return cli.Exit("sf-check: no history: give -history FILE, or - to read standard input (see sf-check -h)", check.ExitUsage)
			case hist == "":
				hist = "-"
			}
			if c.Int64("max-bytes") < 1 {
				return cli.Exit("sf-check: -max-bytes must be at least 1 (see sf-check -h)", check.ExitUsage)
			}
			code := check.Command(check.CommandOptions{
				History:  hist,
				Model:    c.String("model"),
				Format:   c.String("format"),
				Timeline: c.String("timeline"),
				JSON:     c.Bool("json"),
				Timeout:  c.Duration("timeout"),
				MaxBytes: c.Int64("max-bytes"),
			})
			if code != 0 {
				return cli.Exit("", code)
			}
			return nil
		},
	}
	// -h prints the manual, which is this command's package documentation,
	// and the flags with their defaults.
	manual.Install(app, docSource)
	if err := app.Run(os.Args); err != nil {
		if ec, ok := err.(cli.ExitCoder); ok {
			if msg := ec.Error(); msg != "" {
				fmt.Fprintln(os.Stderr, msg)
			}
			os.Exit(ec.ExitCode())
		}
		fmt.Fprintln(os.Stderr, "sf-check:", err, "(see sf-check -h)")
		os.Exit(check.ExitUsage)
	}
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
