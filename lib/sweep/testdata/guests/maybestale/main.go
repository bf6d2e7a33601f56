// Command maybestale is a workload for tests of sf-run -explore that needs
// no server: one client writes and reads a key of an in-memory map a few
// times, recording each operation with sim.Put and sim.Get, and then, with
// a chance of 1 in -one-in drawn from its random stream, serves one last
// read from a stale cache, which makes the history not linearizable (model
// kv). A Sometimes property says whether it did, which gives an exploration
// a state to branch from; a branch taken before the draw draws it again.
//
// Usage:
//
//	maybestale [-one-in 3] [-ops 8]
package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/sf-dst/sf/sim"
)

func main() {
	oneIn := flag.Int("one-in", 3, "serve the stale read in one run of this many")
	ops := flag.Int("ops", 8, "writes, each read back")
	flag.Parse()

	m := map[string]string{}
	pause := func() { time.Sleep(time.Duration(1+sim.Random()%5) * time.Millisecond) }
	for i := range *ops {
		v := fmt.Sprint(i)
		op := sim.Put(0, "k", v)
		pause()
		m["k"] = v
		op.Ok("")
		pause()
		op = sim.Get(0, "k")
		pause()
		op.Ok(m["k"])
		pause()
	}
	cached := m["k"]
	stale := sim.Random()%uint64(*oneIn) == 0
	sim.Sometimes(stale, "the stale read was served")
	op := sim.Put(0, "k", "fresh")
	m["k"] = "fresh"
	op.Ok("")
	time.Sleep(time.Millisecond)
	op = sim.Get(0, "k")
	if stale {
		op.Ok(cached)
		fmt.Printf("maybestale: served k = %q from a stale cache\n", cached)
		return
	}
	op.Ok(m["k"])
}
