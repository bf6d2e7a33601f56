package disk

import (
	"maps"
	"slices"

	"github.com/sf-dst/sf/lib/wire"
)

// Encode writes the file system's state for a snapshot file: everything
// Clone copies, in an order that depends on nothing but the state, so that
// one state always encodes to the same bytes. Pages that a file's current
// and durable content share are written once and shared again by Decode,
// as Clone keeps them shared.
func (fs *FS) Encode(w *wire.Writer) {
	w.Bool(fs.StrictDirs)
	w.Int(fs.capacityBytes)
	w.Int(fs.usedBytes)
	w.Uint(uint64(fs.nextIno))
	w.Uint(fs.seq)
	w.Uint(uint64(fs.mutant))
	w.Int(int64(fs.mutantHits))
	encodeEdits(w, fs.holes)
	w.Uint(uint64(len(fs.dirOps)))
	for _, op := range fs.dirOps {
		w.Uint(op.seq)
		w.Uint(uint64(op.kind))
		encodeEdits(w, op.edits)
		encodeInos(w, op.parents)
		encodeInos(w, op.unsynced)
		w.Bool(op.movesDir)
		w.Uint(uint64(op.emptied))
	}
	inos := slices.Sorted(maps.Keys(fs.inodes))
	w.Uint(uint64(len(inos)))
	for _, ino := range inos {
		fs.inodes[ino].encode(w)
	}
}

func (n *inode) encode(w *wire.Writer) {
	w.Uint(uint64(n.ino))
	w.Uint(uint64(n.typ))
	w.Int(n.atim)
	w.Int(n.mtim)
	w.Int(n.ctim)
	w.Uint(uint64(len(n.links)))
	for _, l := range n.links {
		w.Uint(uint64(l.dir))
		w.String(l.name)
	}
	w.String(n.lastPath)
	w.Int(int64(n.durableLinks))
	w.Bool(n.uncounted)
	n.data.encode(w, nil)
	n.durable.encode(w, &n.data)
	w.Bool(n.pending != nil)
	w.Uint(uint64(len(n.pending)))
	for _, op := range n.pending {
		w.Uint(op.seq)
		w.Bool(op.truncate)
		w.Int(op.off)
		w.Bytes(op.data)
		w.Int(op.deferred)
		w.Bool(op.rest)
	}
	w.Bool(n.stale != nil)
	stale := slices.Sorted(maps.Keys(n.stale))
	w.Uint(uint64(len(stale)))
	for _, p := range stale {
		w.Int(p)
		w.Bool(n.stale[p])
	}
	w.Uint(uint64(len(n.damaged)))
	for _, r := range n.damaged {
		w.Int(r[0])
		w.Int(r[1])
	}
	encodeEntries(w, n.entries)
	encodeEntries(w, n.durableEntries)
	w.Uint(uint64(n.parent))
	w.Int(int64(n.subdirs))
	w.Bool(n.dead)
	w.String(n.target)
}

// Page tags: a hole, a page of the content's own, or, in the durable
// content, the page the current content has at the same index.
const (
	pageNil = iota
	pageOwn
	pageTwin
)

// encode writes a content's size and pages; twin, for the durable content,
// is the current one, whose pages it may share.
func (c *content) encode(w *wire.Writer, twin *content) {
	w.Int(c.size)
	w.Uint(uint64(len(c.pages)))
	for p := range c.pages {
		c.encodePage(w, int64(p), twin)
	}
	// A sparse file's pages past the list: only those written, by index.
	far := c.farPages()
	w.Uint(uint64(len(far)))
	for _, p := range far {
		w.Int(p)
		c.encodePage(w, p, twin)
	}
}

// encodePage writes page p of c as a tag and, for a page of its own, its
// bytes.
func (c *content) encodePage(w *wire.Writer, p int64, twin *content) {
	switch pg := c.page(p); {
	case pg == nil:
		w.Uint(pageNil)
	case twin != nil && c.shared(p, twin):
		w.Uint(pageTwin)
	default:
		w.Uint(pageOwn)
		w.Bytes(pg[:])
	}
}

func encodeEdits(w *wire.Writer, es []entryEdit) {
	w.Uint(uint64(len(es)))
	for _, e := range es {
		w.Uint(uint64(e.dir))
		w.String(e.name)
		w.Uint(uint64(e.ino))
	}
}

func encodeInos(w *wire.Writer, inos []Ino) {
	w.Uint(uint64(len(inos)))
	for _, i := range inos {
		w.Uint(uint64(i))
	}
}

func encodeEntries(w *wire.Writer, m map[string]Ino) {
	w.Bool(m != nil)
	names := slices.Sorted(maps.Keys(m))
	w.Uint(uint64(len(names)))
	for _, name := range names {
		w.String(name)
		w.Uint(uint64(m[name]))
	}
}

// Decode reads a file system that Encode wrote, with now as its clock (as
// for New). It checks the shape of what it reads (no inode twice, contents
// as long as their size says, a root directory), so that no input makes it
// panic or allocate more than the input's length allows.
func Decode(r *wire.Reader, now func() int64) *FS {
	if now == nil {
		now = func() int64 { return 0 }
	}
	fs := &FS{now: now}
	fs.StrictDirs = r.Bool()
	fs.capacityBytes = r.Int()
	fs.usedBytes = r.Int()
	fs.nextIno = Ino(r.Uint())
	fs.seq = r.Uint()
	fs.mutant = Mutant(r.UintIn(uint64(MutantTruncateNotDurable)))
	fs.mutantHits = int(r.IntIn(0, 1<<62))
	fs.holes = decodeEdits(r)
	if k := r.Len(wire.ListMax); k > 0 {
		fs.dirOps = make([]*dirOp, k)
		for i := range fs.dirOps {
			op := &dirOp{seq: r.Uint(), kind: dirOpKind(r.UintIn(uint64(opRename)))}
			op.edits = decodeEdits(r)
			op.parents = decodeInos(r)
			op.unsynced = decodeInos(r)
			op.movesDir = r.Bool()
			op.emptied = Ino(r.Uint())
			fs.dirOps[i] = op
		}
	}
	k := r.Len(wire.ListMax)
	fs.inodes = make(map[Ino]*inode, k)
	for range k {
		n := decodeInode(r, &fs.pool)
		if r.Err() != nil {
			return nil
		}
		if fs.inodes[n.ino] != nil {
			r.Failf("inode %d twice", n.ino)
			return nil
		}
		fs.inodes[n.ino] = n
	}
	if r.Err() == nil {
		fs.check(r)
	}
	if r.Err() != nil {
		return nil
	}
	return fs
}

func decodeInode(r *wire.Reader, pool *pagePool) *inode {
	n := &inode{ino: Ino(r.Uint()), pool: pool}
	switch t := FileType(r.UintIn(255)); t {
	case TypeDir, TypeRegular, TypeSymlink:
		n.typ = t
	default:
		r.Failf("inode %d of unknown type %d", n.ino, t)
		return n
	}
	n.atim, n.mtim, n.ctim = r.Int(), r.Int(), r.Int()
	if k := r.Len(wire.ListMax); k > 0 {
		n.links = make([]link, k)
		for i := range n.links {
			n.links[i] = link{dir: Ino(r.Uint()), name: r.String(NameBytesMax)}
		}
	}
	n.lastPath = r.String(PathBytesMax)
	n.durableLinks = int(r.IntIn(0, wire.ListMax))
	n.uncounted = r.Bool()
	n.data = decodeContent(r, nil)
	n.durable = decodeContent(r, &n.data)
	keepNil := !r.Bool()
	if k := r.Len(wire.ListMax); k > 0 || !keepNil {
		n.pending = make([]fileOp, k)
		for i := range n.pending {
			op := fileOp{seq: r.Uint(), truncate: r.Bool(), off: r.IntIn(0, SparseFileBytesMax), data: r.Bytes(FileBytesMax), deferred: r.IntIn(0, FileBytesMax), rest: r.Bool()}
			if op.deferred > 0 {
				// Its bytes are the current content's: they must be there.
				if op.truncate || len(op.data) > 0 || op.off+op.deferred > n.data.size {
					r.Failf("inode %d: a deferred write of %d bytes at %d in a file of %d", n.ino, op.deferred, op.off, n.data.size)
					return n
				}
				op.data = nil
				n.deferred = append(n.deferred, i)
				if n.deferredHi == 0 {
					n.deferredLo, n.deferredHi = op.off, op.off+op.deferred
				} else {
					n.deferredLo, n.deferredHi = min(n.deferredLo, op.off), max(n.deferredHi, op.off+op.deferred)
				}
			}
			n.pending[i] = op
		}
	}
	hasStale := r.Bool()
	if k := r.Len(wire.ListMax); k > 0 || hasStale {
		n.stale = make(map[int64]bool, k)
		for range k {
			n.stale[r.IntIn(0, SparseFileBytesMax/PageBytes)] = r.Bool()
		}
	}
	if k := r.Len(wire.ListMax); k > 0 {
		n.damaged = make(ranges, k)
		for i := range n.damaged {
			n.damaged[i] = [2]int64{r.IntIn(0, SparseFileBytesMax), r.IntIn(0, SparseFileBytesMax)}
		}
	}
	n.entries = decodeEntries(r)
	n.durableEntries = decodeEntries(r)
	n.parent = Ino(r.Uint())
	n.subdirs = int(r.IntIn(0, wire.ListMax))
	n.dead = r.Bool()
	n.target = r.String(PathBytesMax)
	if n.typ == TypeDir && (n.entries == nil || n.durableEntries == nil) {
		r.Failf("directory %d without its entries", n.ino)
	}
	return n
}

func decodeContent(r *wire.Reader, twin *content) content {
	c := content{size: r.IntIn(0, SparseFileBytesMax)}
	k := r.Len(wire.ListMax)
	if int64(k) != min(numPages(c.size), denseSlots) {
		r.Failf("a content of %d bytes in %d pages", c.size, k)
		return content{}
	}
	if k > 0 {
		c.pages = make([]*page, k)
	}
	for p := range c.pages {
		pg, ok := decodePage(r, int64(p), twin)
		if !ok {
			return content{}
		}
		c.pages[p] = pg
	}
	nfar := r.Len(wire.ListMax)
	last := int64(denseSlots - 1)
	for range nfar {
		p := r.Int()
		if p <= last || p >= numPages(c.size) {
			r.Failf("page %d of a sparse file of %d bytes, after page %d", p, c.size, last)
			return content{}
		}
		last = p
		pg, ok := decodePage(r, p, twin)
		if !ok {
			return content{}
		}
		if pg == nil {
			r.Failf("a hole listed as page %d of a sparse file", p)
			return content{}
		}
		c.setPage(p, pg)
	}
	return c
}

// decodePage reads page p as encodePage wrote it; a page shared with twin
// must be one twin has.
func decodePage(r *wire.Reader, p int64, twin *content) (*page, bool) {
	switch r.UintIn(pageTwin) {
	case pageOwn:
		b := r.View(PageBytes)
		if len(b) != PageBytes {
			r.Failf("a page of %d bytes", len(b))
			return nil, false
		}
		pg := new(page)
		copy(pg[:], b)
		return pg, true
	case pageTwin:
		if twin == nil || twin.page(p) == nil {
			r.Failf("page %d shared with a page the current content does not have", p)
			return nil, false
		}
		return twin.page(p), true
	}
	return nil, r.Err() == nil
}

func decodeEdits(r *wire.Reader) []entryEdit {
	k := r.Len(wire.ListMax)
	if k == 0 {
		return nil
	}
	out := make([]entryEdit, k)
	for i := range out {
		out[i] = entryEdit{dir: Ino(r.Uint()), name: r.String(NameBytesMax), ino: Ino(r.Uint())}
	}
	return out
}

func decodeInos(r *wire.Reader) []Ino {
	k := r.Len(wire.ListMax)
	if k == 0 {
		return nil
	}
	out := make([]Ino, k)
	for i := range out {
		out[i] = Ino(r.Uint())
	}
	return out
}

func decodeEntries(r *wire.Reader) map[string]Ino {
	present := r.Bool()
	k := r.Len(wire.ListMax)
	if !present {
		if k > 0 {
			r.Failf("entries of a file that has none")
		}
		return nil
	}
	m := make(map[string]Ino, k)
	for range k {
		name := r.String(NameBytesMax)
		m[name] = Ino(r.Uint())
	}
	return m
}

// check fails r when the decoded file system has no root directory, which
// every path starts from, or an inode numbered at or past the next number,
// which the next new file would take again. The rest of a corrupt state is
// caught by the snapshot file's checksum (lib/snapfile), not here.
func (fs *FS) check(r *wire.Reader) {
	if n := fs.inodes[RootIno]; n == nil || n.typ != TypeDir {
		r.Failf("no root directory")
		return
	}
	for ino := range fs.inodes {
		if ino >= fs.nextIno {
			r.Failf("inode %d at or past the next inode number %d", ino, fs.nextIno)
			return
		}
	}
}
