// Package manual gives the sf commands what they share around urfave/cli.
// A command's manual is the package documentation in its own doc.go, so
// the manual and godoc never drift apart: -h prints one page of it (the
// first paragraph, the usage lines, the flags with their placeholders and
// defaults, and the exit status), and "NAME help manual" prints the whole
// of it followed by the flags. Run turns what the app returned into an
// exit status and one line on standard error, with a "did you mean" for a
// mistyped flag.
package manual

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/exitcode"
)

// Width is the widest line -h and the manual print: they are wrapped to fit
// a terminal 100 columns wide.
const Width = 100

// PageLines is the most lines -h prints, so that it fits one terminal page;
// the rest of the manual is one command away (help manual).
const PageLines = 50

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

// Install makes -h print the app's page (Page) on the app's Writer.
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
			Page(w, app, doc)
		}
	})
}

// Page writes the app's -h page: the first paragraph of its manual, its
// usage lines, its flags and the manual's "Exit status:" paragraph, each
// wrapped to Width, and where the whole manual is.
func Page(w io.Writer, app *cli.App, docSource string) {
	d := parseDoc(docSource)
	fmt.Fprint(w, wrap(d.synopsis, Width, ""))
	if len(d.usage) > 0 {
		fmt.Fprintln(w, "\nUsage:")
		for _, l := range d.usage {
			fmt.Fprintln(w, "  "+l)
		}
	}
	fmt.Fprintln(w, "\nFlags:")
	writeFlags(w, app, "this page; "+app.Name+" help manual prints the whole manual")
	if d.exit != "" {
		fmt.Fprintln(w)
		fmt.Fprint(w, wrap(d.exit, Width, ""))
	}
}

// Manual writes the app's whole manual, its doc.go's package comment, and
// its flags.
func Manual(w io.Writer, app *cli.App, docSource string) {
	// A doc comment indents its blocks with a tab, which a terminal shows
	// 8 columns wide; 4 spaces keep them inside Width.
	fmt.Fprint(w, strings.ReplaceAll(Text(docSource), "\n\t", "\n    "))
	fmt.Fprintln(w, "\nFlags:")
	writeFlags(w, app, "print one page of help ("+app.Name+" -h)")
}

// doc is what -h takes from a manual.
type doc struct {
	synopsis string   // the first paragraph, on one line
	usage    []string // the lines of the block after "Usage:"
	exit     string   // the paragraph that starts "Exit status:", on one line
}

func parseDoc(docSource string) doc {
	var d doc
	paras := strings.Split(strings.TrimSpace(Text(docSource)), "\n\n")
	for i, p := range paras {
		switch {
		case i == 0:
			d.synopsis = join(p)
		case strings.TrimSpace(p) == "Usage:" && i+1 < len(paras):
			for _, l := range strings.Split(paras[i+1], "\n") {
				d.usage = append(d.usage, strings.TrimPrefix(l, "\t"))
			}
		case strings.HasPrefix(p, "Exit status:"):
			d.exit = join(p)
		}
	}
	return d
}

// join puts the lines of a paragraph on one line.
func join(p string) string { return strings.Join(strings.Fields(p), " ") }

// wrap breaks text into lines of at most width columns, each after the
// first starting with indent, and ends it with a newline. A word longer
// than a line gets a line of its own.
func wrap(text string, width int, indent string) string {
	var b strings.Builder
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) > width:
			b.WriteString(line + "\n")
			line = indent + word
		default:
			line += " " + word
		}
	}
	b.WriteString(line + "\n")
	return b.String()
}

// flagColumnMax is the furthest right a flag's explanation starts. The
// column is two past the widest flag with its placeholder, up to this; the
// explanation of a flag wider than that starts on the next line.
const flagColumnMax = 30

// flagRow is one flag as -h lists it.
type flagRow struct{ name, usage string }

// writeFlags writes the app's flags, one or more lines each: the flag with
// its placeholder, what it does and its default, wrapped to Width; the
// help flag last, explained by help.
func writeFlags(w io.Writer, app *cli.App, help string) {
	var rows []flagRow
	for _, f := range app.Flags {
		if f == cli.HelpFlag {
			continue // listed last, in the tools' spelling
		}
		df, ok := f.(cli.DocGenerationFlag)
		if !ok {
			continue
		}
		placeholder, usage := Placeholder(df.GetUsage())
		name := "-" + f.Names()[0]
		if df.TakesValue() {
			if placeholder == "" {
				placeholder = "VALUE"
			}
			name += " " + placeholder
		}
		switch def := defaultText(df); {
		case strings.Contains(def, " "):
			usage += " (default: " + def + ")"
		case def != "":
			usage += " (default " + def + ")"
		}
		rows = append(rows, flagRow{name, usage})
	}
	rows = append(rows, flagRow{"-h, -help", help})
	col := 0
	for _, r := range rows {
		if w := 2 + len(r.name) + 2; w <= flagColumnMax {
			col = max(col, w)
		}
	}
	indent := strings.Repeat(" ", col)
	for _, r := range rows {
		head := "  " + r.name
		if len(head)+2 > col {
			fmt.Fprintln(w, head)
			head = ""
		}
		head += strings.Repeat(" ", col-len(head))
		fmt.Fprint(w, head+indentLines(wrap(r.usage, Width-col, ""), indent))
	}
}

// indentLines puts indent before every line of s but the first.
func indentLines(s, indent string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i := 1; i < len(lines); i++ {
		lines[i] = indent + lines[i]
	}
	return strings.Join(lines, "\n") + "\n"
}

// Placeholder returns a flag usage's placeholder, the word written between
// backquotes as urfave/cli has it ("the world `FILE`"), and the usage with
// the backquotes taken out ("the world FILE").
func Placeholder(usage string) (string, string) {
	i := strings.IndexByte(usage, '`')
	if i < 0 {
		return "", usage
	}
	j := strings.IndexByte(usage[i+1:], '`')
	if j < 0 {
		return "", usage
	}
	name := usage[i+1 : i+1+j]
	return name, usage[:i] + name + usage[i+2+j:]
}

// defaultText is the default a flag's line shows: its DefaultText when it
// has one, else its value; nothing for a switch, nor for a value that is
// empty or 0 unless set.
func defaultText(df cli.DocGenerationFlag) string {
	if !df.TakesValue() {
		return "" // a switch, off unless given
	}
	v := df.GetValue()
	if dt := df.GetDefaultText(); dt != "" && dt != v && dt != fmt.Sprintf("%q", v) {
		return dt
	}
	if v == "" || v == "0" || v == "[]" {
		return ""
	}
	return v
}

// Usage returns a usage error of the command name: exit status
// exitcode.Usage, with a pointer to the manual.
func Usage(name, format string, args ...any) error {
	return cli.Exit(fmt.Sprintf(format, args...)+" (see "+name+" -h)", exitcode.Usage)
}

// OutputFile is the usage error of an output flag whose file is an
// existing directory, or nil: said before the work starts, and in these
// words, rather than as the failed rename of a temporary file at its end.
func OutputFile(name, flag, path string) error {
	if path == "" || path == "-" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return Usage(name, "-%s %s: is a directory: name a file to write", flag, path)
	}
	return nil
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
			return Usage(app.Name, "%s", flagError(app, err))
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

// undefinedFlag starts the error of the flag package for a flag it does
// not know: "flag provided but not defined: -seedss".
const undefinedFlag = "flag provided but not defined: -"

// flagError is the text of a usage error from parsing the flags. A flag the
// app does not have is "unknown flag -seedss", with the app's flag nearest
// to it, if one is near, as the world-file reader suggests fields
// (config.Closest): "unknown flag -seedss: did you mean -seeds?". One-letter
// flags are never suggested: every one- or two-letter typo is within
// reach of each of them, so the hint would be a guess.
func flagError(app *cli.App, err error) string {
	msg := err.Error()
	name, ok := strings.CutPrefix(msg, undefinedFlag)
	if !ok {
		return msg
	}
	name = strings.TrimLeft(name, "-")
	var names []string
	for _, f := range app.Flags {
		for _, n := range f.Names() {
			if len(n) > 1 {
				names = append(names, n)
			}
		}
	}
	msg = "unknown flag -" + name
	if s := config.Closest(name, names); s != "" {
		msg += ": did you mean -" + s + "?"
	}
	return msg
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
