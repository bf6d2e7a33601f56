// Command sleeper is a trivial workload for engine tests: it sleeps in steps
// of virtual time and exits 0.
//
// Usage:
//
//	sleeper [-for 3s] [-step 100ms]
package main

import (
	"flag"
	"fmt"
	"time"
)

func main() {
	total := flag.Duration("for", 3*time.Second, "virtual time to sleep in all")
	step := flag.Duration("step", 100*time.Millisecond, "one sleep")
	flag.Parse()
	start := time.Now()
	for time.Since(start) < *total {
		time.Sleep(*step)
	}
	fmt.Printf("sleeper: slept %s\n", time.Since(start))
}
