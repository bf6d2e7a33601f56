// Command bugsites hits buggify sites and prints every firing, one line
// each: `bugsites: "SITE" fired at hit N`. It calls no property, so a sweep
// over it passes or fails on buggify and -fail alone.
//
// Usage:
//
//	bugsites [-hits 40] [-p 0.6] [-quiet] [-setup] [-after 0s] [-then 0s] [-none] [-fail]
//
// By default it hits "plain site" (sim.Buggify) and "prob site"
// (sim.BuggifyWithProb with -p) -hits times each. -quiet instead calls
// sim.QuietFor(1s), hits "quiet site" (p=1) -hits times, sleeps 2s and hits
// it -hits times more; -setup hits "setup site" (p=1) -hits times, calls
// sim.SetupComplete and hits it -hits times more. So with p=1 an enabled
// site fires at exactly the hits outside the quiet period or after setup.
// -after sleeps that long before the first hit, -then that long after the
// last. -none fails the run (sim.Fail) if any site fired; -fail fails it at
// the end in any case, so that the sweep keeps the seed's trace and fault
// schedule.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/sf-dst/sf/sim"
)

var fired int

// report counts and prints one firing.
func report(site string, n int, ok bool) {
	if ok {
		fired++
		fmt.Printf("bugsites: %q fired at hit %d\n", site, n)
	}
}

func main() {
	hits := flag.Int("hits", 40, "hits of each site")
	p := flag.Float64("p", 0.6, "firing probability of \"prob site\"")
	quiet := flag.Bool("quiet", false, "hit \"quiet site\" in and after a quiet period")
	setup := flag.Bool("setup", false, "hit \"setup site\" before and after SetupComplete")
	after := flag.Duration("after", 0, "sleep this long before the first hit")
	then := flag.Duration("then", 0, "sleep this long at the end")
	none := flag.Bool("none", false, "fail if any site fired")
	fail := flag.Bool("fail", false, "fail at the end")
	flag.Parse()
	time.Sleep(*after)

	switch {
	case *quiet:
		sim.QuietFor(time.Second)
		for i := 1; i <= *hits; i++ {
			report("quiet site", i, sim.BuggifyWithProb("quiet site", 1))
		}
		time.Sleep(2 * time.Second)
		for i := *hits + 1; i <= 2**hits; i++ {
			report("quiet site", i, sim.BuggifyWithProb("quiet site", 1))
		}
	case *setup:
		for i := 1; i <= *hits; i++ {
			report("setup site", i, sim.BuggifyWithProb("setup site", 1))
		}
		time.Sleep(100 * time.Millisecond)
		sim.SetupComplete()
		for i := *hits + 1; i <= 2**hits; i++ {
			report("setup site", i, sim.BuggifyWithProb("setup site", 1))
		}
	default:
		for i := 1; i <= *hits; i++ {
			report("plain site", i, sim.Buggify("plain site"))
			report("prob site", i, sim.BuggifyWithProb("prob site", *p))
		}
	}
	if len(os.Args) > 1000 {
		report("site nobody reaches", 1, sim.Buggify("site nobody reaches"))
	}
	time.Sleep(*then)
	fmt.Printf("bugsites: %d firings\n", fired)
	if *none && fired > 0 {
		sim.Fail(fmt.Sprintf("%d firings with buggify off", fired))
	}
	if *fail {
		sim.Fail("stop to keep the schedule")
	}
}
