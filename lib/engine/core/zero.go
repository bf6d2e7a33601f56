package core

import (
	"sort"
	"unsafe"

	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/memops"
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
	// pairs; nil with known false, every part may. writable says, range
	// by range, that the write watch does not protect its pages: writing
	// them costs no fault.
	touched  []uintptr
	writable []bool
	known    bool
	// at is the guest address of base, for zeros and note. zeros are
	// guest ranges known to hold zeros, as sorted lo, hi pairs, which
	// the test answers for without a scan or a read; note, when set,
	// takes every part Zero makes zeros (ReadZeroTest).
	at    uint32
	zeros []uint32
	note  *knownZeros
}

// Reset makes z a test of b, which the first question scans: the answers
// hold while nothing writes the parts asked about after it.
func (z *ZeroTest) Reset(b []byte) {
	z.base = uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	z.end = z.base + uintptr(len(b))
	z.scanned, z.known = false, false
	z.touched, z.writable = z.touched[:0], z.writable[:0]
	z.at, z.zeros, z.note = 0, nil, nil
}

// scan asks the kernel, once, which pages of the range may hold data.
func (z *ZeroTest) scan() {
	if z.scanned {
		return
	}
	z.scanned = true
	z.known = touchedScan(z.base, z.end-z.base, func(a, e uintptr, writable bool) {
		if k := len(z.touched); k > 0 && z.touched[k-1] == a && z.writable[k/2-1] == writable {
			z.touched[k-1] = e
			return
		}
		z.touched = append(z.touched, a, e)
		z.writable = append(z.writable, writable)
	})
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
		glo := z.at + uint32(lo-z.base)
		if covered(z.zeros, glo, glo+uint32(len(sub))) {
			return true
		}
		z.scan()
		if z.known && !z.overlaps(lo, hi) {
			return true
		}
	}
	return disk.IsZero(sub)
}

// Zero makes sub, a part of the range z tests, hold only zeros, writing
// as little as it can: nothing on the pages the kernel says hold none
// (writing those made it find and clear a page for each), one clear over
// the pages it may write without a fault (cheaper than comparing them
// first: a clear of a long run runs at two to three times a comparison's
// speed), and a comparison first on the pages the write watch protects,
// each of which a write would cost a fault and mark as written.
func (z *ZeroTest) Zero(sub []byte) {
	if len(sub) == 0 {
		return
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(sub)))
	hi := lo + uintptr(len(sub))
	if lo < z.base || hi > z.end {
		disk.ClearNonZero(sub)
		return
	}
	if z.note != nil {
		defer z.note.add(z.at+uint32(lo-z.base), z.at+uint32(hi-z.base))
	}
	z.scan()
	if !z.known {
		disk.ClearNonZero(sub)
		return
	}
	k := len(z.touched) / 2
	i := sort.Search(k, func(i int) bool { return z.touched[2*i+1] > lo })
	for ; i < k && z.touched[2*i] < hi; i++ {
		a, e := max(z.touched[2*i], lo), min(z.touched[2*i+1], hi)
		part := sub[a-lo : e-lo]
		if z.writable[i] {
			memops.ClearCold(part)
		} else {
			disk.ClearNonZero(part)
		}
	}
}

// overlaps reports whether [lo, hi) meets a touched range.
func (z *ZeroTest) overlaps(lo, hi uintptr) bool {
	k := len(z.touched) / 2
	// The first range that ends past lo.
	i := sort.Search(k, func(i int) bool { return z.touched[2*i+1] > lo })
	return i < k && z.touched[2*i] < hi
}

// covered reports whether [lo, hi) lies inside one of the sorted lo, hi
// pairs of ranges.
func covered(ranges []uint32, lo, hi uint32) bool {
	k := len(ranges) / 2
	if k == 0 {
		return false
	}
	i := sort.Search(k, func(i int) bool { return ranges[2*i+1] >= hi })
	return i < k && ranges[2*i] <= lo
}

// ZeroTest returns the instance's test of b, a part of its guest's memory.
// Its answers are as of its first question: it is good while nothing writes
// the parts it is asked about after that (a host call that reads a file
// into b asks before it writes each part), and until the next call.
func (in *Instance) ZeroTest(b []byte) *ZeroTest {
	in.exec.zero.Reset(b)
	return &in.exec.zero
}

// knownZeros are the parts of an instance's guest memory that its last
// host calls, all reads of files, left holding zeros: the holes they read
// (ZeroTest.Zero). compat_overlay's mmap fills a mapping with such reads,
// each one into the memory right after the last, and registers it in the
// very next call; the mapping's shadow then takes its zero pages from here
// instead of comparing each page of the guest's memory again, which in
// badger's mappings (megabytes of holes over memory a reset cleared) cost
// as much as the reads' own tests. They hold while each host call reads a
// file into the memory right after the one the call before read into:
// between two calls only the guest's own code runs, and the shim writes
// nothing into a buffer it is filling. A read elsewhere, or any other call,
// starts them over, so that zeros noted in a buffer the guest has since
// written (and perhaps freed, and allocated again as the one a mapping is
// filled in) are never taken for a mapping's.
type knownZeros struct {
	// seq is the instance's host call that last added to them, and next
	// the guest address right after the bytes it read.
	seq    uint64
	next   uint32
	ranges []uint32
}

// add notes that guest range [lo, hi) holds zeros. The parts of one read
// come in increasing order, and so do the reads of a mapping's fill.
func (kz *knownZeros) add(lo, hi uint32) {
	if k := len(kz.ranges); k > 0 && kz.ranges[k-1] == lo {
		kz.ranges[k-1] = hi
		return
	}
	if k := len(kz.ranges); k > 0 && kz.ranges[k-1] > lo {
		// Out of order: keep the list sorted by starting anew, which
		// loses nothing but a saving.
		kz.ranges = kz.ranges[:0]
	}
	kz.ranges = append(kz.ranges, lo, hi)
}

// ReadZeroTest is ZeroTest for b, the guest memory from address at, into
// which this host call reads a file: the parts its Zero makes zeros, the
// next call may know hold zeros (knownZeros). The read then says where it
// ended (ReadEnded); one that changed what it wrote (a read_corrupt fault)
// calls ForgetZeros.
func (in *Instance) ReadZeroTest(b []byte, at uint32) *ZeroTest {
	x := in.exec
	if x.zeros.seq != x.seq && (x.zeros.seq+1 != x.seq || x.zeros.next != at) {
		x.zeros.ranges = x.zeros.ranges[:0]
	}
	x.zeros.seq, x.zeros.next = x.seq, 0
	z := in.ZeroTest(b)
	z.at, z.note = at, &x.zeros
	return z
}

// ReadEnded says that the read of ReadZeroTest ended at guest address
// end: the next call's read may go on from there.
func (in *Instance) ReadEnded(end uint32) { in.exec.zeros.next = end }

// ForgetZeros drops what the reads of files so far said about the guest's
// memory.
func (in *Instance) ForgetZeros() { in.exec.zeros.ranges = in.exec.zeros.ranges[:0] }

// mappedZeroTest is ZeroTest for b, a mapping at guest address at that the
// current host call registers: it knows the zeros the reads of the calls
// just before left.
func (in *Instance) mappedZeroTest(b []byte, at uint32) *ZeroTest {
	x := in.exec
	z := in.ZeroTest(b)
	if x.zeros.seq+1 == x.seq && len(x.zeros.ranges) > 0 {
		z.at, z.zeros = at, x.zeros.ranges
	}
	return z
}
