// Command chatter writes lines to stdout and stderr without end and never
// sleeps.
package main

import (
	"fmt"
	"os"
)

func main() {
	for i := 0; ; i++ {
		fmt.Printf("chatter: line %d\n", i)
		fmt.Fprintf(os.Stderr, "chatter: line %d\n", i)
	}
}
