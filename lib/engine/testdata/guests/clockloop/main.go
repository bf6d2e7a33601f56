// Command clockloop reads the clock a million times, 100 reads (50
// time.Now calls) between sleeps of a microsecond, as Go's runtime does in
// a busy program: BenchmarkGuestClockReads times it.
package main

import (
	"fmt"
	"time"
)

func main() {
	var n int64
	for range 10000 {
		for range 50 {
			n += time.Now().UnixNano() & 1
		}
		time.Sleep(time.Microsecond)
	}
	fmt.Println(n)
}
