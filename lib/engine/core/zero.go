package core

import (
	"sort"
	"unsafe"

	"github.com/sf-dst/sf/lib/disk"
)

// ZeroTest tells whether parts of one range of a guest's memory hold only
// zeros. Reading a page the guest never touched costs the host a page
// fault, and badger's mappings are megabytes of such pages, read whole to
// learn that they are zeros (a hole of the file read into fresh memory, a
// mapping's shadow made). Where the kernel says which host pages hold data
// (touchedScan), the others are zeros without a read; every other part is
// compared. The answers are the same either way.
type ZeroTest struct {
	base, end uintptr
	scanned   bool
	// touched are the host ranges that may hold data, as sorted lo, hi
	// pairs; nil with known false, every part may.
	touched []uintptr
	known   bool
}

// Reset makes z a test of b, which the first question scans: the answers
// hold while nothing writes the parts asked about after it.
func (z *ZeroTest) Reset(b []byte) {
	z.base = uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	z.end = z.base + uintptr(len(b))
	z.scanned, z.known = false, false
	z.touched = z.touched[:0]
}

// IsZero reports whether sub, a part of the range z tests, holds only
// zeros.
func (z *ZeroTest) IsZero(sub []byte) bool {
	if len(sub) == 0 {
		return true
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(sub)))
	hi := lo + uintptr(len(sub))
	if lo >= z.base && hi <= z.end {
		if !z.scanned {
			z.scanned = true
			z.known = touchedScan(z.base, z.end-z.base, func(a, e uintptr) {
				if k := len(z.touched); k > 0 && z.touched[k-1] == a {
					z.touched[k-1] = e
					return
				}
				z.touched = append(z.touched, a, e)
			})
		}
		if z.known && !z.overlaps(lo, hi) {
			return true
		}
	}
	return disk.IsZero(sub)
}

// overlaps reports whether [lo, hi) meets a touched range.
func (z *ZeroTest) overlaps(lo, hi uintptr) bool {
	k := len(z.touched) / 2
	// The first range that ends past lo.
	i := sort.Search(k, func(i int) bool { return z.touched[2*i+1] > lo })
	return i < k && z.touched[2*i] < hi
}

// ZeroTest returns the instance's test of b, a part of its guest's memory.
// Its answers are as of its first question: it is good while nothing writes
// the parts it is asked about after that (a host call that reads a file
// into b asks before it writes each part), and until the next call.
func (in *Instance) ZeroTest(b []byte) *ZeroTest {
	in.exec.zero.Reset(b)
	return &in.exec.zero
}
