package disk

import (
	"fmt"
	"slices"

	"github.com/sf-dst/sf/lib/rng"
)

// Damage is one flipped bit of durable data, for the trace.
type Damage struct {
	Path   string // PathOf the file when the bit flipped
	Offset int64  // byte offset in the file
	Bit    uint8  // bit number in the byte, 0 for the lowest
}

// syncFile makes the pending operations of the regular file n durable by
// replaying them on its durable content. Bytes of writes that land in a page
// for which drop reports true are not written, but the file still takes the
// size they give it; such pages become stale. A write to a page that was
// stale before rewrites the whole page from the current content. drop may be
// nil.
func (fs *FS) syncFile(n *inode, drop func(page int64) bool) {
	dropped := func(p int64) bool { return drop != nil && drop(p) }
	// Without a fault, a mutant, stale pages or damage, the durable content
	// with the pending operations replayed on it is the current content:
	// the written pages need not be replayed byte by byte only to be found
	// equal to the current ones and shared below, they are shared outright,
	// and the pending writes' bytes are not needed.
	whole := drop == nil && fs.mutant == MutantNone && len(n.stale) == 0 && len(n.damaged) == 0 && !fs.replayEverySync
	if !whole {
		fs.keepAllDeferred(n)
	}
	ops := n.pending
	if fs.mutant == MutantTruncateNotDurable {
		ops = fs.skipShrinks(n, ops)
	}
	written := n.replayDurable(fs.syncPages[:0], ops, dropped, whole)
	fs.syncPages = written
	// The slice goes on holding the next writes: a sync every few writes
	// grew a new one each time.
	clear(n.pending)
	n.pending = n.pending[:0]
	fs.releaseOpBufs(n)
	size := n.durable.size
	if size != n.data.size && (fs.mutant != MutantTruncateNotDurable || size < n.data.size) {
		panic(fmt.Sprintf("disk: ino %d: durable size %d after sync, current size %d", n.ino, size, n.data.size))
	}
	for _, p := range written {
		if !n.stale[p] || dropped(p) {
			continue
		}
		a, e := pageRange(p, size)
		e = min(e, n.data.size)
		if a < e {
			n.durable.copyRange(&n.data, a, e, &n.data, n.pool)
			n.damaged = n.damaged.remove(a, e)
		}
		delete(n.stale, p)
	}
	for p := range n.stale {
		if p*PageBytes >= size {
			delete(n.stale, p)
		}
	}
	// The pages this sync wrote now hold what reads see, unless a fault or a
	// mutant made them differ: let the durable version share them.
	limit := numPages(min(size, n.data.size))
	for _, p := range written {
		if p >= limit {
			continue
		}
		if whole {
			n.durable.adopt(p, &n.data, n.pool)
		} else {
			n.durable.share(p, &n.data, n.pool)
		}
	}
}

// replayDurable applies ops to the durable content of n, except the bytes
// of writes in pages for which dropped reports true, which become stale; the
// file still takes the size those writes give it. It returns written with
// the pages that took written bytes appended, in the order written. With
// sizesOnly it applies only what the operations do to the size, for a sync
// whose written pages the durable content then takes from the current one
// (adopt).
func (n *inode) replayDurable(written []int64, ops []fileOp, dropped func(page int64) bool, sizesOnly bool) []int64 {
	d := &n.durable
	for _, op := range ops {
		if op.truncate {
			d.resize(op.off, &n.data, n.pool)
			n.damaged = n.damaged.clip(op.off)
			continue
		}
		end := op.off + op.size()
		if end > d.size {
			d.resize(end, &n.data, n.pool)
		}
		first, last := pagesOf(op.off, end)
		for p := first; p < last; p++ {
			a, e := max(op.off, p*PageBytes), min(end, (p+1)*PageBytes)
			if dropped(p) {
				n.markStale(p)
				continue
			}
			if !sizesOnly {
				d.writeAt(op.bytes()[a-op.off:e-op.off], a, &n.data, n.pool)
				n.damaged = n.damaged.remove(a, e)
			}
			written = append(written, p)
		}
	}
	return written
}

func (n *inode) markStale(p int64) {
	if n.stale == nil {
		n.stale = make(map[int64]bool)
	}
	n.stale[p] = true
}

// dirtyPages returns, sorted, the pages inside the current size that a
// pending write of the regular file n touches.
func (n *inode) dirtyPages() []int64 {
	size := n.data.size
	var out []int64
	for _, op := range n.pending {
		if op.truncate {
			continue
		}
		first, last := pagesOf(op.off, min(op.off+op.size(), size))
		for p := first; p < last; p++ {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// pageRange returns the bytes of page p inside a file of size bytes.
func pageRange(p, size int64) (int64, int64) {
	return p * PageBytes, min((p+1)*PageBytes, size)
}

// SyncEIO is a Sync that fails with EIO, as Linux reports a failed writeback
// (fsync_eio). For a regular file the pending writes stay visible to reads
// but none of their bytes becomes durable, and since the failure is reported
// once, a later Sync does not write them either: the durable file takes the
// current size, holding its old content (zeros where it grew) where those
// writes went, until a later write to the same page makes a Sync write that
// page in full. Pending truncates do become durable. For a directory or
// symlink it makes nothing durable. It returns EIO, or EBADF for an unknown
// inode.
func (fs *FS) SyncEIO(ino Ino) error {
	n, err := fs.get(ino)
	if err != nil {
		return err
	}
	if n.typ == TypeRegular {
		fs.syncFile(n, func(int64) bool { return true })
	}
	return EIO
}

// SyncLosingPage is a Sync that succeeds but loses one page (lost_write):
// one page of the regular file ino that its pending writes touch, chosen
// with r, keeps its old durable content (zeros if the page is new). Reads
// keep returning the new content until a crash, and a later Sync that
// writes to the page writes it in full. It returns the byte offset of the
// lost page, or -1 when there is no such page (no pending write, or the
// inode is not a regular file); it then behaves as Sync and draws nothing
// from r. It fails with EBADF for an unknown inode.
func (fs *FS) SyncLosingPage(ino Ino, r *rng.Stream) (page int64, err error) {
	n, err := fs.get(ino)
	if err != nil {
		return -1, err
	}
	if n.typ != TypeRegular {
		return -1, fs.Sync(ino)
	}
	dirty := n.dirtyPages()
	if len(dirty) == 0 {
		fs.syncFile(n, nil)
		return -1, nil
	}
	lost := dirty[r.Intn(len(dirty))]
	fs.syncFile(n, func(p int64) bool { return p == lost })
	n.damaged = n.damaged.add(pageRange(lost, n.data.size))
	return lost * PageBytes, nil
}

// SyncMisdirected is a Sync that succeeds but writes one page to the wrong
// place (misdirected_write): one page of the regular file ino that its
// pending writes touch, chosen with r, lands at another page of the same
// file, chosen with r, overwriting what was durable there, while the
// intended page keeps its old durable content (zeros if new). The page is
// written as a whole, zeros past the end of the file included, and cut at
// the end of the file: a misdirected write never grows the file or leaves
// it. Reads keep returning the right content until a crash; a later Sync
// that writes to either page writes it in full. It returns the byte offsets
// of the intended page and of the page that took the write, and ok=false
// when there is no pending write to a page or the file has fewer than two
// pages; it then behaves as Sync and draws nothing from r. It fails with
// EBADF for an unknown inode.
func (fs *FS) SyncMisdirected(ino Ino, r *rng.Stream) (from, to int64, ok bool, err error) {
	n, err := fs.get(ino)
	if err != nil {
		return 0, 0, false, err
	}
	if n.typ != TypeRegular {
		return 0, 0, false, fs.Sync(ino)
	}
	size := n.data.size
	pages := numPages(size)
	dirty := n.dirtyPages()
	if len(dirty) == 0 || pages < 2 {
		fs.syncFile(n, nil)
		return 0, 0, false, nil
	}
	src := dirty[r.Intn(len(dirty))]
	dst := int64(r.Intn(int(pages - 1)))
	if dst >= src {
		dst++
	}
	fs.syncFile(n, func(p int64) bool { return p == src })
	var block [PageBytes]byte
	a, e := pageRange(src, size)
	n.data.readAt(block[:e-a], a, ClearNonZero)
	a, e = pageRange(dst, size)
	n.durable.writeAt(block[:e-a], a, &n.data, n.pool)
	n.markStale(dst)
	n.damaged = n.damaged.add(pageRange(src, size))
	n.damaged = n.damaged.add(a, e)
	return src * PageBytes, dst * PageBytes, true, nil
}

// BitRot flips one bit of durable data (bitrot_per_sec). The byte is chosen
// with r uniformly over the durable bytes of every regular file that has a
// name, current or durable, so large files are hit more often; the bit is
// chosen with r too. The program reads the flipped bit at once, unless a
// pending operation decides that byte of the current content (a write over
// it, a truncate below it, or a stale page). It returns false and draws
// nothing when there is no durable data.
func (fs *FS) BitRot(r *rng.Stream) (Damage, bool) {
	var files []*inode
	var total int64
	for _, ino := range fs.sortedInos() {
		n := fs.inodes[ino]
		if n.typ == TypeRegular && n.durable.size > 0 && (len(n.links) > 0 || n.durableLinks > 0) {
			files = append(files, n)
			total += n.durable.size
		}
	}
	if total == 0 {
		return Damage{}, false
	}
	i := int64(r.Uint64n(uint64(total)))
	bit := uint8(r.Intn(8))
	for _, n := range files {
		if i >= n.durable.size {
			i -= n.durable.size
			continue
		}
		if n.visibleFromDurable(i) {
			n.flipBoth(i, bit)
		} else {
			n.durable.flip(i, bit, &n.data, n.pool)
		}
		n.damaged = n.damaged.add(i, i+1)
		return Damage{Path: fs.PathOf(n.ino), Offset: i, Bit: bit}, true
	}
	panic("unreachable")
}

// flipBoth flips bit of byte off in both the durable and the current
// content: once when the page is shared, in each copy otherwise.
func (n *inode) flipBoth(off int64, bit uint8) {
	if p := off / PageBytes; n.durable.shared(p, &n.data) {
		n.durable.page(p)[off%PageBytes] ^= 1 << bit
		return
	}
	n.durable.flip(off, bit, &n.data, n.pool)
	n.data.flip(off, bit, &n.durable, n.pool)
}

// visibleFromDurable reports whether byte off of the current content comes
// from the durable content, untouched by pending operations.
func (n *inode) visibleFromDurable(off int64) bool {
	if n.stale[off/PageBytes] {
		return false
	}
	for _, op := range n.pending {
		if op.truncate && op.off <= off {
			return false
		}
		if !op.truncate && off >= op.off && off < op.off+op.size() {
			return false
		}
	}
	return true
}

// sortedInos returns every inode number in increasing order.
func (fs *FS) sortedInos() []Ino {
	out := make([]Ino, 0, len(fs.inodes))
	for ino := range fs.inodes {
		out = append(out, ino)
	}
	slices.Sort(out)
	return out
}

// FlipBit flips one bit of p, chosen with r, as a corrupted read does
// (read_corrupt), and returns its byte offset and bit number. It returns
// ok=false and draws nothing when p is empty.
func FlipBit(p []byte, r *rng.Stream) (off int, bit uint8, ok bool) {
	if len(p) == 0 {
		return 0, 0, false
	}
	off = r.Intn(len(p))
	bit = uint8(r.Intn(8))
	p[off] ^= 1 << bit
	return off, bit, true
}

// SetCapacity sets the size of the disk in bytes (disk_bytes); 0 means
// unlimited. Usage counts the current size of every regular file, holes
// included; directories and symlinks use nothing. A write that would grow
// the usage past the capacity is cut short or fails with ENOSPC (see
// WriteAt); a Truncate that grows a file is never refused, so usage can go
// past the capacity. A negative capacity is a programming error and panics.
// Defaults to 0.
func (fs *FS) SetCapacity(bytes int64) {
	if bytes < 0 {
		panic(fmt.Sprintf("disk: negative capacity %d", bytes))
	}
	fs.capacityBytes = bytes
}

// Capacity returns the capacity set by SetCapacity, 0 for unlimited.
func (fs *FS) Capacity() int64 { return fs.capacityBytes }

// Usage returns the sum of the current sizes of all regular files, named or
// not: an unlinked file's space comes back when Release or a crash frees it.
func (fs *FS) Usage() int64 { return fs.usedBytes }

// WrittenBack puts p at off into the durable content of a regular file, and
// into its current content, as the kernel's own writeback of a dirty page of
// a shared mapping would have done before a crash (mmap_early_writeback).
// Call it after the crash rules, on a disk that has just crashed: the page
// then holds the newest bytes of that range. Bytes past the file's durable
// size are not written, since writeback never extends a file. It returns how
// many bytes it wrote, and EBADF for an inode the crash freed.
func (fs *FS) WrittenBack(ino Ino, p []byte, off int64) (int, error) {
	n, err := fs.regular(ino)
	if err != nil {
		return 0, err
	}
	if off < 0 || off >= n.durable.size {
		return 0, nil
	}
	k := int(min(int64(len(p)), n.durable.size-off))
	if off < n.deferredHi && off+int64(k) > n.deferredLo {
		fs.keepAllDeferred(n)
	}
	n.durable.writeAt(p[:k], off, &n.data, n.pool)
	n.damaged = n.damaged.remove(off, off+int64(k))
	if off < n.data.size {
		m := int(min(int64(k), n.data.size-off))
		n.data.writeAt(p[:m], off, &n.durable, n.pool)
	}
	return k, nil
}
