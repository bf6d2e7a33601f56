// Command clock checks the virtual clocks: the wall clock starts at the fixed
// epoch 2023-11-14T22:13:20Z, and every time.Sleep(1s) advances both the
// monotonic and the wall clock by at least 1s and by less than 1s+slack. It
// sleeps 10 virtual seconds in all and exits 1 with a message on the first
// mismatch.
package main

import (
	"fmt"
	"os"
	"time"
)

const (
	sleeps = 10
	slack  = 10 * time.Millisecond
)

var epoch = time.Date(2023, 11, 14, 22, 13, 20, 0, time.UTC)

func fail(format string, args ...any) {
	fmt.Printf("clock: FAIL "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	start := time.Now()
	if d := start.Sub(epoch); d < 0 || d > time.Second {
		fail("time.Now() = %s, want within 1s after the epoch %s", start.UTC().Format(time.RFC3339Nano), epoch.Format(time.RFC3339))
	}
	fmt.Printf("clock: start %s\n", start.UTC().Format(time.RFC3339Nano))
	prev := start
	for i := 1; i <= sleeps; i++ {
		time.Sleep(time.Second)
		now := time.Now()
		if d := now.Sub(prev); d < time.Second || d >= time.Second+slack {
			fail("sleep %d: monotonic clock advanced %s, want [1s, %s)", i, d, time.Second+slack)
		}
		if d := now.Round(0).Sub(prev.Round(0)); d < time.Second || d >= time.Second+slack {
			fail("sleep %d: wall clock advanced %s, want [1s, %s)", i, d, time.Second+slack)
		}
		prev = now
	}
	total := time.Since(start)
	if total < sleeps*time.Second {
		fail("time.Since(start) = %s after %d sleeps of 1s", total, sleeps)
	}
	fmt.Printf("clock: ok: slept %s, now %s\n", total, time.Now().UTC().Format(time.RFC3339Nano))
}
