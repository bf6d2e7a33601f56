package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/clitest"
)

// offline is the environment of a user's module outside the repository in
// these tests: no go.work of the repository's, and no module proxy, so
// that sf's own modules can only come from this checkout (the third-party
// modules they need come from the module cache).
var offline = []string{"GOWORK=off", "GOPROXY=off"}

// TestOwnRepository follows docs/real-systems.md as a new user does (issue
// 29): a service in a module of its own in a temporary folder, with a
// workload that uses the SDK and a go test that uses simtest, and nothing
// of sf in its go.mod yet. The first sf-run fails to build and says what to
// do, with the exact commands, instead of go's "go get", which cannot fetch
// an unpublished module; after those commands (the recipe) the world runs,
// a workload that asserts the wrong answer fails, go test with simtest
// passes and fails likewise, and go mod tidy keeps the require lines.
func TestOwnRepository(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := ownModuleFiles(t, "module example.com/yourservice\n\ngo 1.26.0\n")
	env := clitest.Cmd{Dir: dir, Env: offline}
	r := runBin(t, env, tools.Path("sf-run"), "-c", "sim/seedfall.json", "-seeds", "1-2")
	r.WantExit(t, 2)
	for _, want := range []string{
		"no required module provides package github.com/sf-dst/sf/sim\n",
		"sf's modules (github.com/sf-dst/sf/sim, the SDK; github.com/sf-dst/sf, simtest) are not published",
		`docs/real-systems.md, "3. sf's modules in yours"`,
		"    cd " + dir + "\n",
		"    go mod edit -replace=github.com/sf-dst/sf=" + tools.Root + " -replace=github.com/sf-dst/sf/sim=" + filepath.Join(tools.Root, "sim") + "\n",
		"    cat " + filepath.Join(tools.Root, "go.sum") + " >> go.sum\n",
		"    go get github.com/sf-dst/sf/sim\n",
	} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("the build error lacks %q\n%s", want, r)
		}
	}
	if strings.Contains(r.Stderr, "to add it") || strings.Contains(r.Stderr, "\tgo get") {
		t.Errorf("the build error passes on go's own go get, which cannot fetch sf\n%s", r)
	}
	// The commands, as the error gives them, are the recipe: run them.
	cmds := regexp.MustCompile(`(?m)^    (?:cd|go|cat) .*$`).FindAllString(r.Stderr[strings.Index(r.Stderr, "sf's modules"):], -1)
	if len(cmds) != 4 {
		t.Fatalf("want the four commands of the recipe, got %q\n%s", cmds, r)
	}
	clitest.Shell(t, clitest.Cmd{Env: offline}, "set -e\n"+strings.Join(cmds, "\n")).WantExit(t, 0)

	r = runBin(t, env, tools.Path("sf-run"), "-c", "sim/seedfall.json", "-seeds", "1-2")
	r.WantExit(t, 0)
	r = runBin(t, env, tools.Path("sf-run"), "-c", "sim/wrong.json", "-seed", "1")
	r.WantExit(t, 1)
	if want := `server answered "HELLO\n", want "GOODBYE"`; !strings.Contains(r.Stdout, want) {
		t.Errorf("the report lacks %q\n%s", want, r)
	}

	// simtest: the recipe's replace is in, so go's own remedy for the
	// missing package works now, as does the recipe's go get.
	goCmd := func(args ...string) result {
		t.Helper()
		return runBin(t, clitest.Cmd{Dir: dir, Env: offline, Timeout: 10 * time.Minute}, "go", args...)
	}
	r = goCmd("test", "-count=1", "./sim")
	if r.Code == 0 || !strings.Contains(r.Stderr, "is replaced but not required; to add it:\n\tgo get github.com/sf-dst/sf\n") {
		t.Errorf("go test without simtest in go.mod: want go's own go get line\n%s", r)
	}
	goCmd("get", "github.com/sf-dst/sf/simtest").WantExit(t, 0)
	r = goCmd("test", "-count=1", "-v", "./sim")
	r.WantExit(t, 1)
	for _, want := range []string{
		"--- PASS: TestWorld ",
		"--- FAIL: TestWrong/seed-1 ",
		`server answered "HELLO\n", want "GOODBYE"`,
		"replay: sf-run -c wrong.json -seed 1",
		"go test -run '^TestWrong$/^seed-1$'",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("go test of the module lacks %q\n%s", want, r)
		}
	}

	// go mod tidy keeps both require lines, now that the module imports
	// both packages. -e: offline, tidy cannot fetch the test-only
	// dependencies of sf's dependencies, which it records too; online it
	// needs no -e.
	goCmd("mod", "tidy", "-e").WantExit(t, 0)
	mod := clitest.ReadFile(t, filepath.Join(dir, "go.mod"))
	for _, want := range []string{
		"\tgithub.com/sf-dst/sf v0.0.0-00010101000000-000000000000\n",
		"\tgithub.com/sf-dst/sf/sim v0.0.0-00010101000000-000000000000\n",
		"replace github.com/sf-dst/sf => " + tools.Root + "\n",
		"replace github.com/sf-dst/sf/sim => " + filepath.Join(tools.Root, "sim") + "\n",
	} {
		if !strings.Contains(mod, want) {
			t.Errorf("go.mod after go mod tidy lacks %q\n%s", want, mod)
		}
	}
	r = runBin(t, env, tools.Path("sf-run"), "-c", "sim/seedfall.json", "-seeds", "1-2")
	r.WantExit(t, 0)
}

// ownModule writes the module of TestOwnRepository into a temporary
// directory and returns it: cmd/server, an upper-casing echo server on plain
// net, and sim/client, which asserts the answer to "hello" with the SDK;
// sim/seedfall.json passes and sim/wrong.json expects the wrong answer.
func ownModule(t *testing.T) string {
	t.Helper()
	return ownModuleFiles(t, fmt.Sprintf(
		"module example.com/yourservice\n\ngo 1.26\n\nrequire github.com/sf-dst/sf/sim v0.0.0\n\nreplace github.com/sf-dst/sf/sim => %s\n",
		filepath.Join(tools.Root, "sim")))
}

// ownModuleFiles writes ownModule's files with the given go.mod, and
// sim/world_test.go, which runs both worlds with simtest: TestWorld passes
// and TestWrong fails.
func ownModuleFiles(t *testing.T, goMod string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "yourservice")
	clitest.WriteFile(t, filepath.Join(dir, "go.mod"), goMod)
	clitest.WriteFile(t, filepath.Join(dir, "sim", "world_test.go"), `package world_test

import (
	"testing"

	"github.com/sf-dst/sf/simtest"
)

func TestWorld(t *testing.T) { simtest.Run(t, "seedfall.json", simtest.Seeds("1-2")) }
func TestWrong(t *testing.T) { simtest.Run(t, "wrong.json", simtest.Seeds("1")) }
`)
	clitest.WriteFile(t, filepath.Join(dir, "cmd", "server", "main.go"), []byte(`package main

import (
	"bufio"
	"flag"
	"log"
	"net"
	"strings"
)

func main() {
	addr := flag.String("listen", ":7000", "address")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go func() {
			defer c.Close()
			s := bufio.NewScanner(c)
			for s.Scan() {
				c.Write([]byte(strings.ToUpper(s.Text()) + "\n"))
			}
		}()
	}
}
`))
	clitest.WriteFile(t, filepath.Join(dir, "sim", "client", "main.go"), []byte(`package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"

	"github.com/sf-dst/sf/sim"
)

func main() {
	want := flag.String("want", "HELLO", "expected answer")
	flag.Parse()
	c, err := net.Dial("tcp", "server:7000")
	for err != nil {
		c, err = net.Dial("tcp", "server:7000")
	}
	fmt.Fprintln(c, "hello")
	line, _ := bufio.NewReader(c).ReadString('\n')
	sim.Assert(line == *want+"\n", fmt.Sprintf("server answered %q, want %q", line, *want))
}
`))
	world := func(name string, clientArgs ...string) {
		if clientArgs == nil {
			clientArgs = []string{}
		}
		clitest.WriteJSON(t, filepath.Join(dir, "sim", name), map[string]any{
			"net_overlay": true,
			"nodes":       []map[string]any{{"name": "server", "pkg": "../cmd/server", "args": []string{"-listen", ":7000"}}},
			"workload":    map[string]any{"name": "client", "pkg": "./client", "args": clientArgs},
			"duration":    "5s",
		})
	}
	world("seedfall.json")
	world("wrong.json", "-want", "GOODBYE")
	return dir
}
