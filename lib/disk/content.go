package disk

import (
	"bytes"
	"maps"
	"slices"
)

// page is one PageBytes block of a file's content.
type page [PageBytes]byte

// zeroPage is what a hole reads as.
var zeroPage page

// content is the bytes of one version of a regular file, the current or the
// durable one, as a list of pages.
//
// The two versions of a file share the pages on which they agree: a page
// pointer may sit at the same index in both, and then belongs to both. Every
// change to one version goes through a method that takes the other one, its
// twin, and copies a shared page before writing to it, so sharing is never
// visible; it only keeps a synced file from costing twice its size. No page
// is ever shared between files or between indexes.
//
// The first denseSlots pages sit in a list, a pointer each; the pages of a
// larger file past them (a sparse file, made by a truncate to a large size)
// sit in a map that holds only the pages written, so that such a file costs
// the pages written and not its size.
//
// Invariants: len(pages) is the number of pages size spans, up to
// denseSlots; far holds only pages past them, and none past size; a nil page
// reads as zeros and costs nothing, which is how holes and grown files
// start; the bytes of the last page past size are zero, so that growing a
// file needs no clearing.
type content struct {
	size  int64
	pages []*page
	far   map[int64]*page
}

// denseSlots is how many pages of a file the list holds: those of the
// largest file a disk with a capacity holds.
const denseSlots = FileBytesMax / PageBytes

// page returns page p of c, nil for a hole.
func (c *content) page(p int64) *page {
	if p < int64(len(c.pages)) {
		return c.pages[p]
	}
	return c.far[p]
}

// setPage makes pg page p of c.
func (c *content) setPage(p int64, pg *page) {
	switch {
	case p < int64(len(c.pages)):
		c.pages[p] = pg
	case pg == nil:
		delete(c.far, p)
	default:
		if c.far == nil {
			c.far = map[int64]*page{}
		}
		c.far[p] = pg
	}
}

// farPages returns the indexes of c's pages past its list, in order.
func (c *content) farPages() []int64 {
	return slices.Sorted(maps.Keys(c.far))
}

// pagePoolMax is how many free pages a pool keeps: enough to recycle the
// pages a write and its fsync copy and release, small next to any disk.
const pagePoolMax = 256

// pagePool recycles pages within one FS, so that a write+fsync loop, which
// copies a shared page on each write and releases the durable copy on each
// fsync, does not leave a page of garbage per operation for the collector.
type pagePool struct {
	free []*page
}

// get returns a page, zeroed if zero is true and otherwise with any content.
func (pp *pagePool) get(zero bool) *page {
	if k := len(pp.free); k > 0 {
		pg := pp.free[k-1]
		pp.free[k-1] = nil
		pp.free = pp.free[:k-1]
		if zero {
			clear(pg[:])
		}
		return pg
	}
	return new(page)
}

// put takes back a page that nothing refers to any more.
func (pp *pagePool) put(pg *page) {
	if pg != nil && len(pp.free) < pagePoolMax {
		pp.free = append(pp.free, pg)
	}
}

// giveBack puts the pages of c and of its twin in pool, each page once,
// for the inode they belong to is gone: files that come and go (a
// write-then-rename, a log segment deleted) then cost the disk no new pages.
// Neither c nor twin may be used after.
func (c *content) giveBack(twin *content, pool *pagePool) {
	for _, pg := range c.pages {
		pool.put(pg)
	}
	for _, p := range c.farPages() {
		pool.put(c.far[p])
	}
	for p, pg := range twin.pages {
		if pg != c.page(int64(p)) {
			pool.put(pg)
		}
	}
	for _, p := range twin.farPages() {
		if pg := twin.far[p]; pg != c.page(p) {
			pool.put(pg)
		}
	}
}

// numPages returns how many pages size bytes span.
func numPages(size int64) int64 { return (size + PageBytes - 1) / PageBytes }

// shared reports whether page p of c is also page p of twin.
func (c *content) shared(p int64, twin *content) bool {
	pg := c.page(p)
	return pg != nil && p < numPages(twin.size) && twin.page(p) == pg
}

// writable returns page p of c for writing: a new zeroed page for a nil one,
// a copy for one shared with twin.
func (c *content) writable(p int64, twin *content, pool *pagePool) *page {
	pg := c.page(p)
	switch {
	case pg == nil:
		pg = pool.get(true)
		c.setPage(p, pg)
	case c.shared(p, twin):
		cp := pool.get(false)
		*cp = *pg
		pg = cp
		c.setPage(p, pg)
	}
	return pg
}

// drop forgets page p of c, giving it back to the pool unless twin has it.
func (c *content) drop(p int64, twin *content, pool *pagePool) {
	if !c.shared(p, twin) {
		pool.put(c.page(p))
	}
	c.setPage(p, nil)
}

// resize sets the size of c, dropping bytes past size or extending with
// zeros.
func (c *content) resize(size int64, twin *content, pool *pagePool) {
	if size >= c.size {
		for int64(len(c.pages)) < min(numPages(size), denseSlots) {
			c.pages = append(c.pages, nil)
		}
		c.size = size
		return
	}
	keep := numPages(size)
	for _, p := range c.farPages() {
		if p >= keep {
			c.drop(p, twin, pool)
		}
	}
	for p := keep; p < int64(len(c.pages)); p++ {
		c.drop(p, twin, pool)
	}
	c.pages = c.pages[:min(keep, int64(len(c.pages)))]
	c.size = size
	if tail := size % PageBytes; tail != 0 && c.page(keep-1) != nil {
		last := c.page(keep - 1)
		if IsZero(last[tail:]) {
			return
		}
		clear(c.writable(keep-1, twin, pool)[tail:])
	}
}

// IsZero reports whether b holds only zeros, compared a page at a time
// with bytes.Equal, whose assembly is many times a byte loop's speed.
func IsZero(b []byte) bool {
	for len(b) > 0 {
		k := min(len(b), PageBytes)
		if !bytes.Equal(b[:k], zeroPage[:k]) {
			return false
		}
		b = b[k:]
	}
	return true
}

// writeAt writes b at off, growing c with zeros first if off+len(b) is past
// its end.
func (c *content) writeAt(b []byte, off int64, twin *content, pool *pagePool) {
	if end := off + int64(len(b)); end > c.size {
		c.resize(end, twin, pool)
	}
	for len(b) > 0 {
		p, in := off/PageBytes, off%PageBytes
		var k int
		if in == 0 && len(b) >= PageBytes {
			k = copy(c.overwritable(p, twin, pool)[:], b)
		} else {
			k = copy(c.writable(p, twin, pool)[in:], b)
		}
		b, off = b[k:], off+int64(k)
	}
}

// overwritable is writable for a write that covers the whole of page p: a
// page that would have to be zeroed or copied first is taken from the pool
// as it is, since every byte of it is about to be written.
func (c *content) overwritable(p int64, twin *content, pool *pagePool) *page {
	if pg := c.page(p); pg != nil && !c.shared(p, twin) {
		return pg
	}
	pg := pool.get(false)
	c.setPage(p, pg)
	return pg
}

// readAt copies the bytes of c from off into b and returns their count,
// short at the end of c. zero makes a part of b, a hole of c's, hold zeros
// (ClearNonZero, or a cheaper way that writes what it must); each run of
// holes is one part.
func (c *content) readAt(b []byte, off int64, zero func([]byte)) int {
	if off >= c.size {
		return 0
	}
	b = b[:min(int64(len(b)), c.size-off)]
	n := 0
	for n < len(b) {
		p, in := off/PageBytes, off%PageBytes
		if pg := c.page(p); pg != nil {
			k := copy(b[n:], pg[in:])
			n += k
			off += int64(k)
			continue
		}
		// A hole reads as zeros. Where b holds zeros already, as a guest's
		// fresh memory does, they need not be written: writing them made
		// the kernel find and clear a page for each, for buffers (badger's
		// mapped logs, megabytes of holes) whose most pages nothing writes
		// after.
		k := min(len(b)-n, int(PageBytes-in))
		for n+k < len(b) && c.page(p+1) == nil {
			p++
			k = min(len(b)-n, k+PageBytes)
		}
		zero(b[n : n+k])
		n += k
		off += int64(k)
	}
	return n
}

// ClearNonZero makes b hold only zeros, writing only the pages of it that
// do not already: a fresh buffer's pages stay unwritten.
func ClearNonZero(b []byte) {
	for len(b) > 0 {
		k := min(len(b), PageBytes)
		if !IsZero(b[:k]) {
			clear(b[:k])
		}
		b = b[k:]
	}
}

// copyRange makes bytes [a, e) of c those of src, which must cover them.
// Pages c already shares with src are left alone.
func (c *content) copyRange(src *content, a, e int64, twin *content, pool *pagePool) {
	for a < e {
		p, in := a/PageBytes, a%PageBytes
		k := min(e-a, PageBytes-in)
		if sp := src.page(p); sp != c.page(p) {
			dst := c.writable(p, twin, pool)
			if sp == nil {
				clear(dst[in : in+k])
			} else {
				copy(dst[in:in+k], sp[in:in+k])
			}
		}
		a += k
	}
}

// flip flips bit of byte i of c alone, which must be inside it.
func (c *content) flip(i int64, bit uint8, twin *content, pool *pagePool) {
	c.writable(i/PageBytes, twin, pool)[i%PageBytes] ^= 1 << bit
}

// bytes returns a copy of all of c.
func (c *content) bytes() []byte {
	b := make([]byte, c.size)
	c.readAt(b, 0, ClearNonZero)
	return b
}

// share makes page p of c the page p of twin when both hold the same bytes,
// giving c's own copy back to the pool. Both must have page p.
func (c *content) share(p int64, twin *content, pool *pagePool) {
	mine, theirs := c.page(p), twin.page(p)
	if mine == theirs || mine == nil || theirs == nil || *mine != *theirs {
		return
	}
	pool.put(mine)
	c.setPage(p, theirs)
}

// adopt makes page p of c twin's page p, whatever c held there, which it
// gives back to the pool: for a page whose bytes are known to be twin's.
func (c *content) adopt(p int64, twin *content, pool *pagePool) {
	mine, theirs := c.page(p), twin.page(p)
	if mine == theirs {
		return
	}
	if mine != nil {
		pool.put(mine)
	}
	c.setPage(p, theirs)
}

// becomeTwin makes c a copy of twin that shares all its pages, giving back
// the pages c alone held.
func (c *content) becomeTwin(twin *content, pool *pagePool) {
	for p := range c.pages {
		c.drop(int64(p), twin, pool)
	}
	for _, p := range c.farPages() {
		c.drop(p, twin, pool)
	}
	c.size = twin.size
	c.pages = append(c.pages[:0], twin.pages...)
	c.far = maps.Clone(twin.far)
}
