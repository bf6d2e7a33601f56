package commands

import (
	"encoding/json"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/cmdspec"
	"github.com/sf-dst/sf/lib/manual"
	"github.com/sf-dst/sf/lib/shrink"
)

// ShrinkMax bounds sf_shrink's max: each shrink replays its seed tens of
// times.
const ShrinkMax = 100

// causeMax bounds -cause-moments and -cause-branches.
const causeMax = 1000

// Shrink is what sf-shrink's options fill, and sf_shrink's fields.
type Shrink struct {
	shrink.Command
}

func shrinkSpec(s *Shrink) *cmdspec.Command {
	return &cmdspec.Command{Name: "sf-shrink", Options: []*cmdspec.Option{
		{Flag: "c", Field: "config", Usage: "with -seed: the world `FILE`", Doc: "with seed: the world file (seedfall.json)",
			Stdin: true, Path: cmdspec.World, Value: cmdspec.String(&s.Config, "seedfall.json")},
		{Flag: "seed", Usage: "shrink the failing seed `N`", Doc: "the failing seed to shrink (with config)", Nullable: true,
			Value: cmdspec.Seed(&s.Seed)},
		{Flag: "faults", Usage: "with -seed: shrink the schedule in `FILE` instead of the seed's own faults",
			Doc: "with seed: shrink this schedule file instead of the seed's own faults", Stdin: true, Path: cmdspec.Input,
			Value: cmdspec.String(&s.Faults, "")},
		{Flag: "profile", Usage: "with -seed: apply the world file's profile `NAME`", Doc: "with seed: apply this named profile of the world file",
			Value: cmdspec.String(&s.Profile, "")},
		{Flag: "set", Usage: "with -seed: override a world-file field, `PATH=VALUE` (repeatable)",
			Doc: "with seed: overrides of world-file fields, path=value, applied in order", Value: cmdspec.Strings(&s.Set)},
		{Flag: "max", Usage: "reading records: shrink at most `N` failing seeds",
			Doc: "with records: shrink at most this many failing seeds (default 10, at most 100)", MCPMax: ShrinkMax,
			Value: cmdspec.Int(&s.Max, shrink.DefaultMax, cmdspec.AtLeast(1))},
		jobsOption(&s.Jobs, "run `N` replays at once", "replays run at once (default: the number of CPUs)", JobsMax),
		jsonOption(&s.JSON, "write JSONL records on stdout"),
		{Flag: "pin", Usage: "also pin each shrunk schedule, which every sweep of sf-run then replays first",
			Doc: "also store each shrunk schedule as a pinned regression under .seedfall/pinned/ (sf-shrink -pin)", Value: cmdspec.Bool(&s.Pin)},
		{Flag: "cause", Usage: "instead of shrinking, show how often branches of each seed still fail",
			CLIOnly: "no tool draws cause curves yet: sf_shrink only shrinks", Value: cmdspec.Bool(&s.Cause)},
		{Flag: "cause-moments", Usage: "with -cause: branch at `K` moments, and around the K latest faults",
			CLIOnly: "it goes with -cause", Value: cmdspec.Int(&s.CauseMoments, shrink.DefaultCauseMoments)},
		{Flag: "cause-branches", Usage: "with -cause: run `M` branches at each moment",
			CLIOnly: "it goes with -cause", Value: cmdspec.Int(&s.CauseBranches, shrink.DefaultCauseBranches)},
		{Field: "records", Args: true, Doc: "instead of seed: sf-run -json record files whose failing seeds to shrink",
			Stdin: true, Path: cmdspec.Input, Value: cmdspec.Strings(&s.Inputs)},
	}, Tools: []cmdspec.Tool{
		{Name: "sf_shrink", Description: "Cut a failing seed's faults down to those that make it fail (sf-shrink), from a seed or from " +
			"sf-run record files. Returns each shrunk schedule's file, fault counts and replay command.",
			Fields: []string{"config", "profile", "set", "seed", "faults", "records", "max", "jobs", "pin"}},
	}}
}

// recordsNeedSeed is the error of a world option given when the seeds
// come from records, which name their worlds.
func recordsNeedSeed(spec *cmdspec.Command) error {
	for _, f := range []string{"c", "faults", "profile", "set"} {
		if spec.Given(f) {
			return spec.Needs(f, "seed", "reading records, the world comes from them")
		}
	}
	return nil
}

// ShrinkMain is sf-shrink on args (args[0] is its name) with the manual
// doc; it returns the exit status.
func ShrinkMain(doc string, args []string, s Streams) int {
	sh := new(Shrink)
	spec := shrinkSpec(sh)
	return runCommand(spec, "cut a failing seed down to the faults that make it fail", doc, args, s, func(c *cli.Context) error {
		sh.RunTool, sh.Stdin, sh.Stdout, sh.Stderr = manual.Sibling(args, "sf-run"), s.Stdin, s.Stdout, s.Stderr
		usage := func(format string, args ...any) error { return manual.Usage("sf-shrink", format, args...) }
		switch {
		case (spec.Given("cause-moments") || spec.Given("cause-branches")) && !sh.Cause:
			return usage("-cause-moments and -cause-branches need -cause")
		case sh.CauseMoments < 1 || sh.CauseBranches < 1:
			return usage("-cause-moments and -cause-branches must be at least 1")
		case sh.CauseMoments > causeMax || sh.CauseBranches > causeMax:
			return usage("-cause-moments and -cause-branches must be at most %d", causeMax)
		case sh.Cause && spec.Given("faults"):
			return usage("-cause branches the seed's own faults; it does not take -faults")
		case spec.Given("seed") && spec.Given("records"):
			return usage("give -seed or record files, not both")
		case spec.Given("seed"):
			sh.HasSeed = true
		default:
			if err := recordsNeedSeed(spec); err != nil {
				return usageError(spec, err)
			}
		}
		return manual.Status(shrink.Main(sh.Command))
	})
}

// ShrinkFromMCP reads a call of sf_shrink as sf-shrink reads its flags;
// paths checks the paths it names. The result runs with shrink.Main, its
// RunTool, Confine and streams still to set.
func ShrinkFromMCP(args json.RawMessage, paths cmdspec.PathCheck) (*Shrink, error) {
	s := new(Shrink)
	spec := shrinkSpec(s)
	if err := spec.FromMCP("sf_shrink", args, paths); err != nil {
		return nil, err
	}
	s.JSON = true
	switch {
	case spec.Given("seed") && spec.Given("records"):
		return nil, spec.Errorf("records", "give seed or records, not both")
	case spec.Given("seed"):
		if !spec.Given("c") || strings.TrimSpace(s.Config) == "" {
			return nil, spec.Errorf("c", "missing: name the world file, such as seedfall.json")
		}
		s.HasSeed = true
	case spec.Given("records"):
		if err := recordsNeedSeed(spec); err != nil {
			return nil, err
		}
	default:
		return nil, spec.Errorf("seed", "missing: give config and seed, or records")
	}
	return s, nil
}
