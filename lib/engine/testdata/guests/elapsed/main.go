// Command elapsed measures ten sleeps of one second with time.Since, which
// reads the monotonic clock, and exits 1 with a message when one of them
// did not take between 1s and 2s. Jumps of the wall clock must not change
// what it measures.
package main

import (
	"fmt"
	"os"
	"time"
)

func main() {
	for i := range 10 {
		start := time.Now()
		time.Sleep(time.Second)
		if d := time.Since(start); d < time.Second || d > 2*time.Second {
			fmt.Printf("sleep %d took %v\n", i+1, d)
			os.Exit(1)
		}
	}
	fmt.Println("every sleep took about 1s")
}
