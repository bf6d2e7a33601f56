package commands

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/check"
	"github.com/sf-dst/sf/lib/cmdspec"
	"github.com/sf-dst/sf/lib/history"
	"github.com/sf-dst/sf/lib/manual"
	"github.com/sf-dst/sf/lib/progress"
)

// Check is what sf-check's options fill, and sf_check's fields.
type Check struct {
	check.CommandOptions
}

func checkSpec(c *Check) *cmdspec.Command {
	return &cmdspec.Command{Name: "sf-check", Options: []*cmdspec.Option{
		{Flag: "history", Usage: "the history `FILE` (- for stdin); or give it as the argument",
			Doc: "the history file (JSONL or EDN, maybe zstd or gzip compressed)", Required: "missing: name the history file",
			Stdin: true, Path: cmdspec.Input, Value: cmdspec.String(&c.History, "")},
		{Flag: "model", Usage: "check against `MODEL`: " + check.ModelList(), Doc: "the model to check against (default kv)",
			Value: cmdspec.String(&c.Model, check.ModelDefault)},
		{Flag: "format", Usage: "read the history as `FORMAT`: auto, jsonl or edn", Doc: "auto, jsonl or edn (default auto)",
			Value: cmdspec.String(&c.Format, "auto")},
		{Flag: "timeline", DefaultText: "next to the history", Usage: "write the timeline of a violation to `FILE`",
			Doc: "where to write the timeline of a violation (default: next to the history)", Path: cmdspec.Output,
			Value: cmdspec.String(&c.Timeline, "")},
		jsonOption(&c.JSON, "print a JSON verdict record"),
		{Flag: "timeout", Usage: "give up a linearizability check after `DURATION` of real time (more than 0)",
			Doc: "give up checking linearizability after this much real time, a Go duration (default 30s)",
			Value: cmdspec.Duration(&c.Timeout, check.TimeoutDefault, func(d time.Duration) error {
				if d <= 0 {
					return cmdspec.Errorf("%v: must be more than 0, since checking linearizability may take exponential time", d)
				}
				return nil
			})},
		{Flag: "max-steps", Usage: "give up a linearizability check after `N` model steps per key (0: no limit)",
			Doc:   "give up after this many model steps per key, the same on every machine (default: no step limit)",
			Value: cmdspec.Int64(&c.MaxSteps, 0, cmdspec.NotNegative[int64])},
		{Flag: "max-bytes", DefaultText: fmt.Sprintf("%d, 1 GiB", history.InputBytesMax),
			Usage:   "refuse a history of more than `N` bytes (a line holds at most 64 MiB)",
			CLIOnly: "a server reads histories up to the default bound", Value: cmdspec.Int64(&c.MaxBytes, history.InputBytesMax, cmdspec.AtLeast[int64](1))},
	}, Tools: []cmdspec.Tool{
		{Name: "sf_check", Description: "Check a recorded history for linearizability or serializability (sf-check). Returns the " +
			"verdict, the anomalies and the timeline file of a violation.",
			Fields: []string{"history", "model", "format", "timeline", "timeout", "max_steps"}},
	}}
}

// CheckMain is sf-check on args (args[0] is its name) with the manual doc;
// it returns the exit status.
func CheckMain(doc string, args []string, s Streams) int {
	ch := new(Check)
	spec := checkSpec(ch)
	return runCommand(spec, "check a recorded history for linearizability or serializability", doc, args, s, func(c *cli.Context) error {
		switch {
		case c.NArg() > 1 || (c.NArg() == 1 && ch.History != ""):
			return manual.Usage("sf-check", "unexpected argument %s", c.Args().Get(c.NArg()-1))
		case c.NArg() == 1:
			ch.History = c.Args().First()
		case ch.History == "" && progress.IsTerminal(s.Stdin):
			return manual.Usage("sf-check", "no history: give -history FILE, or - to read standard input")
		case ch.History == "":
			ch.History = "-"
		}
		ch.MapInput, ch.Stdin, ch.Stdout, ch.Stderr = true, s.Stdin, s.Stdout, s.Stderr
		return manual.Status(check.Command(ch.CommandOptions))
	})
}

// CheckFromMCP reads a call of sf_check as sf-check reads its flags;
// paths checks the paths it names. The result runs with check.Command, its
// streams still to set.
func CheckFromMCP(args json.RawMessage, paths cmdspec.PathCheck) (*Check, error) {
	c := new(Check)
	if err := checkSpec(c).FromMCP("sf_check", args, paths); err != nil {
		return nil, err
	}
	c.JSON = true
	return c, nil
}
