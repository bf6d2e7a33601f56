package disk

import "testing"

func newStrictFS() *FS {
	fs := newTestFS()
	fs.StrictDirs = true
	return fs
}

func TestStrictDirsCrash(t *testing.T) {
	tests := []struct {
		name string
		do   func(t *testing.T, fs *FS)
		tree string            // tree after the crash
		want map[string]string // contents after the crash
	}{
		{
			name: "synced file without directory sync is lost",
			do: func(t *testing.T, fs *FS) {
				sync(t, fs, writeFile(t, fs, "f", "hello"))
			},
			tree: "",
		},
		{
			name: "synced file with directory sync survives",
			do: func(t *testing.T, fs *FS) {
				sync(t, fs, writeFile(t, fs, "f", "hello"))
				sync(t, fs, fs.Root())
			},
			tree: "f file 5\n",
			want: map[string]string{"f": "hello"},
		},
		{
			name: "directory sync before the file sync keeps the entry, not the data",
			do: func(t *testing.T, fs *FS) {
				writeFile(t, fs, "f", "hello")
				sync(t, fs, fs.Root())
			},
			tree: "f file 0\n",
		},
		{
			name: "new directory needs its own parent synced",
			do: func(t *testing.T, fs *FS) {
				mkdir(t, fs, "a")
				sync(t, fs, writeFile(t, fs, "a/f", "x"))
				sync(t, fs, lookup(t, fs, "a"))
			},
			tree: "",
		},
		{
			name: "new directory with both syncs survives",
			do: func(t *testing.T, fs *FS) {
				mkdir(t, fs, "a")
				sync(t, fs, writeFile(t, fs, "a/f", "x"))
				sync(t, fs, lookup(t, fs, "a"))
				sync(t, fs, fs.Root())
			},
			tree: "a dir\na/f file 1\n",
			want: map[string]string{"a/f": "x"},
		},
		{
			name: "syncing one directory leaves the others pending",
			do: func(t *testing.T, fs *FS) {
				mkdir(t, fs, "a")
				mkdir(t, fs, "b")
				sync(t, fs, fs.Root())
				writeFile(t, fs, "a/x", "")
				writeFile(t, fs, "b/y", "")
				sync(t, fs, lookup(t, fs, "b"))
			},
			tree: "a dir\nb dir\nb/y file 0\n",
		},
		{
			name: "sync of a later directory does not need earlier unrelated ops",
			do: func(t *testing.T, fs *FS) {
				writeFile(t, fs, "x", "")
				symlink(t, fs, "x", "s")
				if err := fs.Unlink(fs.Root(), "x"); err != nil {
					t.Fatal(err)
				}
				// x's create and unlink and s's symlink are all in the root.
				sync(t, fs, fs.Root())
			},
			tree: "s -> x\n",
		},
		{
			name: "unlink without directory sync comes back",
			do: func(t *testing.T, fs *FS) {
				sync(t, fs, writeFile(t, fs, "f", "hello"))
				sync(t, fs, fs.Root())
				if err := fs.Unlink(fs.Root(), "f"); err != nil {
					t.Fatal(err)
				}
			},
			tree: "f file 5\n",
			want: map[string]string{"f": "hello"},
		},
		{
			name: "unlink with directory sync stays gone",
			do: func(t *testing.T, fs *FS) {
				sync(t, fs, writeFile(t, fs, "f", "hello"))
				sync(t, fs, fs.Root())
				if err := fs.Unlink(fs.Root(), "f"); err != nil {
					t.Fatal(err)
				}
				sync(t, fs, fs.Root())
			},
			tree: "",
		},
		{
			name: "rename over a file without directory sync keeps the old version",
			do: func(t *testing.T, fs *FS) {
				sync(t, fs, writeFile(t, fs, "data", "old"))
				sync(t, fs, fs.Root())
				sync(t, fs, writeFile(t, fs, "data.tmp", "new"))
				if err := fs.Rename(fs.Root(), "data.tmp", fs.Root(), "data"); err != nil {
					t.Fatal(err)
				}
			},
			tree: "data file 3\n",
			want: map[string]string{"data": "old"},
		},
		{
			name: "rename over a file with directory sync",
			do: func(t *testing.T, fs *FS) {
				sync(t, fs, writeFile(t, fs, "data", "old"))
				sync(t, fs, fs.Root())
				sync(t, fs, writeFile(t, fs, "data.tmp", "new"))
				if err := fs.Rename(fs.Root(), "data.tmp", fs.Root(), "data"); err != nil {
					t.Fatal(err)
				}
				sync(t, fs, fs.Root())
			},
			tree: "data file 3\n",
			want: map[string]string{"data": "new"},
		},
		{
			name: "rename across directories needs both parents",
			do: func(t *testing.T, fs *FS) {
				mkdir(t, fs, "a")
				mkdir(t, fs, "b")
				sync(t, fs, writeFile(t, fs, "a/f", "x"))
				sync(t, fs, lookup(t, fs, "a"))
				sync(t, fs, fs.Root())
				if err := fs.Rename(fs.Root(), "a/f", fs.Root(), "b/g"); err != nil {
					t.Fatal(err)
				}
				sync(t, fs, lookup(t, fs, "b"))
			},
			tree: "a dir\na/f file 1\nb dir\n",
		},
		{
			name: "rename across directories with both parents synced",
			do: func(t *testing.T, fs *FS) {
				mkdir(t, fs, "a")
				mkdir(t, fs, "b")
				sync(t, fs, writeFile(t, fs, "a/f", "x"))
				sync(t, fs, lookup(t, fs, "a"))
				sync(t, fs, fs.Root())
				if err := fs.Rename(fs.Root(), "a/f", fs.Root(), "b/g"); err != nil {
					t.Fatal(err)
				}
				sync(t, fs, lookup(t, fs, "b"))
				sync(t, fs, lookup(t, fs, "a"))
			},
			tree: "a dir\nb dir\nb/g file 1\n",
		},
		{
			name: "a create pulls in the earlier rename of the same name",
			do: func(t *testing.T, fs *FS) {
				mkdir(t, fs, "a")
				mkdir(t, fs, "b")
				sync(t, fs, writeFile(t, fs, "a/x", "old"))
				sync(t, fs, lookup(t, fs, "a"))
				sync(t, fs, fs.Root())
				if err := fs.Rename(fs.Root(), "a/x", fs.Root(), "b/y"); err != nil {
					t.Fatal(err)
				}
				sync(t, fs, writeFile(t, fs, "a/x", "new"))
				// Syncing a makes a/x durable; the rename that freed the name
				// must come along, or the old file would lose its only name.
				sync(t, fs, lookup(t, fs, "a"))
			},
			tree: "a dir\na/x file 3\nb dir\nb/y file 3\n",
			want: map[string]string{"a/x": "new", "b/y": "old"},
		},
		{
			name: "rmdir pulls in the operations that emptied the directory",
			do: func(t *testing.T, fs *FS) {
				mkdir(t, fs, "d")
				mkdir(t, fs, "keep")
				sync(t, fs, writeFile(t, fs, "d/f", "x"))
				sync(t, fs, lookup(t, fs, "d"))
				sync(t, fs, fs.Root())
				if err := fs.Rename(fs.Root(), "d/f", fs.Root(), "keep/f"); err != nil {
					t.Fatal(err)
				}
				if err := fs.Rmdir(fs.Root(), "d"); err != nil {
					t.Fatal(err)
				}
				sync(t, fs, fs.Root())
			},
			tree: "keep dir\nkeep/f file 1\n",
			want: map[string]string{"keep/f": "x"},
		},
		{
			name: "directory renames stay in order",
			do: func(t *testing.T, fs *FS) {
				mkdir(t, fs, "a")
				mkdir(t, fs, "b")
				sync(t, fs, fs.Root())
				a := lookup(t, fs, "a")
				mv := func(from, to string) {
					if err := fs.Rename(fs.Root(), from, fs.Root(), to); err != nil {
						t.Fatal(err)
					}
				}
				mv("b", "a/b")
				sync(t, fs, a)
				mv("a/b", "b")
				mv("a", "b/a")
				// The first move has both parents synced; the last one gets
				// them with sync(b). Without the second move, which waits for
				// a, they would leave a and b inside each other, unreachable.
				sync(t, fs, fs.Root())
				sync(t, fs, lookup(t, fs, "b"))
			},
			tree: "b dir\nb/a dir\n",
		},
		{
			name: "symlink and link need the directory sync",
			do: func(t *testing.T, fs *FS) {
				mkdir(t, fs, "d")
				sync(t, fs, writeFile(t, fs, "f", "x"))
				sync(t, fs, fs.Root())
				symlink(t, fs, "f", "s")
				if err := fs.Link(fs.Root(), "f", fs.Root(), "d/h"); err != nil {
					t.Fatal(err)
				}
				sync(t, fs, lookup(t, fs, "d"))
			},
			tree: "d dir\nd/h file 1\nf file 1\n",
		},
		{
			name: "file sync does not make its entry durable",
			do: func(t *testing.T, fs *FS) {
				mkdir(t, fs, "d")
				sync(t, fs, fs.Root())
				sync(t, fs, writeFile(t, fs, "d/f", "x"))
			},
			tree: "d dir\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := newStrictFS()
			tt.do(t, fs)
			checkConsistent(t, fs)
			fs.Crash()
			checkCrashed(t, fs)
			if got := tree(fs); got != tt.tree {
				t.Errorf("tree after crash:\n%s\nwant\n%s", got, tt.tree)
			}
			for path, want := range tt.want {
				if got := readFile(t, fs, path); got != want {
					t.Errorf("%s after crash = %q, want %q", path, got, want)
				}
			}
		})
	}
}

func TestStrictDirsPendingList(t *testing.T) {
	fs := newStrictFS()
	mkdir(t, fs, "a")
	writeFile(t, fs, "a/f", "")
	if err := fs.Rename(fs.Root(), "a/f", fs.Root(), "g"); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, op := range fs.dirOps {
		kinds = append(kinds, op.kind.String())
	}
	if got := join(kinds); got != "mkdir create rename" {
		t.Fatalf("pending = %s", got)
	}
	a := lookup(t, fs, "a")
	if got := fs.dirOps[2].parents; len(got) != 2 || got[0] != fs.Root() || got[1] != a {
		t.Fatalf("rename parents = %v", got)
	}
	sync(t, fs, a)
	// The create in a becomes durable; a's mkdir and the rename wait for the root.
	if len(fs.dirOps) != 2 || fs.dirOps[0].kind != opMkdir || fs.dirOps[1].kind != opRename {
		t.Fatalf("after sync(a): %d pending, want mkdir and rename", len(fs.dirOps))
	}
	if got := fs.inodes[a].durableEntries["f"]; got == 0 {
		t.Fatal("a/f is not a durable entry of a")
	}
	sync(t, fs, fs.Root())
	if len(fs.dirOps) != 0 {
		t.Fatalf("after sync(root): %d pending", len(fs.dirOps))
	}
	checkConsistent(t, fs)
	// The file's data was never synced.
	fs.Crash()
	if got := tree(fs); got != "a dir\ng file 0\n" {
		t.Fatalf("tree = %q", got)
	}
}

func TestStrictDirsTurnedOff(t *testing.T) {
	fs := newStrictFS()
	writeFile(t, fs, "a", "")
	fs.StrictDirs = false
	writeFile(t, fs, "b", "")
	if len(fs.dirOps) != 0 {
		t.Fatalf("%d operations still pending", len(fs.dirOps))
	}
	fs.Crash()
	if got := tree(fs); got != "a file 0\nb file 0\n" {
		t.Fatalf("tree = %q", got)
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}
