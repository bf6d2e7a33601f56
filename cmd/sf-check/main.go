package main

import (
	_ "embed"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/check"
	"github.com/sf-dst/sf/lib/history"
	"github.com/sf-dst/sf/lib/manual"
	"github.com/sf-dst/sf/lib/stopsignal"
)

//go:embed doc.go
var docSource string

func main() {
	stopsignal.Install(stopsignal.ExitAtOnce)
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// run is sf-check on the given arguments (args[0] is its name) and streams;
// it returns the exit status. Tests call it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return manual.Main(manual.Command{
		Name:  "sf-check",
		Usage: "check a recorded history for linearizability or serializability",
		Doc:   docSource,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "history", Usage: "the history `FILE` (- for stdin); or give it as the argument"},
			&cli.StringFlag{Name: "model", Value: check.ModelDefault, Usage: "check against `MODEL`: " + check.ModelList()},
			&cli.StringFlag{Name: "format", Value: "auto", Usage: "read the history as `FORMAT`: auto, jsonl or edn"},
			&cli.StringFlag{Name: "timeline", DefaultText: "next to the history", Usage: "write the timeline of a violation to `FILE`"},
			&cli.BoolFlag{Name: "json", Usage: "print a JSON verdict record"},
			&cli.DurationFlag{Name: "timeout", Value: check.TimeoutDefault, Usage: "give up a linearizability check after `DURATION` of real time (more than 0)"},
			&cli.Int64Flag{Name: "max-steps", Usage: "give up a linearizability check after `N` model steps per key (0: no limit)"},
			&cli.Int64Flag{Name: "max-bytes", Value: history.InputBytesMax, DefaultText: fmt.Sprintf("%d, 1 GiB", history.InputBytesMax), Usage: "refuse a history of more than `N` bytes (a line holds at most 64 MiB)"},
		},
		Action: func(c *cli.Context) error {
			hist := c.String("history")
			switch {
			case c.NArg() > 1 || (c.NArg() == 1 && hist != ""):
				return manual.Usage("sf-check", "unexpected argument %s", c.Args().Get(c.NArg()-1))
			case c.NArg() == 1:
				hist = c.Args().First()
			case hist == "" && isTerminal(stdin):
				return manual.Usage("sf-check", "no history: give -history FILE, or - to read standard input")
			case hist == "":
				hist = "-"
			}
			if err := manual.OutputFile("sf-check", "timeline", c.String("timeline")); err != nil {
				return err
			}
			if c.Int64("max-bytes") < 1 {
				return manual.Usage("sf-check", "-max-bytes must be at least 1")
			}
			if c.Int64("max-steps") < 0 {
				return manual.Usage("sf-check", "-max-steps must not be negative")
			}
			if d := c.Duration("timeout"); d <= 0 {
				return manual.Usage("sf-check", "-timeout %v: must be more than 0, since checking linearizability may take exponential time", d)
			}
			code := check.Command(check.CommandOptions{
				History:  hist,
				Model:    c.String("model"),
				Format:   c.String("format"),
				Timeline: c.String("timeline"),
				JSON:     c.Bool("json"),
				Timeout:  c.Duration("timeout"),
				MaxSteps: c.Int64("max-steps"),
				MaxBytes: c.Int64("max-bytes"),
				MapInput: true,
				Stdin:    stdin,
				Stdout:   stdout,
				Stderr:   stderr,
			})
			return manual.Status(code)
		},
	}, args, stdin, stdout, stderr)
}

// isTerminal reports whether r is a terminal, where sf-check will not wait
// for a history to be typed in.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
