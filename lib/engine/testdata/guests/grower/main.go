// Command grower takes a different amount of memory at each start (more
// each time it finds its file longer), touching every page of it, then
// appends a record to its file and fsyncs it every few milliseconds until
// it has written n. Crashed and restarted, it starts in the instance of an
// earlier start when the engine reuses instances, whose memory the earlier
// start grew: the test of reuse compares its runs with fresh instances.
//
// Usage:
//
//	grower [-n 200] [-file grower.dat]
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

var kept [][]byte

func main() {
	n := flag.Int("n", 200, "records to write")
	path := flag.String("file", "grower.dat", "file to append to")
	flag.Parse()
	f, err := os.OpenFile(*path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "grower:", err)
		os.Exit(1)
	}
	st, err := f.Stat()
	if err != nil {
		fmt.Fprintln(os.Stderr, "grower: stat:", err)
		os.Exit(1)
	}
	have := int(st.Size() / 8)
	mib := 1 + have%24
	b := make([]byte, mib<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = byte(i>>12) ^ byte(have)
	}
	kept = append(kept, b)
	fmt.Printf("grower: start with %d records, %d MiB\n", have, mib)
	for i := have; i < *n; i++ {
		if _, err := fmt.Fprintf(f, "%07d\n", i); err != nil {
			fmt.Fprintln(os.Stderr, "grower: write:", err)
			os.Exit(1)
		}
		if err := f.Sync(); err != nil {
			fmt.Fprintln(os.Stderr, "grower: fsync:", err)
			os.Exit(1)
		}
		time.Sleep(3 * time.Millisecond)
	}
	fmt.Printf("grower: wrote %d records\n", *n)
}
