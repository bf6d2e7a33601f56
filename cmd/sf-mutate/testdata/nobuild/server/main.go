// Command server is a node for sf-mutate's tests. Its Sync method returns
// an int, so the skip_sync mutant, which makes the call return an error,
// does not compile; flipping its one comparison makes it exit 3.
package main

import (
	"os"
	"time"
)

type counter struct{ n int }

// Sync counts its calls.
func (c *counter) Sync() int { c.n++; return c.n }

func main() {
	c := &counter{}
	if c.Sync()+1 < 0 {
		os.Exit(3)
	}
	time.Sleep(time.Hour)
}
