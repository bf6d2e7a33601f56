// Command hardhistory records a kv history whose linearizability check runs
// for hours: -n puts of distinct values to one key whose outcome is unknown,
// then -n reads, one after the other, of those values in the reverse order of
// their writes, and a last read of a value never written. The history is not
// linearizable, but the search must try the orders of the unknown puts before
// it can say so. Tests use it to interrupt a run while it checks its history.
//
// Usage:
//
//	hardhistory [-n 40]
package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/sf-dst/sf/sim"
)

func main() {
	n := flag.Int("n", 40, "puts of unknown outcome, and reads")
	flag.Parse()
	value := func(i int) string { return fmt.Sprintf("v%d", i) }
	for i := range *n {
		sim.Put(i, "x", value(i)).Unknown()
	}
	for i := range *n {
		time.Sleep(time.Millisecond)
		sim.Get(*n, "x").Ok(value(*n - 1 - i))
	}
	time.Sleep(time.Millisecond)
	sim.Get(*n, "x").Ok("never written")
}
