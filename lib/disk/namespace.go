package disk

import (
	"fmt"
	"slices"
)

// dirOpKind names a directory operation.
type dirOpKind uint8

const (
	opCreate dirOpKind = iota + 1
	opMkdir
	opSymlink
	opLink
	opUnlink
	opRmdir
	opRename
)

func (k dirOpKind) String() string {
	switch k {
	case opCreate:
		return "create"
	case opMkdir:
		return "mkdir"
	case opSymlink:
		return "symlink"
	case opLink:
		return "link"
	case opUnlink:
		return "unlink"
	case opRmdir:
		return "rmdir"
	case opRename:
		return "rename"
	}
	return fmt.Sprintf("dirop(%d)", uint8(k))
}

// entryEdit sets one durable directory entry: name in dir becomes ino, or
// goes away when ino is 0.
type entryEdit struct {
	dir  Ino
	name string
	ino  Ino
}

// dirOp is one directory operation, as the list of entry edits that make it
// durable. Its edits are applied together or not at all: a single directory
// operation is atomic in every model.
type dirOp struct {
	seq   uint64
	kind  dirOpKind
	edits []entryEdit
	// parents are the directories whose Sync makes the operation durable
	// under StrictDirs, sorted; unsynced are those not synced since.
	parents, unsynced []Ino
	// movesDir is set when the operation renames a directory.
	movesDir bool
	// emptied is a directory the operation removes (Rmdir, or Rename over an
	// empty directory), 0 if none.
	emptied Ino
}

// record makes a directory operation durable at once, or under StrictDirs
// adds it to the pending list.
func (fs *FS) record(op *dirOp) {
	op.seq = fs.nextSeq()
	for _, e := range op.edits {
		if !slices.Contains(op.parents, e.dir) {
			op.parents = append(op.parents, e.dir)
		}
	}
	slices.Sort(op.parents)
	if !fs.StrictDirs {
		fs.flushDirOps()
		fs.commit(op)
		return
	}
	op.unsynced = slices.Clone(op.parents)
	fs.dirOps = append(fs.dirOps, op)
}

// commit applies the edits of op to the durable namespace.
func (fs *FS) commit(op *dirOp) {
	for _, e := range op.edits {
		d := fs.inodes[e.dir]
		if old := d.durableEntries[e.name]; old != 0 {
			if n := fs.inodes[old]; n != nil {
				n.durableLinks--
			}
		}
		if e.ino == 0 {
			delete(d.durableEntries, e.name)
			continue
		}
		d.durableEntries[e.name] = e.ino
		fs.inodes[e.ino].durableLinks++
	}
}

// flushDirOps makes every pending directory operation durable, in order. It
// matters only when StrictDirs is turned off while operations are pending.
func (fs *FS) flushDirOps() {
	for _, op := range fs.dirOps {
		fs.commit(op)
	}
	fs.dirOps = nil
}

// syncDir makes the pending directory operations in dir durable. An operation
// becomes durable once every one of its parents has been synced since it was
// made. To keep the durable namespace one that some order of events could
// produce, it takes along the earlier pending operations it depends on:
// those that edit one of the same entries, those in a directory it removes,
// and, if it renames a directory, every earlier directory rename, so that no
// crash can leave a directory cycle.
func (fs *FS) syncDir(dir Ino) {
	if !fs.StrictDirs {
		fs.flushDirOps()
		return
	}
	take := fs.syncTakes(dir)
	for _, op := range fs.dirOps {
		op.unsynced = slices.DeleteFunc(op.unsynced, func(p Ino) bool { return p == dir })
	}
	fs.commitDirOps(take)
}

// syncTakes reports, for each pending directory operation, whether a Sync
// of dir makes it durable (see syncDir). It changes nothing.
func (fs *FS) syncTakes(dir Ino) []bool {
	ops := fs.dirOps
	take := make([]bool, len(ops))
	for i, op := range ops {
		take[i] = len(op.unsynced) == 0 || (len(op.unsynced) == 1 && op.unsynced[0] == dir)
	}
	fs.closeTakes(take)
	return take
}

// closeTakes marks the earlier pending operations that each marked one
// depends on, so that the marked set can become durable on its own.
func (fs *FS) closeTakes(take []bool) {
	ops := fs.dirOps
	// Going from the newest, mark what each taken operation depends on; the
	// marked ones are visited later in the same pass, so the closure is complete.
	for i := len(ops) - 1; i >= 0; i-- {
		if !take[i] {
			continue
		}
		for j := range i {
			if !take[j] && dependsOn(ops[i], ops[j]) {
				take[j] = true
			}
		}
	}
}

// commitDirOps makes the marked pending directory operations durable, in
// order, and leaves the others pending.
func (fs *FS) commitDirOps(take []bool) {
	ops := fs.dirOps
	rest := ops[:0]
	for i, op := range ops {
		if take[i] {
			fs.commit(op)
		} else {
			rest = append(rest, op)
		}
	}
	clear(ops[len(rest):])
	fs.dirOps = rest
}

// dependsOn reports whether op cannot become durable before the earlier
// operation prev.
func dependsOn(op, prev *dirOp) bool {
	if op.movesDir && prev.movesDir {
		return true
	}
	if op.emptied != 0 && slices.Contains(prev.parents, op.emptied) {
		return true
	}
	for _, a := range op.edits {
		for _, b := range prev.edits {
			if a.dir == b.dir && a.name == b.name {
				return true
			}
		}
	}
	return false
}

// addName gives n the name name in directory d.
func (fs *FS) addName(d *inode, name string, n *inode) {
	d.entries[name] = n.ino
	n.links = append(n.links, link{dir: d.ino, name: name})
	if n.typ == TypeDir {
		d.subdirs++
		n.parent = d.ino
		n.dead = false
	}
	now := fs.now()
	d.touch(now)
	n.ctim = now
}

// removeName removes the entry name from directory d and returns the inode
// it named. A directory that loses its name is dead unless moving.
func (fs *FS) removeName(d *inode, name string, moving bool) *inode {
	n := fs.inodes[d.entries[name]]
	if len(n.links) == 1 && !moving {
		n.lastPath = fs.PathOf(n.ino)
	}
	delete(d.entries, name)
	n.links = slices.DeleteFunc(n.links, func(l link) bool { return l.dir == d.ino && l.name == name })
	if n.typ == TypeDir {
		d.subdirs--
		n.dead = !moving
	}
	now := fs.now()
	d.touch(now)
	n.ctim = now
	return n
}

// isFinalDot reports whether a path ends in "." or "..".
func (r walked) isFinalDot() bool { return r.name == "." || r.name == ".." }

// Open resolves path relative to the directory dir and returns the inode it
// names, after applying flags:
//   - OCreate creates a regular file if the name does not exist (through a
//     dangling symlink when followFinal is set, as POSIX does);
//   - OCreate|OExcl fails with EEXIST if the name exists, even as a symlink;
//   - OTrunc truncates a regular file to 0 bytes, a truncate operation;
//   - ODirectory fails with ENOTDIR unless the path names a directory.
//
// Opening a symlink without followFinal fails with ELOOP, as O_NOFOLLOW does.
// A directory with OCreate or OTrunc is EISDIR, a missing name with OCreate
// and a trailing slash is EISDIR, and OCreate|ODirectory on a missing name is
// EINVAL. Path errors are as for Lookup.
func (fs *FS) Open(dir Ino, path string, flags OpenFlags, followFinal bool) (Ino, error) {
	mode := followSlash
	excl := flags&OCreate != 0 && flags&OExcl != 0
	if followFinal && !excl {
		mode = followAlways
	}
	r, err := fs.walk(dir, path, mode)
	if err != nil {
		return 0, err
	}
	if n := r.node; n != nil {
		switch {
		case excl:
			return 0, EEXIST
		case n.typ == TypeSymlink:
			return 0, ELOOP
		case flags&ODirectory != 0 && n.typ != TypeDir:
			return 0, ENOTDIR
		case n.typ == TypeDir && flags&(OCreate|OTrunc) != 0:
			return 0, EISDIR
		}
		if flags&OTrunc != 0 {
			fs.truncate(n, 0)
		}
		return n.ino, nil
	}
	switch {
	case flags&OCreate == 0:
		return 0, ENOENT
	case flags&ODirectory != 0:
		return 0, EINVAL
	case r.slash:
		return 0, EISDIR
	case r.dir.dead:
		return 0, ENOENT
	}
	n := fs.alloc(TypeRegular)
	fs.addName(r.dir, r.name, n)
	fs.record(&dirOp{kind: opCreate, edits: []entryEdit{{r.dir.ino, r.name, n.ino}}})
	return n.ino, nil
}

// Mkdir creates a directory. It fails with EEXIST if the name exists (even as
// a dangling symlink), ENOENT in a removed directory, and as Lookup does for
// the path.
func (fs *FS) Mkdir(dir Ino, path string) error {
	r, err := fs.walk(dir, path, followNever)
	if err != nil {
		return err
	}
	if r.node != nil {
		return EEXIST
	}
	if r.dir.dead {
		return ENOENT
	}
	n := fs.alloc(TypeDir)
	fs.addName(r.dir, r.name, n)
	fs.record(&dirOp{kind: opMkdir, edits: []entryEdit{{r.dir.ino, r.name, n.ino}}})
	return nil
}

// Rmdir removes an empty directory. It fails with ENOENT if the name does not
// exist, ENOTDIR if it is not a directory (a symlink to one included),
// ENOTEMPTY if it has entries or the path ends in "..", and EINVAL if the
// path ends in ".".
func (fs *FS) Rmdir(dir Ino, path string) error {
	r, err := fs.walk(dir, path, followNever)
	if err != nil {
		return err
	}
	switch {
	case r.name == ".":
		return EINVAL
	case r.name == "..":
		return ENOTEMPTY
	case r.node == nil:
		return ENOENT
	case r.node.typ != TypeDir:
		return ENOTDIR
	case len(r.node.entries) > 0:
		return ENOTEMPTY
	}
	n := fs.removeName(r.dir, r.name, false)
	fs.record(&dirOp{kind: opRmdir, edits: []entryEdit{{r.dir.ino, r.name, 0}}, emptied: n.ino})
	return nil
}

// Unlink removes a name of a file or symlink. The inode stays usable by its
// Ino. It fails with ENOENT if the name does not exist, EISDIR for a
// directory (or a path ending in "." or ".."), and ENOTDIR for a non-directory
// named with a trailing slash.
func (fs *FS) Unlink(dir Ino, path string) error {
	r, err := fs.walk(dir, path, followNever)
	if err != nil {
		return err
	}
	switch {
	case r.isFinalDot():
		return EISDIR
	case r.node == nil:
		return ENOENT
	case r.node.typ == TypeDir:
		return EISDIR
	case r.slash:
		return ENOTDIR
	}
	fs.removeName(r.dir, r.name, false)
	fs.record(&dirOp{kind: opUnlink, edits: []entryEdit{{r.dir.ino, r.name, 0}}})
	return nil
}

// Rename moves a name, with POSIX semantics: it atomically replaces an
// existing file, and a directory may replace an empty directory. Final
// symlinks are not followed. Renaming a name onto another name of the same
// inode does nothing. It fails with ENOENT if the old name does not exist,
// ENOTDIR for a directory over a non-directory (or a non-directory named with
// a trailing slash), EISDIR for a non-directory over a directory, ENOTEMPTY
// over a non-empty directory, and EINVAL when moving a directory into its own
// subtree or either path ends in "." or "..".
func (fs *FS) Rename(oldDir Ino, oldPath string, newDir Ino, newPath string) error {
	ro, err := fs.walk(oldDir, oldPath, followNever)
	if err != nil {
		return err
	}
	rn, err := fs.walk(newDir, newPath, followNever)
	if err != nil {
		return err
	}
	on, nn := ro.node, rn.node
	switch {
	case ro.isFinalDot() || rn.isFinalDot():
		return EINVAL
	case on == nil:
		return ENOENT
	case (ro.slash || rn.slash) && on.typ != TypeDir:
		return ENOTDIR
	case nn == on:
		return nil
	case rn.dir.dead:
		return ENOENT
	}
	op := &dirOp{kind: opRename}
	if on.typ == TypeDir {
		if fs.isAncestor(on, rn.dir) {
			return EINVAL
		}
		if nn != nil {
			if nn.typ != TypeDir {
				return ENOTDIR
			}
			if len(nn.entries) > 0 {
				return ENOTEMPTY
			}
			op.emptied = nn.ino
		}
		op.movesDir = true
	} else if nn != nil && nn.typ == TypeDir {
		return EISDIR
	}
	if nn != nil {
		fs.removeName(rn.dir, rn.name, false)
	}
	fs.removeName(ro.dir, ro.name, true)
	fs.addName(rn.dir, rn.name, on)
	op.edits = []entryEdit{{ro.dir.ino, ro.name, 0}, {rn.dir.ino, rn.name, on.ino}}
	fs.record(op)
	if fs.mutant == MutantRenameNotAtomic && nn != nil && nn.typ == TypeRegular {
		fs.renameHole(ro.dir.ino, ro.name, rn.dir.ino, rn.name, on.ino)
	}
	return nil
}

// isAncestor reports whether directory a is d or one of its ancestors.
func (fs *FS) isAncestor(a, d *inode) bool {
	for {
		if d == a {
			return true
		}
		if d.ino == RootIno {
			return false
		}
		d = fs.inodes[d.parent]
	}
}

// Link gives the file or symlink at oldPath the new name newPath; the old
// name's final symlink is not followed. It fails with ENOENT if the old name
// does not exist (or the new path ends in a slash), EPERM for a directory,
// and EEXIST if the new name exists.
func (fs *FS) Link(oldDir Ino, oldPath string, newDir Ino, newPath string) error {
	ro, err := fs.walk(oldDir, oldPath, followNever)
	if err != nil {
		return err
	}
	rn, err := fs.walk(newDir, newPath, followNever)
	if err != nil {
		return err
	}
	on := ro.node
	switch {
	case on == nil:
		return ENOENT
	case on.typ == TypeDir:
		return EPERM
	case ro.slash:
		return ENOTDIR
	case rn.node != nil:
		return EEXIST
	case rn.slash || rn.dir.dead:
		return ENOENT
	}
	fs.addName(rn.dir, rn.name, on)
	fs.record(&dirOp{kind: opLink, edits: []entryEdit{{rn.dir.ino, rn.name, on.ino}}})
	return nil
}

// Symlink creates a symlink at path holding target, which is not checked:
// it may dangle. It fails with ENOENT for an empty target (or a path ending
// in a slash), ENAMETOOLONG for a target longer than PathBytesMax, and EEXIST
// if the name exists.
func (fs *FS) Symlink(target string, dir Ino, path string) error {
	r, err := fs.walk(dir, path, followNever)
	if err != nil {
		return err
	}
	switch {
	case target == "":
		return ENOENT
	case len(target) > PathBytesMax:
		return ENAMETOOLONG
	case r.node != nil:
		return EEXIST
	case r.slash || r.dir.dead:
		return ENOENT
	}
	n := fs.alloc(TypeSymlink)
	n.target = target
	fs.addName(r.dir, r.name, n)
	fs.record(&dirOp{kind: opSymlink, edits: []entryEdit{{r.dir.ino, r.name, n.ino}}})
	return nil
}

// Readlink returns the target of the symlink at path. It fails with ENOENT if
// the name does not exist and EINVAL if it is not a symlink.
func (fs *FS) Readlink(dir Ino, path string) (string, error) {
	r, err := fs.walk(dir, path, followNever)
	if err != nil {
		return "", err
	}
	switch {
	case r.node == nil:
		return "", ENOENT
	case r.node.typ != TypeSymlink || r.slash:
		return "", EINVAL
	}
	return r.node.target, nil
}
