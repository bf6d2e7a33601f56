package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestOwnRepository follows docs/real-systems.md: a service in a module of
// its own, outside this repository's workspace, with its world file in a
// sim/ folder, unchanged net code under net_overlay, and a workload that
// uses the SDK through a replace of github.com/sf-dst/sf/sim. It must pass,
// and a workload that asserts the wrong answer must fail.
func TestOwnRepository(t *testing.T) {
	tools.Need(t)
	dir := ownModule(t)
	r := sfRun(t, dir, "-c", "sim/seedfall.json", "-seeds", "1-3")
	r.WantExit(t, 0)
	r = sfRun(t, dir, "-c", "sim/wrong.json", "-seed", "1")
	r.WantExit(t, 1)
	if want := `server answered "HELLO\n", want "GOODBYE"`; !strings.Contains(r.Stdout, want) {
		t.Errorf("the report lacks %q\n%s", want, r)
	}
}

// ownModule writes the module of TestOwnRepository into a temporary
// directory and returns it: cmd/server, an upper-casing echo server on plain
// net, and sim/client, which asserts the answer to "hello" with the SDK;
// sim/seedfall.json passes and sim/wrong.json expects the wrong answer.
func ownModule(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "yourservice")
	clitest.WriteFile(t, filepath.Join(dir, "go.mod"), []byte(fmt.Sprintf(
		"module example.com/yourservice\n\ngo 1.26\n\nrequire github.com/sf-dst/sf/sim v0.0.0\n\nreplace github.com/sf-dst/sf/sim => %s\n",
		filepath.Join(tools.Root, "sim"))))
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
