package cmdspec

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/echo"
)

// Value is an option's type, default and variable: how a value of it is
// read from a flag and from an MCP field, checked and stored.
type Value interface {
	// flag is o's urfave/cli flag.
	flag(o *Option) cli.Flag
	// schema is the JSON schema of o's MCP field, without its description.
	schema(o *Option) *jsonschema.Schema
	// reset stores the default.
	reset()
	// fromCLI reads, checks and stores the value of the flag name.
	fromCLI(c *cli.Context, name string) error
	// fromMCP reads, checks and stores the value of a field; a value that
	// is its type's zero is left out (given false) unless presence counts.
	fromMCP(raw json.RawMessage, presence bool) (given bool, err error)
	// texts is the value stored, as text, for the checks of a path.
	texts() []string
	// defaultText is the default written out, or "" for none.
	defaultText() string
}

// argsValue is a Value the command line may give as arguments.
type argsValue interface {
	fromArgs(args []string) error
}

// schemaFor is the schema jsonschema infers for T, as for a field of type
// T of a tool's input struct.
func schemaFor[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err)
	}
	return s
}

// typed is what every kind of value shares: its variable (or the function
// that stores into it), its default and its checks.
type typed[T any] struct {
	to     *T
	set    func(T) error
	def    T
	checks []func(T) error
	cur    T
}

func (v *typed[T]) store(x T) error {
	for _, check := range v.checks {
		if err := check(x); err != nil {
			return err
		}
	}
	v.cur = x
	if v.set != nil {
		return v.set(x)
	}
	*v.to = x
	return nil
}

// resetTo stores the default, unchecked: a default that is its type's
// zero is stored as it is, and any other must pass its checks, since a
// bad default is the declaration's mistake.
func (v *typed[T]) resetTo(zero bool) {
	var z T
	v.cur = z
	if zero {
		if v.to != nil {
			*v.to = v.def
		}
		return
	}
	if err := v.store(v.def); err != nil {
		panic(fmt.Sprintf("cmdspec: the default %v is refused: %v", v.def, err))
	}
}

// String is a text option stored in to, def unless given.
func String(to *string, def string, checks ...func(string) error) Value {
	return &stringValue{typed[string]{to: to, def: def, checks: checks}}
}

// StringFunc is a text option stored by set, which checks it too; def
// unless given ("" stores nothing).
func StringFunc(def string, set func(string) error) Value {
	return &stringValue{typed[string]{set: set, def: def}}
}

type stringValue struct{ typed[string] }

func (v *stringValue) flag(o *Option) cli.Flag {
	return &cli.StringFlag{Name: o.Flag, Value: v.def, DefaultText: o.DefaultText, Usage: o.Usage}
}

func (v *stringValue) schema(o *Option) *jsonschema.Schema {
	if o.Nullable {
		return schemaFor[*string]()
	}
	return schemaFor[string]()
}

func (v *stringValue) reset()                                 { v.resetTo(v.def == "") }
func (v *stringValue) fromCLI(c *cli.Context, n string) error { return v.store(c.String(n)) }
func (v *stringValue) texts() []string                        { return []string{v.cur} }
func (v *stringValue) defaultText() string                    { return v.def }

func (v *stringValue) fromMCP(raw json.RawMessage, presence bool) (bool, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return false, err
	}
	if s == "" && !presence {
		return false, nil
	}
	return true, v.store(s)
}

// Bool is a switch stored in to, false unless given.
func Bool(to *bool) Value { return &boolValue{typed[bool]{to: to}} }

type boolValue struct{ typed[bool] }

func (v *boolValue) flag(o *Option) cli.Flag {
	return &cli.BoolFlag{Name: o.Flag, Usage: o.Usage}
}

func (v *boolValue) schema(*Option) *jsonschema.Schema      { return schemaFor[bool]() }
func (v *boolValue) reset()                                 { v.resetTo(true) }
func (v *boolValue) fromCLI(c *cli.Context, n string) error { return v.store(c.Bool(n)) }
func (v *boolValue) texts() []string                        { return nil }
func (v *boolValue) defaultText() string                    { return "" }
func (v *boolValue) fromMCP(raw json.RawMessage, _ bool) (bool, error) {
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil || !b {
		return false, err
	}
	return true, v.store(b)
}

// Int is a whole number stored in to, def unless given.
func Int(to *int, def int, checks ...func(int) error) Value {
	return &intValue{typed[int]{to: to, def: def, checks: checks}}
}

type intValue struct{ typed[int] }

func (v *intValue) flag(o *Option) cli.Flag {
	return &cli.IntFlag{Name: o.Flag, Value: v.def, DefaultText: o.DefaultText, Usage: o.Usage}
}

func (v *intValue) schema(*Option) *jsonschema.Schema      { return schemaFor[int]() }
func (v *intValue) reset()                                 { v.resetTo(v.def == 0) }
func (v *intValue) fromCLI(c *cli.Context, n string) error { return v.store(c.Int(n)) }
func (v *intValue) texts() []string                        { return nil }

func (v *intValue) defaultText() string {
	if v.def == 0 {
		return ""
	}
	return strconv.Itoa(v.def)
}

func (v *intValue) fromMCP(raw json.RawMessage, presence bool) (bool, error) {
	var n int
	if err := json.Unmarshal(raw, &n); err != nil {
		return false, err
	}
	if n == 0 && !presence {
		return false, nil
	}
	return true, v.store(n)
}

// Int64 is a whole number stored in to, def unless given.
func Int64(to *int64, def int64, checks ...func(int64) error) Value {
	return &int64Value{typed[int64]{to: to, def: def, checks: checks}}
}

type int64Value struct{ typed[int64] }

func (v *int64Value) flag(o *Option) cli.Flag {
	return &cli.Int64Flag{Name: o.Flag, Value: v.def, DefaultText: o.DefaultText, Usage: o.Usage}
}

func (v *int64Value) schema(*Option) *jsonschema.Schema      { return schemaFor[int64]() }
func (v *int64Value) reset()                                 { v.resetTo(v.def == 0) }
func (v *int64Value) fromCLI(c *cli.Context, n string) error { return v.store(c.Int64(n)) }
func (v *int64Value) texts() []string                        { return nil }

func (v *int64Value) defaultText() string {
	if v.def == 0 {
		return ""
	}
	return strconv.FormatInt(v.def, 10)
}

func (v *int64Value) fromMCP(raw json.RawMessage, presence bool) (bool, error) {
	var n int64
	if err := json.Unmarshal(raw, &n); err != nil {
		return false, err
	}
	if n == 0 && !presence {
		return false, nil
	}
	return true, v.store(n)
}

// Duration is a Go duration ("30s", "1m30s") stored in to, def unless
// given. A flag and a field both write it as text.
func Duration(to *time.Duration, def time.Duration, checks ...func(time.Duration) error) Value {
	return &durationValue{typed[time.Duration]{to: to, def: def, checks: checks}}
}

type durationValue struct{ typed[time.Duration] }

func (v *durationValue) flag(o *Option) cli.Flag {
	return &cli.StringFlag{Name: o.Flag, Value: v.defaultText(), DefaultText: o.DefaultText, Usage: o.Usage}
}

func (v *durationValue) schema(*Option) *jsonschema.Schema { return schemaFor[string]() }
func (v *durationValue) reset()                            { v.resetTo(v.def == 0) }
func (v *durationValue) texts() []string                   { return nil }

func (v *durationValue) defaultText() string {
	if v.def == 0 {
		return ""
	}
	return v.def.String()
}

func (v *durationValue) fromCLI(c *cli.Context, n string) error { return v.parse(c.String(n)) }

func (v *durationValue) fromMCP(raw json.RawMessage, presence bool) (bool, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return false, err
	}
	if s == "" && !presence {
		return false, nil
	}
	return true, v.parse(s)
}

func (v *durationValue) parse(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("invalid duration %s", echo.Quote(s))
	}
	return v.store(d)
}

// Seed is a seed, a whole number from 0, stored in to; unset unless given
// (Command.Given says). A flag writes it as text, a field as a number.
func Seed(to *uint64) Value { return &seedValue{typed[uint64]{to: to}, "seed"} }

// Key is a key of a random stream, such as a branch's, read as Seed reads
// a seed.
func Key(to *uint64) Value { return &seedValue{typed[uint64]{to: to}, "key"} }

// seedValue is a whole number from 0 that names a random stream: a seed,
// or a key (noun says which, for the error a bad one gets).
type seedValue struct {
	typed[uint64]
	noun string
}

func (v *seedValue) flag(o *Option) cli.Flag {
	return &cli.StringFlag{Name: o.Flag, DefaultText: o.DefaultText, Usage: o.Usage}
}

func (v *seedValue) schema(o *Option) *jsonschema.Schema {
	if o.Nullable {
		return schemaFor[*uint64]()
	}
	return schemaFor[uint64]()
}

func (v *seedValue) reset()              { v.resetTo(true) }
func (v *seedValue) texts() []string     { return nil }
func (v *seedValue) defaultText() string { return "" }

func (v *seedValue) fromCLI(c *cli.Context, n string) error {
	s, err := strconv.ParseUint(c.String(n), 10, 64)
	if err != nil {
		return fmt.Errorf("%s is not a %s (a whole number)", echo.Quote(c.String(n)), v.noun)
	}
	return v.store(s)
}

func (v *seedValue) fromMCP(raw json.RawMessage, presence bool) (bool, error) {
	var s uint64
	if err := json.Unmarshal(raw, &s); err != nil {
		return false, err
	}
	if s == 0 && !presence {
		return false, nil
	}
	return true, v.store(s)
}

// Strings is a list of texts stored in to, empty unless given: a flag
// given once per item, a field as an array of strings.
func Strings(to *[]string, checks ...func([]string) error) Value {
	return &stringsValue{typed: typed[[]string]{to: to, checks: checks}}
}

// Numbers is a list of whole numbers stored in to as texts, which the
// command reads: a flag given once per number, a field as an array of
// integers.
func Numbers(to *[]string) Value {
	return &stringsValue{typed: typed[[]string]{to: to}, items: itemNumbers}
}

// Objects is a list of JSON objects stored in to as texts, which the
// command reads: a flag given once per object, a field as an array of
// objects.
func Objects(to *[]string) Value {
	return &stringsValue{typed: typed[[]string]{to: to}, items: itemObjects}
}

// List is a list of names stored in to, empty unless given: a flag with
// the names separated by commas, a field as an array of strings. Either
// way each name is trimmed and empty ones are dropped.
func List(to *[]string, checks ...func([]string) error) Value {
	return &stringsValue{typed: typed[[]string]{to: to, checks: checks}, items: itemNames}
}

type items int

const (
	itemTexts items = iota
	itemNumbers
	itemObjects
	itemNames
)

type stringsValue struct {
	typed[[]string]
	items items
}

func (v *stringsValue) flag(o *Option) cli.Flag {
	if v.items == itemNames {
		return &cli.StringFlag{Name: o.Flag, DefaultText: o.DefaultText, Usage: o.Usage}
	}
	return &cli.StringSliceFlag{Name: o.Flag, DefaultText: o.DefaultText, Usage: o.Usage}
}

func (v *stringsValue) schema(*Option) *jsonschema.Schema {
	switch v.items {
	case itemNumbers:
		return schemaFor[[]int]()
	case itemObjects:
		return schemaFor[[]map[string]any]()
	}
	return schemaFor[[]string]()
}

func (v *stringsValue) reset()              { v.resetTo(true) }
func (v *stringsValue) texts() []string     { return v.cur }
func (v *stringsValue) defaultText() string { return "" }

func (v *stringsValue) fromArgs(args []string) error { return v.store(args) }

func (v *stringsValue) fromCLI(c *cli.Context, n string) error {
	if v.items == itemNames {
		return v.store(names(strings.Split(c.String(n), ",")))
	}
	return v.store(c.StringSlice(n))
}

func (v *stringsValue) fromMCP(raw json.RawMessage, _ bool) (bool, error) {
	var list []string
	switch v.items {
	case itemNumbers:
		var ns []int
		if err := json.Unmarshal(raw, &ns); err != nil {
			return false, err
		}
		for _, n := range ns {
			list = append(list, strconv.Itoa(n))
		}
	case itemObjects:
		var objs []map[string]any
		if err := json.Unmarshal(raw, &objs); err != nil {
			return false, err
		}
		for _, o := range objs {
			b, err := json.Marshal(o)
			if err != nil {
				return false, err
			}
			list = append(list, string(b))
		}
	default:
		if err := json.Unmarshal(raw, &list); err != nil {
			return false, err
		}
	}
	if len(list) == 0 {
		return false, nil
	}
	if v.items == itemNames {
		list = names(list)
	}
	return true, v.store(list)
}

// names is list trimmed, without its empty names.
func names(list []string) []string {
	var out []string
	for _, n := range list {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}
