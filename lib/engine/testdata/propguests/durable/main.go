// Command durable is a workload that survives its own crash. Its first
// incarnation writes "progress" (the content below), fsyncs it, prints
// `durable: wrote progress` and then waits -wait of virtual time for a crash
// before it gives up and exits 0. An incarnation that finds the file prints
// `durable: found progress "..."`, checks that it holds what was written
// and exits 0.
//
// Usage:
//
//	durable [-wait 5s]
package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/sf-dst/sf/sim"
)

const content = "written and fsynced by the first incarnation\n"

func main() {
	wait := flag.Duration("wait", 5*time.Second, "how long the first incarnation waits to be crashed")
	flag.Parse()
	data, err := os.ReadFile("progress")
	switch {
	case err == nil:
		fmt.Printf("durable: found progress %q\n", data)
		sim.AlwaysOrUnreachable(string(data) == content, "the fsynced file survived the crash", string(data))
		sim.Sometimes(true, "a restarted workload found its fsynced file")
		return
	case !errors.Is(err, fs.ErrNotExist):
		sim.Fail("read progress: " + err.Error())
	}
	f, err := os.Create("progress")
	if err != nil {
		sim.Fail("create progress: " + err.Error())
	}
	if _, err := f.WriteString(content); err != nil {
		sim.Fail("write progress: " + err.Error())
	}
	if err := f.Sync(); err != nil {
		sim.Fail("fsync progress: " + err.Error())
	}
	if err := f.Close(); err != nil {
		sim.Fail("close progress: " + err.Error())
	}
	fmt.Println("durable: wrote progress")
	start := time.Now()
	for time.Since(start) < *wait {
		time.Sleep(50 * time.Millisecond)
	}
	fmt.Println("durable: never crashed")
	sim.Sometimes(false, "a restarted workload found its fsynced file")
}
