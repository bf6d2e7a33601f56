package disk

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/wire"
)

// opsFixture builds: d/ (with d/x), empty/, f "data", ln-f -> f, ln-d -> d,
// dangling -> missing, dangling-dir -> nodir/x.
func opsFixture(t *testing.T) *FS {
	fs := newTestFS()
	mkdir(t, fs, "d")
	writeFile(t, fs, "d/x", "x")
	mkdir(t, fs, "empty")
	writeFile(t, fs, "f", "data")
	symlink(t, fs, "f", "ln-f")
	symlink(t, fs, "d", "ln-d")
	symlink(t, fs, "missing", "dangling")
	symlink(t, fs, "nodir/x", "dangling-dir")
	return fs
}

func TestOpen(t *testing.T) {
	tests := []struct {
		name   string
		path   string
		flags  OpenFlags
		follow bool
		err    Errno
		target string // path that must name the result afterwards
		size   int64  // its size afterwards
	}{
		{"existing file", "f", 0, true, 0, "f", 4},
		{"existing dir", "d", 0, true, 0, "d", 0},
		{"dir with ODirectory", "d", ODirectory, true, 0, "d", 0},
		{"file with ODirectory", "f", ODirectory, true, ENOTDIR, "", 0},
		{"missing", "nope", 0, true, ENOENT, "", 0},
		{"create", "new", OCreate, true, 0, "new", 0},
		{"create in subdir", "d/new", OCreate, true, 0, "d/new", 0},
		{"create in missing dir", "nodir/new", OCreate, true, ENOENT, "", 0},
		{"create existing keeps data", "f", OCreate, true, 0, "f", 4},
		{"create excl new", "new", OCreate | OExcl, true, 0, "new", 0},
		{"create excl existing", "f", OCreate | OExcl, true, EEXIST, "", 0},
		{"create excl dangling symlink", "dangling", OCreate | OExcl, true, EEXIST, "", 0},
		{"create through dangling symlink", "dangling", OCreate, true, 0, "missing", 0},
		{"create through dangling symlink in missing dir", "dangling-dir", OCreate, true, ENOENT, "", 0},
		{"create on dangling symlink without follow", "dangling", OCreate, false, ELOOP, "", 0},
		{"trunc", "f", OTrunc, true, 0, "f", 0},
		{"trunc through symlink", "ln-f", OTrunc, true, 0, "f", 0},
		{"create trunc", "f", OCreate | OTrunc, true, 0, "f", 0},
		{"symlink without follow", "ln-f", 0, false, ELOOP, "", 0},
		{"symlink to dir with slash", "ln-d/", ODirectory, false, 0, "d", 0},
		{"create on dir", "d", OCreate, true, EISDIR, "", 0},
		{"trunc on dir", "d", OTrunc, true, EISDIR, "", 0},
		{"create with trailing slash", "new/", OCreate, true, EISDIR, "", 0},
		{"create directory flag", "new", OCreate | ODirectory, true, EINVAL, "", 0},
		{"create dot", ".", OCreate, true, EISDIR, "", 0},
		{"create excl dot", ".", OCreate | OExcl, true, EEXIST, "", 0},
		{"absolute", "/f", OCreate, true, ENOTCAPABLE, "", 0},
		{"escape", "../f", OCreate, true, ENOTCAPABLE, "", 0},
		{"name too long", strings.Repeat("n", 256), OCreate, true, ENAMETOOLONG, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := opsFixture(t)
			got, err := fs.Open(fs.Root(), tt.path, tt.flags, tt.follow)
			checkErr(t, "open "+tt.path, err, tt.err)
			if tt.err != 0 {
				if got != 0 {
					t.Fatalf("open %q failed but returned ino %d", tt.path, got)
				}
				return
			}
			if want := lookup(t, fs, tt.target); got != want {
				t.Fatalf("open %q = %s, want %s", tt.path, fs.PathOf(got), tt.target)
			}
			st, _ := fs.Stat(got)
			if st.Size != tt.size {
				t.Fatalf("size after open = %d, want %d", st.Size, tt.size)
			}
		})
	}
}

func TestOpenTruncIsPendingOperation(t *testing.T) {
	fs := opsFixture(t)
	f := lookup(t, fs, "f")
	sync(t, fs, f)
	if _, err := fs.Open(fs.Root(), "f", OTrunc, true); err != nil {
		t.Fatal(err)
	}
	n := fs.inodes[f]
	if len(n.pending) != 1 || !n.pending[0].truncate || n.pending[0].off != 0 {
		t.Fatalf("pending after O_TRUNC = %+v, want one truncate to 0", n.pending)
	}
}

func TestMkdir(t *testing.T) {
	tests := []struct {
		name string
		path string
		err  Errno
	}{
		{"new", "new", 0},
		{"nested", "d/new", 0},
		{"trailing slash", "new/", 0},
		{"exists dir", "d", EEXIST},
		{"exists file", "f", EEXIST},
		{"exists symlink", "ln-d", EEXIST},
		{"dangling symlink", "dangling", EEXIST},
		{"dot", ".", EEXIST},
		{"dotdot", "d/..", EEXIST},
		{"missing parent", "nodir/new", ENOENT},
		{"parent is file", "f/new", ENOTDIR},
		{"through symlink", "ln-d/new", 0},
		{"empty", "", ENOENT},
		{"absolute", "/new", ENOTCAPABLE},
		{"escape", "d/../../new", ENOTCAPABLE},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := opsFixture(t)
			checkErr(t, "mkdir "+tt.path, fs.Mkdir(fs.Root(), tt.path), tt.err)
			if tt.err == 0 {
				ino, err := fs.Lookup(fs.Root(), tt.path, true)
				checkErr(t, "lookup", err, 0)
				st, _ := fs.Stat(ino)
				if st.Type != TypeDir || st.Nlink != 2 {
					t.Fatalf("stat = %+v, want an empty dir", st)
				}
			}
		})
	}
}

func TestRmdir(t *testing.T) {
	tests := []struct {
		name string
		path string
		err  Errno
	}{
		{"empty", "empty", 0},
		{"trailing slash", "empty/", 0},
		{"not empty", "d", ENOTEMPTY},
		{"file", "f", ENOTDIR},
		{"symlink to dir", "ln-d", ENOTDIR},
		{"symlink to dir with slash", "ln-d/", ENOTDIR},
		{"missing", "nope", ENOENT},
		{"dot", ".", EINVAL},
		{"dot in subdir", "empty/.", EINVAL},
		{"dotdot", "d/..", ENOTEMPTY},
		{"absolute", "/empty", ENOTCAPABLE},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := opsFixture(t)
			checkErr(t, "rmdir "+tt.path, fs.Rmdir(fs.Root(), tt.path), tt.err)
			if tt.err == 0 {
				_, err := fs.Lookup(fs.Root(), tt.path, false)
				checkErr(t, "lookup after rmdir", err, ENOENT)
			}
		})
	}
}

func TestUnlink(t *testing.T) {
	tests := []struct {
		name string
		path string
		err  Errno
		gone string // path that no longer exists
		kept string // path that still exists
	}{
		{"file", "f", 0, "f", "ln-f"},
		{"in subdir", "d/x", 0, "d/x", "d"},
		{"symlink removes link only", "ln-f", 0, "ln-f", "f"},
		{"symlink to dir", "ln-d", 0, "ln-d", "d"},
		{"dangling symlink", "dangling", 0, "dangling", ""},
		{"dir", "d", EISDIR, "", "d"},
		{"empty dir", "empty", EISDIR, "", "empty"},
		{"dot", ".", EISDIR, "", ""},
		{"dotdot", "d/..", EISDIR, "", ""},
		{"file with slash", "f/", ENOTDIR, "", "f"},
		{"missing", "nope", ENOENT, "", ""},
		{"missing parent", "nodir/x", ENOENT, "", ""},
		{"escape", "..", ENOTCAPABLE, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := opsFixture(t)
			checkErr(t, "unlink "+tt.path, fs.Unlink(fs.Root(), tt.path), tt.err)
			if tt.gone != "" {
				_, err := fs.Lookup(fs.Root(), tt.gone, false)
				checkErr(t, "lookup "+tt.gone, err, ENOENT)
			}
			if tt.kept != "" {
				lookup(t, fs, tt.kept)
			}
		})
	}
}

func TestUnlinkedFileStaysUsable(t *testing.T) {
	fs := newTestFS()
	ino := writeFile(t, fs, "f", "abc")
	checkErr(t, "unlink", fs.Unlink(fs.Root(), "f"), 0)
	if _, err := fs.WriteAt(ino, []byte("XY"), 1); err != nil {
		t.Fatal(err)
	}
	if got := contentOf(t, fs, ino); got != "aXY" {
		t.Fatalf("content after unlink = %q", got)
	}
	st, _ := fs.Stat(ino)
	if st.Nlink != 0 {
		t.Fatalf("nlink = %d, want 0", st.Nlink)
	}
	if got := fs.PathOf(ino); got != "f (deleted)" {
		t.Fatalf("PathOf = %q", got)
	}
	if got := tree(fs); got != "" {
		t.Fatalf("tree = %q, want empty", got)
	}
}

func TestLink(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		err      Errno
	}{
		{"file", "f", "g", 0},
		{"into subdir", "f", "d/g", 0},
		{"symlink itself", "ln-f", "g", 0},
		{"dangling symlink", "dangling", "g", 0},
		{"dir", "d", "g", EPERM},
		{"missing", "nope", "g", ENOENT},
		{"new exists", "f", "d/x", EEXIST},
		{"new is dir", "f", "d", EEXIST},
		{"new missing parent", "f", "nodir/g", ENOENT},
		{"new trailing slash", "f", "g/", ENOENT},
		{"old trailing slash", "f/", "g", ENOTDIR},
		{"escape", "f", "../g", ENOTCAPABLE},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := opsFixture(t)
			checkErr(t, "link", fs.Link(fs.Root(), tt.old, fs.Root(), tt.new), tt.err)
			if tt.err == 0 {
				o, n := lookup(t, fs, tt.old), lookup(t, fs, tt.new)
				if o != n {
					t.Fatalf("link: %s is ino %d, %s is ino %d", tt.old, o, tt.new, n)
				}
				st, _ := fs.Stat(o)
				if st.Nlink != 2 {
					t.Fatalf("nlink = %d, want 2", st.Nlink)
				}
			}
		})
	}
}

func TestHardLinkSharesContent(t *testing.T) {
	fs := newTestFS()
	ino := writeFile(t, fs, "a", "one")
	checkErr(t, "link", fs.Link(fs.Root(), "a", fs.Root(), "b"), 0)
	if _, err := fs.WriteAt(lookup(t, fs, "b"), []byte("two"), 0); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, fs, "a"); got != "two" {
		t.Fatalf("a = %q, want two", got)
	}
	checkErr(t, "unlink a", fs.Unlink(fs.Root(), "a"), 0)
	st, _ := fs.Stat(ino)
	if st.Nlink != 1 || fs.PathOf(ino) != "b" {
		t.Fatalf("after unlink: nlink %d, path %q", st.Nlink, fs.PathOf(ino))
	}
}

func TestSymlinkAndReadlink(t *testing.T) {
	tests := []struct {
		name, target, path string
		err                Errno
	}{
		{"relative", "f", "s", 0},
		{"dangling", "nowhere/at/all", "s", 0},
		{"absolute target", "/d/x", "s", 0},
		{"in subdir", "../f", "d/s", 0},
		{"exists", "f", "f", EEXIST},
		{"exists symlink", "f", "ln-f", EEXIST},
		{"empty target", "", "s", ENOENT},
		{"target too long", strings.Repeat("t", PathBytesMax+1), "s", ENAMETOOLONG},
		{"trailing slash", "f", "s/", ENOENT},
		{"missing parent", "f", "nodir/s", ENOENT},
		{"absolute path", "f", "/s", ENOTCAPABLE},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := opsFixture(t)
			checkErr(t, "symlink", fs.Symlink(tt.target, fs.Root(), tt.path), tt.err)
			if tt.err == 0 {
				got, err := fs.Readlink(fs.Root(), tt.path)
				checkErr(t, "readlink", err, 0)
				if got != tt.target {
					t.Fatalf("readlink = %q, want %q", got, tt.target)
				}
				st, _ := fs.Stat(lookup(t, fs, tt.path))
				if st.Type != TypeSymlink || st.Size != int64(len(tt.target)) || st.Nlink != 1 {
					t.Fatalf("stat = %+v", st)
				}
			}
		})
	}
	fs := opsFixture(t)
	for _, tt := range []struct {
		path string
		err  Errno
	}{{"f", EINVAL}, {"d", EINVAL}, {"nope", ENOENT}, {"ln-d/", EINVAL}, {"ln-d/x", EINVAL}} {
		_, err := fs.Readlink(fs.Root(), tt.path)
		checkErr(t, "readlink "+tt.path, err, tt.err)
	}
}

func TestReadWriteTruncate(t *testing.T) {
	fs := opsFixture(t)
	f, d, ln := lookup(t, fs, "f"), lookup(t, fs, "d"), lookup(t, fs, "ln-f")
	steps := []struct {
		name string
		do   func() error
		err  Errno
		want string // content of f afterwards
	}{
		{"overwrite", func() error { _, err := fs.WriteAt(f, []byte("DA"), 0); return err }, 0, "DAta"},
		{"append", func() error { _, err := fs.WriteAt(f, []byte("!"), 4); return err }, 0, "DAta!"},
		{"hole", func() error { _, err := fs.WriteAt(f, []byte("z"), 7); return err }, 0, "DAta!\x00\x00z"},
		{"empty write past end", func() error { _, err := fs.WriteAt(f, nil, 100); return err }, 0, "DAta!\x00\x00z"},
		{"shrink", func() error { return fs.Truncate(f, 2) }, 0, "DA"},
		{"grow zeroes", func() error { return fs.Truncate(f, 4) }, 0, "DA\x00\x00"},
		{"negative write offset", func() error { _, err := fs.WriteAt(f, []byte("x"), -1); return err }, EINVAL, "DA\x00\x00"},
		{"negative size", func() error { return fs.Truncate(f, -1) }, EINVAL, "DA\x00\x00"},
		{"too big write", func() error { _, err := fs.WriteAt(f, []byte("x"), SparseFileBytesMax); return err }, EFBIG, "DA\x00\x00"},
		{"too big truncate", func() error { return fs.Truncate(f, SparseFileBytesMax+1) }, EFBIG, "DA\x00\x00"},
		{"write dir", func() error { _, err := fs.WriteAt(d, []byte("x"), 0); return err }, EISDIR, "DA\x00\x00"},
		{"truncate dir", func() error { return fs.Truncate(d, 0) }, EISDIR, "DA\x00\x00"},
		{"read dir", func() error { _, err := fs.ReadAt(d, make([]byte, 1), 0); return err }, EISDIR, "DA\x00\x00"},
		{"write symlink", func() error { _, err := fs.WriteAt(ln, []byte("x"), 0); return err }, EINVAL, "DA\x00\x00"},
		{"read negative", func() error { _, err := fs.ReadAt(f, make([]byte, 1), -1); return err }, EINVAL, "DA\x00\x00"},
		{"write unknown", func() error { _, err := fs.WriteAt(999, []byte("x"), 0); return err }, EBADF, "DA\x00\x00"},
		{"read unknown", func() error { _, err := fs.ReadAt(999, make([]byte, 1), 0); return err }, EBADF, "DA\x00\x00"},
		{"truncate unknown", func() error { return fs.Truncate(999, 0) }, EBADF, "DA\x00\x00"},
	}
	for _, s := range steps {
		checkErr(t, s.name, s.do(), s.err)
		if got := contentOf(t, fs, f); got != s.want {
			t.Fatalf("%s: content = %q, want %q", s.name, got, s.want)
		}
	}
	// Short reads at the end, never io.EOF.
	buf := make([]byte, 10)
	for _, tt := range []struct {
		off  int64
		want int
	}{{0, 4}, {3, 1}, {4, 0}, {100, 0}} {
		n, err := fs.ReadAt(f, buf, tt.off)
		if err != nil || n != tt.want {
			t.Errorf("ReadAt(off %d) = %d, %v; want %d, nil", tt.off, n, err, tt.want)
		}
	}
	// A write does not keep the caller's buffer.
	p := []byte("abcd")
	if _, err := fs.WriteAt(f, p, 0); err != nil {
		t.Fatal(err)
	}
	copy(p, "wxyz")
	sync(t, fs, f)
	if got := contentOf(t, fs, f); got != "abcd" {
		t.Fatalf("content after caller reused buffer = %q", got)
	}
}

func TestTruncateShrinkThenGrowDoesNotResurrect(t *testing.T) {
	fs := newTestFS()
	f := writeFile(t, fs, "f", "secret")
	checkErr(t, "truncate", fs.Truncate(f, 1), 0)
	if _, err := fs.WriteAt(f, []byte("!"), 5); err != nil {
		t.Fatal(err)
	}
	if got := contentOf(t, fs, f); got != "s\x00\x00\x00\x00!" {
		t.Fatalf("content = %q", got)
	}
	sync(t, fs, f)
	fs.Crash()
	if got := readFile(t, fs, "f"); got != "s\x00\x00\x00\x00!" {
		t.Fatalf("content after crash = %q", got)
	}
}

func TestStatAndTimes(t *testing.T) {
	var now int64 = 100
	fs := New(func() int64 { return now })
	st, err := fs.Stat(fs.Root())
	checkErr(t, "stat root", err, 0)
	if st.Type != TypeDir || st.Nlink != 2 || st.Ino != RootIno || st.Mtim != 100 {
		t.Fatalf("root stat = %+v", st)
	}
	now = 200
	mkdir(t, fs, "a")
	mkdir(t, fs, "b")
	st, _ = fs.Stat(fs.Root())
	if st.Nlink != 4 || st.Mtim != 200 || st.Ctim != 200 || st.Atim != 100 {
		t.Fatalf("root stat after mkdir = %+v", st)
	}
	now = 300
	f := writeFile(t, fs, "a/f", "hi")
	st, _ = fs.Stat(f)
	if st != (Stat{Ino: f, Type: TypeRegular, Nlink: 1, Size: 2, Atim: 300, Mtim: 300, Ctim: 300}) {
		t.Fatalf("file stat = %+v", st)
	}
	now = 400
	checkErr(t, "settimes", fs.SetTimes(f, 7, 8), 0)
	st, _ = fs.Stat(f)
	if st.Atim != 7 || st.Mtim != 8 || st.Ctim != 400 {
		t.Fatalf("stat after SetTimes = %+v", st)
	}
	now = 500
	checkErr(t, "link", fs.Link(fs.Root(), "a/f", fs.Root(), "g"), 0)
	st, _ = fs.Stat(f)
	if st.Nlink != 2 || st.Ctim != 500 || st.Mtim != 8 {
		t.Fatalf("stat after link = %+v", st)
	}
	checkErr(t, "rmdir", fs.Rmdir(fs.Root(), "b"), 0)
	st, _ = fs.Stat(fs.Root())
	if st.Nlink != 3 {
		t.Fatalf("root nlink after rmdir = %d, want 3", st.Nlink)
	}
	_, err = fs.Stat(999)
	checkErr(t, "stat unknown", err, EBADF)
	checkErr(t, "settimes unknown", fs.SetTimes(999, 0, 0), EBADF)
	checkErr(t, "sync unknown", fs.Sync(999), EBADF)
	// A nil clock reads 0.
	fs = New(nil)
	st, _ = fs.Stat(fs.Root())
	if st.Mtim != 0 {
		t.Fatalf("nil clock: mtim %d", st.Mtim)
	}
}

func TestReadDir(t *testing.T) {
	fs := newTestFS()
	for _, name := range []string{"zeta", "Alpha", "beta", "b", "a.txt", "a"} {
		writeFile(t, fs, name, "")
	}
	mkdir(t, fs, "dir")
	symlink(t, fs, "a", "link")
	got, err := fs.ReadDir(fs.Root())
	checkErr(t, "readdir", err, 0)
	var names []string
	for _, e := range got {
		names = append(names, e.Name+":"+e.Type.String())
		if want := lookup(t, fs, e.Name); e.Ino != want {
			t.Errorf("entry %s: ino %d, want %d", e.Name, e.Ino, want)
		}
	}
	want := "Alpha:file a:file a.txt:file b:file beta:file dir:dir link:symlink zeta:file"
	if s := strings.Join(names, " "); s != want {
		t.Fatalf("readdir = %s\nwant      %s", s, want)
	}
	empty, err := fs.ReadDir(lookup(t, fs, "dir"))
	if err != nil || len(empty) != 0 {
		t.Fatalf("readdir empty = %v, %v", empty, err)
	}
	_, err = fs.ReadDir(lookup(t, fs, "a"))
	checkErr(t, "readdir file", err, ENOTDIR)
	_, err = fs.ReadDir(999)
	checkErr(t, "readdir unknown", err, EBADF)
}

func TestPathOfAndParent(t *testing.T) {
	fs := newTestFS()
	mkdir(t, fs, "data")
	mkdir(t, fs, "data/sub")
	f := writeFile(t, fs, "data/kv.log", "x")
	sub := lookup(t, fs, "data/sub")
	data := lookup(t, fs, "data")
	for _, tt := range []struct {
		ino        Ino
		path       string
		parent     Ino
		parentName string
	}{
		{fs.Root(), "", fs.Root(), "root"},
		{data, "data", fs.Root(), "root"},
		{sub, "data/sub", data, "data"},
		{f, "data/kv.log", data, "data"},
		{999, "(unknown ino 999)", fs.Root(), "root"},
	} {
		if got := fs.PathOf(tt.ino); got != tt.path {
			t.Errorf("PathOf(%d) = %q, want %q", tt.ino, got, tt.path)
		}
		if got := fs.Parent(tt.ino); got != tt.parent {
			t.Errorf("Parent(%s) = %d, want %s", tt.path, got, tt.parentName)
		}
	}
	checkErr(t, "rename", fs.Rename(fs.Root(), "data", fs.Root(), "d2"), 0)
	if got := fs.PathOf(f); got != "d2/kv.log" {
		t.Errorf("PathOf after dir rename = %q", got)
	}
	checkErr(t, "link", fs.Link(fs.Root(), "d2/kv.log", fs.Root(), "a"), 0)
	if got := fs.PathOf(f); got != "d2/kv.log" {
		t.Errorf("PathOf keeps the first name: %q", got)
	}
	checkErr(t, "unlink", fs.Unlink(fs.Root(), "d2/kv.log"), 0)
	if got := fs.PathOf(f); got != "a" {
		t.Errorf("PathOf after first name removed = %q", got)
	}
	checkErr(t, "rmdir", fs.Rmdir(fs.Root(), "d2/sub"), 0)
	if got := fs.PathOf(sub); got != "d2/sub (deleted)" {
		t.Errorf("PathOf removed dir = %q", got)
	}
	if got := fs.Parent(sub); got != data {
		t.Errorf("Parent of removed dir = %d, want %d", got, data)
	}
}

func TestFiles(t *testing.T) {
	fs := newTestFS()
	mkdir(t, fs, "a")
	f := writeFile(t, fs, "a/f", "12345")
	sync(t, fs, f)
	if _, err := fs.WriteAt(f, []byte("678"), 5); err != nil {
		t.Fatal(err)
	}
	checkErr(t, "truncate", fs.Truncate(f, 7), 0)
	writeFile(t, fs, "a.txt", "zz")
	symlink(t, fs, "a/f", "s")
	checkErr(t, "link", fs.Link(fs.Root(), "a/f", fs.Root(), "b"), 0)
	got := fs.Files()
	want := []FileInfo{
		{Path: "a", Ino: lookup(t, fs, "a"), Type: TypeDir},
		{Path: "a.txt", Ino: lookup(t, fs, "a.txt"), Type: TypeRegular, Size: 2, PendingBytes: 2, PendingOps: 1},
		{Path: "a/f", Ino: f, Type: TypeRegular, Size: 7, DurableSize: 5, PendingBytes: 3, PendingOps: 2},
		{Path: "b", Ino: f, Type: TypeRegular, Size: 7, DurableSize: 5, PendingBytes: 3, PendingOps: 2},
		{Path: "s", Ino: lookup(t, fs, "s"), Type: TypeSymlink, Size: 3},
	}
	if len(got) != len(want) {
		t.Fatalf("Files() = %+v", got)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("Files()[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestUnnamedGivesSpaceBack: a file that lost its last name while closed
// stops counting in the usage at once, once; under StrictDirs a crash that
// brings it back (its removal not synced) counts it again, and a file removed
// while open stops counting at its Release. The mark survives a snapshot.
func TestUnnamedGivesSpaceBack(t *testing.T) {
	fs := newTestFS()
	fs.SetCapacity(16 << 10)
	a := writeFile(t, fs, "a", strings.Repeat("a", 12<<10))
	checkErr(t, "unlink", fs.Unlink(fs.Root(), "a"), 0)
	if got := fs.Usage(); got != 12<<10 {
		t.Fatalf("usage after the unlink alone %d, want 12 KiB: only the caller knows no handle holds it", got)
	}
	fs.Unnamed(a)
	fs.Unnamed(a)
	if got := fs.Usage(); got != 0 {
		t.Fatalf("usage after Unnamed (twice) %d, want 0", got)
	}
	b := writeFile(t, fs, "b", "")
	if n, err := fs.WriteAt(b, make([]byte, 12<<10), 0); err != nil || n != 12<<10 {
		t.Fatalf("a write into the space given back: %d, %v", n, err)
	}
	fs.Unnamed(b) // b has a name: nothing
	if got := fs.Usage(); got != 12<<10 {
		t.Fatalf("Unnamed of a named file changed the usage to %d", got)
	}

	fs = newTestFS()
	fs.StrictDirs = true
	c := writeFile(t, fs, "c", strings.Repeat("c", 4096))
	d := writeFile(t, fs, "d", strings.Repeat("d", 8192))
	sync(t, fs, c)
	sync(t, fs, d)
	sync(t, fs, fs.Root())
	checkErr(t, "unlink c", fs.Unlink(fs.Root(), "c"), 0)
	fs.Unnamed(c)
	checkErr(t, "unlink d", fs.Unlink(fs.Root(), "d"), 0)
	fs.Release(d) // removed while open, now closed
	if got := fs.Usage(); got != 0 {
		t.Fatalf("usage with both files removed %d, want 0", got)
	}
	rd := wire.NewReader(encodeFS(fs))
	fs = Decode(rd, nil)
	if err := rd.Done(); err != nil || fs.Usage() != 0 {
		t.Fatalf("decoded: %v, usage %d", err, fs.Usage())
	}
	fs.Crash() // the removals were never synced
	if got := fs.Usage(); got != 12288 {
		t.Fatalf("usage after the crash brought both back %d, want 12288", got)
	}
	checkErr(t, "unlink c again", fs.Unlink(fs.Root(), "c"), 0)
	fs.Unnamed(c)
	if got := fs.Usage(); got != 8192 {
		t.Fatalf("usage after c was removed again %d, want 8192: the crash must have cleared its mark", got)
	}
}

// TestReleaseGivesPagesBack: a freed file's pages, its synced ones that its
// durable version shares counted once and the pages of its later writes, go
// to the pool, and the next file's writes take them, reading back what they
// wrote and zeros where they wrote nothing.
func TestReleaseGivesPagesBack(t *testing.T) {
	fs := newTestFS()
	f := writeFile(t, fs, "f", strings.Repeat("a", 3*PageBytes))
	sync(t, fs, f)
	if _, err := fs.WriteAt(f, []byte("b"), PageBytes+7); err != nil { // one page copied
		t.Fatal(err)
	}
	before := len(fs.pool.free)
	checkErr(t, "unlink", fs.Unlink(fs.Root(), "f"), 0)
	fs.Release(f)
	if got := len(fs.pool.free) - before; got != 4 {
		t.Fatalf("releasing a file of 3 pages, one of them copied, gave the pool %d pages, want 4", got)
	}
	g := writeFile(t, fs, "g", "")
	if _, err := fs.WriteAt(g, []byte("c"), 2*PageBytes+5); err != nil {
		t.Fatal(err)
	}
	if got, want := contentOf(t, fs, g), strings.Repeat("\x00", 2*PageBytes+5)+"c"; got != want {
		t.Fatalf("a file written over pages from the pool reads %q..., want zeros and \"c\"", got[:16])
	}
	if got := len(fs.pool.free); got != before+3 {
		t.Fatalf("the new file's one page did not come from the pool: %d free, want %d", got, before+3)
	}
}

func TestRelease(t *testing.T) {
	fs := newTestFS()
	f := writeFile(t, fs, "f", "x")
	fs.Release(f)
	if _, err := fs.Stat(f); err != nil {
		t.Fatalf("release of a named file freed it: %v", err)
	}
	checkErr(t, "unlink", fs.Unlink(fs.Root(), "f"), 0)
	fs.Release(f)
	_, err := fs.Stat(f)
	checkErr(t, "stat released", err, EBADF)
	fs.Release(fs.Root())
	fs.Release(999)
	if _, err := fs.Stat(fs.Root()); err != nil {
		t.Fatal("root released")
	}

	// Under StrictDirs a durable name keeps the inode, and so does a pending
	// operation that names it.
	fs = newTestFS()
	fs.StrictDirs = true
	g := writeFile(t, fs, "g", "x")
	sync(t, fs, fs.Root())
	checkErr(t, "unlink", fs.Unlink(fs.Root(), "g"), 0)
	fs.Release(g)
	if _, err := fs.Stat(g); err != nil {
		t.Fatal("released an inode with a durable name")
	}
	h := writeFile(t, fs, "h", "x")
	checkErr(t, "unlink", fs.Unlink(fs.Root(), "h"), 0)
	fs.Release(h)
	if _, err := fs.Stat(h); err != nil {
		t.Fatal("released an inode named by a pending operation")
	}
	fs.Crash()
	if _, err := fs.Stat(g); err != nil {
		t.Fatalf("g lost: its unlink was never synced: %v", err)
	}
	if got := tree(fs); got != "g file 0\n" {
		t.Fatalf("tree after crash = %q", got)
	}
}
