// Command clocks prints what its clocks read every -every of virtual time,
// for -for in all, one line each:
//
//	clocks: NAME wall=W mono=M since=S
//
// W is time.Now() in Unix nanoseconds (the wall clock), M the raw monotonic
// clock from WASI clock_time_get, and S is time.Since of the first reading,
// which Go takes from the monotonic clock. -fail fails the run at the end so
// that a sweep keeps the seed's trace and schedule.
//
// Usage:
//
//	clocks [-for 1s] [-every 250ms] [-fail]
package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/sf-dst/sf/sim"
)

func main() {
	total := flag.Duration("for", time.Second, "how long to read the clocks")
	every := flag.Duration("every", 250*time.Millisecond, "time between readings")
	fail := flag.Bool("fail", false, "fail at the end")
	flag.Parse()
	start := time.Now()
	for {
		now := time.Now()
		since := time.Since(start)
		fmt.Printf("clocks: %s wall=%d mono=%d since=%d\n", sim.Node(), now.UnixNano(), monotonic(), since.Nanoseconds())
		if since >= *total {
			break
		}
		time.Sleep(*every)
	}
	if *fail {
		sim.Fail("stop to keep the schedule")
	}
}
