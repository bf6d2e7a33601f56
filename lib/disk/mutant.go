package disk

// Mutant is a weakened guarantee of the disk, for sf-mutate: with one set,
// the FS breaks one promise a real disk keeps, and counts in MutantHits each
// time the weakened operation made a difference. The zero value is
// MutantNone, the faithful disk.
type Mutant uint8

// The disk mutants.
const (
	MutantNone Mutant = iota
	// MutantFsyncNoop: Sync of a regular file reports success and makes
	// nothing durable.
	MutantFsyncNoop
	// MutantDirsyncNoop: Sync of a directory does nothing. It changes
	// something only under StrictDirs.
	MutantDirsyncNoop
	// MutantFsyncCorrupts: Sync of a regular file makes its data durable
	// with the lowest bit of the first byte of the last write it covers
	// flipped. Reads see the right bytes until a crash.
	MutantFsyncCorrupts
	// MutantRenameNotAtomic: a rename over an existing file leaves neither
	// name durable until the next successful Sync of any inode.
	MutantRenameNotAtomic
	// MutantTruncateNotDurable: Sync skips the truncates that shrink the
	// file, so a crash brings back the old length and the old bytes.
	MutantTruncateNotDurable
)

// SetMutant weakens the FS with m. Set it before the first operation.
func (fs *FS) SetMutant(m Mutant) { fs.mutant = m }

// MutantHits counts the operations the mutant weakened so far: Syncs that
// had pending data (fsync noop, fsync corrupts), directory Syncs that would
// have made an operation durable, renames over an existing file, and
// truncates that a Sync skipped.
func (fs *FS) MutantHits() int { return fs.mutantHits }

// mutantSync is Sync under a mutant that changes it. It reports whether it
// handled the Sync; if not, Sync goes on as usual.
func (fs *FS) mutantSync(n *inode) bool {
	switch fs.mutant {
	case MutantFsyncNoop:
		if n.typ != TypeRegular {
			return false
		}
		if len(n.pending) > 0 {
			fs.mutantHits++
		}
		return true
	case MutantDirsyncNoop:
		if n.typ != TypeDir {
			return false
		}
		if fs.StrictDirs {
			for _, t := range fs.syncTakes(n.ino) {
				if t {
					fs.mutantHits++
					break
				}
			}
		}
		return true
	case MutantFsyncCorrupts:
		if n.typ != TypeRegular {
			return false
		}
		last := -1
		for i, op := range n.pending {
			if !op.truncate && op.size() > 0 {
				last = i
			}
		}
		if last < 0 {
			return false
		}
		off := n.pending[last].off
		fs.syncFile(n, nil)
		if off < n.durable.size {
			n.durable.flip(off, 0, &n.data, n.pool)
			n.damaged = n.damaged.add(off, off+1)
			fs.mutantHits++
		}
		return true
	}
	return false
}

// renameHole, under MutantRenameNotAtomic, takes both names of a rename
// over an existing file out of the durable namespace until the next
// successful Sync, which makes the new name durable.
func (fs *FS) renameHole(oldDir Ino, oldName string, newDir Ino, newName string, ino Ino) {
	fs.mutantHits++
	fs.commit(&dirOp{edits: []entryEdit{{oldDir, oldName, 0}, {newDir, newName, 0}}})
	fs.holes = append(fs.holes, entryEdit{newDir, newName, ino})
}

// fillHoles makes the names renameHole took away durable again, as the
// rename left them, for the inodes and directories that still exist.
func (fs *FS) fillHoles() {
	for _, h := range fs.holes {
		d := fs.inodes[h.dir]
		if d == nil || fs.inodes[h.ino] == nil || d.entries[h.name] != h.ino {
			continue
		}
		fs.commit(&dirOp{edits: []entryEdit{h}})
	}
	fs.holes = nil
}

// skipShrinks, under MutantTruncateNotDurable, drops from ops the truncates
// that would shrink the durable content as the ops replay, counting each.
func (fs *FS) skipShrinks(n *inode, ops []fileOp) []fileOp {
	size := n.durable.size
	var out []fileOp
	for i, op := range ops {
		if op.truncate && op.off < size {
			if out == nil {
				out = append(make([]fileOp, 0, len(ops)), ops[:i]...)
			}
			fs.mutantHits++
			continue
		}
		if op.truncate {
			size = op.off
		} else {
			size = max(size, op.off+op.size())
		}
		if out != nil {
			out = append(out, op)
		}
	}
	if out == nil {
		return ops
	}
	return out
}
