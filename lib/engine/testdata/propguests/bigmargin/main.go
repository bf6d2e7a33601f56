// Command bigmargin checks one comparison whose margin is large: two seconds
// in nanoseconds, as a workload that compares durations would have.
package main

import (
	"time"

	"github.com/sf-dst/sf/sim"
)

func main() {
	sim.AlwaysGreaterThan(int64(2*time.Second), 0, "a large margin is printed in full")
}
