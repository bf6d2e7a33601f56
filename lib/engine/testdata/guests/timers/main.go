// Command timers is a guest for the engine's scheduler tests. It starts one
// goroutine per duration on its command line; each sleeps that long and
// reports back. The main goroutine prints, in the order they wake, each
// goroutine's index, its duration and the time.Since(start) it saw, then the
// virtual time and wall time that passed in all, and exits 0.
//
// Usage:
//
//	timers 250ms 100ms 1s ...
//
// Under sf, CPU work costs no virtual time, so each goroutine sees exactly its
// own duration pass.
package main

import (
	"fmt"
	"os"
	"time"
)

type wake struct {
	i     int
	d     time.Duration
	since time.Duration
}

func main() {
	start := time.Now()
	args := os.Args[1:]
	woke := make(chan wake)
	for i, a := range args {
		d, err := time.ParseDuration(a)
		if err != nil {
			fmt.Fprintf(os.Stderr, "timers: argument %d: %v\n", i, err)
			os.Exit(2)
		}
		go func() {
			time.Sleep(d)
			woke <- wake{i, d, time.Since(start)}
		}()
	}
	for range args {
		w := <-woke
		fmt.Printf("woke %d after %s: since start %s\n", w.i, w.d, w.since)
	}
	end := time.Now()
	fmt.Printf("done: since start %s, wall %s\n", end.Sub(start), time.Duration(end.UnixNano()-start.UnixNano()))
}
