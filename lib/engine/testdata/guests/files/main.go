// Command files exercises the disk through plain os calls, as a service
// would: create, open flags, read, write, pread/pwrite, seek, truncate, stat,
// readdir, mkdir, rmdir, rename, remove, hard links, symlinks, readlink,
// chtimes and fsync. It works in its current directory, prints one line per
// step, and exits 1 with a message on the first result that differs from
// what a POSIX file system gives. It passes natively on Linux too, so a
// failure under the simulator is the simulator's.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"
)

func fail(format string, args ...any) {
	fmt.Printf("files: FAIL "+format+"\n", args...)
	os.Exit(1)
}

func must(what string, err error) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

func wantContent(path string, want []byte) {
	got, err := os.ReadFile(path)
	must("read "+path, err)
	if !bytes.Equal(got, want) {
		fail("%s holds %d bytes %q, want %d bytes %q", path, len(got), clip(got), len(want), clip(want))
	}
}

func wantNotExist(path string) {
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		fail("lstat %s: got %v, want not exist", path, err)
	}
}

func clip(b []byte) []byte {
	if len(b) > 40 {
		return append(append([]byte(nil), b[:40]...), "..."...)
	}
	return b
}

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7%251 + 1)
	}
	return b
}

func step(name string) { fmt.Printf("files: %s\n", name) }

func main() {
	step("create, write, read")
	must("write a.txt", os.WriteFile("a.txt", []byte("hello world"), 0o644))
	wantContent("a.txt", []byte("hello world"))
	if _, err := os.OpenFile("a.txt", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644); !errors.Is(err, fs.ErrExist) {
		fail("O_EXCL on an existing file: got %v, want exist", err)
	}
	if _, err := os.Open("missing.txt"); !errors.Is(err, fs.ErrNotExist) {
		fail("open missing.txt: got %v, want not exist", err)
	}
	if _, err := os.Open("nodir/missing.txt"); !errors.Is(err, fs.ErrNotExist) {
		fail("open nodir/missing.txt: got %v, want not exist", err)
	}
	if err := os.WriteFile("a.txt/under-a-file", []byte("x"), 0o644); err == nil {
		fail("creating a file under a regular file succeeded")
	}

	step("stat")
	st, err := os.Stat("a.txt")
	must("stat a.txt", err)
	if st.Size() != 11 || !st.Mode().IsRegular() || st.Name() != "a.txt" {
		fail("stat a.txt: size %d mode %v name %q, want 11, regular, a.txt", st.Size(), st.Mode(), st.Name())
	}

	step("open flags: O_APPEND, O_TRUNC")
	f, err := os.OpenFile("a.txt", os.O_WRONLY|os.O_APPEND, 0)
	must("open a.txt append", err)
	_, err = f.Write([]byte("!!"))
	must("append", err)
	must("close", f.Close())
	wantContent("a.txt", []byte("hello world!!"))
	f, err = os.OpenFile("a.txt", os.O_WRONLY|os.O_TRUNC, 0)
	must("open a.txt trunc", err)
	must("close", f.Close())
	wantContent("a.txt", nil)
	f, err = os.OpenFile("a.txt", os.O_RDONLY, 0)
	must("open a.txt read-only", err)
	if _, err := f.Write([]byte("x")); err == nil {
		fail("write to a read-only file succeeded")
	}
	must("close", f.Close())

	step("pwrite, pread, seek across pages")
	want := pattern(100 << 10)
	f, err = os.OpenFile("b.bin", os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	must("create b.bin", err)
	n, err := f.Write(want)
	if err != nil || n != len(want) {
		fail("write b.bin: %d, %v", n, err)
	}
	copy(want[50000:], "XYZ")
	if n, err := f.WriteAt([]byte("XYZ"), 50000); err != nil || n != 3 {
		fail("WriteAt: %d, %v", n, err)
	}
	got := make([]byte, 3)
	if n, err := f.ReadAt(got, 50000); err != nil || n != 3 || string(got) != "XYZ" {
		fail("ReadAt 50000: %d %q %v, want XYZ", n, got, err)
	}
	got = make([]byte, len(want))
	if n, err := f.ReadAt(got, 0); err != nil || n != len(want) || !bytes.Equal(got, want) {
		fail("ReadAt 0: %d bytes, %v, equal %v", n, err, bytes.Equal(got, want))
	}
	got = make([]byte, 100)
	if n, err := f.ReadAt(got, int64(len(want)-40)); err != io.EOF || n != 40 || !bytes.Equal(got[:40], want[len(want)-40:]) {
		fail("ReadAt across the end: %d, %v, want 40 bytes and EOF", n, err)
	}
	if off, err := f.Seek(0, io.SeekEnd); err != nil || off != int64(len(want)) {
		fail("seek end: %d, %v", off, err)
	}
	if off, err := f.Seek(10, io.SeekStart); err != nil || off != 10 {
		fail("seek 10: %d, %v", off, err)
	}
	got = make([]byte, 5)
	if _, err := io.ReadFull(f, got); err != nil || !bytes.Equal(got, want[10:15]) {
		fail("read after seek: %q, %v, want %q", got, err, want[10:15])
	}
	if off, err := f.Seek(-5, io.SeekCurrent); err != nil || off != 10 {
		fail("seek -5 current: %d, %v", off, err)
	}
	if off, err := f.Seek(0, io.SeekCurrent); err != nil || off != 10 {
		fail("seek 0 current: %d, %v", off, err)
	}
	if _, err := f.Seek(-1, io.SeekStart); err == nil {
		fail("seek to -1 succeeded")
	}

	step("write past the end leaves a hole of zeros")
	if _, err := f.Seek(200000, io.SeekStart); err != nil {
		fail("seek 200000: %v", err)
	}
	_, err = f.Write([]byte("end"))
	must("write at 200000", err)
	st, err = f.Stat()
	must("fstat b.bin", err)
	if st.Size() != 200003 {
		fail("size after writing at 200000: %d, want 200003", st.Size())
	}
	got = make([]byte, 1000)
	if _, err := f.ReadAt(got, 150000); err != nil || !bytes.Equal(got, make([]byte, 1000)) {
		fail("hole at 150000 is not zeros (%v)", err)
	}

	step("truncate")
	must("truncate 1000", f.Truncate(1000))
	st, err = f.Stat()
	must("fstat b.bin", err)
	if st.Size() != 1000 {
		fail("size after truncate: %d, want 1000", st.Size())
	}
	must("truncate 2000", f.Truncate(2000))
	must("fsync b.bin", f.Sync())
	must("close b.bin", f.Close())
	wantContent("b.bin", append(append([]byte(nil), want[:1000]...), make([]byte, 1000)...))
	must("os.Truncate", os.Truncate("b.bin", 10))
	wantContent("b.bin", want[:10])

	step("large file round trip")
	big := pattern(1 << 20)
	must("write big", os.WriteFile("big.bin", big, 0o644))
	wantContent("big.bin", big)

	step("mkdir, readdir")
	must("mkdir d", os.Mkdir("d", 0o755))
	if err := os.Mkdir("d", 0o755); !errors.Is(err, fs.ErrExist) {
		fail("mkdir d again: got %v, want exist", err)
	}
	must("mkdirall d/e/f", os.MkdirAll("d/e/f", 0o755))
	for _, name := range []string{"c", "a", "b"} {
		must("write d/"+name, os.WriteFile("d/"+name, []byte("file "+name), 0o644))
	}
	entries, err := os.ReadDir("d")
	must("readdir d", err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "a b c e" {
		fail("readdir d: %q, want [a b c e]", names)
	}
	if !entries[3].IsDir() || entries[0].IsDir() {
		fail("readdir d: IsDir wrong: e %v, a %v", entries[3].IsDir(), entries[0].IsDir())
	}
	if _, err := os.ReadFile("d"); err == nil {
		fail("reading a directory as a file succeeded")
	}

	step("readdir of a directory that needs several fd_readdir calls")
	must("mkdir many", os.Mkdir("many", 0o755))
	var wantNames []string
	for i := 299; i >= 0; i-- {
		name := fmt.Sprintf("entry-with-a-longish-name-%03d", i)
		wantNames = append(wantNames, name)
		must("create "+name, os.WriteFile("many/"+name, nil, 0o644))
	}
	sort.Strings(wantNames)
	entries, err = os.ReadDir("many")
	must("readdir many", err)
	names = names[:0]
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, wantNames) {
		fail("readdir many: %d entries, want %d (first %q)", len(names), len(wantNames), names[:min(3, len(names))])
	}
	dir, err := os.Open("many")
	must("open many", err)
	var raw []string
	for {
		part, err := dir.Readdirnames(7)
		raw = append(raw, part...)
		if err == io.EOF {
			break
		}
		must("readdirnames many", err)
	}
	must("close many", dir.Close())
	sort.Strings(raw)
	if !slices.Equal(raw, wantNames) {
		fail("readdirnames in batches of 7: %d names, want %d", len(raw), len(wantNames))
	}

	step("rmdir")
	if err := syscall.Rmdir("d"); err == nil {
		fail("rmdir of a non-empty directory succeeded")
	}
	must("rmdir d/e/f", os.Remove("d/e/f"))
	wantNotExist("d/e/f")

	step("rename")
	must("rename d/a d/z", os.Rename("d/a", "d/z"))
	wantNotExist("d/a")
	wantContent("d/z", []byte("file a"))
	must("rename d/c over d/b", os.Rename("d/c", "d/b"))
	wantNotExist("d/c")
	wantContent("d/b", []byte("file c"))
	must("rename directory d/e to moved", os.Rename("d/e", "moved"))
	wantNotExist("d/e")
	if st, err := os.Stat("moved"); err != nil || !st.IsDir() {
		fail("stat moved: %v", err)
	}

	step("remove")
	must("remove d/b", os.Remove("d/b"))
	wantNotExist("d/b")
	if err := os.Remove("d/b"); !errors.Is(err, fs.ErrNotExist) {
		fail("remove d/b again: got %v, want not exist", err)
	}

	step("hard link")
	must("link d/z d/zlink", os.Link("d/z", "d/zlink"))
	f, err = os.OpenFile("d/zlink", os.O_WRONLY|os.O_APPEND, 0)
	must("open d/zlink", err)
	_, err = f.Write([]byte(" via link"))
	must("write d/zlink", err)
	must("close d/zlink", f.Close())
	wantContent("d/z", []byte("file a via link"))
	st1, err := os.Stat("d/z")
	must("stat d/z", err)
	st2, err := os.Stat("d/zlink")
	must("stat d/zlink", err)
	if !os.SameFile(st1, st2) {
		fail("d/z and d/zlink are not the same file")
	}
	if s, ok := st1.Sys().(*syscall.Stat_t); ok && s.Nlink != 2 {
		fail("d/z has %d links, want 2", s.Nlink)
	}
	must("remove d/z", os.Remove("d/z"))
	wantContent("d/zlink", []byte("file a via link"))
	if err := os.Link("d/nothing", "d/nolink"); !errors.Is(err, fs.ErrNotExist) {
		fail("link of a missing file: got %v, want not exist", err)
	}

	step("symlink, readlink")
	must("symlink", os.Symlink("d/zlink", "sym"))
	if target, err := os.Readlink("sym"); err != nil || target != "d/zlink" {
		fail("readlink sym: %q, %v, want d/zlink", target, err)
	}
	if st, err := os.Lstat("sym"); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		fail("lstat sym: %v, %v, want a symlink", st, err)
	}
	wantContent("sym", []byte("file a via link"))
	must("symlink to a directory", os.Symlink("moved", "dirsym"))
	must("write through a directory symlink", os.WriteFile("dirsym/through", []byte("t"), 0o644))
	wantContent("moved/through", []byte("t"))
	must("dangling symlink", os.Symlink("nowhere", "dangling"))
	if _, err := os.Stat("dangling"); !errors.Is(err, fs.ErrNotExist) {
		fail("stat of a dangling symlink: got %v, want not exist", err)
	}
	if _, err := os.Readlink("d/zlink"); err == nil {
		fail("readlink of a regular file succeeded")
	}

	step("chtimes")
	mtime := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	must("chtimes", os.Chtimes("d/zlink", mtime, mtime))
	if st, err := os.Stat("d/zlink"); err != nil || !st.ModTime().Equal(mtime) {
		fail("mtime after chtimes: %v, %v, want %v", st.ModTime().UTC(), err, mtime)
	}

	step("fsync of a file and of a directory")
	f, err = os.OpenFile("synced", os.O_RDWR|os.O_CREATE, 0o644)
	must("create synced", err)
	_, err = f.Write([]byte("durable"))
	must("write synced", err)
	must("fsync synced", f.Sync())
	must("close synced", f.Close())
	dir, err = os.Open(".")
	must("open .", err)
	must("fsync .", dir.Sync())
	must("close .", dir.Close())

	step("paths through ..")
	must("write d/../top.txt", os.WriteFile("d/../top.txt", []byte("top"), 0o644))
	wantContent("top.txt", []byte("top"))

	fmt.Println("files: ok: every check passed")
}
