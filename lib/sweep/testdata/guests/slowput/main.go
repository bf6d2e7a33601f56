// Command slowput is a workload for history tests of crashes: one client
// writes and reads back a key of an in-memory map, slowly (each operation
// sleeps between its invocation and its completion), and saves nothing. A
// crash of the workload kills it in the middle of an operation, which stays
// open in the history; the restarted workload starts over with a fresh map
// and new values. Open writes may take effect at any later time, so the
// history stays linearizable (model kv).
//
// Usage:
//
//	slowput [-ops 10] [-client 1] [-op-time 50ms]
package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/sf-dst/sf/sim"
)

func main() {
	ops := flag.Int("ops", 10, "writes, each read back")
	client := flag.Int("client", 1, "the client id to record operations under")
	opTime := flag.Duration("op-time", 50*time.Millisecond, "time between an operation's invocation and its effect, and again before its completion")
	flag.Parse()

	// A tag from the node's seeded stream keeps this incarnation's values
	// apart from those of an earlier one, which a crash cut short.
	tag := sim.Random() % 10000
	m := map[string]string{}
	for i := range *ops {
		v := fmt.Sprintf("%04d-%d", tag, i)
		op := sim.Put(*client, "k", v)
		time.Sleep(*opTime)
		m["k"] = v
		time.Sleep(*opTime)
		op.Ok("")

		op = sim.Get(*client, "k")
		time.Sleep(*opTime)
		got := m["k"]
		time.Sleep(*opTime)
		op.Ok(got)
	}
	fmt.Printf("slowput: incarnation %04d wrote %d values\n", tag, *ops)
}
