package manual

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// TestMainFlags runs a command made with Main: its flags, a -set value
// never split at commas, an argument refused (NoArgs), the status an
// action returns (Status); its -h lists the flags. The flags the commands
// share are declared once in lib/commands (lib/cmdspec tests their
// errors).
func TestMainFlags(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(Command{
			Name: "sf-x",
			Doc:  "// Sf-x is a test.\npackage main\n",
			Flags: []cli.Flag{&cli.StringFlag{Name: "c", Value: "seedfall.json", Usage: "the world `FILE`"},
				&cli.StringSliceFlag{Name: "set", Usage: "override `PATH=VALUE`"}, &cli.IntFlag{Name: "n", Value: 3, Usage: "`N` of them"}},
			Action: func(c *cli.Context) error {
				if err := NoArgs(c); err != nil {
					return err
				}
				fmt.Fprintln(c.App.Writer, c.Int("n"), c.String("c"), strings.Join(c.StringSlice("set"), "|"))
				return Status(c.Int("n") % 3)
			},
		}, append([]string{"sf-x"}, args...), strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}
	for _, tc := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{nil, 0, "3 seedfall.json \n", ""},
		{[]string{"-n", "4", "-set", `a=["x","y"]`}, 1, "4 seedfall.json a=[\"x\",\"y\"]\n", ""},
		{[]string{"extra"}, 2, "", "sf-x: unexpected argument \"extra\" (see sf-x -h)\n"},
	} {
		code, stdout, stderr := run(tc.args...)
		if code != tc.code || stdout != tc.stdout || stderr != tc.stderr {
			t.Errorf("sf-x %q: exit %d, stdout %q, stderr %q; want %d, %q, %q", tc.args, code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
		}
	}
	code, stdout, _ := run("-h")
	for _, want := range []string{"Sf-x is a test.\n", "  -c FILE", "(default seedfall.json)", "  -n N", "  -set PATH=VALUE"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("-h: exit %d, manual lacks %q:\n%s", code, want, stdout)
		}
	}
}

// TestPage: -h prints the manual's first paragraph, its usage block, the
// flags with their placeholders and defaults, and its exit status, every
// line wrapped to Width; help manual prints the whole manual and the
// flags; a mistyped flag gets the nearest flag (issue 29).
func TestPage(t *testing.T) {
	const doc = `// Sf-x does a thing to a world, and this first paragraph is long enough that it has to be wrapped
// at one hundred columns when -h prints it.
//
// Usage:
//
//	sf-x [-c FILE] [-seeds RANGE] [-max N]
//
// A paragraph of the manual that -h leaves out.
//
//	an indented block
//
// Exit status: 0 done, 2 bad usage.
package main
`
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(Command{
			Name: "sf-x",
			Doc:  doc,
			Flags: []cli.Flag{&cli.StringFlag{Name: "c", Value: "seedfall.json", Usage: "the world `FILE`"}, &cli.StringFlag{Name: "seeds", DefaultText: "1-100", Usage: "the seeds, a `RANGE`"},
				&cli.IntFlag{Name: "max", Value: 10, Usage: "at most `N` of them, and a usage so long that it cannot fit on one line of the page"},
				&cli.StringFlag{Name: "plain", Usage: "no placeholder"}, &cli.BoolFlag{Name: "quick", Usage: "a switch"},
				&cli.DurationFlag{Name: "a-very-long-flag-name", Value: time.Second, Usage: "wait `DURATION`"}},
			Action: func(*cli.Context) error { return nil },
		}, append([]string{"sf-x"}, args...), strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}
	want := `Sf-x does a thing to a world, and this first paragraph is long enough that it has to be wrapped at
one hundred columns when -h prints it.

Usage:
  sf-x [-c FILE] [-seeds RANGE] [-max N]

Flags:
  -c FILE       the world FILE (default seedfall.json)
  -seeds RANGE  the seeds, a RANGE (default 1-100)
  -max N        at most N of them, and a usage so long that it cannot fit on one line of the page
                (default 10)
  -plain VALUE  no placeholder
  -quick        a switch
  -a-very-long-flag-name DURATION
                wait DURATION (default 1s)
  -h, -help     this page; sf-x help manual prints the whole manual

Exit status: 0 done, 2 bad usage.
`
	for _, args := range [][]string{{"-h"}, {"-help"}, {"help"}} {
		code, stdout, stderr := run(args...)
		if code != 0 || stdout != want || stderr != "" {
			t.Errorf("sf-x %s: exit %d, stderr %q, stdout\n%s\nwant\n%s", args, code, stderr, stdout, want)
		}
	}
	code, stdout, _ := run("help", "manual")
	for _, w := range []string{"A paragraph of the manual that -h leaves out.\n", "\n    an indented block\n", "\nFlags:\n",
		"  -h, -help     print one page of help (sf-x -h)\n"} {
		if code != 0 || !strings.Contains(stdout, w) {
			t.Errorf("help manual: exit %d, lacks %q:\n%s", code, w, stdout)
		}
	}
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"-seedss", "3"}, "sf-x: unknown flag -seedss: did you mean -seeds? (see sf-x -h)\n"},
		{[]string{"-seedss=3"}, "sf-x: unknown flag -seedss: did you mean -seeds? (see sf-x -h)\n"},
		{[]string{"--mxa", "3"}, "sf-x: unknown flag -mxa: did you mean -max? (see sf-x -h)\n"},
		{[]string{"-k"}, "sf-x: unknown flag -k (see sf-x -h)\n"}, // -c is a letter away: too far to guess
		{[]string{"-zzzzz"}, "sf-x: unknown flag -zzzzz (see sf-x -h)\n"},
		{[]string{"-max", "x"}, "sf-x: invalid value \"x\" for flag -max: parse error (see sf-x -h)\n"},
		{[]string{"help", "me"}, "sf-x: help me: the topics are none (this page) and manual (the whole manual) (see sf-x -h)\n"},
	} {
		code, stdout, stderr := run(tc.args...)
		if code != 2 || stdout != "" || stderr != tc.stderr {
			t.Errorf("sf-x %q: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, stdout, stderr, tc.stderr)
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
		// The folder as written: ./sf-run, not sf-run from PATH.
		{[]string{"./sf-faults"}, "./sf-run"},
		{nil, "sf-run"},
	} {
		if got := Sibling(tc.args, "sf-run"); got != tc.want {
			t.Errorf("Sibling(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
