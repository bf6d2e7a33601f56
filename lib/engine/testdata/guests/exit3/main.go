// Command exit3 exits with status 3 after a short sleep.
//
// Usage:
//
//	exit3 [-after 200ms]
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	after := flag.Duration("after", 200*time.Millisecond, "virtual time before exiting")
	flag.Parse()
	time.Sleep(*after)
	fmt.Fprintln(os.Stderr, "exit3: exiting with status 3")
	os.Exit(3)
}
