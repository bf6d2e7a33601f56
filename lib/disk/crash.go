package disk

import "sort"

// Crash is a power cut: the view becomes exactly the durable image. Pending
// writes, truncates and directory operations are dropped. The namespace is
// rebuilt from the durable entries reachable from the root, in sorted order,
// and every inode that is not reachable, such as a file whose last name was
// removed, is freed. Each surviving file's content becomes its durable
// content. Timestamps are kept as they were. Inode numbers are not reused.
// Crash is CrashWith with no rules.
func (fs *FS) Crash() {
	fs.dirOps = nil
	fs.holes = nil
	for _, n := range fs.inodes {
		n.links = nil
		n.lastPath = ""
		n.durableLinks = 0
		n.uncounted = false // counted again below if the crash keeps it
		if n.typ == TypeDir {
			n.entries = make(map[string]Ino, len(n.durableEntries))
			n.subdirs = 0
			n.dead = true
		}
	}
	root := fs.inodes[RootIno]
	root.dead = false
	reached := map[Ino]bool{RootIno: true}
	for queue := []*inode{root}; len(queue) > 0; queue = queue[1:] {
		d := queue[0]
		names := make([]string, 0, len(d.durableEntries))
		for name := range d.durableEntries {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			ino := d.durableEntries[name]
			n := fs.inodes[ino]
			// A directory has one name. The ordering rules of syncDir keep
			// the durable namespace a tree; this only guards against a
			// second name, which would not survive a real fsck either.
			if n == nil || (n.typ == TypeDir && reached[ino]) {
				delete(d.durableEntries, name)
				continue
			}
			reached[ino] = true
			d.entries[name] = ino
			n.links = append(n.links, link{dir: d.ino, name: name})
			n.durableLinks++
			if n.typ == TypeDir {
				d.subdirs++
				n.parent = d.ino
				n.dead = false
				queue = append(queue, n)
			}
		}
	}
	fs.usedBytes = 0
	for ino, n := range fs.inodes {
		if !reached[ino] {
			delete(fs.inodes, ino)
			continue
		}
		if n.typ == TypeRegular {
			n.data.becomeTwin(&n.durable, n.pool)
			n.pending = nil
			fs.releaseOpBufs(n)
			n.stale = nil
			fs.usedBytes += n.data.size
		}
	}
}
