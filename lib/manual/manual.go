// Package manual prints a command's manual for -h: the command's package
// documentation, read from its own doc.go, followed by its flags with their
// defaults, so the manual and godoc never drift apart.
package manual

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"
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

// Install makes -h print the manual and the app's flags, each with a single
// dash as the tools spell them.
func Install(app *cli.App, docSource string) {
	cli.HelpPrinter = func(w io.Writer, _ string, _ any) {
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
}
