package main

import (
	_ "embed"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/manual"
	"github.com/sf-dst/sf/lib/report"
	"github.com/sf-dst/sf/lib/stopsignal"
)

//go:embed doc.go
var docSource string

func main() {
	stopsignal.Install(stopsignal.ExitAtOnce)
	os.Exit(manual.Main(manual.Command{
		Name:  "sf-report",
		Usage: "report what sweeps found, as text, Markdown or one HTML page",
		Doc:   docSource,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "md", Usage: "also write the report as Markdown to `FILE` (- for stdout, instead of the text)"},
			&cli.StringFlag{Name: "html", Usage: "also write the report as one HTML page to `FILE` (- for stdout, instead of the text)"},
			&cli.StringFlag{Name: "findings", DefaultText: "each world's .seedfall/findings.json",
				Usage: "keep findings across runs in `FILE`; \"\" keeps none"},
		},
		Action: func(c *cli.Context) error {
			o := report.Options{Inputs: c.Args().Slice(), Markdown: c.String("md"), HTML: c.String("html"),
				Findings: c.String("findings"), FindingsByWorld: !c.IsSet("findings"), Now: report.Now(os.Getenv("SOURCE_DATE_EPOCH"))}
			if o.Markdown == "-" && o.HTML == "-" {
				return manual.Usage("sf-report", "-md - and -html - cannot both write stdout")
			}
			for _, f := range []string{"md", "html", "findings"} {
				if err := manual.OutputFile("sf-report", f, c.String(f)); err != nil {
					return err
				}
			}
			return manual.Status(report.Main(o))
		},
	}, os.Args, os.Stdin, os.Stdout, os.Stderr))
}
