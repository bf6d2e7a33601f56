package core

import "unsafe"

// clearStreaming zeroes n bytes from p with non-temporal stores; p must be
// 16-byte aligned and n a multiple of 128 above 0 (clear_amd64.s).
//
//go:noescape
func clearStreaming(p unsafe.Pointer, n uintptr)

// clearLarge zeroes b, a part of a guest memory that is cold in the
// cache: a reused memory's pages its last guest used, megabytes of them,
// and runs of a file's holes read into a mapping. Go's clear writes
// through the cache below 32 MiB, reading every line it writes; streaming
// stores skip that read, and cleared a cold 8 MiB buffer at three to four
// times the speed on the machine the figures of docs/perf.md come from.
func clearLarge(b []byte) {
	if len(b) < clearStreamingMin {
		clear(b)
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	head := (128 - p%128) % 128
	body := (uintptr(len(b)) - head) &^ 127
	clear(b[:head])
	clearStreaming(unsafe.Pointer(&b[head]), body)
	clear(b[head+body:])
}
