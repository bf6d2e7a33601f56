package main

import (
	_ "embed"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/manual"
	"github.com/sf-dst/sf/lib/report"
	"github.com/sf-dst/sf/lib/sweep"
)

//go:embed doc.go
var docSource string

func main() {
	app := &cli.App{
		Name:            "sf-report",
		Usage:           "report what sweeps found, as text, Markdown or one HTML page",
		UsageText:       "sf-run -seeds 1-500 | sf-report [-md FILE] [-html FILE] [-findings FILE] | sf-report [flags] records.jsonl ...",
		HideHelpCommand: true,
		ExitErrHandler:  func(*cli.Context, error) {},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "md", Usage: "also write the report as Markdown to this file (- for stdout, instead of the text)"},
			&cli.StringFlag{Name: "html", Usage: "also write the report as one self-contained HTML page to this file (- for stdout, instead of the text)"},
			&cli.StringFlag{Name: "findings", Value: report.DefaultFindingsFile, Usage: "the file that keeps findings across runs; empty to keep none"},
		},
		Action: func(c *cli.Context) error {
			o := report.Options{Inputs: c.Args().Slice(), Markdown: c.String("md"), HTML: c.String("html"),
				Findings: c.String("findings"), Now: report.Now(os.Getenv("SOURCE_DATE_EPOCH"))}
			if o.Markdown == "-" && o.HTML == "-" {
				return usage("-md - and -html - cannot both write stdout")
			}
			if code := report.Main(o); code != 0 {
				return cli.Exit("", code)
			}
			return nil
		},
	}
	manual.Install(app, docSource)
	if err := app.Run(os.Args); err != nil {
		if ec, ok := err.(cli.ExitCoder); ok {
			if ec.Error() != "" {
				fmt.Fprintln(os.Stderr, "sf-report:", ec.Error())
			}
			os.Exit(ec.ExitCode())
		}
		fmt.Fprintln(os.Stderr, "sf-report:", err)
		os.Exit(sweep.ExitUsage)
	}
}

func usage(format string, args ...any) error {
	return cli.Exit(fmt.Sprintf(format, args...)+" (see sf-report -h)", sweep.ExitUsage)
}
