// Command writer appends a record to a file and fsyncs it, n times, each
// time from a function that first sleeps and returns right after its fsync.
// A fork taken while it waits out the fsync's latency resumes a guest that
// returns past the frame Go's dispatch loop last entered, the function
// itself, into its caller, without any goroutine switch between.
//
// Usage:
//
//	writer [-n 20]
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	n := flag.Int("n", 20, "records")
	flag.Parse()
	f, err := os.OpenFile("records", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "writer:", err)
		os.Exit(1)
	}
	total := 0
	for i := 0; i < *n; i++ {
		total += record(f, i)
	}
	fmt.Printf("wrote %d records, %d bytes\n", *n, total)
}

// record is a frame of its own, which Go's dispatch loop enters when the
// sleep ends, so that the fsync's wait happens below it and it returns
// into main.
//
//go:noinline
func record(f *os.File, i int) int {
	time.Sleep(time.Millisecond)
	k, err := fmt.Fprintf(f, "record %d\n", i)
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "writer:", err)
		os.Exit(1)
	}
	return k
}
