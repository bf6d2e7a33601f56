package disk

import (
	"fmt"
	"strings"
	"testing"
)

// newTestFS returns an FS whose clock advances 1 ns per reading.
func newTestFS() *FS {
	var t int64
	return New(func() int64 { t++; return t })
}

func mkdir(t *testing.T, fs *FS, path string) {
	t.Helper()
	if err := fs.Mkdir(fs.Root(), path); err != nil {
		t.Fatalf("mkdir %q: %v", path, err)
	}
}

// writeFile creates or truncates path and writes content, without syncing.
func writeFile(t *testing.T, fs *FS, path, content string) Ino {
	t.Helper()
	ino, err := fs.Open(fs.Root(), path, OCreate|OTrunc, true)
	if err != nil {
		t.Fatalf("open %q: %v", path, err)
	}
	if content != "" {
		if _, err := fs.WriteAt(ino, []byte(content), 0); err != nil {
			t.Fatalf("write %q: %v", path, err)
		}
	}
	return ino
}

func symlink(t *testing.T, fs *FS, target, path string) {
	t.Helper()
	if err := fs.Symlink(target, fs.Root(), path); err != nil {
		t.Fatalf("symlink %q -> %q: %v", path, target, err)
	}
}

func sync(t *testing.T, fs *FS, ino Ino) {
	t.Helper()
	if err := fs.Sync(ino); err != nil {
		t.Fatalf("sync %d: %v", ino, err)
	}
}

func lookup(t *testing.T, fs *FS, path string) Ino {
	t.Helper()
	ino, err := fs.Lookup(fs.Root(), path, false)
	if err != nil {
		t.Fatalf("lookup %q: %v", path, err)
	}
	return ino
}

func contentOf(t *testing.T, fs *FS, ino Ino) string {
	t.Helper()
	st, err := fs.Stat(ino)
	if err != nil {
		t.Fatalf("stat %d: %v", ino, err)
	}
	buf := make([]byte, st.Size+10)
	n, err := fs.ReadAt(ino, buf, 0)
	if err != nil {
		t.Fatalf("read %d: %v", ino, err)
	}
	if int64(n) != st.Size {
		t.Fatalf("read %d: got %d bytes, size %d", ino, n, st.Size)
	}
	return string(buf[:n])
}

// readFile returns the content at path, "<dir>" for a directory, or
// "<errno>" if it cannot be opened.
func readFile(t *testing.T, fs *FS, path string) string {
	t.Helper()
	ino, err := fs.Open(fs.Root(), path, 0, true)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	if st, _ := fs.Stat(ino); st.Type == TypeDir {
		return "<dir>"
	}
	return contentOf(t, fs, ino)
}

// tree renders the current view as one line per path: "path type [size]".
func tree(fs *FS) string {
	var b strings.Builder
	for _, f := range fs.Files() {
		switch f.Type {
		case TypeRegular:
			fmt.Fprintf(&b, "%s file %d\n", f.Path, f.Size)
		case TypeSymlink:
			t, _ := fs.Readlink(fs.Root(), f.Path)
			fmt.Fprintf(&b, "%s -> %s\n", f.Path, t)
		default:
			fmt.Fprintf(&b, "%s %s\n", f.Path, f.Type)
		}
	}
	return b.String()
}

func errString(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

// checkErr fails unless err is want (nil for success).
func checkErr(t *testing.T, what string, err error, want Errno) {
	t.Helper()
	w := "ok"
	if want != 0 {
		w = want.Error()
	}
	if got := errString(err); got != w {
		t.Fatalf("%s: got %s, want %s", what, got, w)
	}
	if err != nil {
		if _, ok := err.(Errno); !ok {
			t.Fatalf("%s: error %T is not an Errno", what, err)
		}
	}
}
