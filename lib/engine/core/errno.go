package core

import (
	"errors"

	"github.com/sf-dst/sf/lib/disk"
)

// WASI errno numbers, as every adapter answers them.
const (
	ESuccess      = 0
	EAddrNotAvail = 4
	EAgain        = 6
	EBadf         = 8
	EFault        = 21
	EHostUnreach  = 23
	EInval        = 28
	EIO           = 29
	EIsdir        = 31
	ENametoolong  = 37
	ENospc        = 51
	ENosys        = 52
	ENotdir       = 54
	ENotsock      = 57
	ENotsup       = 58
	ESpipe        = 70
	ENotcapable   = 76
)

// Errno is the WASI errno of a disk error.
func Errno(err error) uint64 {
	if err == nil {
		return ESuccess
	}
	if e, ok := err.(disk.Errno); ok {
		return uint64(e) // the disk's own errors, without errors.As's reflection
	}
	var e disk.Errno
	if errors.As(err, &e) {
		return uint64(e)
	}
	return EIO
}
