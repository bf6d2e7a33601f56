package memops

import "unsafe"

// clearStreaming zeroes n bytes from p with non-temporal stores; p must be
// 16-byte aligned and n a multiple of 128 above 0.
//
//go:noescape
func clearStreaming(p unsafe.Pointer, n uintptr)

// ClearCold zeroes b, which the cache is not expected to hold.
func ClearCold(b []byte) {
	if len(b) < ClearColdMin {
		clear(b)
		return
	}
	head := headTo128(b)
	body := (uintptr(len(b)) - head) &^ 127
	clear(b[:head])
	clearStreaming(unsafe.Pointer(&b[head]), body)
	clear(b[head+body:])
}

// headTo128 is how many bytes of b come before its first 128-byte-aligned
// address (all of b when it is shorter).
func headTo128(b []byte) uintptr {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return min((128-p%128)%128, uintptr(len(b)))
}
