// Command server calls every cataloged function of the sim SDK, imported
// under its own name.
package main

import (
	"time"

	"example.com/guest/internal/store"
	"example.com/thirdparty/lib"
	"github.com/sf-dst/sf/sim"
)

func main() {
	n, m := 3, 2
	ok := n > m
	sim.Always(ok, "always holds", n)
	sim.AlwaysOrUnreachable(ok, "always or unreachable")
	sim.Sometimes(ok, "sometimes true")
	sim.Reachable("reached")
	sim.Unreachable("never reached", n)
	sim.AlwaysGreaterThan(n, m, "always gt")
	sim.AlwaysGreaterThanOrEqualTo(n, m, "always ge")
	sim.AlwaysLessThan(m, n, "always lt")
	sim.AlwaysLessThanOrEqualTo(m, n, "always le")
	sim.SometimesGreaterThan(n, m, "sometimes gt")
	sim.SometimesGreaterThanOrEqualTo(n, m, "sometimes ge")
	sim.SometimesLessThan(m, n, "sometimes lt")
	sim.SometimesLessThanOrEqualTo(m, n, "sometimes le")
	sim.AlwaysSome(map[string]bool{"a": ok}, "always some")
	sim.SometimesAll(map[string]bool{"a": ok}, "sometimes all")
	sim.Eventually(func() bool {
		sim.Reachable("inside a function literal")
		return ok
	}, "eventually true", 5*time.Second)
	if sim.Buggify("default site") {
		return
	}
	if sim.BuggifyWithProb("half site", 0.5) {
		return
	}
	sim.Assert(ok, "an assert is not a property")
	sim.Event("an event is not a property", nil)
	sim.Reachable("twice")
	store.Put(nil)
	lib.Do()
	sim.Reachable("twice")
	if !ok {
		sim.Fail("fail is not a property")
	}
}

type notSim struct{}

func (notSim) Always(bool, string) {}

// shadowed calls a local value named like the import, which is not the SDK.
func shadowed() {
	sim := notSim{}
	sim.Always(true, "a local named sim")
}
