// Command spin busy-loops forever without a system call, so only the real-time
// watchdog can stop it.
package main

import (
	"fmt"
	"os"
)

// counter is a global so that the loop is not optimised away.
var counter uint64

func main() {
	fmt.Fprintln(os.Stderr, "spin: spinning")
	for {
		counter++
	}
}
