//go:build unix && !linux

package core

const mapNoReserve = 0

// dropPages zeroes b: elsewhere than on Linux, MADV_DONTNEED need not zero
// a private mapping's pages, and a reused memory must read as zero above
// what its next user clears.
func dropPages(b []byte) { clear(b) }

// clearMemory zeroes b, a part of a reused guest memory.
func clearMemory(b []byte) { clear(b) }
