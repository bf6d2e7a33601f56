// Package cmdspec declares each option of an sf command once: its flag, its
// field in the input of the MCP tools that serve the command, its default,
// its texts for -h and for an agent, and how a value is read, checked and
// stored. A command's urfave/cli flags, its tools' input schemas and the
// reading of both come from that one declaration, so that a value means the
// same whether it comes as a flag or as a field, and a bad one gets the same
// error, said in each one's words: "-j must be at least 1" on the command
// line, "jobs: must be at least 1" in a tool error.
//
// A Command is made for one reading: its options store into the variables
// they were declared with (as the flag package's StringVar does), so a
// command's spec is a function from the struct it fills to its Command.
package cmdspec

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"
)

// Command is the options of one command and the MCP tools that serve it.
type Command struct {
	// Name is the command's name, "sf-run".
	Name string
	// Options are its options in the order -h lists them.
	Options []*Option
	// Tools are the MCP tools that serve the command, each with the fields
	// of its input; none for a command no tool serves.
	Tools []Tool

	given   map[string]bool
	surface surface
	tool    string // the tool being read, on the MCP surface
}

// Tool is an MCP tool that serves a command.
type Tool struct {
	// Name is the tool's name, "sf_run".
	Name string
	// Description says what the tool does, for an agent.
	Description string
	// Fields are the options the tool takes, by their MCP names, in the
	// order its input schema lists them.
	Fields []string
	// Docs are descriptions of fields that say more, or otherwise, in this
	// tool than the option's own Doc; keyed by field.
	Docs map[string]string
}

// Option is one option of a command: a flag, a field of an MCP tool's
// input, or both.
type Option struct {
	// Flag is the option's flag without its dash, "history-timeout"; empty
	// for an option that only MCP calls have.
	Flag string
	// Field is the option's name in an MCP tool's input when it is not
	// Flag with its dashes made underscores ("jobs" for -j).
	Field string
	// CLIOnly, for a flag that no tool of the command takes, says why.
	// Every flag is in a tool or says why it is not (TestEveryFlagServed).
	CLIOnly string
	// Args, for an option with no flag, says the command line gives its
	// values as the command's arguments (record files).
	Args bool
	// Usage is the flag's text in -h, with its placeholder in backquotes:
	// "the world `FILE`".
	Usage string
	// Doc is the field's description for an agent. Defaults to Usage
	// without its backquotes, with the default.
	Doc string
	// DefaultText is the default -h shows when it is not the value's own
	// default written out ("N, the number of CPUs").
	DefaultText string
	// Required makes an MCP call give the field; a path left blank then
	// gets the error Required says ("missing: name the world file").
	Required string
	// Nullable lets an MCP call give the field as null, as not giving it;
	// then any other value, "" and 0 included, is given.
	Nullable bool
	// Stdin says "-" reads standard input. On the command line it does; in
	// an MCP call it is refused, since standard input is the protocol's.
	Stdin bool
	// Path says what the value names, for the checks a server makes on it.
	Path Path
	// MCPMax is the most an MCP call may ask for, above the command line's
	// bounds (0: no more than the command line's).
	MCPMax int
	// Value is the option's type, default and variable, with the checks of
	// a value (String, Int, Duration, ...).
	Value Value
}

// Path says what an option's value names.
type Path int

const (
	// NotPath is an option whose value is no path.
	NotPath Path = iota
	// World is a world file, next to which the artifacts go.
	World
	// Output is a file the command writes ("-" for standard output where
	// Stdin says so): never a directory.
	Output
	// Input is a file the command reads.
	Input
)

// Key is how errors and Given name the option: its flag, or its field when
// it has no flag.
func (o *Option) Key() string {
	if o.Flag != "" {
		return o.Flag
	}
	return o.Field
}

// FieldName is the option's name in an MCP tool's input.
func (o *Option) FieldName() string {
	if o.Field != "" {
		return o.Field
	}
	return strings.ReplaceAll(o.Flag, "-", "_")
}

// Given says whether the last reading of the command was given the option
// (by its key), rather than leaving it at its default.
func (c *Command) Given(key string) bool { return c.given[key] }

// Option returns the option whose key is key, or nil.
func (c *Command) Option(key string) *Option {
	for _, o := range c.Options {
		if o.Key() == key {
			return o
		}
	}
	return nil
}

// FieldOption returns the option whose MCP field is name, or nil.
func (c *Command) FieldOption(name string) *Option {
	for _, o := range c.Options {
		if o.Flag != "" && o.CLIOnly != "" {
			continue
		}
		if o.FieldName() == name {
			return o
		}
	}
	return nil
}

// Tool returns the command's tool named name, or nil.
func (c *Command) Tool(name string) *Tool {
	for i := range c.Tools {
		if c.Tools[i].Name == name {
			return &c.Tools[i]
		}
	}
	return nil
}

// CLIFlag is the option's urfave/cli flag, for a command that shares it
// without an MCP tool (sf-build's -c).
func (o *Option) CLIFlag() cli.Flag { return o.Value.flag(o) }

// Flags are the command's urfave/cli flags, in the order of its options.
func (c *Command) Flags() []cli.Flag {
	var flags []cli.Flag
	for _, o := range c.Options {
		if o.Flag != "" {
			flags = append(flags, o.Value.flag(o))
		}
	}
	return flags
}

// reset puts every option at its default and forgets what was given.
func (c *Command) reset(s surface, tool string) {
	c.given, c.surface, c.tool = map[string]bool{}, s, tool
	for _, o := range c.Options {
		o.Value.reset()
	}
}

// FromCLI sets every option from the command line: a flag given (or, for
// Args, arguments given) from its value, any other at its default. The
// error is the first bad value's, an *Error.
func (c *Command) FromCLI(ctx *cli.Context) error {
	c.reset(onCLI, "")
	for _, o := range c.Options {
		var err error
		switch {
		case o.Args && ctx.NArg() > 0:
			err = o.Value.(argsValue).fromArgs(ctx.Args().Slice())
		case o.Flag != "" && ctx.IsSet(o.Flag):
			err = o.Value.fromCLI(ctx, o.Flag)
		default:
			continue
		}
		c.given[o.Key()] = true
		if err == nil {
			err = o.checkPaths(false)
		}
		if err != nil {
			return c.wrap(o, err)
		}
	}
	return nil
}

// PathCheck is a server's own check of a path an MCP call gives (that it
// lies inside the folder it may write in); it returns an error to show
// after the field's name.
type PathCheck func(o *Option, path string) error

// FromMCP sets every option from the arguments of a call of the command's
// tool: a field given from its value, any other option at its default.
// A field holding its type's zero value counts as left out, as the tools
// have always read an empty field, unless the option is Required or
// Nullable. paths, when not nil, is asked about each path given. The
// error is the first bad value's, an *Error.
func (c *Command) FromMCP(tool string, args json.RawMessage, paths PathCheck) error {
	t := c.Tool(tool)
	if t == nil {
		panic("cmdspec: " + c.Name + " has no tool " + tool)
	}
	c.reset(onMCP, tool)
	fields := map[string]json.RawMessage{}
	if len(args) > 0 && string(args) != "null" {
		if err := json.Unmarshal(args, &fields); err != nil {
			return fmt.Errorf("%s: %v", tool, err)
		}
	}
	for _, name := range t.Fields {
		o := c.FieldOption(name)
		raw, ok := fields[name]
		if !ok || string(raw) == "null" {
			if o.Required != "" {
				return c.wrap(o, Errorf("%s", o.Required))
			}
			continue
		}
		given, err := o.Value.fromMCP(raw, o.Required != "" || o.Nullable)
		if err != nil {
			return c.wrap(o, err)
		}
		if !given {
			if o.Required != "" {
				return c.wrap(o, Errorf("%s", o.Required))
			}
			continue
		}
		c.given[o.Key()] = true
		if err := c.checkMCP(o, paths); err != nil {
			return c.wrap(o, err)
		}
	}
	return nil
}

// checkMCP checks a field an MCP call gave: the command line's checks of a
// path, then what only a call is refused.
func (c *Command) checkMCP(o *Option, paths PathCheck) error {
	texts := o.Value.texts()
	if _, ok := o.Value.(*stringValue); ok && o.Required != "" && o.Path != NotPath && strings.TrimSpace(texts[0]) == "" {
		return Errorf("%s", o.Required)
	}
	if o.MCPMax > 0 {
		if n, ok := o.Value.(*intValue); ok && *n.to > o.MCPMax {
			return Errorf("%d: at most %d", *n.to, o.MCPMax)
		}
	}
	if err := o.checkPaths(true); err != nil {
		return err
	}
	if paths == nil || o.Path == NotPath {
		return nil
	}
	for _, p := range texts {
		if err := paths(o, p); err != nil {
			return err
		}
	}
	return nil
}

// checkPaths checks the paths an option was given: a file to write is not
// a directory; in an MCP call, standard input is not there to read, and a
// path in a list is not empty.
func (o *Option) checkPaths(mcp bool) error {
	if o.Path == NotPath {
		return nil
	}
	_, list := o.Value.(*stringsValue)
	for _, p := range o.Value.texts() {
		switch {
		case mcp && o.Stdin && p == "-":
			return fmt.Errorf(`"-" reads standard input, which is the protocol's here: name a file`)
		case mcp && list && p == "":
			return fmt.Errorf(`"": name a file`)
		case o.Path == Output && p != "" && p != "-":
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				return Errorf("%s: is a directory: name a file to write", p)
			}
		}
	}
	return nil
}

// Validate checks the declaration itself: each flag is a field of one of
// the command's tools or says why not (CLIOnly), and only then; each
// option without a flag is a tool's field; no two options share a key or
// a field; each field of a tool is an option's, once.
func (c *Command) Validate() error {
	keys, fields, served := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, t := range c.Tools {
		seen := map[string]bool{}
		for _, f := range t.Fields {
			if c.FieldOption(f) == nil {
				for _, o := range c.Options {
					if o.CLIOnly != "" && o.FieldName() == f {
						return fmt.Errorf("%s: -%s says it is only a flag (%s), but tool %s has its field %s", c.Name, o.Flag, o.CLIOnly, t.Name, f)
					}
				}
				return fmt.Errorf("%s: tool %s: field %s is no option's", c.Name, t.Name, f)
			}
			if seen[f] {
				return fmt.Errorf("%s: tool %s: field %s is listed twice", c.Name, t.Name, f)
			}
			seen[f], served[f] = true, true
		}
		for f := range t.Docs {
			if !seen[f] {
				return fmt.Errorf("%s: tool %s: a doc for field %s, which it does not have", c.Name, t.Name, f)
			}
		}
	}
	for _, o := range c.Options {
		if o.Value == nil {
			return fmt.Errorf("%s: option %s has no value", c.Name, o.Key())
		}
		if keys[o.Key()] {
			return fmt.Errorf("%s: two options are called %s", c.Name, o.Key())
		}
		keys[o.Key()] = true
		switch {
		case o.Flag == "" && o.CLIOnly != "":
			return fmt.Errorf("%s: field %s has no flag and says it is only a flag", c.Name, o.FieldName())
		case o.CLIOnly != "":
			continue
		case fields[o.FieldName()]:
			return fmt.Errorf("%s: two options have the field %s", c.Name, o.FieldName())
		case !served[o.FieldName()] && o.Flag != "":
			return fmt.Errorf("%s: -%s is in no tool of the command as %s, and does not say why (CLIOnly)", c.Name, o.Flag, o.FieldName())
		case !served[o.FieldName()]:
			return fmt.Errorf("%s: field %s is in no tool of the command", c.Name, o.FieldName())
		}
		fields[o.FieldName()] = true
	}
	return nil
}
