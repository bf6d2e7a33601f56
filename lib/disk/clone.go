package disk

import (
	"maps"
	"slices"
)

// Clone returns a copy of the file system that goes on apart from it:
// writing, syncing or crashing either leaves the other as it was. now is the
// copy's clock, as for New. Pages that a file's current and durable content
// share stay shared in the copy, so that it behaves exactly as the original
// would have: which pages count as written since the last sync depends on
// that sharing.
func (fs *FS) Clone(now func() int64) *FS {
	if now == nil {
		now = func() int64 { return 0 }
	}
	c := &FS{
		StrictDirs:    fs.StrictDirs,
		now:           now,
		capacityBytes: fs.capacityBytes,
		usedBytes:     fs.usedBytes,
		inodes:        make(map[Ino]*inode, len(fs.inodes)),
		nextIno:       fs.nextIno,
		seq:           fs.seq,
		mutant:        fs.mutant,
		mutantHits:    fs.mutantHits,
		holes:         append([]entryEdit(nil), fs.holes...),
	}
	for ino, n := range fs.inodes {
		c.inodes[ino] = n.clone(&c.pool)
	}
	for _, op := range fs.dirOps {
		o := *op
		o.edits = append([]entryEdit(nil), op.edits...)
		o.parents = append([]Ino(nil), op.parents...)
		o.unsynced = append([]Ino(nil), op.unsynced...)
		c.dirOps = append(c.dirOps, &o)
	}
	return c
}

// clone copies one inode for a file system whose page pool is pool.
func (n *inode) clone(pool *pagePool) *inode {
	c := *n
	c.links = append([]link(nil), n.links...)
	c.pool = pool
	c.opBuf, c.spentBufs = nil, nil // the copy's pending writes get their own bytes below
	c.deferred = slices.Clone(n.deferred)
	c.pending = make([]fileOp, len(n.pending))
	for i, op := range n.pending {
		op.data = append([]byte(nil), op.data...)
		c.pending[i] = op
	}
	if n.pending == nil {
		c.pending = nil
	}
	c.stale = maps.Clone(n.stale)
	c.damaged = append(ranges(nil), n.damaged...)
	c.entries = maps.Clone(n.entries)
	c.durableEntries = maps.Clone(n.durableEntries)
	copies := map[*page]*page{}
	c.data = n.data.clone(copies)
	c.durable = n.durable.clone(copies)
	return &c
}

// clone copies a content's pages, each page once: a page that copies has
// seen already (the twin's, at the same index) is shared again.
func (ct content) clone(copies map[*page]*page) content {
	c := content{size: ct.size}
	cloned := func(pg *page) *page {
		cp, ok := copies[pg]
		if !ok {
			cp = new(page)
			*cp = *pg
			copies[pg] = cp
		}
		return cp
	}
	for _, p := range ct.farPages() {
		c.setPage(p, cloned(ct.far[p]))
	}
	if ct.pages == nil {
		return c
	}
	c.pages = make([]*page, len(ct.pages))
	for i, pg := range ct.pages {
		if pg != nil {
			c.pages[i] = cloned(pg)
		}
	}
	return c
}
