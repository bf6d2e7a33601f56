//go:build linux

package core

import (
	"bytes"
	"cmp"
	"os"
	"reflect"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"unsafe"

	"github.com/tetratelabs/wazero/experimental"

	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/rng"
)

// resident counts the pages of b, a page-aligned part of a mapping, that
// the kernel holds frames for.
func resident(t *testing.T, b []byte) int {
	t.Helper()
	vec := make([]byte, len(b)/os.Getpagesize())
	if _, _, e := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(unsafe.Pointer(unsafe.SliceData(vec)))); e != 0 {
		t.Fatalf("mincore: %v", e)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// TestReusedSparseMemoryIsZero: a guest that grew its memory further than
// it touched leaves untouched pages in the mapping the pool hands on. The
// next guest must read zero everywhere, above an image that ends inside a
// page too, and the clear must not fault the untouched pages in.
func TestReusedSparseMemoryIsZero(t *testing.T) {
	const used = 32 << 20
	page := os.Getpagesize()
	limit := uint64(GuestMemoryLimitPages) * 65536
	for _, image := range []uint64{0, 1<<20 + 100} {
		dirty := newLinearMemory(1<<20, limit)
		buf := dirty.Reallocate(used)
		dropPages(buf) // fresh or reused, no page of it resident now
		touched := 0
		for p := 0; p < used/page; p++ {
			if p%7 < 3 || p >= used/page-2 {
				buf[p*page] = 0xa5
				buf[p*page+page-1] = 0x5a
				touched++
			}
		}
		// With transparent huge pages a write may populate more than its
		// page, so what counts is what was resident before the reuse.
		before := resident(t, buf)
		if before < touched || before == used/page {
			t.Skipf("%d of %d pages resident after writing %d: this kernel populates more than the pages written", before, used/page, touched)
		}
		dirty.Free()
		m := newLinearMemoryOver(1<<20, limit, image, "", [2]uint64{})
		got := m.Reallocate(used)
		// The clear may touch the page the image ends in, which it
		// clears in part.
		if r := resident(t, got); r > before+1 {
			t.Fatalf("the reuse made %d pages resident, more than the %d the last guest left and the image's last", r, before)
		}
		for i := image; i < used; i++ {
			if got[i] != 0 {
				t.Fatalf("image %d: byte %d of a reused memory is %#x, not zero", image, i, got[i])
			}
		}
		m.Free()
	}
}

// drainMemoryPool unmaps the freed memories waiting for reuse, so that the
// next allocation reuses the one a test frees.
func drainMemoryPool() {
	for m := takePooled(uint64(GuestMemoryLimitPages)*65536, ""); m != nil; m = takePooled(uint64(GuestMemoryLimitPages)*65536, "") {
		syscall.Munmap(m.buf)
	}
}

// TestReusedWatchedMemoryClearsWithoutFaults: a guest memory whose
// mappings were under the kernel's write watch keeps those pages
// protected when it goes back to the pool. Clearing it for the next guest
// must not take a fault per protected page, and must still leave it zero.
func TestReusedWatchedMemoryClearsWithoutFaults(t *testing.T) {
	const used = 16 << 20
	page := os.Getpagesize()
	limit := uint64(GuestMemoryLimitPages) * 65536
	drainMemoryPool()
	lm := newLinearMemory(1<<20, limit)
	buf := lm.Reallocate(used)
	for i := 0; i < used; i += page {
		buf[i] = 0xa5
	}
	g := Mapping{Data: 0, N: used, Shadow: ShadowOf(buf)}
	var tr dirtyTracker
	tr.registered(testMemory{buf: buf}, g) // protects every written page
	if m := tr.find(0); m == nil || !m.watched {
		t.Skip("the kernel's write watch is not available here")
	}
	_, faults := reuseFreed(t, lm, limit, used)
	if faults > int64(used/page/8) {
		t.Fatalf("reusing the memory took %d page faults for its %d pages", faults, used/page)
	}
}

// reuseFreed frees lm and takes it back from the pool as the next guest
// would, and returns it, freed when the test ends, with the page faults
// that took (the thread's own, so that nothing else running counts), once
// it has checked that the first used bytes of it read zero.
func reuseFreed(t *testing.T, lm experimental.LinearMemory, limit uint64, used int) (experimental.LinearMemory, int64) {
	t.Helper()
	lm.Free()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var before, after syscall.Rusage
	syscall.Getrusage(1 /* RUSAGE_THREAD */, &before)
	m := newLinearMemory(1<<20, limit)
	syscall.Getrusage(1, &after)
	t.Cleanup(m.Free)
	got := m.Reallocate(uint64(used))
	for i := 0; i < used; i += os.Getpagesize() / 2 {
		if got[i] != 0 {
			t.Fatalf("byte %d of the reused memory is %#x, not zero", i, got[i])
		}
	}
	return m, after.Minflt - before.Minflt
}

// TestReleaseOnlyWhereWatched: a reused memory has the watch's protection
// lifted where the last guest's mappings were watched, and only there, and
// its clearing still takes no fault per page of those mappings: two
// mappings in the middle of the memory, one of them in two overlapping
// registrations, written all over before the memory goes back to the pool.
func TestReleaseOnlyWhereWatched(t *testing.T) {
	const used = 16 << 20
	page := os.Getpagesize()
	limit := uint64(GuestMemoryLimitPages) * 65536
	drainMemoryPool()
	lm := newLinearMemory(1<<20, limit)
	buf := lm.Reallocate(used)
	maps := []Mapping{
		{Data: 4<<20 + 100, N: 4 << 20},
		{Data: 6 << 20, N: 3 << 20},
		{Data: 12 << 20, N: 1 << 20},
	}
	var tr dirtyTracker
	for _, g := range maps {
		for i := g.Data; i < g.Data+g.N; i += uint32(page) {
			buf[i] = 0xa5
		}
		g.Shadow = ShadowOf(buf[g.Data : g.Data+g.N])
		tr.registered(testMemory{buf: buf}, g)
		if m := tr.find(g.Data); m == nil || !m.watched {
			t.Skip("the kernel's write watch is not available here")
		}
		for i := g.Data; i < g.Data+g.N; i += uint32(page) {
			buf[i] = 0x5a // written once more, so that a scan protects it again
		}
		tr.registered(testMemory{buf: buf}, g)
	}
	want := []offsetRange{{4 << 20, 9 << 20}, {12 << 20, 13 << 20}}
	reservations.Lock()
	got := slices.Clone(lm.(*mmapMemory).protected)
	reservations.Unlock()
	slices.SortFunc(got, func(a, b offsetRange) int { return cmp.Compare(a.lo, b.lo) })
	if !slices.Equal(got, want) {
		t.Fatalf("protected ranges %v, want %v", got, want)
	}
	m, faults := reuseFreed(t, lm, limit, used)
	if faults > int64(used/page/16) {
		t.Fatalf("reusing the memory took %d page faults; its mappings have %d pages", faults, (5<<20)/page)
	}
	if p := m.(*mmapMemory).protected; len(p) != 0 {
		t.Errorf("a reused memory still lists protected ranges %v", p)
	}
}

// TestRestoreImageCopiesWrittenPages: a reused instance's memory is set
// back to the fresh image by copying only the pages written since the
// image was last whole, which the kernel's write watch reports. Every way
// a page can be written must be seen: a store, a write by the kernel (a
// read(2) into the memory), a page written in an earlier run and again
// now, the image's last byte; pages the image holds zeros in are cleared
// rather than copied, and must still come out as the image. And a mapping
// watched inside the image, whose collects protect its pages again, must
// not hide them from the next restore, which still copies only the written
// pages.
func TestRestoreImageCopiesWrittenPages(t *testing.T) {
	const n, used = 2 << 20, 8 << 20
	page := os.Getpagesize()
	limit := uint64(GuestMemoryLimitPages) * 65536
	image := make([]byte, n)
	for i := range image {
		image[i] = byte(i*7 + i>>12)
	}
	// A quarter of it zeros, as Go's bss is in a guest's image: the
	// written pages there are cleared rather than copied.
	clear(image[n/4 : n/2])
	img := newMemoryImage(image)
	if !img.zeroAt(n/4) || !img.zeroAt(n/2-1) || img.zeroAt(n/4-1) || img.zeroAt(n/2) {
		t.Fatal("the image's zero pages are not the ones it holds")
	}
	drainMemoryPool()
	lm := newLinearMemory(1<<20, limit)
	defer lm.Free() // does nothing once the test freed it
	m := lm.(*mmapMemory)
	buf := m.Reallocate(used)
	for i := range buf {
		buf[i] = 0xee
	}
	m.resetTo(img)
	reservations.Lock()
	watched := m.image == n
	reservations.Unlock()
	if !watched {
		t.Skip("the kernel's write watch is not available here")
	}
	if !bytes.Equal(buf[:n], image) || buf[n] != 0 || buf[used-1] != 0 {
		t.Fatal("the first restore did not make the memory the image followed by zeros")
	}
	written := map[int]bool{}
	pipe := func(at int, b []byte) {
		var fds [2]int
		if err := syscall.Pipe(fds[:]); err != nil {
			t.Fatal(err)
		}
		defer syscall.Close(fds[0])
		defer syscall.Close(fds[1])
		syscall.Write(fds[1], b)
		if k, err := syscall.Read(fds[0], buf[at:at+len(b)]); err != nil || k != len(b) {
			t.Fatalf("read(2) into the memory: %d, %v", k, err)
		}
	}
	for round := 0; round < 4; round++ {
		buf = m.Reallocate(used)
		for p := round; p < n/page; p += 37 {
			buf[p*page+round] ^= 0xff
			written[p] = true
		}
		kernel := (n/page/2 + round) * page
		pipe(kernel+100, []byte("the kernel wrote this"))
		written[kernel/page] = true
		buf[n-1]++
		written[n/page-1] = true
		buf[n+5] = 1 // past the image: cleared, not copied

		reported := 0
		if !imageWritten(m.buf, n, func(lo, hi uint64) { reported += int(hi-lo) / page }) {
			t.Fatal("the kernel refused to report the written pages")
		}
		if reported != len(written) {
			t.Fatalf("round %d: %d pages reported written, %d were", round, reported, len(written))
		}
		m.resetTo(img)
		if !bytes.Equal(buf[:n], image) {
			t.Fatalf("round %d: the restored memory differs from the image", round)
		}
		if buf[n+5] != 0 {
			t.Fatalf("round %d: the memory past the image was not cleared", round)
		}
	}

	// A mapping watched inside the image: its collect protects the page it
	// finds written again, with the guest's bytes in it.
	buf = m.Reallocate(used)
	g := Mapping{Data: uint32(3 * page), N: uint32(2 * page), Shadow: ShadowOf(buf[3*page : 5*page])}
	var tr dirtyTracker
	tr.registered(testMemory{buf: buf}, g)
	buf[3*page+1] ^= 0xff
	if _, ok := tr.pages(testMemory{buf: buf}, g, nil); !ok {
		t.Fatal("the mapping's dirty pages could not be found")
	}
	buf[4*page+2] ^= 0xff
	m.resetTo(img)
	if !bytes.Equal(buf[:n], image) {
		t.Fatal("after a mapping inside the image was watched, the restored memory differs from the image")
	}
	reservations.Lock()
	watched = m.image == n
	reservations.Unlock()
	if !watched {
		t.Fatal("a mapping inside the image made the restore give up the image's write watch")
	}
	buf = m.Reallocate(used)
	buf[3*page+1] ^= 0xff
	buf[n-page] ^= 0xff
	m.resetTo(img)
	if !bytes.Equal(buf[:n], image) {
		t.Fatal("the restore after the mapping's differs from the image")
	}

	// Freed, the memory goes to the next guest without its image's pages
	// protected: clearing them takes no fault each.
	_, faults := reuseFreed(t, lm, limit, used)
	if faults > int64(n/page/16) {
		t.Fatalf("reusing the memory took %d page faults; its image has %d pages", faults, n/page)
	}
}

// TestResetLeavesZeroedRanges: a reset writes nothing over the ranges the
// last guest's end said hold zeros (zeroedAtEnd), clears the rest of what
// the guest used past the image, restores the image even where a range
// reaches into it, and takes the ranges' word for one reset only. The
// ranges here hold data, a lie, so that the test can see what was left.
func TestResetLeavesZeroedRanges(t *testing.T) {
	const n, used = 1 << 20, 4 << 20
	page := uint64(os.Getpagesize())
	image := bytes.Repeat([]byte{5}, n)
	img := newMemoryImage(image)
	drainMemoryPool()
	lm := newLinearMemory(1<<20, uint64(GuestMemoryLimitPages)*65536)
	defer lm.Free()
	m := lm.(*mmapMemory)
	fill := func() []byte {
		buf := m.Reallocate(used)
		for i := range buf {
			buf[i] = 0xee
		}
		return buf
	}
	buf := fill()
	m.zeroedAtEnd([]offsetRange{{n + 10*page, n + 12*page}, {n - page, n + page}, {n + 2*page, n + 5*page}, {used, used + page}})
	m.resetTo(img)
	// What was left past the image: the ranges cut at its end.
	left := []offsetRange{{n, n + page}, {n + 2*page, n + 5*page}, {n + 10*page, n + 12*page}}
	if !bytes.Equal(buf[:n], image) {
		t.Fatal("a range reaching into the image kept the image from being restored")
	}
	in := func(i uint64) bool {
		for _, r := range left {
			if i >= r.lo && i < r.hi {
				return true
			}
		}
		return false
	}
	for i := uint64(n); i < used; i++ {
		if want := byte(0); in(i) {
			want = 0xee
			if buf[i] != want {
				t.Fatalf("byte %d, inside a range said to hold zeros, was written: %#x", i, buf[i])
			}
		} else if buf[i] != want {
			t.Fatalf("byte %d past the image was not cleared: %#x", i, buf[i])
		}
	}
	buf = fill()
	m.resetTo(img)
	if !bytes.Equal(buf[:n], image) || !disk.IsZero(buf[n:used]) {
		t.Fatal("a second reset took the first one's ranges as still holding zeros")
	}
}

// watchedWritten says, page by page, which of the present pages of b, a
// part of a memory under the write watch, the watch has as written.
func watchedWritten(t *testing.T, b []byte) []bool {
	t.Helper()
	page := uintptr(os.Getpagesize())
	written := make([]bool, uintptr(len(b))/page)
	host := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if !pagemapScan(host, uintptr(len(b)), pmScanArg{categoryMask: pageIsWritten | pageIsPresent, returnMask: pageIsWritten | pageIsPresent}, func(lo, hi uintptr, _ uint64) {
		for a := lo; a < hi; a += page {
			written[(a-host)/page] = true
		}
	}) {
		t.Skip("the kernel does not say which pages the watch has as written")
	}
	return written
}

// TestZeroTest: a ZeroTest of a guest memory answers as a comparison does
// for every part (pages never touched, pages read, pages written with data,
// pages written back to zeros, parts across them), and, where the kernel
// says which pages hold data, answers for the untouched pages without a
// page fault: reading them is what it saves.
func TestZeroTest(t *testing.T) {
	page := os.Getpagesize()
	drainMemoryPool() // a fresh memory, not one another test used
	lm := newLinearMemory(1<<20, uint64(GuestMemoryLimitPages)*65536)
	defer func() {
		lm.Free()
		drainMemoryPool() // unmapped, so no later test gets its protected pages
	}()
	buf := lm.Reallocate(4 << 20)
	// Pages of the host's size: with transparent huge pages on "always",
	// one store would fill 2 MiB.
	syscall.Madvise(buf, 15 /* MADV_NOHUGEPAGE */)
	n := len(buf) / page
	for p := 0; p < n; p += 7 {
		buf[p*page+p%page] = 1 // data
	}
	for p := 3; p < n; p += 11 {
		buf[p*page] = 2 // written, then zeros again
		buf[p*page] = 0
	}
	var sink byte
	for p := 5; p < n; p += 13 {
		sink += buf[p*page] // read: the shared zero page
	}
	var z ZeroTest
	z.Reset(buf)
	z.IsZero(buf[:1]) // the scan
	if !z.known {
		t.Skipf("the kernel does not say which pages hold data here (sink %d)", sink)
	}
	// Untouched pages: no fault to answer for them.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var before, after syscall.Rusage
	syscall.Getrusage(1 /* RUSAGE_THREAD */, &before)
	untouched := 0
	for p := 1; p < n; p++ {
		if p%7 != 0 && p%11 != 3 && p%13 != 5 && resident(t, buf[p*page:(p+1)*page]) == 0 {
			if !z.IsZero(buf[p*page : (p+1)*page]) {
				t.Fatalf("untouched page %d is not zero", p)
			}
			untouched++
		}
	}
	syscall.Getrusage(1, &after)
	if untouched < n/2 {
		t.Fatalf("only %d of %d pages were untouched", untouched, n)
	}
	if faults := after.Minflt - before.Minflt; faults > int64(untouched/16) {
		t.Fatalf("answering for %d untouched pages took %d page faults", untouched, faults)
	}

	// A shadow made with the test is the one made by reading every page.
	z.Reset(buf)
	if !reflect.DeepEqual(NewShadow(buf, &z), ShadowOf(buf)) {
		t.Fatal("a shadow made with a ZeroTest differs from one made by comparisons")
	}

	// Every part, touched or not, gets a comparison's answer: over the
	// whole memory, over a range that starts and ends inside pages, and
	// with the memory under the write watch, whose markers on untouched
	// pages the kernel reports as swapped.
	s := rng.New(1, "zero-test")
	check := func(what string, b []byte) {
		t.Helper()
		z.Reset(b)
		for range 2000 {
			lo := s.Intn(len(b))
			hi := lo + s.Intn(min(3*page, len(b)-lo)+1)
			if got, want := z.IsZero(b[lo:hi]), disk.IsZero(b[lo:hi]); got != want {
				t.Fatalf("%s: bytes [%d, %d): IsZero %v, a comparison says %v", what, lo, hi, got, want)
			}
		}
	}
	check("whole", buf)
	check("unaligned", buf[123:len(buf)-77])

	// Zero leaves every part it is given holding zeros, and writes none
	// of the untouched pages: they stay unpopulated. The parts are runs of
	// pages, as a read of a file's holes gives it, some starting and
	// ending inside pages.
	zeroCheck := func(what string, b []byte, lo, hi int) {
		t.Helper()
		z.Reset(b)
		var untouched []int
		for p := lo / page; p < (hi+page-1)/page; p++ {
			if resident(t, buf[p*page:(p+1)*page]) == 0 {
				untouched = append(untouched, p)
			}
		}
		z.Zero(b[lo:hi])
		if !disk.IsZero(b[lo:hi]) {
			t.Fatalf("%s: bytes [%d, %d) hold data after Zero", what, lo, hi)
		}
		for _, p := range untouched {
			if resident(t, buf[p*page:(p+1)*page]) != 0 {
				t.Fatalf("%s: Zero of bytes [%d, %d) wrote untouched page %d", what, lo, hi, p)
			}
		}
	}
	zeroCheck("first quarter", buf, 0, len(buf)/4)
	zeroCheck("unaligned", buf, len(buf)/4+100, len(buf)/2-100)
	m, _ := lm.(*mmapMemory)
	reservations.Lock()
	if m != nil && !m.watched {
		m.watched = watchRegister(m.buf)
	}
	registered := m != nil && m.watched
	reservations.Unlock()
	protected := registered && watchProtect(buf)
	t.Logf("under the write watch too: %v", protected)
	if protected {
		for p := 1; p < n; p += 17 {
			buf[p*page+1] = 3 // written under the watch
		}
		check("watched", buf)
		// Zero under the watch: the protected pages that hold zeros
		// already are compared, not written, so the watch still has
		// them as unwritten; those that held data are zeros after it.
		half := buf[len(buf)/2:]
		hadData := make([]bool, n)
		for p := range n {
			hadData[p] = !disk.IsZero(buf[p*page : (p+1)*page])
		}
		before := watchedWritten(t, half)
		zeroCheck("watched", buf, len(buf)/2, len(buf))
		after := watchedWritten(t, half)
		for p := range after {
			if after[p] && !before[p] && !hadData[len(buf)/2/page+p] {
				t.Fatalf("Zero under the watch wrote page %d, which held zeros", len(buf)/2/page+p)
			}
		}
	}

	// Memory sf did not reserve is compared, with the same answers.
	other := make([]byte, 64<<10)
	other[5000] = 1
	z.Reset(other)
	if z.IsZero(other[4096:8192]) || !z.IsZero(other[8192:]) || z.known {
		t.Fatal("a ZeroTest of memory sf did not reserve answered wrong, or took the kernel's word")
	}
}
