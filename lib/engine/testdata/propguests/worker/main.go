// Command worker is a workload or node that only passes time: it prints
// `worker: NAME started`, sleeps -for in steps of 100ms of virtual time (for
// ever when -for is negative) and exits with -exit.
//
// Usage:
//
//	worker [-for 1s] [-exit 0]
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/sf-dst/sf/sim"
)

func main() {
	total := flag.Duration("for", time.Second, "virtual time to run; negative runs for ever")
	code := flag.Int("exit", 0, "exit status")
	flag.Parse()
	fmt.Printf("worker: %s started\n", sim.Node())
	start := time.Now()
	for *total < 0 || time.Since(start) < *total {
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Printf("worker: %s exits %d after %s\n", sim.Node(), *code, time.Since(start))
	os.Exit(*code)
}
