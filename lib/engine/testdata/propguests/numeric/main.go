// Command numeric makes comparisons that a float64 gets wrong (issue 27):
// integers that differ in their last digits, uint64s above 2^63, and
// margins that are infinite or NaN. Every property holds unless -nan is
// given, which compares with a NaN: that never holds, and its details must
// still name left and right.
package main

import (
	"flag"
	"math"
	"time"

	"github.com/sf-dst/sf/sim"
)

func main() {
	nan := flag.Bool("nan", false, "compare with a NaN")
	flag.Parse()

	a := time.Now().UnixNano()
	sim.AlwaysLessThan(a, a+1, "a timestamp is before the next nanosecond")
	sim.AlwaysGreaterThan(uint64(1<<63)+5, uint64(1<<63), "uint64s above 2^63 compare exactly")
	sim.AlwaysGreaterThan(int64(math.MaxInt64), int64(math.MinInt64), "the widest gap of two int64s")
	sim.AlwaysLessThan(0, math.Inf(1), "everything is below infinity")
	right := 1.0
	if *nan {
		right = math.NaN()
	}
	sim.AlwaysLessThan(0, right, "zero is below the right side")
}
