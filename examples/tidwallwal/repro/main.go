// Command repro shows the tidwall/wal v1.2.1 findings of the tidwallwal
// example without sf: it writes a log with NoSync false (an fsync after
// every write), changes the last segment file as a crash can leave it, and
// opens the log again. Run it natively:
//
//	go run ./tidwallwal/repro torn    # a torn last entry: Open fails with "log corrupt"
//	go run ./tidwallwal/repro zeros   # a tail of zeros: Open succeeds with entries nobody wrote
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tidwall/wal"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: repro torn|zeros")
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "tidwallwal-repro")
	check(err)
	defer os.RemoveAll(dir)
	l, err := wal.Open(dir, &wal.Options{NoSync: false})
	check(err)
	for i := uint64(1); i <= 3; i++ {
		check(l.Write(i, bytes.Repeat([]byte{'a' + byte(i)}, 100)))
	}
	check(l.Close())
	seg := filepath.Join(dir, "00000000000000000001")
	switch os.Args[1] {
	case "torn":
		// A crash in the middle of writing entry 3 kept 50 of its 102 bytes.
		check(os.Truncate(seg, 2*102+50))
	case "zeros":
		// A crash after the file grew but before its new bytes were written
		// (after a failed fsync, say): the new bytes read as zeros.
		f, err := os.OpenFile(seg, os.O_WRONLY|os.O_APPEND, 0)
		check(err)
		_, err = f.Write(make([]byte, 5))
		check(err)
		check(f.Close())
	default:
		fmt.Fprintf(os.Stderr, "repro: unknown case %q: want torn or zeros\n", os.Args[1])
		os.Exit(2)
	}
	l, err = wal.Open(dir, &wal.Options{NoSync: false})
	if err != nil {
		fmt.Println("open:", err)
		return
	}
	first, err := l.FirstIndex()
	check(err)
	last, err := l.LastIndex()
	check(err)
	fmt.Printf("open: entries %d to %d\n", first, last)
	for i := first; i <= last; i++ {
		data, err := l.Read(i)
		check(err)
		fmt.Printf("  entry %d: %d bytes %q\n", i, len(data), data[:min(len(data), 8)])
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "repro:", err)
		os.Exit(1)
	}
}
