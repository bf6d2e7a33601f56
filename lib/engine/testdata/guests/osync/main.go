// Command osync writes one page to a new file opened with O_SYNC, n times, and
// prints how each write went: "write 1: ok" or "write 1: EIO". Each write
// is meant to be durable when it returns. If the file is there already (a
// restart after a crash), it first prints how many of its bytes hold what
// was written: "found 4096 of 4096 bytes". It then sleeps for -sleep. (Go's wasip1 port maps O_SYNC to
// the sync fdflag and has no O_DSYNC; the engine treats both alike.)
//
// Usage:
//
//	osync [-n 1] [-file osync.dat] [-sleep 0s]
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("n", 1, "writes")
	path := flag.String("file", "osync.dat", "file to write")
	sleep := flag.Duration("sleep", 0, "virtual time to sleep after writing")
	flag.Parse()
	if b, err := os.ReadFile(*path); err == nil {
		fmt.Printf("found %d of %d bytes\n", bytes.Count(b, []byte("x")), len(b))
		return
	}
	f, err := os.OpenFile(*path, os.O_WRONLY|os.O_CREATE|os.O_SYNC, 0o644)
	if err != nil {
		fmt.Println("osync:", err)
		os.Exit(1)
	}
	page := make([]byte, 4096)
	for i := range page {
		page[i] = 'x'
	}
	for i := 1; i <= *n; i++ {
		switch _, err := f.Write(page); {
		case err == nil:
			fmt.Printf("write %d: ok\n", i)
		case errors.Is(err, syscall.EIO):
			fmt.Printf("write %d: EIO\n", i)
		default:
			fmt.Printf("write %d: %v\n", i, err)
		}
	}
	f.Close()
	time.Sleep(*sleep)
}
