package commands

import (
	"encoding/json"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/cmdspec"
	"github.com/sf-dst/sf/lib/manual"
	"github.com/sf-dst/sf/lib/mutate"
)

// MutantsMax bounds sf_mutate's source mutants.
const MutantsMax = 100

// Mutate is what sf-mutate's options fill, and sf_mutate's fields.
type Mutate struct {
	mutate.Command
}

func mutateSpec(m *Mutate) *cmdspec.Command {
	return &cmdspec.Command{Name: "sf-mutate", Options: []*cmdspec.Option{
		worldOption(&m.Config),
		seedsOption(&m.Seeds, &m.SeedsText, "the seeds each mutant runs, a `RANGE` such as 1-500, 7 or 1-5,9",
			"seeds each mutant runs: 1-100, 7 or 1-5,9 (default 1-100); at most 10000"),
		{Flag: "only", Usage: "run only the runtime mutants in `LIST`, separated by commas", Doc: "run only these runtime mutants (fsync_noop, ...)",
			Value: cmdspec.List(&m.Only, func(names []string) error {
				if len(names) == 0 {
					return cmdspec.Errorf("is empty: name runtime mutants, such as fsync_noop,net_dup_chunk")
				}
				return mutate.ValidateOnly(names)
			})},
		{Flag: "app", Usage: "mutate the node packages' source instead of the simulated world", Value: cmdspec.Bool(&m.App)},
		{Flag: "mutants", Usage: "with -app: pick `N` source mutants", Doc: "with app: how many source mutants to pick (default 10, at most 100)",
			MCPMax: MutantsMax, Value: cmdspec.Int(&m.AppMutants, mutate.DefaultAppMutants, cmdspec.AtLeast(1))},
		{Flag: "md", Usage: "also write the result as a Markdown table to `FILE`", Doc: "also write the result as a Markdown table to this file",
			Path: cmdspec.Output, Value: cmdspec.String(&m.Markdown, "")},
		profileOption(&m.Profile),
		setOption(&m.Set),
		jobsOption(&m.Jobs, "run `N` seeds at once", "seeds run at once (default: the number of CPUs)", JobsMax),
		jsonOption(&m.JSON, "write JSONL records on stdout"),
	}, Tools: []cmdspec.Tool{
		{Name: "sf_mutate", Description: "Weaken the simulated world or mutate the program's source and see whether the world's checks " +
			"catch it (sf-mutate). Returns one verdict per mutant and the mutation score.",
			Fields: []string{"config", "profile", "set", "seeds", "only", "app", "mutants", "md", "jobs"}},
	}}
}

// combine is the error of options that do not go together, or nil.
func (m *Mutate) combine(spec *cmdspec.Command) error {
	switch {
	case m.App && len(m.Only) > 0:
		return spec.Errorf("only", "picks runtime mutants and cannot be combined with %s", cmdspec.Ref("app"))
	case spec.Given("mutants") && !m.App:
		return spec.Needs("mutants", "app", "")
	}
	return nil
}

// MutateMain is sf-mutate on args (args[0] is its name) with the manual
// doc; it returns the exit status.
func MutateMain(doc string, args []string, s Streams) int {
	m := new(Mutate)
	spec := mutateSpec(m)
	return runCommand(spec, "measure whether a world's checks catch the bugs they exist for", doc, args, s, func(c *cli.Context) error {
		if c.NArg() > 0 {
			return manual.Usage("sf-mutate", "unexpected argument %q: sf-mutate takes only flags", c.Args().First())
		}
		if err := m.combine(spec); err != nil {
			return usageError(spec, err)
		}
		m.Tool, m.RunTool = manual.Sibling(args, "sf-mutate"), manual.Sibling(args, "sf-run")
		m.Stdin, m.Stdout, m.Stderr = s.Stdin, s.Stdout, s.Stderr
		return manual.Status(mutate.Main(m.Command))
	})
}

// MutateFromMCP reads a call of sf_mutate as sf-mutate reads its flags;
// paths checks the paths it names. The result runs with mutate.Main, its
// Tool, RunTool and streams still to set.
func MutateFromMCP(args json.RawMessage, paths cmdspec.PathCheck) (*Mutate, error) {
	m := new(Mutate)
	spec := mutateSpec(m)
	if err := spec.FromMCP("sf_mutate", args, paths); err != nil {
		return nil, err
	}
	if err := m.combine(spec); err != nil {
		return nil, err
	}
	if err := seedsBound(spec, m.Seeds, m.SeedsText, ""); err != nil {
		return nil, err
	}
	m.JSON = true
	return m, nil
}
