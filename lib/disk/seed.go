package disk

import (
	"fmt"
	iofs "io/fs"
	"strings"
)

// AddFile puts a file on the disk before the program starts (a seeded
// disk): it creates the missing parent directories of path, creates the file
// or replaces its content with data, and makes all of it durable and synced,
// directory entries included. path is slash-separated and relative to the
// root, without "." or ".." components. The capacity is not enforced: the
// caller compares Usage with it. It fails, with the path in the message,
// when path is malformed or a component of it is not a directory (ENOTDIR) or
// the file is one (EISDIR); the errno can be tested with errors.Is.
func (fs *FS) AddFile(path string, data []byte) error {
	dirs, err := fs.addFile(path, data)
	if err != nil {
		return fmt.Errorf("add file %q: %w", path, err)
	}
	fs.syncDirs(dirs)
	return nil
}

// addFile creates path with content data and syncs the file. It returns the
// directories on its path, root first, which the caller syncs.
func (fs *FS) addFile(path string, data []byte) ([]Ino, error) {
	comps, err := splitSeedPath(path)
	if err != nil {
		return nil, err
	}
	dirs, err := fs.mkdirAll(comps[:len(comps)-1])
	if err != nil {
		return nil, err
	}
	ino, err := fs.Open(dirs[len(dirs)-1], comps[len(comps)-1], OCreate|OTrunc, false)
	if err != nil {
		return nil, err
	}
	n := fs.inodes[ino]
	if len(data) > 0 {
		fs.write(n, data, 0)
	}
	fs.syncFile(n, nil)
	return dirs, nil
}

// splitSeedPath splits a seeded file's path into its components.
func splitSeedPath(path string) ([]string, error) {
	if path == "" || strings.HasPrefix(path, "/") || len(path) > PathBytesMax {
		return nil, EINVAL
	}
	comps := strings.Split(path, "/")
	for _, c := range comps {
		if c == "" || c == "." || c == ".." || len(c) > NameBytesMax || strings.IndexByte(c, 0) >= 0 {
			return nil, EINVAL
		}
	}
	return comps, nil
}

// mkdirAll makes sure that the directories comps exist below the root, each
// inside the one before, and returns them, root first. A symlink to a
// directory counts as the directory.
func (fs *FS) mkdirAll(comps []string) ([]Ino, error) {
	dirs := []Ino{RootIno}
	for _, c := range comps {
		dir := dirs[len(dirs)-1]
		ino, err := fs.Lookup(dir, c, true)
		if err == ENOENT {
			if err := fs.Mkdir(dir, c); err != nil {
				return nil, err
			}
			ino, err = fs.Lookup(dir, c, true)
		}
		if err != nil {
			return nil, err
		}
		if fs.inodes[ino].typ != TypeDir {
			return nil, ENOTDIR
		}
		dirs = append(dirs, ino)
	}
	return dirs, nil
}

// syncDirs syncs the directories dirs, the last first, so that under
// StrictDirs every directory operation made in them becomes durable.
func (fs *FS) syncDirs(dirs []Ino) {
	for i := len(dirs) - 1; i >= 0; i-- {
		fs.syncDir(dirs[i])
	}
}

// CopyFrom copies the tree src onto the disk before the program starts, as
// CopyIn does for a host directory: directories, regular files and symlinks
// (their targets unchanged; an absolute target resolves from the root of this
// FS), merged into what is there, everything durable and synced. Entries are
// copied in lexical order. Any other file type is an error. Errors name the
// path in src.
func (fs *FS) CopyFrom(src iofs.FS) error {
	var dirs []Ino
	seen := map[Ino]bool{}
	addDirs := func(ds []Ino) {
		for _, d := range ds {
			if !seen[d] {
				seen[d] = true
				dirs = append(dirs, d)
			}
		}
	}
	err := iofs.WalkDir(src, ".", func(name string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if name == "." {
			addDirs([]Ino{RootIno})
			return nil
		}
		comps := strings.Split(name, "/")
		switch t := d.Type(); {
		case t.IsDir():
			ds, err := fs.mkdirAll(comps)
			if err != nil {
				return fmt.Errorf("copy %s: %w", name, err)
			}
			addDirs(ds)
		case t.IsRegular():
			data, err := iofs.ReadFile(src, name)
			if err != nil {
				return err
			}
			ds, err := fs.addFile(name, data)
			if err != nil {
				return fmt.Errorf("copy %s: %w", name, err)
			}
			addDirs(ds)
		case t&iofs.ModeSymlink != 0:
			target, err := iofs.ReadLink(src, name)
			if err != nil {
				return err
			}
			ds, err := fs.mkdirAll(comps[:len(comps)-1])
			if err == nil {
				err = fs.Symlink(target, ds[len(ds)-1], comps[len(comps)-1])
			}
			if err != nil {
				return fmt.Errorf("copy %s: %w", name, err)
			}
			addDirs(ds)
		default:
			return fmt.Errorf("copy %s: unsupported file type %v", name, t)
		}
		return nil
	})
	fs.syncDirs(dirs)
	return err
}
