package manual

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// These tests run every sf command as built, for what they share through
// this package: -h and help manual, and the answer to a mistyped flag.

var tools clitest.Tools

// commands are every sf command, each with a mistyped flag and what the
// command answers to it.
var commands = []struct {
	name, typo, stderr string
}{
	{"sf-build", "-quiet", "sf-build: unknown flag -quiet (see sf-build -h)\n"},
	{"sf-check", "-histroy", "sf-check: unknown flag -histroy: did you mean -history? (see sf-check -h)\n"},
	{"sf-faults", "-remvoe", "sf-faults: unknown flag -remvoe: did you mean -remove? (see sf-faults -h)\n"},
	{"sf-mcp", "-dri", "sf-mcp: unknown flag -dri: did you mean -dir? (see sf-mcp -h)\n"},
	{"sf-mutate", "-mutans", "sf-mutate: unknown flag -mutans: did you mean -mutants? (see sf-mutate -h)\n"},
	{"sf-report", "-fidnings", "sf-report: unknown flag -fidnings: did you mean -findings? (see sf-report -h)\n"},
	{"sf-run", "-seedss", "sf-run: unknown flag -seedss: did you mean -seeds? (see sf-run -h)\n"},
	{"sf-shrink", "-seeds", "sf-shrink: unknown flag -seeds: did you mean -seed? (see sf-shrink -h)\n"},
}

func TestMain(m *testing.M) {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	os.Exit(tools.Main(m, names...))
}

var update = flag.Bool("update", false, "rewrite the golden files")

// checkGolden compares a command's -h page with testdata/help/NAME.txt,
// the number of CPUs in -j's default written as N so that the file holds
// on any machine; -update rewrites the file. The page is the flags' names,
// placeholders, defaults and texts as users and scripts read them.
func checkGolden(t *testing.T, name, page string) {
	t.Helper()
	page = strings.ReplaceAll(page, fmt.Sprintf("(default: %d, the number of CPUs)", runtime.NumCPU()), "(default: N, the number of CPUs)")
	path := filepath.Join("testdata", "help", name+".txt")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if page != string(want) {
		t.Errorf("%s -h differs from %s (-update rewrites it):\n%s", name, path, page)
	}
}

// flagLineRE is a line of -h's flag list: the flag, its placeholder if it
// takes a value, and two spaces or the end of the line.
var flagLineRE = regexp.MustCompile(`^  (-[a-z-]+)( [^ ]+)?(  |$)`)

// TestEveryCommandsPage: every command's -h fits a terminal page, at most
// PageLines lines of at most Width columns, with its usage, every flag
// named with a placeholder of its own rather than a bare VALUE, and its
// exit status; help manual prints the whole manual within Width (issue 29).
func TestEveryCommandsPage(t *testing.T) {
	tools.Need(t)
	if len(commands) != 8 {
		t.Fatalf("%d commands, want the 8 of cmd/", len(commands))
	}
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			r := clitest.Exec(t, clitest.Cmd{Dir: t.TempDir()}, tools.Path(c.name), "-h")
			r.WantExitClean(t, 0)
			if r.Stderr != "" {
				t.Errorf("-h wrote on stderr\n%s", r)
			}
			checkGolden(t, c.name, r.Stdout)
			lines := strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n")
			if len(lines) > PageLines {
				t.Errorf("-h is %d lines, more than a page of %d\n%s", len(lines), PageLines, r.Stdout)
			}
			flags := 0
			inFlags := false
			for i, l := range lines {
				if len(l) > Width {
					t.Errorf("-h line %d is %d columns, more than %d: %q", i+1, len(l), Width, l)
				}
				switch {
				case l == "Flags:":
					inFlags = true
				case l == "":
					inFlags = false
				case inFlags:
					m := flagLineRE.FindStringSubmatch(l)
					if m == nil {
						continue // a wrapped explanation
					}
					flags++
					if m[2] == " VALUE" {
						t.Errorf("flag %s has no placeholder of its own: %q", m[1], l)
					}
				}
			}
			for _, want := range []string{"\nUsage:\n  ", c.name + " [", "\nFlags:\n", "\n  -h, -help ", "\nExit status: 0 "} {
				if !strings.Contains(r.Stdout, want) {
					t.Errorf("-h lacks %q\n%s", want, r.Stdout)
				}
			}
			if flags < 1 {
				t.Errorf("-h lists %d flags\n%s", flags, r.Stdout)
			}

			m := clitest.Exec(t, clitest.Cmd{Dir: t.TempDir()}, tools.Path(c.name), "help", "manual")
			m.WantExitClean(t, 0)
			if len(m.Stdout) <= len(r.Stdout) || !strings.Contains(m.Stdout, "\nFlags:\n") {
				t.Errorf("help manual is no more than -h\n%s", m.Stdout)
			}
			for i, l := range strings.Split(m.Stdout, "\n") {
				if len(l) > Width {
					t.Errorf("help manual line %d is %d columns, more than %d: %q", i+1, len(l), Width, l)
				}
			}
		})
	}
}

// TestEveryCommandsTypo: a mistyped flag is a usage error, exit status 2,
// that names the nearest flag when one is near (issue 29).
func TestEveryCommandsTypo(t *testing.T) {
	tools.Need(t)
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			r := clitest.Exec(t, clitest.Cmd{Dir: t.TempDir()}, tools.Path(c.name), c.typo, "1")
			r.Want(t, 2, c.stderr)
			if r.Stdout != "" {
				t.Errorf("a usage error wrote on stdout\n%s", r)
			}
		})
	}
}

// TestEveryCommandsMissingWorld: a command that reads a world file and
// finds none says which folder it looked in and that -c names another
// (issue 29).
func TestEveryCommandsMissingWorld(t *testing.T) {
	tools.Need(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	missing := "seedfall.json: no such file or directory (looked in " + dir + "; -c FILE names the world file)\n"
	for _, c := range []struct {
		name   string
		args   []string
		prefix string
	}{
		{"sf-build", nil, "sf-build: "},
		{"sf-faults", []string{"-seed", "1"}, "sf-faults: "},
		{"sf-mutate", nil, "sf-mutate: "},
		{"sf-run", nil, "sf-run: "},
		{"sf-run", []string{"-seed", "3"}, "sf-run: "},
		{"sf-shrink", []string{"-seed", "1"}, "sf-shrink: seed 1 of seedfall.json: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := clitest.Exec(t, clitest.Cmd{Dir: dir, StdoutFile: true}, append([]string{tools.Path(c.name)}, c.args...)...)
			r.Want(t, 2, c.prefix+missing)
		})
	}
}

// TestEveryCommandsProgressVariable: an SF_PROGRESS that does not read is
// a usage error of every command, before any work (issue 29); -h still
// prints its page.
func TestEveryCommandsProgressVariable(t *testing.T) {
	tools.Need(t)
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			cmd := clitest.Cmd{Dir: t.TempDir(), Env: []string{"SF_PROGRESS=often"}}
			r := clitest.Exec(t, cmd, tools.Path(c.name))
			r.Want(t, 2, c.name+`: SF_PROGRESS="often": want the time between progress lines, a duration of at least 100ms such as 5s (see `+c.name+" -h)\n")
			clitest.Exec(t, cmd, tools.Path(c.name), "-h").WantExitClean(t, 0)
		})
	}
}
