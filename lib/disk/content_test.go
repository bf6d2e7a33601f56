package disk

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"testing"

	"github.com/sf-dst/sf/lib/rng"
	"github.com/sf-dst/sf/lib/wire"
)

// heldPages counts the distinct pages the files of fs hold, and the pages
// they would hold with no sharing between the two versions of a file.
func heldPages(fs *FS) (distinct, unshared int) {
	seen := map[*page]bool{}
	for _, n := range fs.inodes {
		for _, c := range []*content{&n.data, &n.durable} {
			for _, pg := range append(slices.Clone(c.pages), slices.Collect(maps.Values(c.far))...) {
				if pg != nil {
					unshared++
					if !seen[pg] {
						seen[pg] = true
						distinct++
					}
				}
			}
		}
	}
	return distinct, unshared
}

// TestContentCopiesSharedPages checks that a change to one version of a file
// never shows in the other, whichever method makes it, and that bytes past
// the size read as zeros after a shrink and a growth.
func TestContentCopiesSharedPages(t *testing.T) {
	var pool pagePool
	var a, b content
	a.writeAt(bytes.Repeat([]byte{'x'}, 3*PageBytes), 0, &b, &pool)
	b.becomeTwin(&a, &pool)
	want := a.bytes()
	check := func(step string) {
		t.Helper()
		if got := a.bytes(); !bytes.Equal(got, want) {
			t.Fatalf("%s changed the twin", step)
		}
	}
	b.writeAt([]byte("hello"), PageBytes-2, &a, &pool)
	check("writeAt")
	b.flip(5, 0, &a, &pool)
	check("flip")
	b.resize(PageBytes+10, &a, &pool)
	check("resize down")
	b.resize(2*PageBytes, &a, &pool)
	check("resize up")
	if got := b.bytes()[PageBytes+10:]; !bytes.Equal(got, make([]byte, len(got))) {
		t.Fatalf("bytes past a shrink come back as %q, want zeros", got)
	}
	b.copyRange(&content{size: 3 * PageBytes, pages: make([]*page, 3)}, 0, 3, &a, &pool)
	check("copyRange")
	if got := b.bytes()[:6]; !bytes.Equal(got, []byte{0, 0, 0, 'x', 'x', 'x' ^ 1}) {
		t.Fatalf("after copyRange of zeros and flip: %q", got)
	}
	if len(b.pages) != 2 {
		t.Fatalf("b has %d pages, want 2", len(b.pages))
	}
	b.becomeTwin(&a, &pool)
	for p := range b.pages {
		if !b.shared(int64(p), &a) {
			t.Fatalf("page %d not shared after becomeTwin", p)
		}
	}
}

// TestSyncedFileCostsItsSize checks that the durable version of a synced
// file shares its pages with the current one, through a write+fsync loop, a
// crash, overwrites and a failed fsync, and that the loop makes the copies
// of pending writes reuse one buffer.
func TestSyncedFileCostsItsSize(t *testing.T) {
	fs := newTestFS()
	ino := writeFile(t, fs, "log", "")
	rec := bytes.Repeat([]byte("0123456789"), 100)
	var size int64
	for i := range 200 {
		rec[0] = byte(i)
		if _, err := fs.WriteAt(ino, rec, size); err != nil {
			t.Fatal(err)
		}
		size += int64(len(rec))
		if err := fs.Sync(ino); err != nil {
			t.Fatal(err)
		}
	}
	pages := int(numPages(size))
	if distinct, unshared := heldPages(fs); distinct != pages || unshared != 2*pages {
		t.Fatalf("after 200 appends with fsync: %d distinct pages (%d unshared), want %d (%d)", distinct, unshared, pages, 2*pages)
	}
	n := fs.inodes[ino]
	if cap(n.opBuf) > 4<<10 {
		t.Fatalf("write+fsync loop grew the buffer of pending writes to %d bytes", cap(n.opBuf))
	}
	if len(fs.pool.free) > pagePoolMax {
		t.Fatalf("pool holds %d pages, more than %d", len(fs.pool.free), pagePoolMax)
	}

	// Overwrites in three pages, not synced: those three are copied.
	for _, off := range []int64{10, 5 * PageBytes, 5*PageBytes + 20, 30 * PageBytes} {
		if _, err := fs.WriteAt(ino, []byte("over"), off); err != nil {
			t.Fatal(err)
		}
	}
	if distinct, _ := heldPages(fs); distinct != pages+3 {
		t.Fatalf("with 3 pages overwritten: %d distinct pages, want %d", distinct, pages+3)
	}
	checkConsistent(t, fs)
	// A failed fsync leaves them stale: durable and current differ there.
	if err := fs.SyncEIO(ino); err != EIO {
		t.Fatalf("SyncEIO: %v", err)
	}
	if distinct, _ := heldPages(fs); distinct != pages+3 {
		t.Fatalf("after a failed fsync: %d distinct pages, want %d", distinct, pages+3)
	}
	checkConsistent(t, fs)
	// A crash makes the current version the durable one again.
	fs.Crash()
	checkCrashed(t, fs)
	if distinct, _ := heldPages(fs); distinct != pages {
		t.Fatalf("after a crash: %d distinct pages, want %d", distinct, pages)
	}
}

// TestSparseFile: without a capacity, a truncate makes a file far larger
// than FileBytesMax, and the file holds only the pages written to it: past
// the first FileBytesMax bytes, a page that was never written costs
// nothing. Writes, reads, syncs, crashes, clones and a shrink all see the
// pages where they were written. With a capacity, FileBytesMax still
// bounds a file.
func TestSparseFile(t *testing.T) {
	fs := newTestFS()
	f := writeFile(t, fs, "big", "head")
	size := int64(3<<30 + 100)
	if err := fs.Truncate(f, size); err != nil {
		t.Fatalf("truncate to %d: %v", size, err)
	}
	at := map[int64]string{FileBytesMax - 2: "XYZW", 2<<30 + 50: "tail"}
	for off, b := range at {
		if _, err := fs.WriteAt(f, []byte(b), off); err != nil {
			t.Fatalf("write at %d: %v", off, err)
		}
	}
	n := fs.inodes[f]
	if len(n.data.pages) != denseSlots || len(n.data.far) != 2 {
		t.Fatalf("a %d-byte file with 4 pages written, 2 of them past its list, holds %d pages in its list and %d past it, want %d and 2", size, len(n.data.pages), len(n.data.far), denseSlots)
	}
	read := func(fs *FS, what string) {
		t.Helper()
		for off, want := range at {
			got := make([]byte, len(want)+2)
			if k, err := fs.ReadAt(f, got, off-1); err != nil || k != len(got) || string(got) != "\x00"+want+"\x00" {
				t.Errorf("%s: read at %d: %q, %v; want %q", what, off-1, got[:k], err, "\x00"+want+"\x00")
			}
		}
		if got := make([]byte, 8); func() bool { k, _ := fs.ReadAt(f, got, 5<<29); return k != 8 || !bytes.Equal(got, make([]byte, 8)) }() {
			t.Errorf("%s: a hole past the list reads %q", what, got)
		}
		if st, _ := fs.Stat(f); st.Size != size {
			t.Errorf("%s: size %d, want %d", what, st.Size, size)
		}
	}
	read(fs, "after the writes")
	// A snapshot keeps the pages past the list too, and only those.
	decoded := func(what string) {
		t.Helper()
		enc := encodeFS(fs)
		rd := wire.NewReader(enc)
		d := Decode(rd, func() int64 { return 0 })
		if err := rd.Done(); err != nil {
			t.Fatalf("%s: decoding: %v", what, err)
		}
		read(d, what+", decoded")
		if !bytes.Equal(encodeFS(d), enc) {
			t.Errorf("%s: the decoded file system encodes otherwise", what)
		}
		if dn := d.inodes[f]; len(dn.data.far) != len(n.data.far) {
			t.Errorf("%s: decoded, %d pages past the list, want %d", what, len(dn.data.far), len(n.data.far))
		}
	}
	decoded("before the sync")
	sync(t, fs, f)
	if distinct, _ := heldPages(fs); distinct != 4 {
		t.Errorf("after a sync the file holds %d distinct pages, want the 4 written", distinct)
	}
	decoded("after the sync")
	fs.Crash()
	read(fs, "after a crash")
	c := fs.Clone(func() int64 { return 0 })
	if _, err := c.WriteAt(f, []byte("clone"), 2<<30+50); err != nil {
		t.Fatal(err)
	}
	read(fs, "after a write to a clone")
	if err := fs.Truncate(f, 10); err != nil {
		t.Fatal(err)
	}
	if n := fs.inodes[f]; len(n.data.far) != 0 || len(n.data.pages) != 1 {
		t.Errorf("after a shrink to 10 bytes: %d pages in the list, %d past it", len(n.data.pages), len(n.data.far))
	}
	if err := fs.Truncate(f, SparseFileBytesMax+1); err != EFBIG {
		t.Errorf("truncate past SparseFileBytesMax: %v, want EFBIG", err)
	}

	limited := newTestFS()
	limited.SetCapacity(1 << 20)
	g := writeFile(t, limited, "f", "x")
	if err := limited.Truncate(g, FileBytesMax+1); err != EFBIG {
		t.Errorf("with a capacity, truncate past FileBytesMax: %v, want EFBIG", err)
	}
	if _, err := limited.WriteAt(g, []byte("x"), FileBytesMax); err != EFBIG {
		t.Errorf("with a capacity, a write past FileBytesMax: %v, want EFBIG", err)
	}
}

// TestLargeWritesShareBuffers checks that the kept bytes of large pending
// writes go round between files instead of being allocated anew, without one
// file's reuse of a buffer reaching another file's bytes: a loop of two 64 KiB
// writes to the same place and an fsync allocates next to nothing once warm,
// and writes that span several buffers keep their bytes through syncs,
// another file's reuse and a crash. Each write here is written twice, so that
// the second makes the first keep its bytes.
func TestLargeWritesShareBuffers(t *testing.T) {
	fs := newTestFS()
	a := writeFile(t, fs, "a", "")
	rec := bytes.Repeat([]byte{0xa5}, 64<<10)
	write := func() {
		for range 2 {
			if _, err := fs.WriteAt(a, rec, 0); err != nil {
				t.Fatal(err)
			}
		}
		if err := fs.Sync(a); err != nil {
			t.Fatal(err)
		}
	}
	write()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 50 {
		write()
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / 50; per > 4<<10 {
		t.Fatalf("two 64 KiB writes and an fsync allocate %d bytes, want the kept bytes' buffer reused", per)
	}

	// Three 400 KiB writes take two buffers; after the sync, b's writes
	// reuse them while a's bytes must stay what a wrote.
	fill := func(ino Ino, seed byte) []byte {
		var want []byte
		for i := range 3 {
			p := bytes.Repeat([]byte{seed + byte(i)}, 400<<10)
			for range 2 {
				if _, err := fs.WriteAt(ino, p, int64(len(want))); err != nil {
					t.Fatal(err)
				}
			}
			want = append(want, p...)
		}
		return want
	}
	wantA := fill(a, 1)
	if err := fs.Sync(a); err != nil {
		t.Fatal(err)
	}
	if spare := len(fs.spareBufs); spare < 2 || spare > spareBufsMax {
		t.Fatalf("after the sync the FS has %d spare buffers, want 2 to %d", spare, spareBufsMax)
	}
	b := writeFile(t, fs, "b", "")
	if err := fs.Sync(fs.Root()); err != nil {
		t.Fatal(err)
	}
	wantB := fill(b, 7)
	if len(fs.spareBufs) != 0 {
		t.Fatalf("b's writes left %d spare buffers unused, want them reused", len(fs.spareBufs))
	}
	checkConsistent(t, fs)
	for _, f := range []struct {
		ino  Ino
		want []byte
	}{{a, wantA}, {b, wantB}} {
		got := make([]byte, len(f.want))
		if n, err := fs.ReadAt(f.ino, got, 0); err != nil || n != len(got) || !bytes.Equal(got, f.want) {
			t.Fatalf("ino %d: read %d bytes (%v), equal %v", f.ino, n, err, bytes.Equal(got, f.want))
		}
	}
	// b's writes were never synced: a crash keeps a's and drops b's.
	fs.Crash()
	checkCrashed(t, fs)
	got := make([]byte, len(wantA))
	if n, err := fs.ReadAt(a, got, 0); err != nil || n != len(got) || !bytes.Equal(got, wantA) {
		t.Fatalf("a after the crash: read %d bytes (%v), equal %v", n, err, bytes.Equal(got, wantA))
	}
	if n, _ := fs.ReadAt(b, got, 0); n != 0 {
		t.Fatalf("b after the crash holds %d bytes, want 0", n)
	}
}

// TestWholePageWritesOverSharedPages: a write that covers whole pages takes
// fresh pages without copying or zeroing them first; the durable version,
// which shared the old pages, must keep its bytes, and the pages the write
// covers only in part must keep theirs.
func TestWholePageWritesOverSharedPages(t *testing.T) {
	fs := newTestFS()
	old := bytes.Repeat([]byte{'o'}, 4*PageBytes)
	ino := writeFile(t, fs, "f", string(old))
	if err := fs.Sync(ino); err != nil {
		t.Fatal(err)
	}
	// Pages 1 and 2 whole, the end of page 0 and the start of page 3.
	neu := bytes.Repeat([]byte{'n'}, 2*PageBytes+200)
	if _, err := fs.WriteAt(ino, neu, PageBytes-100); err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(old)
	copy(want[PageBytes-100:], neu)
	got := make([]byte, len(want))
	if n, _ := fs.ReadAt(ino, got, 0); n != len(want) || !bytes.Equal(got, want) {
		t.Fatalf("after the write, reads differ from what was written")
	}
	checkConsistent(t, fs)
	fs.Crash()
	checkCrashed(t, fs)
	if n, _ := fs.ReadAt(ino, got, 0); n != len(old) || !bytes.Equal(got, old) {
		t.Fatalf("after a crash, the synced bytes are not all back")
	}
}

// TestWholeSyncMatchesReplay: a sync without faults takes the written pages
// from the current content instead of replaying the pending writes on the
// durable one. Random writes (whole pages, parts of pages, past the end),
// truncates down and up, syncs and crashes on two files, once each way, must
// leave the same current and durable bytes after every step, and the same
// pages shared.
func TestWholeSyncMatchesReplay(t *testing.T) {
	for seed := range uint64(8) {
		var ways [2][]string
		for way, replay := range []bool{false, true} {
			fs := newTestFS()
			fs.replayEverySync = replay
			inos := []Ino{writeFile(t, fs, "a", ""), writeFile(t, fs, "b", "")}
			r := rng.New(seed, "whole-sync-test")
			for step := range 200 {
				ino := inos[r.Intn(len(inos))]
				switch k := r.Intn(10); {
				case k < 5:
					off := int64(r.Intn(12 * PageBytes))
					if r.Intn(2) == 0 {
						off &^= PageBytes - 1
					}
					p := bytes.Repeat([]byte{byte(1 + r.Intn(250))}, 1+r.Intn(3*PageBytes))
					if _, err := fs.WriteAt(ino, p, off); err != nil {
						t.Fatal(err)
					}
				case k < 7:
					if err := fs.Truncate(ino, int64(r.Intn(10*PageBytes))); err != nil {
						t.Fatal(err)
					}
				case k < 9:
					if err := fs.Sync(ino); err != nil {
						t.Fatal(err)
					}
				default:
					fs.Crash()
				}
				checkConsistent(t, fs)
				// The durable bytes are what a crash of a copy leaves.
				c := fs.Clone(nil)
				c.Crash()
				distinct, unshared := heldPages(fs)
				state := fmt.Sprintf("step %d: pages %d %d", step, distinct, unshared)
				for _, f := range []*FS{fs, c} {
					for _, ino := range inos {
						b := make([]byte, 16*PageBytes)
						n, _ := f.ReadAt(ino, b, 0)
						state += fmt.Sprintf(" %x", sha256.Sum256(b[:n]))
					}
				}
				ways[way] = append(ways[way], state)
			}
		}
		for i := range ways[0] {
			if ways[0][i] != ways[1][i] {
				t.Fatalf("seed %d: syncs without replay and with it part at %s\nagainst %s", seed, ways[0][i], ways[1][i])
			}
		}
	}
}

// TestHoleReadsAsZeros: a read of a hole yields zeros whatever the buffer
// held before, all of it, part of it or none of it zero, in whole pages and
// in parts of pages (a hole's zeros are written only where the buffer is not
// zero already).
func TestHoleReadsAsZeros(t *testing.T) {
	fs := newTestFS()
	f := writeFile(t, fs, "sparse", "")
	if err := fs.Truncate(f, 6*PageBytes); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.WriteAt(f, bytes.Repeat([]byte{'d'}, 100), 2*PageBytes+50); err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 6*PageBytes)
	copy(want[2*PageBytes+50:], bytes.Repeat([]byte{'d'}, 100))
	for _, fill := range []func(b []byte){
		func(b []byte) {},
		func(b []byte) { copy(b, bytes.Repeat([]byte{0xff}, len(b))) },
		func(b []byte) { b[len(b)-1] = 1 },
		func(b []byte) { b[len(b)/3] = 1; b[len(b)*2/3] = 1 },
	} {
		for _, off := range []int64{0, 1, PageBytes - 3, 2*PageBytes + 60} {
			b := make([]byte, int64(len(want))-off)
			fill(b)
			if n, err := fs.ReadAt(f, b, off); err != nil || n != len(b) {
				t.Fatalf("read at %d: %d, %v", off, n, err)
			}
			if !bytes.Equal(b, want[off:]) {
				t.Fatalf("read at %d into a filled buffer: the holes do not read as zeros", off)
			}
			// ReadAtOnto reads the same with a zero that clears; it asks it
			// only about the holes, a run of them at a time: the pages
			// before page 2, which holds the data, and those after it.
			fill(b)
			var asked []int
			if n, err := fs.ReadAtOnto(f, b, off, func(p []byte) { asked = append(asked, len(p)); clear(p) }); err != nil || n != len(b) || !bytes.Equal(b, want[off:]) {
				t.Fatalf("ReadAtOnto at %d into a filled buffer: %d, %v, equal %v", off, n, err, bytes.Equal(b, want[off:]))
			}
			var runs []int
			if off < 2*PageBytes {
				runs = append(runs, int(2*PageBytes-off))
			}
			runs = append(runs, 3*PageBytes)
			if !slices.Equal(asked, runs) {
				t.Fatalf("ReadAtOnto at %d asked about parts of %v bytes, the runs of holes are %v", off, asked, runs)
			}
		}
	}
	// A part its zero leaves alone stays as it is: the caller's word is
	// what spares the write.
	b := bytes.Repeat([]byte{7}, PageBytes)
	if _, err := fs.ReadAtOnto(f, b, 0, func([]byte) {}); err != nil || b[0] != 7 {
		t.Fatalf("ReadAtOnto wrote over a part its zero left alone: %v, %d", err, b[0])
	}
}
