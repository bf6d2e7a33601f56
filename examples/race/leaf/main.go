// Command leaf is the race example's second program. Two goroutines each
// add one to a shared count n times, and at the end the count must be 2n.
//
// Usage:
//
//	leaf [-n 2000]
//
// An increment reads the count, computes the next value in bump and writes
// it back. bump is a small leaf function: a loop and no call. Go compiles
// such a function without a frame and so without the stack check at its
// entry where a goroutine can be preempted, so the only point inside the
// window between the read and the write is the call of bump itself.
// sf's preemption adds the check to such functions, as Go's own
// asynchronous preemption would stop a goroutine anywhere, and the race
// shows; without preemption inside the node it never does.
package main

import (
	"flag"
	"fmt"
	"os"
	"sync"
)

type counter struct{ n int }

// bump returns v+1 the long way round, in a loop that calls nothing.
//
//go:noinline
func bump(v int) int {
	for i := 0; i < 4; i++ {
		v += i & 1
	}
	return v - 1
}

//go:noinline
func (c *counter) increment() {
	v := c.n
	v = bump(v)
	c.n = v
}

func main() {
	n := flag.Int("n", 2000, "increments per goroutine")
	flag.Parse()

	c := &counter{}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range *n {
				c.increment()
			}
		}()
	}
	wg.Wait()
	if c.n != 2**n {
		fmt.Printf("count is %d after %d increments, want %d\n", c.n, 2**n, 2**n)
		os.Exit(1)
	}
	fmt.Printf("count is %d after %d increments\n", c.n, 2**n)
}
