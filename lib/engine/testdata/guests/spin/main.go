// Command spin busy-loops without a system call, so only the real-time
// watchdog can stop it: forever, or with an argument N for N iterations,
// after which it exits 0.
package main

import (
	"fmt"
	"os"
	"strconv"
)

// counter is a global so that the loop is not optimised away.
var counter uint64

func main() {
	fmt.Fprintln(os.Stderr, "spin: spinning")
	limit := uint64(1<<64 - 1)
	if len(os.Args) > 1 {
		n, err := strconv.ParseUint(os.Args[1], 10, 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, "spin:", err)
			os.Exit(2)
		}
		limit = n
	}
	for counter < limit {
		counter++
	}
}
