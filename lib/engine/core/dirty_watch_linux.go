//go:build linux && (amd64 || arm64)

package core

import (
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// The kernel's write watch on the guests' memory: userfaultfd write
// protection in its asynchronous mode (Linux 6.7), read back and rearmed
// with the PAGEMAP_SCAN ioctl of /proc/self/pagemap. A write to a protected
// page is resolved by the kernel itself, which unprotects the page and
// thereby marks it written; no thread of ours handles faults, so a guest
// that writes never waits on one (a handler goroutine could deadlock Go's
// scheduler when every thread is stopped in a fault). Where any step is
// missing (an older kernel, a seccomp filter, no /proc), the tracker
// compares every page instead (dirty.go).

// The kernel's ABI, from linux/userfaultfd.h and linux/fs.h; the ioctl
// numbers are _IOWR(type, nr, size), encoded alike on amd64 and arm64.
const (
	uffdAPI                = 0xAA
	uffdFeatureWPUnpop     = 1 << 13 // protect pages not yet touched too
	uffdFeatureWPAsync     = 1 << 15
	uffdRegisterModeWP     = 1 << 1
	uffdWriteprotectModeWP = 1 << 0
	pmScanWPMatching       = 1 << 0 // protect what the scan reports
	pmScanCheckWPAsync     = 1 << 1 // fail on a range not under async protection
	pageIsWritten          = 1 << 1
	pageIsPresent          = 1 << 3
	pageIsSwapped          = 1 << 4 // swapped out, or a marker of the watch's on a page never touched
	pageIsPFNZero          = 1 << 5 // the shared zero page
	ioctlUffdAPI           = 3<<30 | 24<<16 | uffdAPI<<8 | 0x3F
	ioctlUffdRegister      = 3<<30 | 32<<16 | uffdAPI<<8 // nr 0x00
	ioctlUffdWP            = 3<<30 | 24<<16 | uffdAPI<<8 | 0x06
	ioctlPagemapScan       = 3<<30 | 96<<16 | 'f'<<8 | 16
)

// pmScanArg is struct pm_scan_arg.
type pmScanArg struct {
	size, flags, start, end, walkEnd, vec, vecLen, maxPages uint64
	categoryInverted, categoryMask, categoryAnyofMask       uint64
	returnMask                                              uint64
}

// pageRegion is struct page_region.
type pageRegion struct{ start, end, categories uint64 }

var watch struct {
	once    sync.Once
	ok      bool
	uffd    int
	pagemap int
	page    uintptr
}

func watchOpen() bool {
	watch.once.Do(func() {
		if WriteWatchOff() {
			return
		}
		fd, _, e := syscall.Syscall(sysUserfaultfd, syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0, 0)
		if e != 0 {
			return
		}
		api := [3]uint64{uffdAPI, uffdFeatureWPAsync | uffdFeatureWPUnpop, 0}
		if ioctl(int(fd), ioctlUffdAPI, unsafe.Pointer(&api)) != nil {
			syscall.Close(int(fd))
			return
		}
		pm, err := syscall.Open("/proc/self/pagemap", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			syscall.Close(int(fd))
			return
		}
		watch.uffd, watch.pagemap, watch.page = int(fd), pm, uintptr(os.Getpagesize())
		watch.ok = true
	})
	return watch.ok
}

func ioctl(fd int, req uintptr, arg unsafe.Pointer) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, uintptr(arg)); e != 0 {
		return e
	}
	return nil
}

// watchStart puts the guest memory that holds the host range [host,
// host+n) under the kernel's write watch, and reports whether it is.
// Only memory sf reserved for a guest (memory_unix.go) is watched, whole,
// once.
func watchStart(host, n uintptr) bool {
	if !watchOpen() {
		return false
	}
	reservations.Lock()
	defer reservations.Unlock()
	m := reservationOf(host, n)
	if m == nil {
		return false
	}
	if !m.watched {
		if !watchRegister(m.buf) {
			return false
		}
		m.watched = true
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(m.buf)))
	lo := (host - base) &^ (watch.page - 1)
	hi := (host - base + n + watch.page - 1) &^ (watch.page - 1)
	// A mapping may lie inside the image (Go's heap starts there): its
	// collects protect its written pages again, which would hide them from
	// restoreImage, but resetTo lifts the mappings' protection
	// (releaseWatch) before restoreImage asks, and a page whose protection
	// was lifted counts as written. Giving up the image's watch instead
	// cost badger's server a whole copy of its image at every start.
	m.addProtected(offsetRange{uint64(lo), uint64(min(hi, uintptr(len(m.buf))))})
	return true
}

// scanBuf is what one PAGEMAP_SCAN reads and writes. The kernel finds the
// regions through an address inside the argument, so both live on the heap,
// where nothing moves them.
type scanBuf struct {
	arg pmScanArg
	vec [32]pageRegion
}

var scanBufs = sync.Pool{New: func() any { return new(scanBuf) }}

// watchCollect reports to mark each range of host pages within [host,
// host+n) written since the last collect of it (or since watchStart), and
// protects them again, so that the next collect reports only later writes.
// It reports false if the kernel refused.
func watchCollect(host, n uintptr, mark func(lo, hi uintptr)) bool {
	return watchScan(host, n, pmScanWPMatching, mark)
}

// watchScan reports to mark each range of host pages within [host,
// host+n) written since they were last protected; with pmScanWPMatching
// in flags it protects them again.
func watchScan(host, n uintptr, flags uint64, mark func(lo, hi uintptr)) bool {
	return pagemapScan(host, n, pmScanArg{flags: flags | pmScanCheckWPAsync, categoryMask: pageIsWritten, returnMask: pageIsWritten},
		func(lo, hi uintptr, _ uint64) { mark(lo, hi) })
}

// pagemapScan runs PAGEMAP_SCAN over the host pages of [host, host+n) with
// the flags and category masks of q, and reports each region the kernel
// returns to mark, with its categories.
func pagemapScan(host, n uintptr, q pmScanArg, mark func(lo, hi uintptr, categories uint64)) bool {
	b := scanBufs.Get().(*scanBuf)
	defer scanBufs.Put(b)
	lo := host &^ (watch.page - 1)
	hi := (host + n + watch.page - 1) &^ (watch.page - 1)
	for lo < hi {
		b.arg = q
		b.arg.size = uint64(unsafe.Sizeof(pmScanArg{}))
		b.arg.start, b.arg.end = uint64(lo), uint64(hi)
		b.arg.vec, b.arg.vecLen = uint64(uintptr(unsafe.Pointer(&b.vec[0]))), uint64(len(b.vec))
		r, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(watch.pagemap), ioctlPagemapScan, uintptr(unsafe.Pointer(&b.arg)))
		if e != 0 || r > uintptr(len(b.vec)) || uintptr(b.arg.walkEnd) <= lo {
			return false
		}
		for _, g := range b.vec[:r] {
			mark(uintptr(g.start), uintptr(g.end), g.categories)
		}
		lo = uintptr(b.arg.walkEnd)
	}
	return true
}

// touchedScan reports to mark each range of host pages within [host,
// host+n), a part of a guest memory sf reserved, that may hold something
// other than zeros: pages present in memory (other than the shared zero
// page) or swapped out. Every other page of the range is one that nothing
// has written since the memory was mapped or since its pages were dropped,
// and reads as zeros, because sf maps every guest memory private and
// anonymous (newLinearMemory): a shared mapping would keep data where no
// page is mapped. It reports false when the kernel cannot say, and then
// every page may hold data. writable says that the write watch does not
// protect the range's pages.
func touchedScan(host, n uintptr, mark func(lo, hi uintptr, writable bool)) bool {
	if !watchOpen() {
		return false
	}
	reservations.Lock()
	ours := reservationOf(host, n) != nil
	reservations.Unlock()
	if !ours {
		return false
	}
	return pagemapScan(host, n, pmScanArg{categoryAnyofMask: pageIsPresent | pageIsSwapped, returnMask: pageIsPresent | pageIsSwapped | pageIsPFNZero | pageIsWritten},
		func(lo, hi uintptr, categories uint64) {
			if categories&pageIsPFNZero == 0 || categories&pageIsSwapped != 0 {
				mark(lo, hi, categories&(pageIsWritten|pageIsSwapped) == pageIsWritten)
			}
		})
}

// watchRelease lifts the write watch's protection from b, a page-aligned
// part of a watched guest memory that a new guest is about to reuse (its
// length is taken up to a whole page, which the mapping holds). The
// last guest's mappings left their pages protected, and every write to
// one faults until the kernel unprotects it: clearing the memory for the
// next guest took a fault per page of the mappings, which in badger's
// worlds was most of a node start. Unprotected pages count as written, so
// a tracker that scans them later compares them: nothing is missed.
func watchRelease(b []byte) {
	if len(b) == 0 || !watch.ok {
		return
	}
	n := (uintptr(len(b)) + watch.page - 1) &^ (watch.page - 1)
	arg := [3]uint64{uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b)))), uint64(n), 0}
	ioctl(watch.uffd, ioctlUffdWP, unsafe.Pointer(&arg))
}

// watchRegister registers b, a whole guest memory, with the write watch,
// which protects nothing yet. The caller holds reservations' lock.
func watchRegister(b []byte) bool {
	if !watchOpen() {
		return false
	}
	reg := [4]uint64{uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b)))), uint64(len(b)), uffdRegisterModeWP, 0}
	return ioctl(watch.uffd, ioctlUffdRegister, unsafe.Pointer(&reg)) == nil
}

// watchProtect protects the pages of b, a page-aligned part of a
// registered guest memory (its length is taken up to a whole page), so
// that the next write to each counts as written.
func watchProtect(b []byte) bool {
	n := (uintptr(len(b)) + watch.page - 1) &^ (watch.page - 1)
	arg := [3]uint64{uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b)))), uint64(n), uffdWriteprotectModeWP}
	return ioctl(watch.uffd, ioctlUffdWP, unsafe.Pointer(&arg)) == nil
}

// imageWritten reports to mark the ranges of the first n bytes of b, a
// watched guest memory, that were written since they were protected. They
// are not protected again: a page a guest wrote once it will most likely
// write in every run (Go's data and bss), and a copy costs less than the
// fault of its next write, so each later call reports them again. When it
// reports false the kernel refused, and every page must be taken as
// written.
func imageWritten(b []byte, n uint64, mark func(lo, hi uint64)) bool {
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return watchScan(base, uintptr(n), 0, func(lo, hi uintptr) { mark(uint64(lo-base), min(uint64(hi-base), n)) })
}
