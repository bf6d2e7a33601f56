// Command fsyncloop appends a record to a file and fsyncs it, n times: the
// inner loop of a write-ahead log. The disk benchmark runs it under the
// engine and natively on a tmpfs file, so the two can be compared.
//
// Usage:
//
//	fsyncloop [-n 1000] [-bytes 128] [-file fsyncloop.dat]
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	n := flag.Int("n", 1000, "write+fsync iterations")
	size := flag.Int("bytes", 128, "bytes per write")
	path := flag.String("file", "fsyncloop.dat", "file to append to; created or truncated")
	flag.Parse()
	f, err := os.OpenFile(*path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fsyncloop:", err)
		os.Exit(1)
	}
	rec := make([]byte, *size)
	for i := range rec {
		rec[i] = byte('a' + i%26)
	}
	for i := 0; i < *n; i++ {
		if _, err := f.Write(rec); err != nil {
			fmt.Fprintln(os.Stderr, "fsyncloop: write:", err)
			os.Exit(1)
		}
		if err := f.Sync(); err != nil {
			fmt.Fprintln(os.Stderr, "fsyncloop: fsync:", err)
			os.Exit(1)
		}
	}
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "fsyncloop: close:", err)
		os.Exit(1)
	}
}
