package disk

import "testing"

// renameFixture builds:
//
//	f "F", g "G", h -> hard link of f
//	d/x "X", d/sub/, e/ (empty), e2/ (empty)
//	ln-d -> d, ln-f -> f, ln-abs -> /d
func renameFixture(t *testing.T) *FS {
	fs := newTestFS()
	writeFile(t, fs, "f", "F")
	writeFile(t, fs, "g", "G")
	if err := fs.Link(fs.Root(), "f", fs.Root(), "h"); err != nil {
		t.Fatal(err)
	}
	mkdir(t, fs, "d")
	writeFile(t, fs, "d/x", "X")
	mkdir(t, fs, "d/sub")
	mkdir(t, fs, "e")
	mkdir(t, fs, "e2")
	symlink(t, fs, "d", "ln-d")
	symlink(t, fs, "f", "ln-f")
	symlink(t, fs, "/d", "ln-abs")
	return fs
}

func TestRename(t *testing.T) {
	base := tree(renameFixture(t))
	tests := []struct {
		name     string
		old, new string
		err      Errno
		// want lists changes as "path=content" checks after the rename;
		// content "<ENOENT>" means the path is gone.
		want []string
	}{
		{"file to new name", "g", "g2", 0, []string{"g2=G", "g=<ENOENT>"}},
		{"file replaces file", "g", "f", 0, []string{"f=G", "g=<ENOENT>", "h=F"}},
		{"file into dir", "g", "d/g", 0, []string{"d/g=G", "g=<ENOENT>"}},
		{"file out of dir", "d/x", "x", 0, []string{"x=X", "d/x=<ENOENT>"}},
		{"file over dir", "g", "e", EISDIR, nil},
		{"file over non-empty dir", "g", "d", EISDIR, nil},
		{"file with trailing slash", "g/", "g2", ENOTDIR, nil},
		{"file to trailing slash", "g", "g2/", ENOTDIR, nil},
		{"same name", "g", "g", 0, []string{"g=G"}},
		{"same name via dots", "g", "./d/../g", 0, []string{"g=G"}},
		{"hard link onto itself", "f", "h", 0, []string{"f=F", "h=F"}},
		{"dir to new name", "d", "d2", 0, []string{"d2/x=X", "d/x=<ENOENT>"}},
		{"dir with trailing slashes", "d/", "d2/", 0, []string{"d2/x=X"}},
		{"dir over empty dir", "d", "e", 0, []string{"e/x=X", "d=<ENOENT>"}},
		{"empty dir over empty dir", "e", "e2", 0, []string{"e=<ENOENT>"}},
		{"dir over non-empty dir", "e", "d", ENOTEMPTY, nil},
		{"dir over file", "d", "g", ENOTDIR, nil},
		{"dir over symlink", "e", "ln-f", ENOTDIR, nil},
		{"dir into itself", "d", "d/d", EINVAL, nil},
		{"dir into own subtree", "d", "d/sub/d", EINVAL, nil},
		{"dir onto own child", "d", "d/sub", EINVAL, nil},
		{"dir into subtree via symlink", "d", "ln-d/sub/z", EINVAL, nil},
		{"dir into sibling", "e", "d/sub/e", 0, []string{"d/sub/e=<dir>", "e=<ENOENT>"}},
		{"symlink renamed not target", "ln-f", "ln-g", 0, []string{"ln-g=F", "ln-f=<ENOENT>", "f=F"}},
		{"symlink to dir renamed", "ln-d", "e/l", 0, []string{"e/l/x=<ENOENT>", "ln-d=<ENOENT>", "d/x=X"}}, // the target now resolves from e
		{"absolute symlink renamed", "ln-abs", "e/l", 0, []string{"e/l/x=X"}},
		{"file replaces symlink", "g", "ln-f", 0, []string{"ln-f=G", "f=F"}},
		{"missing", "nope", "x", ENOENT, nil},
		{"missing parent of new", "g", "nodir/g", ENOENT, nil},
		{"new parent is file", "g", "f/g", ENOTDIR, nil},
		{"old dot", ".", "x", EINVAL, nil},
		{"old dotdot", "d/..", "x", EINVAL, nil},
		{"new dot", "e", "d/.", EINVAL, nil},
		{"new dotdot", "g", "d/..", EINVAL, nil},
		{"old absolute", "/g", "x", ENOTCAPABLE, nil},
		{"new escapes", "g", "../g", ENOTCAPABLE, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := renameFixture(t)
			checkErr(t, "rename "+tt.old+" "+tt.new, fs.Rename(fs.Root(), tt.old, fs.Root(), tt.new), tt.err)
			if tt.err != 0 {
				if got := tree(fs); got != base {
					t.Fatalf("failed rename changed the tree:\n%s\nwant\n%s", got, base)
				}
				return
			}
			for _, w := range tt.want {
				path, content, _ := cut(w, "=")
				if got := readFile(t, fs, path); got != content {
					t.Errorf("%s = %q, want %q", path, got, content)
				}
			}
			checkConsistent(t, fs)
		})
	}
}

func TestRenameReplacedFileStaysOpen(t *testing.T) {
	fs := renameFixture(t)
	g, f := lookup(t, fs, "g"), lookup(t, fs, "f")
	checkErr(t, "rename", fs.Rename(fs.Root(), "f", fs.Root(), "g"), 0)
	if got := contentOf(t, fs, g); got != "G" {
		t.Fatalf("replaced file content = %q", got)
	}
	if st, _ := fs.Stat(g); st.Nlink != 0 {
		t.Fatalf("replaced file nlink = %d", st.Nlink)
	}
	if st, _ := fs.Stat(f); st.Nlink != 2 {
		t.Fatalf("renamed file nlink = %d (f had names f and h)", st.Nlink)
	}
	if got := fs.PathOf(g); got != "g (deleted)" {
		t.Fatalf("PathOf replaced = %q", got)
	}
}

func TestRenameDirUpdatesParentAndNlink(t *testing.T) {
	fs := renameFixture(t)
	d, e := lookup(t, fs, "d"), lookup(t, fs, "e")
	checkErr(t, "rename", fs.Rename(fs.Root(), "d", e, "moved"), 0)
	if fs.Parent(d) != e {
		t.Fatalf("Parent = %d, want %d", fs.Parent(d), e)
	}
	if st, _ := fs.Stat(e); st.Nlink != 3 {
		t.Fatalf("e nlink = %d, want 3", st.Nlink)
	}
	if st, _ := fs.Stat(fs.Root()); st.Nlink != 4 { // e, e2 and the root's own two
		t.Fatalf("root nlink = %d, want 4", st.Nlink)
	}
	got, err := fs.Lookup(d, "../../f", false)
	checkErr(t, "lookup via new parent", err, 0)
	if got != lookup(t, fs, "f") {
		t.Fatal("'..' does not follow the new parent")
	}
	checkErr(t, "rename old dir gone", fs.Rename(fs.Root(), "d", fs.Root(), "z"), ENOENT)
}

func cut(s, sep string) (string, string, bool) {
	for i := 0; i+len(sep) <= len(s); i++ {
		if s[i:i+len(sep)] == sep {
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}
