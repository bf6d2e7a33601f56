// Command props calls every property form of the sim package in each run,
// each one reached and satisfied, so that a sweep over it passes. -break
// NAME violates one of them, which must fail the seed or the sweep:
//
//	always        Always is false
//	aou           AlwaysOrUnreachable is false
//	aou-skip      AlwaysOrUnreachable is not called (which is allowed)
//	sometimes     Sometimes is never true
//	reachable     Reachable is not called
//	unreachable   Unreachable is called
//	le            AlwaysLessThanOrEqualTo(41, 40)
//	gt            AlwaysGreaterThan(10, 12)
//	sgt           SometimesGreaterThan never true (largest margin -96)
//	some          AlwaysSome with every value false
//	all           SometimesAll never all true
//	eventually    Eventually never true within 1s
//	fail          sim.Fail
//	assert        sim.Assert is false
//
// Every call site runs in every mode, except the ones a mode skips, so the
// property catalog, which scans this file, finds nothing unreached.
package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/sf-dst/sf/sim"
)

func main() {
	brk := flag.String("break", "", "the property to violate")
	flag.Parse()
	b := func(name string) bool { return *brk == name }

	sim.Always(!b("always"), "always holds", map[string]int{"run": 1})

	if !b("aou-skip") {
		sim.AlwaysOrUnreachable(!b("aou"), "always-or-unreachable holds")
	}

	heads := 0
	for range 8 {
		if sim.Random()%2 == 0 {
			heads++
		}
	}
	sim.Sometimes(heads >= 4 && !b("sometimes"), "half the coins came up heads", heads)

	if !b("reachable") {
		sim.Reachable("the reachable branch ran")
	}
	if b("unreachable") {
		sim.Unreachable("the impossible branch ran", 7)
	}

	// Comparisons. Each margin is fixed, so the table's margins are known:
	// left is at most 40 with margin 0 (the boundary, hit exactly), value
	// stays above the floor with smallest margin 3, i stays below 10 with
	// smallest margin 6, ratio at least 1 with margin 1.5; i gets past the
	// limit with largest margin 2, i reaches 4 with 0, i drops below 1 with
	// 1, i drops to 0 with 0.
	left := 40
	if b("le") {
		left = 41
	}
	sim.AlwaysLessThanOrEqualTo(left, 40, "left is at most 40")
	floor, limit := 7, 2
	if b("gt") {
		floor = 12
	}
	if b("sgt") {
		limit = 100
	}
	for i := range 5 {
		sim.AlwaysGreaterThan(10+i, floor, "value stays above the floor")
		sim.AlwaysLessThan(i, 10, "i stays below 10")
		sim.SometimesGreaterThan(i, limit, "i gets past the limit")
		sim.SometimesGreaterThanOrEqualTo(int64(i), 4, "i reaches 4")
		sim.SometimesLessThan(i, 1, "i drops below 1")
		sim.SometimesLessThanOrEqualTo(uint8(i), 0, "i drops to 0")
	}
	sim.AlwaysGreaterThanOrEqualTo(2.5, 1.0, "ratio is at least 1")

	sim.AlwaysSome(map[string]bool{"primary": !b("some"), "backup": false}, "some replica answers")
	sim.SometimesAll(map[string]bool{"crashed": true, "recovered": !b("all")}, "a crashed node caught up")

	start := time.Now()
	sim.Eventually(func() bool {
		return !b("eventually") && time.Since(start) >= 300*time.Millisecond
	}, "the flag comes up", time.Second)

	if b("fail") {
		sim.Fail("gave up on purpose")
	}
	sim.Assert(!b("assert"), "assert holds")
	fmt.Printf("props: done (break %q)\n", *brk)
}
