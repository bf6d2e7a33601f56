// Command ops is a workload of timed operations for the engine's tests of
// sim.Budget, Options.StopAtNs and branches. It asks sim.Budget for -ops
// operations; each one sleeps -every of virtual time and prints a line with
// a number drawn from the node's random stream, so the trace shows when each
// node ran, in what order, and what its stream gave it:
//
//	op 3 of 200: 9f2c01a4d2e7b8c1
//
// With -fail-at N it fails the run (sim.Fail) at operation N.
//
// Usage:
//
//	ops [-ops 200] [-every 10ms] [-fail-at 0]
package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/sf-dst/sf/sim"
)

func main() {
	ops := flag.Int("ops", 200, "operations to ask sim.Budget for")
	every := flag.Duration("every", 10*time.Millisecond, "virtual time each operation sleeps")
	failAt := flag.Int("fail-at", 0, "fail the run at this operation; 0 never")
	flag.Parse()
	n := sim.Budget(*ops)
	for i := 1; i <= n; i++ {
		time.Sleep(*every)
		fmt.Printf("op %d of %d: %016x\n", i, n, sim.Random())
		if i == *failAt {
			sim.Fail(fmt.Sprintf("ops: failing at operation %d as asked", i))
		}
	}
	fmt.Printf("done: %d operations\n", n)
}
