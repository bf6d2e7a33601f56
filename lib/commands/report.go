package commands

import (
	"encoding/json"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/cmdspec"
	"github.com/sf-dst/sf/lib/manual"
	"github.com/sf-dst/sf/lib/report"
)

// Report is what sf-report's options fill, and sf_report's fields.
type Report struct {
	report.Options
}

func reportSpec(r *Report) *cmdspec.Command {
	return &cmdspec.Command{Name: "sf-report", Options: []*cmdspec.Option{
		{Flag: "md", Usage: "also write the report as Markdown to `FILE` (- for stdout, instead of the text)",
			Doc: "also write the report as Markdown to this file", Path: cmdspec.Output, Value: cmdspec.String(&r.Markdown, "")},
		{Flag: "html", Usage: "also write the report as one HTML page to `FILE` (- for stdout, instead of the text)",
			Doc: "also write the report as one self-contained HTML page to this file", Path: cmdspec.Output, Value: cmdspec.String(&r.HTML, "")},
		{Flag: "findings", DefaultText: "each world's .seedfall/findings.json", Usage: "keep findings across runs in `FILE`; \"\" keeps none",
			Doc:      "the file that keeps findings across runs (default: each world's .seedfall/findings.json, next to its world file); empty to keep none",
			Nullable: true, Path: cmdspec.Output, Value: cmdspec.String(&r.Findings, "")},
		{Field: "records", Args: true, Doc: "sf-run and sf-shrink record files (JSONL, maybe compressed), shards of one sweep merged",
			Required: "missing: name sf-run or sf-shrink record files", Stdin: true, Path: cmdspec.Input, Value: cmdspec.Strings(&r.Inputs)},
	}, Tools: []cmdspec.Tool{
		{Name: "sf_report", Description: "Report what sweeps found from sf-run and sf-shrink record files (sf-report): findings grouped " +
			"by failure, their status across runs, property and buggify tables; optionally Markdown and HTML files.",
			Fields: []string{"records", "md", "html", "findings"}},
	}}
}

// ReportMain is sf-report on args (args[0] is its name) with the manual
// doc; it returns the exit status.
func ReportMain(doc string, args []string, s Streams) int {
	r := new(Report)
	spec := reportSpec(r)
	return runCommand(spec, "report what sweeps found, as text, Markdown or one HTML page", doc, args, s, func(*cli.Context) error {
		if r.Markdown == "-" && r.HTML == "-" {
			return manual.Usage("sf-report", "-md - and -html - cannot both write stdout")
		}
		r.FindingsByWorld, r.Now = !spec.Given("findings"), report.Now(os.Getenv("SOURCE_DATE_EPOCH"))
		r.Stdin, r.Stdout, r.Stderr = s.Stdin, s.Stdout, s.Stderr
		return manual.Status(report.Main(r.Options))
	})
}

// ReportFromMCP reads a call of sf_report as sf-report reads its flags and
// arguments; paths checks the paths it names.
func ReportFromMCP(args json.RawMessage, paths cmdspec.PathCheck) (*Report, error) {
	r := new(Report)
	spec := reportSpec(r)
	if err := spec.FromMCP("sf_report", args, paths); err != nil {
		return nil, err
	}
	r.FindingsByWorld, r.Now = !spec.Given("findings"), report.Now(os.Getenv("SOURCE_DATE_EPOCH"))
	return r, nil
}
