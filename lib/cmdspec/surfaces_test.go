package cmdspec_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/cmdspec"
	"github.com/sf-dst/sf/lib/commands"
)

// TestEveryFlagServed: every flag of a command an MCP tool serves is a
// field of one of its tools, or says why it is not; every field is an
// option's (issue 24). A flag added to sf-run without a field in sf_run
// or sf_replay, and without a reason, fails here.
func TestEveryFlagServed(t *testing.T) {
	for _, sp := range commands.Specs() {
		spec, _ := sp.New()
		if err := spec.Validate(); err != nil {
			t.Error(err)
		}
		if len(spec.Tools) == 0 {
			t.Errorf("%s: no tool serves it", sp.Name)
		}
	}
}

// extra are values particular to an option, by command and key, given
// both ways besides the samples of its type.
var extra = map[string][]cmdspec.Sample{
	"sf-run seeds":    {{CLI: []string{"1-3"}, MCP: "1-3"}, {CLI: []string{"3-1"}, MCP: "3-1"}, {CLI: []string{"1-5,9"}, MCP: "1-5,9"}},
	"sf-run shard":    {{CLI: []string{"2/4"}, MCP: "2/4"}, {CLI: []string{"5/4"}, MCP: "5/4"}, {CLI: []string{"0/4"}, MCP: "0/4"}},
	"sf-mutate seeds": {{CLI: []string{"1-3"}, MCP: "1-3"}},
	"sf-mutate only":  {{CLI: []string{"fsync_noop,net_dup_chunk"}, MCP: []string{"fsync_noop", "net_dup_chunk"}}},
	"sf-check model":  {{CLI: []string{"queue"}, MCP: "queue"}},
	"sf-check format": {{CLI: []string{"jsonl"}, MCP: "jsonl"}},
}

// TestSurfacesAgree gives every option that is both a flag and a field
// the same values both ways, and wants the same result: the variable the
// command runs with filled alike, or the same error (issue 24). A bad
// value that the command line and a tool call word differently fails
// here, as does a value they read differently.
func TestSurfacesAgree(t *testing.T) {
	for _, sp := range commands.Specs() {
		spec, _ := sp.New()
		for _, o := range spec.Options {
			if (o.Flag == "" && !cmdspec.ArgsOf(o)) || o.CLIOnly != "" {
				continue
			}
			tool := toolFor(spec, o)
			if tool == nil {
				continue
			}
			samples := append(cmdspec.SamplesOf(o), extra[sp.Name+" "+o.Key()]...)
			for _, s := range samples {
				name := fmt.Sprintf("%s %s %s %q", sp.Name, tool.Name, o.Key(), s.CLI)
				t.Run(name, func(t *testing.T) { agree(t, sp, tool, o.Key(), s) })
			}
		}
	}
}

// toolFor is the first tool that takes o and whose required fields the
// command line can give too.
func toolFor(spec *cmdspec.Command, o *cmdspec.Option) *cmdspec.Tool {
	for i := range spec.Tools {
		t := &spec.Tools[i]
		has, expressible := false, true
		for _, f := range t.Fields {
			fo := spec.FieldOption(f)
			has = has || fo == o
			if fo.Required != "" && fo.Flag == "" && !cmdspec.ArgsOf(fo) {
				expressible = false
			}
		}
		if has && expressible {
			return t
		}
	}
	return nil
}

// required are the values both ways of a tool's required fields.
var required = map[string]cmdspec.Sample{
	"config":   {CLI: []string{"w.json"}, MCP: "w.json"},
	"seed":     {CLI: []string{"3"}, MCP: 3},
	"history":  {CLI: []string{"h.jsonl"}, MCP: "h.jsonl"},
	"records":  {CLI: []string{"r.jsonl"}, MCP: []string{"r.jsonl"}},
	"stop_at":  {CLI: []string{"2s"}, MCP: "2s"},
	"snapshot": {CLI: []string{"s.snap"}, MCP: "s.snap"},
	"from":     {CLI: []string{"s.snap"}, MCP: "s.snap"},
}

// agree reads the option key as s gives it, with the tool's required
// fields, from a command line and from a call, and compares.
func agree(t *testing.T, sp commands.Spec, tool *cmdspec.Tool, key string, s cmdspec.Sample) {
	cliSpec, cliVar := sp.New()
	mcpSpec, mcpVar := sp.New()
	args := []string{sp.Name}
	var positional []string
	fields := map[string]any{}
	give := func(o *cmdspec.Option, s cmdspec.Sample) {
		fields[o.FieldName()] = s.MCP
		switch {
		case cmdspec.ArgsOf(o):
			positional = append(positional, s.CLI...)
		case s.CLI == nil:
			args = append(args, "-"+o.Flag)
		default:
			for _, v := range s.CLI {
				args = append(args, "-"+o.Flag+"="+v)
			}
		}
	}
	for _, f := range tool.Fields {
		o := cliSpec.FieldOption(f)
		if o.Key() == key {
			give(o, s)
		} else if r, ok := required[f]; ok && o.Required != "" {
			give(o, r)
		}
	}
	args = append(args, positional...)

	app := &cli.App{Name: sp.Name, Flags: cliSpec.Flags(), DisableSliceFlagSeparator: true,
		Action: func(c *cli.Context) error { return cliSpec.FromCLI(c) }}
	app.ExitErrHandler = func(*cli.Context, error) {}
	cliErr := app.Run(args)
	raw, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	mcpErr := mcpSpec.FromMCP(tool.Name, raw, nil)

	switch {
	case cliErr == nil && mcpErr == nil:
		if !reflect.DeepEqual(cliVar, mcpVar) {
			t.Errorf("%q and %s read differently:\n%+v\n%+v", args, raw, cliVar, mcpVar)
		}
	case cliErr == nil || mcpErr == nil:
		t.Errorf("%q: %v; %s: %v", args, cliErr, raw, mcpErr)
	default:
		var ce, me *cmdspec.Error
		if !errors.As(cliErr, &ce) || !errors.As(mcpErr, &me) {
			t.Fatalf("errors of another kind: %q: %v; %s: %v", args, cliErr, raw, mcpErr)
		}
		if ce.Text() != me.Text() {
			t.Errorf("one bad value, two errors:\n%q: %v\n%s: %v", args, cliErr, raw, mcpErr)
		}
	}
}
