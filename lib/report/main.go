package report

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/sf-dst/sf/lib/atomicfile"
	"github.com/sf-dst/sf/lib/exitcode"
)

// Exit statuses, from the table every tool shares.
const (
	exitPass    = exitcode.Pass
	exitProblem = exitcode.Problem
	exitUsage   = exitcode.Usage
)

// Options describe one invocation of sf-report.
type Options struct {
	// Inputs are the record files; none, or "-", reads Stdin.
	Inputs []string
	// Markdown and HTML are files to write the report to as well; "-" is
	// stdout, in place of the text.
	Markdown string
	HTML     string
	// Findings is the findings file; empty keeps none, unless
	// FindingsByWorld.
	Findings string
	// FindingsByWorld keeps each world's findings next to it
	// (FindingsPath) rather than in Findings. Defaults to false; sf-report
	// sets it unless -findings is given.
	FindingsByWorld bool
	// Now stamps findings (Now()).
	Now    string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// Main writes the reports and returns the exit status: 0 when every sweep
// passed, 1 when one failed or is incomplete, 2 on an input error.
func Main(o Options) int {
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	code, err := run(o)
	if err != nil {
		fmt.Fprintf(o.Stderr, "sf-report: %v\n", err)
		return exitUsage
	}
	return code
}

func run(o Options) (int, error) {
	var inputs []Input
	names := o.Inputs
	if len(names) == 0 {
		names = []string{"-"}
	}
	for _, n := range names {
		if n == "-" {
			inputs = append(inputs, Input{Name: "<stdin>", R: o.Stdin})
			continue
		}
		f, err := os.Open(n)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		inputs = append(inputs, Input{Name: n, R: f})
	}
	sweeps, err := Build(inputs)
	if err != nil {
		return 0, err
	}
	Schedules(sweeps, ".")
	if o.Findings != "" || o.FindingsByWorld {
		file := o.Findings
		if o.FindingsByWorld {
			file = ""
		}
		if _, err := UpdateFindings(sweeps, file, o.Now); err != nil {
			return 0, err
		}
	}
	if o.Markdown != "-" && o.HTML != "-" {
		Text(o.Stdout, sweeps)
	}
	if o.Markdown != "" {
		var b bytes.Buffer
		Markdown(&b, sweeps)
		if err := output(o, o.Markdown, b.Bytes()); err != nil {
			return 0, err
		}
	}
	if o.HTML != "" {
		var b bytes.Buffer
		if err := HTML(&b, sweeps, HTMLOptions{Dir: htmlDir(o.HTML)}); err != nil {
			return 0, err
		}
		if err := output(o, o.HTML, b.Bytes()); err != nil {
			return 0, err
		}
	}
	for _, s := range sweeps {
		if s.Status() != "pass" {
			return exitProblem, nil
		}
	}
	return exitPass, nil
}

// output writes data to stdout for "-", else atomically to the file.
func output(o Options, path string, data []byte) error {
	if path == "-" {
		_, err := o.Stdout.Write(data)
		return err
	}
	return atomicfile.WriteFile(path, data, 0o644)
}
