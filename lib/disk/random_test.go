package disk

import (
	"fmt"
	"strings"
	"testing"
)

// xorshift is a small generator for test operations, so the test needs no math/rand.
type xorshift uint64

func (r *xorshift) next() uint64 {
	x := uint64(*r)
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	*r = xorshift(x)
	return x
}

func (r *xorshift) intn(n int) int { return int(r.next() % uint64(n)) }

func (r *xorshift) path() string {
	comps := []string{"a", "b", "c", "d", ".", ".."}
	depth := 1 + r.intn(3)
	parts := make([]string, depth)
	for i := range parts {
		parts[i] = comps[r.intn(4)]
		if r.intn(12) == 0 {
			parts[i] = comps[4+r.intn(2)]
		}
	}
	return strings.Join(parts, "/")
}

// durableView renders what a crash must leave: every path with the durable
// content of files and the target of symlinks.
func durableView(fs *FS) string {
	var b strings.Builder
	for _, f := range fs.Files() {
		n := fs.inodes[f.Ino]
		switch f.Type {
		case TypeRegular:
			fmt.Fprintf(&b, "%s %q\n", f.Path, n.durable.bytes())
		case TypeSymlink:
			fmt.Fprintf(&b, "%s -> %s\n", f.Path, n.target)
		default:
			fmt.Fprintf(&b, "%s/\n", f.Path)
		}
	}
	return b.String()
}

// currentView renders the current view in the form of durableView.
func currentView(fs *FS) string {
	var b strings.Builder
	for _, f := range fs.Files() {
		n := fs.inodes[f.Ino]
		switch f.Type {
		case TypeRegular:
			fmt.Fprintf(&b, "%s %q\n", f.Path, n.data.bytes())
		case TypeSymlink:
			fmt.Fprintf(&b, "%s -> %s\n", f.Path, n.target)
		default:
			fmt.Fprintf(&b, "%s/\n", f.Path)
		}
	}
	return b.String()
}

// randomRun applies steps random operations and checks the invariants after
// each one. Before each crash it syncs every file and directory when
// syncAll is set; the crash must then keep the whole current view. It
// returns a transcript of results.
func randomRun(t *testing.T, seed uint64, strict bool, steps int) string {
	t.Helper()
	r := xorshift(seed)
	fs := newTestFS()
	fs.StrictDirs = strict
	root := fs.Root()
	var open []Ino
	var log strings.Builder
	for step := range steps {
		var err error
		var what string
		switch op := r.intn(100); {
		case op < 10:
			what = "mkdir"
			err = fs.Mkdir(root, r.path())
		case op < 35:
			what = "write"
			var ino Ino
			ino, err = fs.Open(root, r.path(), OCreate, r.intn(2) == 0)
			if err == nil {
				open = append(open, ino)
				p := []byte(fmt.Sprintf("<%d>", step))
				_, err = fs.WriteAt(ino, p, int64(r.intn(12)))
			}
		case op < 50 && len(open) > 0:
			what = "write-open"
			ino := open[r.intn(len(open))]
			if r.intn(3) == 0 {
				err = fs.Truncate(ino, int64(r.intn(15)))
			} else {
				_, err = fs.WriteAt(ino, []byte(fmt.Sprintf("[%d]", step)), int64(r.intn(12)))
			}
		case op < 65:
			what = "sync"
			var ino Ino
			ino, err = fs.Lookup(root, r.path(), r.intn(2) == 0)
			if r.intn(4) == 0 {
				ino, err = root, nil
			}
			if err == nil {
				err = fs.Sync(ino)
			}
		case op < 72:
			what = "unlink"
			err = fs.Unlink(root, r.path())
		case op < 77:
			what = "rmdir"
			err = fs.Rmdir(root, r.path())
		case op < 88:
			what = "rename"
			err = fs.Rename(root, r.path(), root, r.path())
		case op < 93:
			what = "link"
			err = fs.Link(root, r.path(), root, r.path())
		case op < 98:
			what = "symlink"
			target := r.path()
			if r.intn(4) == 0 {
				target = "/" + target
			}
			err = fs.Symlink(target, root, r.path())
		default:
			what = "crash"
			if r.intn(2) == 0 {
				what = "sync-all+crash"
				for _, f := range fs.Files() {
					sync(t, fs, f.Ino)
				}
				sync(t, fs, root)
				if len(fs.dirOps) != 0 {
					t.Fatalf("seed %d step %d: %d directory operations pending after syncing everything", seed, step, len(fs.dirOps))
				}
				if cur, dur := currentView(fs), durableView(fs); cur != dur {
					t.Fatalf("seed %d step %d: after syncing everything, durable view\n%s\ndiffers from current view\n%s", seed, step, dur, cur)
				}
			}
			checkDurableTree(t, fs)
			want := durableView(fs)
			fs.Crash()
			checkCrashed(t, fs)
			open = nil
			if got := currentView(fs); !strict && got != want {
				t.Fatalf("seed %d step %d: after crash\n%s\nwant\n%s", seed, step, got, want)
			}
		}
		fmt.Fprintf(&log, "%d %s %s\n", step, what, errString(err))
		checkConsistent(t, fs)
		if t.Failed() {
			t.Fatalf("seed %d step %d", seed, step)
		}
	}
	log.WriteString(currentView(fs))
	for _, f := range fs.Files() {
		st, _ := fs.Stat(f.Ino)
		fmt.Fprintf(&log, "%+v\n", st)
	}
	return log.String()
}

// checkDurableTree checks that the durable entries reachable from the root
// form a tree: no directory has two durable names and every name is an inode.
func checkDurableTree(t *testing.T, fs *FS) {
	t.Helper()
	seen := map[Ino]bool{RootIno: true}
	for queue := []Ino{RootIno}; len(queue) > 0; queue = queue[1:] {
		for name, ino := range fs.inodes[queue[0]].durableEntries {
			n := fs.inodes[ino]
			if n == nil {
				t.Fatalf("durable entry %q in %s names freed ino %d", name, fs.PathOf(queue[0]), ino)
			}
			if n.typ != TypeDir {
				continue
			}
			if seen[ino] {
				t.Fatalf("directory %d has two durable names, one is %q in %s", ino, name, fs.PathOf(queue[0]))
			}
			seen[ino] = true
			queue = append(queue, ino)
		}
	}
}

func TestRandomOperations(t *testing.T) {
	skipUnderRace(t)
	steps := 3000
	if testing.Short() {
		steps = 500
	}
	for _, strict := range []bool{false, true} {
		for seed := uint64(1); seed <= 20; seed++ {
			t.Run(fmt.Sprintf("strict=%v/seed=%d", strict, seed), func(t *testing.T) {
				t.Parallel()
				randomRun(t, seed*0x9e3779b97f4a7c15, strict, steps)
			})
		}
	}
}

func TestDeterministic(t *testing.T) {
	skipUnderRace(t)
	for _, strict := range []bool{false, true} {
		a := randomRun(t, 42, strict, 2000)
		b := randomRun(t, 42, strict, 2000)
		if a != b {
			t.Fatalf("strict=%v: two runs of the same operations differ", strict)
		}
		if !strings.Contains(a, "crash ok") {
			t.Fatal("the run never crashed")
		}
	}
}
