// Command finalcheck is a finally check: it prints `finalcheck: started`,
// checks sim.Always(-ok, "the end state is consistent") and exits 0. With
// -hang it never returns, for liveness tests.
//
// Usage:
//
//	finalcheck [-ok=true] [-hang]
package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/sf-dst/sf/sim"
)

func main() {
	ok := flag.Bool("ok", true, "whether the check holds")
	hang := flag.Bool("hang", false, "never finish")
	flag.Parse()
	fmt.Println("finalcheck: started")
	for *hang {
		time.Sleep(100 * time.Millisecond)
	}
	sim.Always(*ok, "the end state is consistent")
	fmt.Println("finalcheck: done")
}
