// Package manual gives the sf commands what they share around urfave/cli:
// -h prints the command's package documentation, read from its own doc.go,
// followed by its flags with their defaults, so the manual and godoc never
// drift apart; and Run turns what the app returned into an exit status and
// one line on standard error.
package manual

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/exitcode"
)

// Text returns the package comment at the top of a doc.go file as plain
// text.
func Text(docSource string) string {
	var b strings.Builder
	for _, line := range strings.Split(docSource, "\n") {
		if !strings.HasPrefix(line, "//") {
			break
		}
		line = strings.TrimPrefix(strings.TrimPrefix(line, "//"), " ")
		b.WriteString(line + "\n")
	}
	return b.String()
}

// metadataKey is where Install keeps the manual in the app's Metadata.
const metadataKey = "sf-manual"

var installPrinter sync.Once

// Install makes -h print the manual and the app's flags, each with a single
// dash as the tools spell them, on the app's Writer.
//
// urfave/cli prints help through a package variable, cli.HelpPrinter. It is
// set once, to a printer that finds the manual in the app it is given, so
// that any number of apps may be built and run in one process, one after the
// other or at once. An app without a manual gets urfave/cli's own help.
func Install(app *cli.App, docSource string) {
	if app.Metadata == nil {
		app.Metadata = map[string]any{}
	}
	app.Metadata[metadataKey] = docSource
	installPrinter.Do(func() {
		fallback := cli.HelpPrinter
		cli.HelpPrinter = func(w io.Writer, templ string, data any) {
			app, ok := data.(*cli.App)
			if !ok {
				fallback(w, templ, data)
				return
			}
			doc, ok := app.Metadata[metadataKey].(string)
			if !ok {
				fallback(w, templ, data)
				return
			}
			printManual(w, app, doc)
		}
	})
}

func printManual(w io.Writer, app *cli.App, docSource string) {
	fmt.Fprint(w, Text(docSource))
	fmt.Fprintln(w, "\nFlags:")
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	defer tw.Flush()
	for _, f := range app.Flags {
		if f == cli.HelpFlag {
			continue // listed last, in the tools' spelling
		}
		if df, ok := f.(cli.DocGenerationFlag); ok {
			line := "  -" + f.Names()[0]
			if df.TakesValue() {
				line += " value"
			}
			line += "\t" + df.GetUsage()
			if v := df.GetValue(); v != "" && v != "false" {
				line += " (default " + v + ")"
			}
			fmt.Fprintln(tw, line)
		}
	}
	fmt.Fprintln(tw, "  -h, -help\tprint this manual")
}

// Usage returns a usage error of the command name: exit status
// exitcode.Usage, with a pointer to the manual.
func Usage(name, format string, args ...any) error {
	return cli.Exit(fmt.Sprintf(format, args...)+" (see "+name+" -h)", exitcode.Usage)
}

// Run runs app on args (args[0] is the command's name as invoked) and
// returns the exit status. It makes the app write to the writers it was
// given, never straight to os.Stdout or os.Stderr, and never exit the
// process: a flag the app cannot parse is a usage error, and an error is
// printed as one line on the app's ErrWriter, prefixed with the app's name.
// Flags may follow the other arguments (see FlagsFirst).
// The app's Action reports a status with cli.Exit; an empty message prints
// nothing, for a status whose reason was printed already.
func Run(app *cli.App, args []string) int {
	app.ExitErrHandler = func(*cli.Context, error) {}
	if app.OnUsageError == nil {
		app.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
			return Usage(app.Name, "%v", err)
		}
	}
	err := app.Run(FlagsFirst(app, args))
	if err == nil {
		return exitcode.Pass
	}
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		if msg := ec.Error(); msg != "" {
			fmt.Fprintf(app.ErrWriter, "%s: %s\n", app.Name, msg)
		}
		return ec.ExitCode()
	}
	fmt.Fprintf(app.ErrWriter, "%s: %v (see %s -h)\n", app.Name, err, app.Name)
	return exitcode.Usage
}

// FlagsFirst returns args with every flag of app (and its value) moved ahead
// of the arguments that are not flags, keeping their order, so that
// "sf-check h.jsonl -model cas" means what "sf-check -model cas h.jsonl"
// does: urfave/cli, like the flag package, stops parsing flags at the first
// argument that is not one. args[0] is the command's name. "--" ends the
// flags, as "-" is an argument (standard input), and an argument after "--"
// stays an argument.
func FlagsFirst(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range app.Flags {
		df, ok := f.(cli.DocGenerationFlag)
		for _, name := range f.Names() {
			takesValue[name] = ok && df.TakesValue()
		}
	}
	flags := []string{args[0]}
	var rest []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i+1:]...)
			i = len(args)
		case len(a) < 2 || a[0] != '-':
			rest = append(rest, a)
		default:
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		}
	}
	if len(rest) == 0 {
		return flags
	}
	return append(append(flags, "--"), rest...)
}
