package manual

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

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

// Sibling is how a command's replay lines call another sf command, name:
// the one next to this command's binary when it was run by a path
// (args[0]), that path's folder kept as the user wrote it ("./sf-shrink"
// gives "./sf-run"), else name alone, from PATH.
func Sibling(args []string, name string) string {
	if len(args) > 0 {
		if i := strings.LastIndex(args[0], "/"); i >= 0 {
			return args[0][:i+1] + name
		}
	}
	return name
}
