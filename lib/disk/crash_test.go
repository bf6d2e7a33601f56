package disk

import (
	"bytes"
	"testing"
)

// TestCrash runs scenarios with the default, non-strict directories and
// compares the tree and contents after a crash.
func TestCrash(t *testing.T) {
	tests := []struct {
		name string
		do   func(t *testing.T, fs *FS)
		tree string            // tree after the crash
		want map[string]string // contents after the crash
	}{
		{
			name: "write without sync is lost, entry stays",
			do: func(t *testing.T, fs *FS) {
				writeFile(t, fs, "f", "hello")
			},
			tree: "f file 0\n",
		},
		{
			name: "write and sync is kept",
			do: func(t *testing.T, fs *FS) {
				sync(t, fs, writeFile(t, fs, "f", "hello"))
			},
			tree: "f file 5\n",
			want: map[string]string{"f": "hello"},
		},
		{
			name: "overwrite after sync reverts",
			do: func(t *testing.T, fs *FS) {
				f := writeFile(t, fs, "f", "hello")
				sync(t, fs, f)
				if _, err := fs.WriteAt(f, []byte("HELLO, world"), 0); err != nil {
					t.Fatal(err)
				}
			},
			want: map[string]string{"f": "hello"},
		},
		{
			name: "second sync keeps the overwrite",
			do: func(t *testing.T, fs *FS) {
				f := writeFile(t, fs, "f", "hello")
				sync(t, fs, f)
				if _, err := fs.WriteAt(f, []byte("J"), 0); err != nil {
					t.Fatal(err)
				}
				sync(t, fs, f)
				if _, err := fs.WriteAt(f, []byte("!"), 5); err != nil {
					t.Fatal(err)
				}
			},
			want: map[string]string{"f": "Jello"},
		},
		{
			name: "truncate without sync is lost",
			do: func(t *testing.T, fs *FS) {
				f := writeFile(t, fs, "f", "hello")
				sync(t, fs, f)
				if err := fs.Truncate(f, 1); err != nil {
					t.Fatal(err)
				}
			},
			want: map[string]string{"f": "hello"},
		},
		{
			name: "truncate with sync is kept",
			do: func(t *testing.T, fs *FS) {
				f := writeFile(t, fs, "f", "hello")
				sync(t, fs, f)
				if err := fs.Truncate(f, 2); err != nil {
					t.Fatal(err)
				}
				sync(t, fs, f)
			},
			want: map[string]string{"f": "he"},
		},
		{
			name: "open with O_TRUNC without sync is lost",
			do: func(t *testing.T, fs *FS) {
				sync(t, fs, writeFile(t, fs, "f", "hello"))
				writeFile(t, fs, "f", "new")
			},
			want: map[string]string{"f": "hello"},
		},
		{
			name: "unlink stays gone",
			do: func(t *testing.T, fs *FS) {
				sync(t, fs, writeFile(t, fs, "f", "hello"))
				writeFile(t, fs, "g", "keep")
				if err := fs.Unlink(fs.Root(), "f"); err != nil {
					t.Fatal(err)
				}
			},
			tree: "g file 0\n",
		},
		{
			name: "unlinked file synced through its handle is still gone",
			do: func(t *testing.T, fs *FS) {
				f := writeFile(t, fs, "f", "hello")
				if err := fs.Unlink(fs.Root(), "f"); err != nil {
					t.Fatal(err)
				}
				sync(t, fs, f)
			},
			tree: "",
		},
		{
			name: "hard link survives its first name",
			do: func(t *testing.T, fs *FS) {
				f := writeFile(t, fs, "f", "hello")
				sync(t, fs, f)
				if err := fs.Link(fs.Root(), "f", fs.Root(), "g"); err != nil {
					t.Fatal(err)
				}
				if err := fs.Unlink(fs.Root(), "f"); err != nil {
					t.Fatal(err)
				}
			},
			tree: "g file 5\n",
			want: map[string]string{"g": "hello"},
		},
		{
			name: "hard links share durable content",
			do: func(t *testing.T, fs *FS) {
				f := writeFile(t, fs, "f", "hello")
				if err := fs.Link(fs.Root(), "f", fs.Root(), "g"); err != nil {
					t.Fatal(err)
				}
				sync(t, fs, lookup(t, fs, "g"))
				if _, err := fs.WriteAt(f, []byte("y"), 0); err != nil {
					t.Fatal(err)
				}
			},
			want: map[string]string{"f": "hello", "g": "hello"},
		},
		{
			name: "rename is durable and atomic",
			do: func(t *testing.T, fs *FS) {
				sync(t, fs, writeFile(t, fs, "data", "old"))
				sync(t, fs, writeFile(t, fs, "data.tmp", "new"))
				if err := fs.Rename(fs.Root(), "data.tmp", fs.Root(), "data"); err != nil {
					t.Fatal(err)
				}
			},
			tree: "data file 3\n",
			want: map[string]string{"data": "new"},
		},
		{
			name: "rename without syncing the new file keeps the name, not the data",
			do: func(t *testing.T, fs *FS) {
				sync(t, fs, writeFile(t, fs, "data", "old"))
				writeFile(t, fs, "data.tmp", "new")
				if err := fs.Rename(fs.Root(), "data.tmp", fs.Root(), "data"); err != nil {
					t.Fatal(err)
				}
			},
			tree: "data file 0\n",
		},
		{
			name: "directories and symlinks survive",
			do: func(t *testing.T, fs *FS) {
				mkdir(t, fs, "a")
				mkdir(t, fs, "a/b")
				mkdir(t, fs, "gone")
				if err := fs.Rmdir(fs.Root(), "gone"); err != nil {
					t.Fatal(err)
				}
				symlink(t, fs, "a/b", "s")
				sync(t, fs, writeFile(t, fs, "s/f", "x"))
			},
			tree: "a dir\na/b dir\na/b/f file 1\ns -> a/b\n",
			want: map[string]string{"s/f": "x"},
		},
		{
			name: "ReadDir order after crash",
			do: func(t *testing.T, fs *FS) {
				for _, n := range []string{"c", "a", "b"} {
					writeFile(t, fs, n, "")
				}
			},
			tree: "a file 0\nb file 0\nc file 0\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := newTestFS()
			tt.do(t, fs)
			checkConsistent(t, fs)
			fs.Crash()
			checkCrashed(t, fs)
			if tt.tree != "" || tt.want == nil {
				if got := tree(fs); got != tt.tree {
					t.Errorf("tree after crash:\n%s\nwant\n%s", got, tt.tree)
				}
			}
			for path, want := range tt.want {
				if got := readFile(t, fs, path); got != want {
					t.Errorf("%s after crash = %q, want %q", path, got, want)
				}
			}
		})
	}
}

func TestCrashFreesAndKeepsInodes(t *testing.T) {
	fs := newTestFS()
	f := writeFile(t, fs, "f", "x")
	g := writeFile(t, fs, "g", "y")
	checkErr(t, "unlink", fs.Unlink(fs.Root(), "g"), 0)
	fs.Crash()
	if _, err := fs.Stat(f); err != nil {
		t.Fatalf("named file freed: %v", err)
	}
	_, err := fs.Stat(g)
	checkErr(t, "stat unlinked after crash", err, EBADF)
	_, err = fs.WriteAt(g, []byte("z"), 0)
	checkErr(t, "write unlinked after crash", err, EBADF)
	// Inode numbers are not reused.
	h := writeFile(t, fs, "h", "")
	if h <= g {
		t.Fatalf("new ino %d reuses a number at or below %d", h, g)
	}
}

func TestCrashTwiceAndKeepWorking(t *testing.T) {
	fs := newTestFS()
	mkdir(t, fs, "d")
	f := writeFile(t, fs, "d/f", "one")
	sync(t, fs, f)
	fs.Crash()
	fs.Crash()
	checkCrashed(t, fs)
	if got := readFile(t, fs, "d/f"); got != "one" {
		t.Fatalf("after two crashes: %q", got)
	}
	if _, err := fs.WriteAt(f, []byte("two"), 3); err != nil {
		t.Fatal(err)
	}
	sync(t, fs, f)
	checkErr(t, "rename", fs.Rename(fs.Root(), "d/f", fs.Root(), "g"), 0)
	fs.Crash()
	checkCrashed(t, fs)
	if got := readFile(t, fs, "g"); got != "onetwo" {
		t.Fatalf("after third crash: %q", got)
	}
}

func TestApplyPrefix(t *testing.T) {
	fs := newTestFS()
	f := writeFile(t, fs, "f", "abcdef")
	sync(t, fs, f)
	if _, err := fs.WriteAt(f, []byte("XYZ"), 4); err != nil { // abcdXYZ
		t.Fatal(err)
	}
	checkErr(t, "truncate", fs.Truncate(f, 2), 0)               // ab
	if _, err := fs.WriteAt(f, []byte("1234"), 4); err != nil { // ab\0\01234
		t.Fatal(err)
	}
	n := fs.inodes[f]
	tests := []struct {
		k, torn int
		want    string
	}{
		{0, 0, "abcdef"},
		{0, 2, "abcdXY"}, {0, 1, "abcdXf"},
		{0, 9, "abcdXYZ"},
		{1, 0, "abcdXYZ"},
		{1, 1, "abcdXYZ"}, // a truncate is never torn
		{2, 0, "ab"},
		{2, 1, "ab\x00\x001"},
		{3, 0, "ab\x00\x001234"},
	}
	for _, tt := range tests {
		if got := n.applyPrefix(tt.k, tt.torn); string(got) != tt.want {
			t.Errorf("applyPrefix(%d, %d) = %q, want %q", tt.k, tt.torn, got, tt.want)
		}
	}
	if !bytes.Equal(n.durable.bytes(), []byte("abcdef")) {
		t.Fatalf("applyPrefix changed the durable content: %q", n.durable.bytes())
	}
	for i, op := range n.pending {
		if i > 0 && op.seq <= n.pending[i-1].seq {
			t.Fatal("pending operations are not in sequence order")
		}
	}
}
