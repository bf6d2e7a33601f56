package manual

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/echo"
	"github.com/sf-dst/sf/lib/exitcode"
	"github.com/sf-dst/sf/lib/progress"
)

// Command is one sf command as its main.go describes it: what differs from
// one command to the next. Main sets up the rest as every command has it.
type Command struct {
	// Name is the command's name; Usage says in a line what it does.
	Name, Usage string
	Flags       []cli.Flag
	Action      cli.ActionFunc
	// Doc is the source of the command's doc.go, whose package comment is
	// its manual: -h prints a page of it (Page), help manual all of it.
	Doc string
}

// Main runs the command on args (args[0] is its name as invoked) and the
// streams given, and returns the exit status (Run). Its app prints one page
// of help for -h (Page), and never splits a slice flag at commas, since
// -set and -add values are JSON. "NAME help" prints that page too, and
// "NAME help manual" the whole manual (Manual); for a command that reads
// files named as arguments, ./help names a file called help.
func Main(c Command, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := &cli.App{
		Name:                      c.Name,
		Usage:                     c.Usage,
		HideHelpCommand:           true,
		DisableSliceFlagSeparator: true,
		Reader:                    stdin,
		Writer:                    stdout,
		ErrWriter:                 stderr,
		Flags:                     c.Flags,
		Action:                    c.Action,
		// After -h, before any work: a progress interval that does not
		// read is a usage error of every tool, not lines that never come.
		Before: func(*cli.Context) error {
			if _, err := progress.Interval(); err != nil {
				return Usage(c.Name, "%v", err)
			}
			return nil
		},
	}
	Install(app, c.Doc)
	if len(args) >= 2 && args[1] == "help" {
		return help(app, c.Doc, args[2:])
	}
	return Run(app, args)
}

// help is "NAME help [manual]".
func help(app *cli.App, doc string, topic []string) int {
	switch {
	case len(topic) == 0:
		Page(app.Writer, app, doc)
	case len(topic) == 1 && topic[0] == "manual":
		Manual(app.Writer, app, doc)
	default:
		fmt.Fprintf(app.ErrWriter, "%s: help %s: the topics are none (this page) and manual (the whole manual) (see %s -h)\n",
			app.Name, strings.Join(topic, " "), app.Name)
		return exitcode.Usage
	}
	return exitcode.Pass
}

// Status is what an Action returns for the exit status code of the work it
// did, whose reasons were printed already: nil for 0.
func Status(code int) error {
	if code != 0 {
		return cli.Exit("", code)
	}
	return nil
}

// NoArgs is the usage error of a command that takes only flags and was
// given an argument; nil when it was given none.
func NoArgs(c *cli.Context) error {
	if c.NArg() > 0 {
		return Usage(c.App.Name, "unexpected argument %s", echo.Quote(c.Args().First()))
	}
	return nil
}

// The flags several commands share, spelled and explained alike.

// WorldFlag is -c, the world file, seedfall.json unless given.
func WorldFlag() cli.Flag {
	return &cli.StringFlag{Name: "c", Value: "seedfall.json", Usage: "the world `FILE`"}
}

// ProfileFlag is -profile, a named profile of the world file.
func ProfileFlag() cli.Flag {
	return &cli.StringFlag{Name: "profile", Usage: "apply the world file's profile `NAME`"}
}

// SetFlag is -set, an override of a world-file field.
func SetFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "set", Usage: "override a world-file field, `PATH=VALUE` (repeatable)"}
}

// JobsFlag is -j, how many runs go at once, as many as the machine has
// CPUs unless given; usage says what runs, with its placeholder
// ("run `N` seeds at once").
func JobsFlag(usage string) cli.Flag {
	n := runtime.NumCPU()
	return &cli.IntFlag{Name: "j", Value: n, DefaultText: fmt.Sprintf("%d, the number of CPUs", n), Usage: usage}
}

// JSONFlag is -json, records instead of the report on stdout.
func JSONFlag() cli.Flag {
	return &cli.BoolFlag{Name: "json", Usage: "write JSONL records on stdout"}
}

// Seed reads -seed, one seed, or returns its usage error.
func Seed(c *cli.Context) (uint64, error) {
	s, err := strconv.ParseUint(c.String("seed"), 10, 64)
	if err != nil {
		return 0, Usage(c.App.Name, "-seed: %s is not a seed (a whole number)", echo.Quote(c.String("seed")))
	}
	return s, nil
}

// Seeds reads -seeds, 1-100 unless given, and returns the seeds and the
// text they were read from, or its usage error.
func Seeds(c *cli.Context) ([]uint64, string, error) {
	text := c.String("seeds")
	switch {
	case c.IsSet("seeds") && strings.TrimSpace(text) == "":
		return nil, "", Usage(c.App.Name, "-seeds is empty: give seeds such as 1-100, 7 or 1-5,9")
	case text == "":
		text = "1-100"
	}
	seeds, err := config.ParseSeeds(text)
	if err != nil {
		return nil, "", Usage(c.App.Name, "-seeds: %v", err)
	}
	return seeds, text, nil
}

// Sibling is how a command's replay lines call another sf command, name:
// the one next to this command's binary when it was run by a path
// (args[0]), else name alone, from PATH.
func Sibling(args []string, name string) string {
	if len(args) > 0 && filepath.Base(args[0]) != args[0] {
		return filepath.Join(filepath.Dir(args[0]), name)
	}
	return name
}
