package disk

import (
	"fmt"
	"strings"
	"testing"
)

// pathFixture builds:
//
//	a/b/f        "hello"
//	f            "top"
//	ln-f   -> f
//	ln-a   -> a
//	ln-abs -> /a/b
//	ln-root -> /
//	ln-dangling -> nope
//	loop1 -> loop2, loop2 -> loop1, self -> self
//	up     -> ../x
//	abs-up -> /..
//	a/ln-up -> ../f
//	c0 -> c1 -> ... -> c40 -> f   (c1 is 40 hops from f)
func pathFixture(t *testing.T) *FS {
	fs := newTestFS()
	mkdir(t, fs, "a")
	mkdir(t, fs, "a/b")
	writeFile(t, fs, "a/b/f", "hello")
	writeFile(t, fs, "f", "top")
	symlink(t, fs, "f", "ln-f")
	symlink(t, fs, "a", "ln-a")
	symlink(t, fs, "/a/b", "ln-abs")
	symlink(t, fs, "/", "ln-root")
	symlink(t, fs, "nope", "ln-dangling")
	symlink(t, fs, "loop2", "loop1")
	symlink(t, fs, "loop1", "loop2")
	symlink(t, fs, "self", "self")
	symlink(t, fs, "../x", "up")
	symlink(t, fs, "/..", "abs-up")
	symlink(t, fs, "../f", "a/ln-up")
	symlink(t, fs, "f", "c40")
	for i := 39; i >= 0; i-- {
		symlink(t, fs, fmt.Sprintf("c%d", i+1), fmt.Sprintf("c%d", i))
	}
	return fs
}

func TestLookup(t *testing.T) {
	fs := pathFixture(t)
	ino := func(path string) Ino { return lookup(t, fs, path) }
	root, a, b, abf, f := fs.Root(), ino("a"), ino("a/b"), ino("a/b/f"), ino("f")
	tests := []struct {
		name   string
		dir    Ino
		path   string
		follow bool
		want   Ino
		err    Errno
	}{
		{"plain", root, "a/b/f", false, abf, 0},
		{"dir", root, "a", false, a, 0},
		{"dot", root, ".", false, root, 0},
		{"dot slash", root, "./", false, root, 0},
		{"dots inside", root, "a/./b/../b/f", false, abf, 0},
		{"dotdot to root", root, "a/..", false, root, 0},
		{"dotdot from subdir", a, "../f", false, f, 0},
		{"relative to dir", a, "b/f", false, abf, 0},
		{"repeated slashes", root, "a//b///f", false, abf, 0},
		{"trailing slash on dir", root, "a/b/", false, b, 0},
		{"empty", root, "", false, 0, ENOENT},
		{"absolute", root, "/a", false, 0, ENOTCAPABLE},
		{"absolute root", root, "/", false, 0, ENOTCAPABLE},
		{"dotdot above root", root, "..", false, 0, ENOTCAPABLE},
		{"dotdot above root later", root, "a/../..", false, 0, ENOTCAPABLE},
		{"dotdot above root from dir", a, "../..", false, 0, ENOTCAPABLE},
		{"dotdot above root then back", root, "../a", false, 0, ENOTCAPABLE},
		{"missing", root, "nope", false, 0, ENOENT},
		{"missing parent", root, "nope/x", false, 0, ENOENT},
		{"file as dir", root, "f/x", false, 0, ENOTDIR},
		{"trailing slash on file", root, "f/", false, 0, ENOTDIR},
		{"dot after file", root, "f/.", false, 0, ENOTDIR},
		{"name too long", root, strings.Repeat("x", NameBytesMax+1), false, 0, ENAMETOOLONG},
		{"name at limit", root, strings.Repeat("x", NameBytesMax), false, 0, ENOENT},
		{"path too long", root, strings.Repeat("a/", PathBytesMax/2) + "x", false, 0, ENAMETOOLONG},
		{"nul byte", root, "a\x00b", false, 0, EINVAL},
		{"symlink not followed", root, "ln-f", false, ino("ln-f"), 0},
		{"symlink followed", root, "ln-f", true, f, 0},
		{"symlink slash follows", root, "ln-a/", false, a, 0},
		{"symlink to file with slash", root, "ln-f/", true, 0, ENOTDIR},
		{"intermediate symlink", root, "ln-a/b/f", false, abf, 0},
		{"absolute target from fs root", root, "ln-abs/f", false, abf, 0},
		{"absolute target from subdir", a, "../ln-abs/f", false, abf, 0},
		{"target slash root", root, "ln-root/f", false, f, 0},
		{"target root followed", root, "ln-root", true, root, 0},
		{"relative target resolved from link dir", root, "a/ln-up", true, f, 0},
		{"dangling not followed", root, "ln-dangling", false, ino("ln-dangling"), 0},
		{"dangling followed", root, "ln-dangling", true, 0, ENOENT},
		{"dangling intermediate", root, "ln-dangling/x", false, 0, ENOENT},
		{"loop not followed", root, "loop1", false, ino("loop1"), 0},
		{"loop followed", root, "loop1", true, 0, ELOOP},
		{"loop intermediate", root, "loop1/x", false, 0, ELOOP},
		{"self loop", root, "self", true, 0, ELOOP},
		{"symlink escapes", root, "up", true, 0, ENOTCAPABLE},
		{"absolute symlink escapes", root, "abs-up", true, 0, ENOTCAPABLE},
		{"40 hops", root, "c1", true, f, 0},
		{"41 hops", root, "c0", true, 0, ELOOP},
		{"dir is a file", f, "x", false, 0, ENOTDIR},
		{"dir unknown", 999, "x", false, 0, EBADF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fs.Lookup(tt.dir, tt.path, tt.follow)
			checkErr(t, "lookup "+tt.path, err, tt.err)
			if got != tt.want {
				t.Fatalf("lookup %q = %d (%s), want %d (%s)", tt.path, got, fs.PathOf(got), tt.want, fs.PathOf(tt.want))
			}
		})
	}
}

func TestLookupInRemovedDir(t *testing.T) {
	fs := newTestFS()
	mkdir(t, fs, "d")
	d := lookup(t, fs, "d")
	checkErr(t, "rmdir", fs.Rmdir(fs.Root(), "d"), 0)
	_, err := fs.Lookup(d, "x", false)
	checkErr(t, "lookup in removed dir", err, ENOENT)
	got, err := fs.Lookup(d, ".", false)
	checkErr(t, "lookup dot in removed dir", err, 0)
	if got != d {
		t.Fatalf("lookup . = %d, want %d", got, d)
	}
	_, err = fs.Open(d, "x", OCreate, true)
	checkErr(t, "create in removed dir", err, ENOENT)
	checkErr(t, "mkdir in removed dir", fs.Mkdir(d, "x"), ENOENT)
	checkErr(t, "symlink in removed dir", fs.Symlink("t", d, "x"), ENOENT)
}
