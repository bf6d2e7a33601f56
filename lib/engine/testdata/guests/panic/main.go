// Command panic writes a few lines to stderr and panics after a short sleep.
package main

import (
	"fmt"
	"os"
	"time"
)

func main() {
	time.Sleep(100 * time.Millisecond)
	fmt.Fprintln(os.Stderr, "panic: about to fail")
	fmt.Fprintln(os.Stderr, "last words before the panic")
	panic("planted panic in the panic guest")
}
