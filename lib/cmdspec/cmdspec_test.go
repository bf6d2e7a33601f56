package cmdspec

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// toy is a command with one option of each kind, for the tests of the
// mechanism; its values land in a toyVars.
type toyVars struct {
	Config, Out, Findings string
	Jobs                  int
	Steps                 int64
	Timeout               time.Duration
	Seed                  uint64
	Set, Names, Remove    []string
	Add, Files            []string
	App                   bool
}

func toy(v *toyVars) *Command {
	return &Command{Name: "sf-toy", Options: []*Option{
		{Flag: "c", Field: "config", Usage: "the world `FILE`", Required: "missing: name the world file", Stdin: true, Path: World,
			Value: String(&v.Config, "seedfall.json")},
		{Flag: "out", Usage: "write to `FILE`", Path: Output, Value: String(&v.Out, "")},
		{Flag: "findings", Usage: "keep findings in `FILE`", Nullable: true, Path: Output, Value: String(&v.Findings, "")},
		{Flag: "j", Field: "jobs", Usage: "run `N` at once", MCPMax: 8, Value: Int(&v.Jobs, 4, AtLeast(1))},
		{Flag: "max-steps", Usage: "stop after `N` steps", Value: Int64(&v.Steps, 0, NotNegative[int64])},
		{Flag: "timeout", Usage: "give up after `DURATION`", Value: Duration(&v.Timeout, 30*time.Second)},
		{Flag: "seed", Usage: "the seed `N`", Nullable: true, Value: Seed(&v.Seed)},
		{Flag: "set", Usage: "override `PATH=VALUE`", Value: Strings(&v.Set)},
		{Flag: "only", Usage: "only `LIST`", Value: List(&v.Names)},
		{Flag: "remove", Usage: "remove fault `N`", Value: Numbers(&v.Remove)},
		{Flag: "add", Usage: "add `JSON`", Value: Objects(&v.Add)},
		{Flag: "app", Usage: "mutate the app", Value: Bool(&v.App)},
		{Flag: "json", Usage: "records", CLIOnly: "a tool returns records", Value: Bool(new(bool))},
		{Field: "files", Args: true, Stdin: true, Path: Input, Value: Strings(&v.Files)},
	}, Tools: []Tool{{Name: "sf_toy", Description: "A toy.", Fields: []string{"config", "out", "findings", "jobs", "max_steps",
		"timeout", "seed", "set", "only", "remove", "add", "app", "files"}, Docs: map[string]string{"out": "where to write"}}}}
}

// fromCLI reads args (after the name) into a fresh toy.
func fromCLI(args ...string) (*toyVars, *Command, error) {
	v := new(toyVars)
	c := toy(v)
	app := &cli.App{Name: c.Name, Flags: c.Flags(), DisableSliceFlagSeparator: true, Action: func(ctx *cli.Context) error { return c.FromCLI(ctx) }}
	app.ExitErrHandler = func(*cli.Context, error) {}
	return v, c, app.Run(append([]string{c.Name}, args...))
}

// fromMCP reads a call's arguments into a fresh toy.
func fromMCP(args string, paths PathCheck) (*toyVars, *Command, error) {
	v := new(toyVars)
	c := toy(v)
	return v, c, c.FromMCP("sf_toy", json.RawMessage(args), paths)
}

func TestDefaultsAndGiven(t *testing.T) {
	v, c, err := fromCLI()
	if err != nil {
		t.Fatal(err)
	}
	if v.Config != "seedfall.json" || v.Jobs != 4 || v.Timeout != 30*time.Second || v.Seed != 0 || c.Given("c") || c.Given("seed") {
		t.Errorf("defaults: %+v, given %v", v, c.given)
	}
	v, c, err = fromCLI("-j", "2", "-seed", "0", "-only", " a, ,b ", "-remove", "3", "-set", "x=1,2", "f1", "f2")
	if err != nil {
		t.Fatal(err)
	}
	if v.Jobs != 2 || !c.Given("seed") || strings.Join(v.Names, "|") != "a|b" || v.Remove[0] != "3" || v.Set[0] != "x=1,2" ||
		strings.Join(v.Files, "|") != "f1|f2" || !c.Given("files") {
		t.Errorf("given: %+v, %v", v, c.given)
	}
}

// TestMCPZeroIsLeftOut: a field at its type's zero is as if left out, as
// the tools have always read omitempty fields; a Nullable field counts
// when it is there at all, "" and 0 included.
func TestMCPZeroIsLeftOut(t *testing.T) {
	v, c, err := fromMCP(`{"config":"w.json","jobs":0,"timeout":"","only":[],"app":false,"seed":null}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.Jobs != 4 || v.Timeout != 30*time.Second || c.Given("j") || c.Given("seed") || c.Given("findings") {
		t.Errorf("zeros: %+v, given %v", v, c.given)
	}
	v, c, err = fromMCP(`{"config":"w.json","seed":0,"findings":"","add":[{"kind":"pause","at":"1s"}],"remove":[2,3]}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Given("seed") || !c.Given("findings") || v.Add[0] != `{"at":"1s","kind":"pause"}` || strings.Join(v.Remove, ",") != "2,3" {
		t.Errorf("nullable fields given as zero: %+v, given %v", v, c.given)
	}
}

// TestErrorsInEachSurfacesWords: one bad value, one sentence, each
// surface naming the option its own way.
func TestErrorsInEachSurfacesWords(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		cli     []string
		mcp     string
		cliText string
		mcpText string
	}{
		{[]string{"-j", "0"}, `{"config":"w","jobs":-3}`, "-j must be at least 1", "sf_toy: jobs: must be at least 1"},
		{[]string{"-max-steps", "-1"}, `{"config":"w","max_steps":-1}`, "-max-steps must not be negative", "sf_toy: max_steps: must not be negative"},
		{[]string{"-timeout", "soon"}, `{"config":"w","timeout":"soon"}`, `-timeout: invalid duration "soon"`, `sf_toy: timeout: invalid duration "soon"`},
		{[]string{"-seed", "x"}, "", `-seed: "x" is not a seed (a whole number)`, ""},
		{[]string{"-out", dir}, `{"config":"w","out":"` + dir + `"}`, "-out " + dir + ": is a directory: name a file to write",
			"sf_toy: out: " + dir + ": is a directory: name a file to write"},
		// What only a call is refused: standard input, a blank world, more
		// than MCPMax, an empty file name.
		{nil, `{"config":"-"}`, "", `sf_toy: config: "-" reads standard input, which is the protocol's here: name a file`},
		{nil, `{"config":"  "}`, "", "sf_toy: config: missing: name the world file"},
		{nil, `{}`, "", "sf_toy: config: missing: name the world file"},
		{nil, `{"config":"w","jobs":9}`, "", "sf_toy: jobs: 9: at most 8"},
		{nil, `{"config":"w","files":["a",""]}`, "", `sf_toy: files: "": name a file`},
	} {
		if tc.cli != nil {
			_, _, err := fromCLI(tc.cli...)
			if err == nil || err.Error() != tc.cliText {
				t.Errorf("%q: %v, want %q", tc.cli, err, tc.cliText)
			}
		}
		if tc.mcp != "" {
			_, _, err := fromMCP(tc.mcp, nil)
			if err == nil || err.Error() != tc.mcpText {
				t.Errorf("%s: %v, want %q", tc.mcp, err, tc.mcpText)
			}
		}
	}
	// A path check of the server's, after the field's name.
	_, _, err := fromMCP(`{"config":"w","out":"../o"}`, func(o *Option, p string) error {
		if o.Path == Output {
			return fmt.Errorf("%s is outside", p)
		}
		return nil
	})
	if err == nil || err.Error() != "sf_toy: out: ../o is outside" {
		t.Errorf("a path check: %v", err)
	}
}

// TestCommandErrors: the errors a command finds after reading its
// options name them in each surface's words.
func TestCommandErrors(t *testing.T) {
	_, c, err := fromCLI("-seed", "1")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		err       *Error
		cli, mcp  string
		neutral   string
		errorType bool
	}{
		{c.Needs("j", "app", ""), "-j needs -app", "sf_toy: jobs: needs app", "j needs app", true},
		{c.Needs("c", "seed", "records name their worlds"), "-c needs -seed N; records name their worlds",
			"sf_toy: config: needs seed; records name their worlds", "c needs seed; records name their worlds", true},
		{c.Errorf("only", "cannot go with %s", Ref("app")), "-only cannot go with -app", "sf_toy: only: cannot go with app", "only cannot go with app", true},
		{c.Errorf("", "give %s or %s", Ref("seed"), Ref("files")), "give -seed or files", "sf_toy: give seed or files", "give seed or files", true},
	} {
		c.surface = onCLI
		if got := tc.err.Error(); got != tc.cli {
			t.Errorf("command line: %q, want %q", got, tc.cli)
		}
		c.surface, c.tool = onMCP, "sf_toy"
		if got := tc.err.Error(); got != tc.mcp {
			t.Errorf("call: %q, want %q", got, tc.mcp)
		}
		if got := tc.err.Text(); got != tc.neutral {
			t.Errorf("text: %q, want %q", got, tc.neutral)
		}
		var e *Error
		if !errors.As(error(tc.err), &e) {
			t.Errorf("not an *Error")
		}
	}
}

// TestSchema: a tool's input schema lists its fields in its order, typed
// as their values, described, the required ones required.
func TestSchema(t *testing.T) {
	b, err := json.Marshal(toy(new(toyVars)).Schema("sf_toy"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`{"type":"object","properties":{"config":{"type":"string","description":"the world FILE (default seedfall.json)"},`,
		`"out":{"type":"string","description":"where to write"}`,
		`"findings":{"type":["null","string"]`,
		`"jobs":{"type":"integer","description":"run N at once (default 4)"}`,
		`"timeout":{"type":"string","description":"give up after DURATION (default 30s)"}`,
		`"seed":{"type":["null","integer"],"description":"the seed N","minimum":0}`,
		`"remove":{"type":["null","array"],"items":{"type":"integer"}`,
		`"add":{"type":["null","array"],"items":{"type":"object","additionalProperties":true}`,
		`"required":["config"],"additionalProperties":false}`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("schema lacks %s:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), `"json"`) {
		t.Errorf("a flag only has a field: %s", b)
	}
}

// TestValidate: a declaration whose flag has no field and gives no reason,
// or whose tool lists a field no option has, is refused.
func TestValidate(t *testing.T) {
	if err := toy(new(toyVars)).Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		change func(c *Command)
		want   string
	}{
		{func(c *Command) { c.Options = append(c.Options, &Option{Flag: "new", Value: Bool(new(bool))}) },
			"sf-toy: -new is in no tool of the command as new, and does not say why (CLIOnly)"},
		{func(c *Command) { c.Tools[0].Fields = append(c.Tools[0].Fields, "nope") }, "sf-toy: tool sf_toy: field nope is no option's"},
		{func(c *Command) { c.Tools[0].Fields = append(c.Tools[0].Fields, "json") },
			"sf-toy: -json says it is only a flag (a tool returns records), but tool sf_toy has its field json"},
		{func(c *Command) { c.Options = append(c.Options, &Option{Field: "extra", Value: Bool(new(bool))}) },
			"sf-toy: field extra is in no tool of the command"},
		{func(c *Command) { c.Options[1].CLIOnly = "why" }, "sf-toy: -out says it is only a flag (why), but tool sf_toy has its field out"},
	} {
		c := toy(new(toyVars))
		tc.change(c)
		if err := c.Validate(); err == nil || err.Error() != tc.want {
			t.Errorf("%v, want %q", err, tc.want)
		}
	}
}
