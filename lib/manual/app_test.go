package manual

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestMainSharedFlags runs a command made with Main and the shared flags:
// -seeds and -seed as every command reads them, their usage errors naming
// the command, and -set values never split at commas.
func TestMainSharedFlags(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(Command{
			Name: "sf-x",
			Doc:  "// Sf-x is a test.\npackage main\n",
			Flags: []cli.Flag{WorldFlag(), ProfileFlag(), SetFlag(), JobsFlag("runs at once"), JSONFlag(),
				&cli.StringFlag{Name: "seeds"}, &cli.StringFlag{Name: "seed"}},
			Action: func(c *cli.Context) error {
				if err := NoArgs(c); err != nil {
					return err
				}
				if c.IsSet("seed") {
					s, err := Seed(c)
					if err != nil {
						return err
					}
					fmt.Fprintln(c.App.Writer, "seed", s)
					return Status(0)
				}
				seeds, text, err := Seeds(c)
				if err != nil {
					return err
				}
				fmt.Fprintln(c.App.Writer, len(seeds), text, c.String("c"), strings.Join(c.StringSlice("set"), "|"))
				return Status(len(seeds) % 3)
			},
		}, append([]string{"sf-x"}, args...), strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}
	for _, tc := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{nil, 1, "100 1-100 seedfall.json \n", ""},
		{[]string{"-seeds", "1-3", "-set", `a=["x","y"]`}, 0, "3 1-3 seedfall.json a=[\"x\",\"y\"]\n", ""},
		{[]string{"-seeds", " "}, 2, "", "sf-x: -seeds is empty: give seeds such as 1-100, 7 or 1-5,9 (see sf-x -h)\n"},
		{[]string{"-seed", "x"}, 2, "", "sf-x: -seed: \"x\" is not a seed (a whole number) (see sf-x -h)\n"},
		{[]string{"-seed", "7"}, 0, "seed 7\n", ""},
		{[]string{"extra"}, 2, "", "sf-x: unexpected argument \"extra\" (see sf-x -h)\n"},
	} {
		code, stdout, stderr := run(tc.args...)
		if code != tc.code || stdout != tc.stdout || stderr != tc.stderr {
			t.Errorf("sf-x %q: exit %d, stdout %q, stderr %q; want %d, %q, %q", tc.args, code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
		}
	}
	code, stdout, _ := run("-h")
	for _, want := range []string{"Sf-x is a test.\n", "  -c value", "(default seedfall.json)", "  -j value", "runs at once", "  -json", "  -set value"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("-h: exit %d, manual lacks %q:\n%s", code, want, stdout)
		}
	}
}

// TestSibling: a command run by a path names the sf command next to it; one
// run by name, the name alone.
func TestSibling(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sf-shrink"}, "sf-run"},
		{[]string{"bin/sf-shrink"}, "bin/sf-run"},
		{[]string{"/opt/sf/bin/sf-mcp"}, "/opt/sf/bin/sf-run"},
		{nil, "sf-run"},
	} {
		if got := Sibling(tc.args, "sf-run"); got != tc.want {
			t.Errorf("Sibling(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
