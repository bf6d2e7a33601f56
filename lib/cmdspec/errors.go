package cmdspec

import (
	"errors"
	"fmt"

	"github.com/sf-dst/sf/lib/manual"
)

// surface is where a command's options were read from.
type surface int

const (
	onCLI surface = iota
	onMCP
)

// Ref is an option named in an error's text, by its key; it is written as
// the surface the error is shown on names it: -app on the command line,
// app in a tool error.
type Ref string

// needed is an option another one needs, named with its placeholder on
// the command line ("-seed N").
type needed string

// sentence is an error that reads as a sentence about its option.
type sentence struct {
	format string
	args   []any
}

func (s *sentence) Error() string { return render(s.format, s.args, nil) }

// Errorf returns a check's error that reads as a sentence about the option
// after its name: "must be at least %d" is shown as "-j must be at least
// 1" on the command line and "jobs: must be at least 1" in a tool error.
// Any other error a check returns is shown after the option's name and a
// colon on both ("-seeds: ...", "seeds: ..."). Arguments that are a Ref
// are written as the surface names that option.
func Errorf(format string, args ...any) error { return &sentence{format, args} }

// Error is an option's bad value, or a bad combination of options, as
// read from one surface; its text is in that surface's words.
type Error struct {
	// Option is the key of the option whose value is bad; empty for an
	// error of the command as a whole.
	Option string
	format string
	args   []any
	// colon: the text follows the option's name after a colon, also on the
	// command line; else after a space there.
	colon bool
	cmd   *Command
}

// wrap makes a check's error the Error of option o.
func (c *Command) wrap(o *Option, err error) *Error {
	var s *sentence
	if errors.As(err, &s) {
		return &Error{Option: o.Key(), format: s.format, args: s.args, cmd: c}
	}
	return &Error{Option: o.Key(), format: "%s", args: []any{err.Error()}, colon: true, cmd: c}
}

// Errorf is an error of the option key (or, for "", of the command) found
// after the options were read, worded as a sentence about it as Errorf's
// are: c.Errorf("mutants", "needs %s", Ref("app")) is "-mutants needs
// -app" on the command line and "sf_mutate: mutants: needs app" in a tool
// error.
func (c *Command) Errorf(key, format string, args ...any) *Error {
	return &Error{Option: key, format: format, args: args, cmd: c}
}

// Needs is the error of option key given without the option other that
// it needs, and why: c.Needs("c", "seed", "reading records, the world
// comes from them") is "-c needs -seed N; reading records, ..." on the
// command line and "sf_shrink: config: needs seed; reading records, ..."
// in a tool error. An empty why says nothing more.
func (c *Command) Needs(key, other, why string) *Error {
	if why == "" {
		return c.Errorf(key, "needs %s", needed(other))
	}
	return c.Errorf(key, "needs %s; %s", needed(other), why)
}

// Error is the text in the words of the surface the options were read
// from: "-j must be at least 1" for the command line (which the command
// prefixes with its name, as every usage error), "sf_run: jobs: must be
// at least 1" for an MCP call.
func (e *Error) Error() string {
	if e.cmd.surface == onMCP {
		return e.cmd.tool + ": " + e.text(onMCP)
	}
	return e.text(onCLI)
}

// Text is the error in the words of no surface, each option named by its
// key: what a bad value gets on either, so tests compare it.
func (e *Error) Text() string { return e.text(-1) }

func (e *Error) text(s surface) string {
	name := e.name(e.Option, s)
	body := render(e.format, e.args, func(a any) (string, bool) {
		switch r := a.(type) {
		case Ref:
			return e.name(string(r), s), true
		case needed:
			name := e.name(string(r), s)
			if o := e.cmd.Option(string(r)); s == onCLI && o != nil && o.Flag != "" {
				if p, _ := manual.Placeholder(o.Usage); p != "" {
					name += " " + p
				}
			}
			return name, true
		}
		return "", false
	})
	switch {
	case name == "":
		return body
	case s == onMCP || e.colon:
		return name + ": " + body
	}
	return name + " " + body
}

// name is how surface s names the option key.
func (e *Error) name(key string, s surface) string {
	o := e.cmd.Option(key)
	switch {
	case key == "" || o == nil || s < 0:
		return key
	case s == onMCP:
		return o.FieldName()
	case o.Flag == "":
		return o.FieldName()
	}
	return "-" + o.Flag
}

// render formats an error's text, each argument that names an option
// written by name.
func render(format string, args []any, name func(any) (string, bool)) string {
	if name != nil {
		out := make([]any, len(args))
		for i, a := range args {
			if n, ok := name(a); ok {
				out[i] = n
			} else {
				out[i] = a
			}
		}
		args = out
	}
	return fmt.Sprintf(format, args...)
}
