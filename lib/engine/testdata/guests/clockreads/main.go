// Command clockreads reads its clocks every way the clock rewrite answers
// itself or passes on to the host: runs of reads longer than a guest
// answers between two host calls, the wall and monotonic clocks through the
// import itself, a CPU-time clock (only the host answers it), an address
// outside the memory and a clock WASI does not define (errors, not traps),
// between sleeps that move virtual time on. It exits 1 with a message at
// the first read that is wrong, and prints the last times it read. With the
// argument "trap" it then reads the clock a few more times and stores
// outside its memory: a trap, which ends it without another host call.
package main

import (
	"fmt"
	"os"
	"time"
	"unsafe"
)

//go:wasmimport wasi_snapshot_preview1 clock_time_get
func clockTimeGet(id uint32, precision uint64, result uint32) uint32

// WASI's errnos.
const (
	efault = 21
	einval = 28
)

func fail(format string, args ...any) {
	fmt.Printf("clockreads: FAIL "+format+"\n", args...)
	os.Exit(1)
}

func read(id uint32) uint64 {
	var v uint64
	if e := clockTimeGet(id, 1, uint32(uintptr(unsafe.Pointer(&v)))); e != 0 {
		fail("clock %d: errno %d", id, e)
	}
	return v
}

func main() {
	last := time.Now()
	for round := range 20 {
		for i := range 150 {
			t := time.Now()
			if t.Before(last) {
				fail("round %d, read %d: %s is before %s", round, i, t, last)
			}
			last = t
		}
		mono, wall := read(1), read(0)
		if wall != uint64(time.Now().UnixNano()) {
			fail("round %d: the realtime clock read %d through the import, %d through time.Now", round, wall, time.Now().UnixNano())
		}
		if cpu := read(2); cpu != mono {
			fail("round %d: the CPU-time clock read %d, the monotonic %d", round, cpu, mono)
		}
		if e := clockTimeGet(0, 1, 0xfffffffc); e != efault {
			fail("round %d: a result outside the memory gave errno %d, want %d", round, e, efault)
		}
		if e := clockTimeGet(9, 1, uint32(uintptr(unsafe.Pointer(&wall)))); e != einval {
			fail("round %d: clock 9 gave errno %d, want %d", round, e, einval)
		}
		sleep := time.Duration(round+1) * time.Millisecond
		time.Sleep(sleep)
		if d := time.Duration(read(1) - mono); d < sleep {
			fail("round %d: a sleep of %s moved the monotonic clock by %s", round, sleep, d)
		}
	}
	fmt.Println("clockreads: ok, last", read(0), read(1))
	if len(os.Args) > 1 && os.Args[1] == "trap" {
		for range 10 {
			last = time.Now()
		}
		*(*int64)(unsafe.Pointer(uintptr(0xfffffff0))) = last.UnixNano()
	}
}
