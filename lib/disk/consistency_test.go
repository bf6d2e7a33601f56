package disk

import (
	"bytes"
	"testing"
)

// checkConsistent checks the invariants that tie the current namespace, the
// bookkeeping and the pending operations together.
func checkConsistent(t *testing.T, fs *FS) {
	t.Helper()
	// Every current entry is mirrored by a link, and back.
	names := map[Ino]int{}
	subdirs := map[Ino]int{}
	for _, d := range fs.inodes {
		if d.typ != TypeDir {
			continue
		}
		if d.dead && len(d.entries) > 0 {
			t.Fatalf("dead dir %d has entries", d.ino)
		}
		for name, ino := range d.entries {
			n := fs.inodes[ino]
			if n == nil {
				t.Fatalf("entry %q in dir %d names freed ino %d", name, d.ino, ino)
			}
			names[ino]++
			found := false
			for _, l := range n.links {
				if l.dir == d.ino && l.name == name {
					found = true
				}
			}
			if !found {
				t.Fatalf("entry %q in %q has no link in ino %d", name, fs.PathOf(d.ino), ino)
			}
			if n.typ == TypeDir {
				subdirs[d.ino]++
				if n.parent != d.ino {
					t.Fatalf("dir %q: parent %d, entry in %d", fs.PathOf(ino), n.parent, d.ino)
				}
				if n.dead {
					t.Fatalf("dir %q is named and dead", fs.PathOf(ino))
				}
			}
		}
	}
	durable := map[Ino]int{}
	for _, d := range fs.inodes {
		if d.typ == TypeDir {
			for _, ino := range d.durableEntries {
				durable[ino]++
			}
		}
	}
	var used int64
	pageOwner := map[*page]pageUse{}
	for _, pg := range fs.pool.free {
		pageOwner[pg] = pageUse{}
	}
	for ino, n := range fs.inodes {
		if len(n.links) != names[ino] {
			t.Fatalf("ino %d (%s): %d links, %d entries", ino, fs.PathOf(ino), len(n.links), names[ino])
		}
		if n.durableLinks != durable[ino] {
			t.Fatalf("ino %d (%s): durableLinks %d, %d durable entries", ino, fs.PathOf(ino), n.durableLinks, durable[ino])
		}
		switch n.typ {
		case TypeDir:
			if n.subdirs != subdirs[ino] {
				t.Fatalf("dir %q: subdirs %d, counted %d", fs.PathOf(ino), n.subdirs, subdirs[ino])
			}
			if len(n.links) > 1 {
				t.Fatalf("dir %q has %d names", fs.PathOf(ino), len(n.links))
			}
		case TypeRegular:
			// Durable content plus pending operations is the current
			// content, except in stale pages (failed, lost or misdirected
			// syncs).
			got := n.applyPrefix(len(n.pending), 0)
			data := n.data.bytes()
			if len(got) != len(data) {
				t.Fatalf("file %q: durable content plus pending operations has %d bytes, current %d", fs.PathOf(ino), len(got), len(data))
			}
			for i := range got {
				if got[i] != data[i] && !n.stale[int64(i)/PageBytes] {
					t.Fatalf("file %q: durable content plus pending operations is %q, current is %q (byte %d)", fs.PathOf(ino), got, data, i)
				}
			}
			for p := range n.stale {
				if p*PageBytes >= n.durable.size {
					t.Fatalf("file %q: stale page %d past the durable size %d", fs.PathOf(ino), p, n.durable.size)
				}
			}
			if last := len(n.damaged) - 1; last >= 0 && n.damaged[last][1] > n.durable.size {
				t.Fatalf("file %q: damaged %v past the durable size %d", fs.PathOf(ino), n.damaged, n.durable.size)
			}
			checkContent(t, fs.PathOf(ino)+" (current)", &n.data, pageOwner, n.ino)
			checkContent(t, fs.PathOf(ino)+" (durable)", &n.durable, pageOwner, n.ino)
			used += n.data.size
		}
	}
	if used != fs.usedBytes {
		t.Fatalf("usage %d, files hold %d bytes", fs.usedBytes, used)
	}
	for i := 1; i < len(fs.dirOps); i++ {
		if fs.dirOps[i-1].seq >= fs.dirOps[i].seq {
			t.Fatal("pending directory operations out of order")
		}
	}
	if !fs.StrictDirs && len(fs.dirOps) > 0 {
		t.Fatal("pending directory operations without StrictDirs")
	}
}

// pageUse is where a page of content sits: a file and an index.
type pageUse struct {
	ino Ino
	idx int
}

// checkContent checks the invariants of content c of file ino: its page
// count, zeros past its size, and that each of its pages sits nowhere else
// than at the same index of the same file's other version (and not in the
// free pool), which owner records across calls.
func checkContent(t *testing.T, what string, c *content, owner map[*page]pageUse, ino Ino) {
	t.Helper()
	if int64(len(c.pages)) != numPages(c.size) {
		t.Fatalf("%s: %d pages for %d bytes", what, len(c.pages), c.size)
	}
	if tail := c.size % PageBytes; tail != 0 {
		if pg := c.pages[len(c.pages)-1]; pg != nil && !IsZero(pg[tail:]) {
			t.Fatalf("%s: bytes past the size %d are not zero", what, c.size)
		}
	}
	for i, pg := range c.pages {
		if pg == nil {
			continue
		}
		use, seen := owner[pg]
		if seen && use != (pageUse{ino, i}) {
			t.Fatalf("%s: page %d is also page %d of ino %d (ino 0: the free pool)", what, i, use.idx, use.ino)
		}
		owner[pg] = pageUse{ino, i}
	}
}

// checkCrashed checks, after Crash, that the view is the durable image.
func checkCrashed(t *testing.T, fs *FS) {
	t.Helper()
	checkConsistent(t, fs)
	if len(fs.dirOps) > 0 {
		t.Fatal("pending directory operations after crash")
	}
	for ino, n := range fs.inodes {
		switch n.typ {
		case TypeRegular:
			if len(n.pending) > 0 || !bytes.Equal(n.data.bytes(), n.durable.bytes()) {
				t.Fatalf("file %d after crash: pending %d, data %q, durable %q", ino, len(n.pending), n.data.bytes(), n.durable.bytes())
			}
		case TypeDir:
			if len(n.entries) != len(n.durableEntries) {
				t.Fatalf("dir %d after crash: %v, durable %v", ino, n.entries, n.durableEntries)
			}
			for name, e := range n.entries {
				if n.durableEntries[name] != e {
					t.Fatalf("dir %d after crash: %v, durable %v", ino, n.entries, n.durableEntries)
				}
			}
		}
		if ino != RootIno && len(n.links) == 0 {
			t.Fatalf("ino %d survived the crash without a name", ino)
		}
	}
}
