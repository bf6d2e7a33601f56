//go:build linux

package core

import (
	"os"
	"syscall"
	"unsafe"

	"github.com/sf-dst/sf/lib/memops"
)

const mapNoReserve = syscall.MAP_NORESERVE

// dropPages gives the pages of b, a page-aligned part of a private anonymous
// mapping, back to the kernel; they read as zero when next touched.
func dropPages(b []byte) { syscall.Madvise(b, syscall.MADV_DONTNEED) }

// clearMemoryMin is the length below which clearMemory just clears.
const clearMemoryMin = 1 << 20

// clearMemory zeroes b, a part of a private anonymous mapping that a reused
// guest memory must read as zero. A guest often grows its memory further
// than it touches (a Go heap arena, compat_overlay's room for mappings), and
// clearing a page the kernel never gave a frame made it fault one in only
// to zero it again: in badger's worlds those faults were most of a node
// start. So only the pages mincore reports resident are cleared; the others
// are either untouched, and read as zero, or in swap, and are dropped.
func clearMemory(b []byte) {
	if len(b) < clearMemoryMin {
		memops.ClearCold(b)
		return
	}
	page := uintptr(os.Getpagesize())
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (base+page-1)&^(page-1) - base
	hi := (base+uintptr(len(b)))&^(page-1) - base
	clear(b[:lo])
	clear(b[hi:])
	mid := b[lo:hi]
	vec := make([]byte, uintptr(len(mid))/page)
	if _, _, e := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(mid))), uintptr(len(mid)), uintptr(unsafe.Pointer(unsafe.SliceData(vec)))); e != 0 {
		clear(mid)
		return
	}
	for i := 0; i < len(vec); {
		j, resident := i+1, vec[i]&1
		for j < len(vec) && vec[j]&1 == resident {
			j++
		}
		run := mid[uintptr(i)*page : uintptr(j)*page]
		if resident != 0 {
			memops.ClearCold(run)
		} else {
			dropPages(run)
		}
		i = j
	}
}
