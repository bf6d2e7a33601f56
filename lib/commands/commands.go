// Package commands is each sf command that an MCP tool serves, declared
// once (lib/cmdspec): its options, which become its flags and its tools'
// input schemas, and what both do with them before the command's lib/
// code runs. cmd/sf-* run a command's Main; lib/mcpserver reads a tool
// call with the command's FromMCP function and runs the same lib/ code.
//
// What only one surface has stays with it: the command line's modes
// (sf-run's -seed, -explore), its arguments and -json; a call's bounds on
// what one call may ask and return.
package commands

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/cmdspec"
	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/manual"
)

// SeedsMax bounds the seeds of one sf_run or sf_mutate call.
const SeedsMax = 10000

// JobsMax bounds the jobs of one sf_shrink or sf_mutate call.
const JobsMax = 1024

// jsonCLIOnly is why -json is a flag only.
const jsonCLIOnly = "a tool always returns the records, decoded"

// Spec is a command's declaration, made for a fresh variable to fill,
// with that variable: what tests read both surfaces into and compare.
type Spec struct {
	Name string
	New  func() (*cmdspec.Command, any)
}

// Specs are the declarations of every command an MCP tool serves.
func Specs() []Spec {
	return []Spec{
		{"sf-run", func() (*cmdspec.Command, any) { r := new(Run); return runSpec(r), r }},
		{"sf-shrink", func() (*cmdspec.Command, any) { s := new(Shrink); return shrinkSpec(s), s }},
		{"sf-check", func() (*cmdspec.Command, any) { c := new(Check); return checkSpec(c), c }},
		{"sf-faults", func() (*cmdspec.Command, any) { f := new(Faults); return faultsSpec(f), f }},
		{"sf-mutate", func() (*cmdspec.Command, any) { m := new(Mutate); return mutateSpec(m), m }},
		{"sf-report", func() (*cmdspec.Command, any) { r := new(Report); return reportSpec(r), r }},
	}
}

// Streams are the standard streams a command's Main is given.
type Streams struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// runCommand runs a command on args with its spec's flags: the action is
// given the context once the options are read, their errors made usage
// errors.
func runCommand(spec *cmdspec.Command, usage, doc string, args []string, s Streams, action func(c *cli.Context) error) int {
	return manual.Main(manual.Command{
		Name:  spec.Name,
		Usage: usage,
		Doc:   doc,
		Flags: spec.Flags(),
		Action: func(c *cli.Context) error {
			if err := spec.FromCLI(c); err != nil {
				return usageError(spec, err)
			}
			return action(c)
		},
	}, args, s.Stdin, s.Stdout, s.Stderr)
}

// usageError is err as the command line says a usage error: "sf-run: -j
// must be at least 1 (see sf-run -h)".
func usageError(spec *cmdspec.Command, err error) error {
	return manual.Usage(spec.Name, "%v", err)
}

// The options several commands share, spelled and explained alike.

// WorldFlag is -c as the commands no tool serves take it (sf-build).
func WorldFlag() cli.Flag { return worldOption(new(string)).CLIFlag() }

// worldOption is -c, the world file, config in a call.
func worldOption(to *string) *cmdspec.Option {
	return &cmdspec.Option{Flag: "c", Field: "config", Usage: "the world `FILE`",
		Doc:      "the world file (seedfall.json), relative to the server's working directory",
		Required: "missing: name the world file, such as seedfall.json",
		Stdin:    true, Path: cmdspec.World, Value: cmdspec.String(to, "seedfall.json")}
}

// profileOption is -profile, a named profile of the world file.
func profileOption(to *string) *cmdspec.Option {
	return &cmdspec.Option{Flag: "profile", Usage: "apply the world file's profile `NAME`",
		Doc: "apply this named profile of the world file", Value: cmdspec.String(to, "")}
}

// setOption is -set, overrides of world-file fields.
func setOption(to *[]string) *cmdspec.Option {
	return &cmdspec.Option{Flag: "set", Usage: "override a world-file field, `PATH=VALUE` (repeatable)",
		Doc:   "overrides of world-file fields, path=value, applied in order (faults.crash_per_sec=1)",
		Value: cmdspec.Strings(to)}
}

// jobsOption is -j, how many runs go at once, as many as the machine has
// CPUs unless given; usage says what runs ("run `N` seeds at once"), doc
// says it to an agent, and max bounds a call.
func jobsOption(to *int, usage, doc string, max int) *cmdspec.Option {
	n := runtime.NumCPU()
	return &cmdspec.Option{Flag: "j", Field: "jobs", Usage: usage, Doc: doc, MCPMax: max,
		DefaultText: fmt.Sprintf("%d, the number of CPUs", n), Value: cmdspec.Int(to, n, cmdspec.AtLeast(1))}
}

// jsonOption is -json, records instead of the report on stdout.
func jsonOption(to *bool, usage string) *cmdspec.Option {
	return &cmdspec.Option{Flag: "json", Usage: usage, CLIOnly: jsonCLIOnly, Value: cmdspec.Bool(to)}
}

// seedsOption is -seeds, read into seeds and text; usage and doc say what
// the seeds do.
func seedsOption(seeds *[]uint64, text *string, usage, doc string) *cmdspec.Option {
	return &cmdspec.Option{Flag: "seeds", Usage: usage, Doc: doc, DefaultText: "1-100",
		Value: cmdspec.StringFunc("1-100", func(s string) error {
			if strings.TrimSpace(s) == "" {
				return cmdspec.Errorf("is empty: give seeds such as 1-100, 7 or 1-5,9")
			}
			parsed, err := config.ParseSeeds(s)
			if err != nil {
				return err
			}
			*seeds, *text = parsed, s
			return nil
		})}
}

// seedsBound is a call's error for more seeds than one call may run; hint
// is added to it.
func seedsBound(spec *cmdspec.Command, seeds []uint64, text, hint string) error {
	if len(seeds) > SeedsMax {
		return spec.Errorf("seeds", "%s is %d seeds, more than the %d one call may run%s", text, len(seeds), SeedsMax, hint)
	}
	return nil
}
