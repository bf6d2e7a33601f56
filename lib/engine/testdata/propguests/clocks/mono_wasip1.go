//go:build wasip1

package main

import (
	"fmt"
	"unsafe"
)

//go:wasmimport wasi_snapshot_preview1 clock_time_get
func clockTimeGet(id uint32, precision uint64, out unsafe.Pointer) uint32

// monotonic reads WASI's monotonic clock (id 1) directly.
func monotonic() int64 {
	var t uint64
	if errno := clockTimeGet(1, 1, unsafe.Pointer(&t)); errno != 0 {
		panic(fmt.Sprintf("clock_time_get: errno %d", errno))
	}
	return int64(t)
}
