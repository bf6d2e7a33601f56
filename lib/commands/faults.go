package commands

import (
	"encoding/json"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/cmdspec"
	"github.com/sf-dst/sf/lib/faultsedit"
	"github.com/sf-dst/sf/lib/manual"
)

// Faults is what sf-faults' options fill, and sf_faults_edit's fields.
type Faults struct {
	faultsedit.Options
}

func faultsSpec(f *Faults) *cmdspec.Command {
	return &cmdspec.Command{Name: "sf-faults", Options: []*cmdspec.Option{
		worldOption(&f.Config),
		{Flag: "seed", Usage: "the seed `N` whose schedule to list or edit (required)", Doc: "the seed whose schedule to list or edit",
			Required: "missing: name the seed whose schedule to list or edit", Value: cmdspec.Seed(&f.Seed)},
		{Flag: "faults", DefaultText: "the seed's artifact, else its run", Usage: "start from the schedule in `FILE` (- for stdin)",
			Doc:   "the schedule file to start from (default: the seed's .seedfall/<world>/seed-N.shrunk.faults.json, else its seed-N.faults.json, else the faults the seed draws)",
			Stdin: true, Path: cmdspec.Input, Value: cmdspec.String(&f.Options.Faults, "")},
		{Flag: "remove", Usage: "remove fault `N`, counting from 1 as listed (repeatable)",
			Doc: "remove these faults, by position in the listing, from 1", Value: cmdspec.Numbers(&f.Remove)},
		{Flag: "shift", Usage: "move a fault, `N=AMOUNT`: 2=-50ms in time, 2=+2 at a numbered event (repeatable)",
			Doc: "move faults: N=-50ms for a fault in time, N=+2 for one at a numbered operation", Value: cmdspec.Strings(&f.Shift)},
		{Flag: "add", Usage: "add a fault written as in a schedule, `JSON` such as {\"at\":\"1s\",\"kind\":...} (repeatable)",
			Doc:   "add faults, each as a schedule's fault object: {\"at\":\"1s\",\"kind\":\"pause\",\"node\":\"server\",\"until\":\"1.5s\"}",
			Value: cmdspec.Objects(&f.Add)},
		{Flag: "out", DefaultText: "the file it came from", Usage: "write the result to `FILE`",
			Doc: "write the result here (default: the file it came from)", Path: cmdspec.Output, Value: cmdspec.String(&f.Out, "")},
		jsonOption(&f.JSON, "write the resulting schedule on stdout and the listing on stderr"),
		profileOption(&f.Profile),
		setOption(&f.Set),
	}, Tools: []cmdspec.Tool{
		{Name: "sf_faults_edit", Description: "List, edit and check one seed's fault schedule (sf-faults): remove, shift or add faults, " +
			"write the result and return it with the sf-run command that replays it.",
			Fields: []string{"config", "profile", "set", "seed", "faults", "remove", "shift", "add", "out"}},
	}}
}

// FaultsMain is sf-faults on args (args[0] is its name) with the manual
// doc; it returns the exit status.
func FaultsMain(doc string, args []string, s Streams) int {
	f := new(Faults)
	spec := faultsSpec(f)
	return runCommand(spec, "list, edit and check one seed's fault schedule", doc, args, s, func(c *cli.Context) error {
		if err := manual.NoArgs(c); err != nil {
			return err
		}
		if !spec.Given("seed") {
			return manual.Usage("sf-faults", "-seed N is required: a schedule belongs to one seed")
		}
		f.RunTool, f.Stdin, f.Stdout, f.Stderr = manual.Sibling(args, "sf-run"), s.Stdin, s.Stdout, s.Stderr
		return manual.Status(faultsedit.Main(f.Options))
	})
}

// FaultsFromMCP reads a call of sf_faults_edit as sf-faults reads its
// flags; paths checks the paths it names. The result runs with
// faultsedit.Main, its RunTool and streams still to set.
func FaultsFromMCP(args json.RawMessage, paths cmdspec.PathCheck) (*Faults, error) {
	f := new(Faults)
	if err := faultsSpec(f).FromMCP("sf_faults_edit", args, paths); err != nil {
		return nil, err
	}
	f.JSON = true
	return f, nil
}
