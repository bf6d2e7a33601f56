// Command env checks what the simulator passes to a guest: SEEDFALL=1,
// SEEDFALL_NODE set to the node's name, its arguments and the environment of
// the world file. It exits 1 with a message on the first mismatch.
//
// Usage:
//
//	env -node NAME -want-args a,b,c [-want-env K=V]... [-sleep D]
//
// -sleep keeps it running for D of virtual time after the checks, so that
// as a workload it lets the other nodes run before the run ends.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

func fail(format string, args ...any) {
	fmt.Printf("env: FAIL "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	node := flag.String("node", "", "the node name this guest runs as")
	wantArgs := flag.String("want-args", "", "comma-separated positional arguments expected after the flags")
	var wantEnv list
	flag.Var(&wantEnv, "want-env", "K=V expected in the environment (repeatable)")
	sleep := flag.Duration("sleep", 0, "virtual time to stay up after the checks")
	flag.Parse()
	if got := os.Getenv("SEEDFALL"); got != "1" {
		fail("SEEDFALL=%q, want \"1\"", got)
	}
	if got := os.Getenv("SEEDFALL_NODE"); got != *node {
		fail("SEEDFALL_NODE=%q, want %q", got, *node)
	}
	if os.Args[0] != *node {
		fmt.Printf("env: note: os.Args[0]=%q\n", os.Args[0])
	}
	if got := strings.Join(flag.Args(), ","); got != *wantArgs {
		fail("args %q, want %q", got, *wantArgs)
	}
	for _, kv := range wantEnv {
		k, v, _ := strings.Cut(kv, "=")
		got, ok := os.LookupEnv(k)
		if !ok || got != v {
			fail("env %s=%q (set: %v), want %q", k, got, ok, v)
		}
	}
	fmt.Printf("env: ok: node %s, %d args, %d env checks, environ %q\n", *node, flag.NArg(), len(wantEnv), os.Environ())
	time.Sleep(*sleep)
}
