package disk

import "strings"

// followMode says when a walk follows a symlink in the final component.
// Symlinks in other components are always followed.
type followMode uint8

const (
	followNever  followMode = iota // never: the operation acts on the link itself
	followSlash                    // only when the path ends in a slash
	followAlways                   // always
)

// walked is the result of resolving a path.
type walked struct {
	dir   *inode // directory holding the final component
	name  string // final component; "." or ".." when the path ends in one
	node  *inode // inode the final component names, nil if there is none
	slash bool   // the path ended in a slash
}

// walk resolves path relative to the directory dir.
func (fs *FS) walk(dir Ino, path string, mode followMode) (walked, error) {
	d, err := fs.dirInode(dir)
	if err != nil {
		return walked{}, err
	}
	switch {
	case path == "":
		return walked{}, ENOENT
	case path[0] == '/':
		return walked{}, ENOTCAPABLE
	case len(path) > PathBytesMax:
		return walked{}, ENAMETOOLONG
	}
	hops := 0
	return fs.walkFrom(d, path, mode, &hops)
}

// walkFrom resolves path relative to the directory cur. An absolute path
// (from a symlink target) starts at the root. hops counts symlinks followed
// so far in this resolution.
func (fs *FS) walkFrom(cur *inode, path string, mode followMode, hops *int) (walked, error) {
	if strings.HasPrefix(path, "/") {
		cur = fs.inodes[RootIno]
		path = strings.TrimLeft(path, "/")
		if path == "" {
			return walked{dir: cur, name: ".", node: cur, slash: true}, nil
		}
	}
	slash := strings.HasSuffix(path, "/")
	// The components are taken one at a time, without a slice of them: a
	// guest's every open, stat and rename walks its path.
	rest := strings.TrimLeft(path, "/")
	if rest == "" {
		return walked{}, ENOENT
	}
	for rest != "" {
		c := rest
		rest = ""
		if i := strings.IndexByte(c, '/'); i >= 0 {
			c, rest = c[:i], strings.TrimLeft(c[i:], "/")
		}
		if len(c) > NameBytesMax {
			return walked{}, ENAMETOOLONG
		}
		if strings.IndexByte(c, 0) >= 0 {
			return walked{}, EINVAL
		}
		last := rest == ""
		var next *inode
		switch c {
		case ".":
			next = cur
		case "..":
			if cur.ino == RootIno {
				return walked{}, ENOTCAPABLE
			}
			next = fs.inodes[cur.parent]
		default:
			next = fs.inodes[cur.entries[c]]
		}
		if last {
			follow := mode == followAlways || (mode == followSlash && slash)
			if next != nil && next.typ == TypeSymlink && follow {
				r, err := fs.follow(cur, next, hops)
				if err != nil {
					return walked{}, err
				}
				if slash {
					if r.node != nil && r.node.typ != TypeDir {
						return walked{}, ENOTDIR
					}
					r.slash = true
				}
				return r, nil
			}
			if slash && mode != followNever && next != nil && next.typ != TypeDir {
				return walked{}, ENOTDIR
			}
			return walked{dir: cur, name: c, node: next, slash: slash}, nil
		}
		if next == nil {
			return walked{}, ENOENT
		}
		switch next.typ {
		case TypeDir:
			cur = next
		case TypeSymlink:
			r, err := fs.follow(cur, next, hops)
			if err != nil {
				return walked{}, err
			}
			if r.node == nil {
				return walked{}, ENOENT
			}
			if r.node.typ != TypeDir {
				return walked{}, ENOTDIR
			}
			cur = r.node
		default:
			return walked{}, ENOTDIR
		}
	}
	panic("unreachable")
}

// follow resolves the target of the symlink link found in directory dir.
func (fs *FS) follow(dir, link *inode, hops *int) (walked, error) {
	*hops++
	if *hops > SymlinkHopsMax {
		return walked{}, ELOOP
	}
	return fs.walkFrom(dir, link.target, followAlways, hops)
}

// Lookup resolves path relative to the directory dir and returns the inode it
// names. Symlinks in the final component are followed when followFinal is set
// or the path ends in a slash. It fails with ENOENT, ENOTDIR, ELOOP,
// ENAMETOOLONG, ENOTCAPABLE (absolute path, or climbing above the root) or
// EBADF (unknown dir).
func (fs *FS) Lookup(dir Ino, path string, followFinal bool) (Ino, error) {
	mode := followSlash
	if followFinal {
		mode = followAlways
	}
	r, err := fs.walk(dir, path, mode)
	if err != nil {
		return 0, err
	}
	if r.node == nil {
		return 0, ENOENT
	}
	return r.node.ino, nil
}
