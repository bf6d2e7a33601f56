// Command panic writes a few lines to stderr and panics after a short sleep.
//
// Usage:
//
//	panic [-depth N] [-decoy]
//
// -depth N panics N calls deep, so that the stack trace after the panic line
// is long. -decoy first prints a log line that starts with "panic: " as well.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	depth := flag.Int("depth", 0, "calls between main and the panic")
	decoy := flag.Bool("decoy", false, "print a log line starting with \"panic: \" before panicking")
	flag.Parse()
	time.Sleep(100 * time.Millisecond)
	fmt.Fprintln(os.Stderr, "panic guest: about to fail")
	if *decoy {
		fmt.Fprintln(os.Stderr, "panic: this line is only a log message")
	}
	fmt.Fprintln(os.Stderr, "panic guest: last words before the panic")
	recurse(*depth)
}

//go:noinline
func recurse(n int) {
	if n <= 0 {
		panic("planted panic in the panic guest")
	}
	recurse(n - 1)
}
