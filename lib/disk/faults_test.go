package disk

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sf-dst/sf/lib/rng"
)

func write(t *testing.T, fs *FS, ino Ino, p string, off int64) {
	t.Helper()
	if n, err := fs.WriteAt(ino, []byte(p), off); err != nil || n != len(p) {
		t.Fatalf("write %q at %d: %d, %v", p, off, n, err)
	}
}

// pages returns n pages, page i filled with the letter 'A'+i.
func pages(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(string(rune('A'+i)), PageBytes))
	}
	return b.String()
}

// syncedFile creates path with content, synced, its entry durable.
func syncedFile(t *testing.T, fs *FS, path, content string) Ino {
	t.Helper()
	f := writeFile(t, fs, path, content)
	sync(t, fs, f)
	sync(t, fs, fs.Root())
	return f
}

func corrupted(fs *FS, path string) [][2]int64 {
	for _, f := range fs.Files() {
		if f.Path == path {
			return f.Corrupted
		}
	}
	return nil
}

func TestSyncEIO(t *testing.T) {
	tests := []struct {
		name string
		do   func(t *testing.T, fs *FS, f Ino)
		want string // content of f after the crash
	}{
		{
			name: "crash right after the failed fsync loses the write",
			do: func(t *testing.T, fs *FS, f Ino) {
				write(t, fs, f, "new", 0)
				checkErr(t, "fsync", fs.SyncEIO(f), EIO)
			},
			want: "old",
		},
		{
			name: "the next fsync succeeds but does not write the dropped bytes",
			do: func(t *testing.T, fs *FS, f Ino) {
				write(t, fs, f, "new", 0)
				checkErr(t, "fsync", fs.SyncEIO(f), EIO)
				checkErr(t, "fsync again", fs.Sync(f), 0)
			},
			want: "old",
		},
		{
			name: "a dropped append leaves zeros once the size is durable",
			do: func(t *testing.T, fs *FS, f Ino) {
				write(t, fs, f, "+more", 3)
				checkErr(t, "fsync", fs.SyncEIO(f), EIO)
				checkErr(t, "fsync again", fs.Sync(f), 0)
			},
			want: "old\x00\x00\x00\x00\x00",
		},
		{
			name: "a later write to the page makes fsync write the page in full",
			do: func(t *testing.T, fs *FS, f Ino) {
				write(t, fs, f, "new", 0)
				checkErr(t, "fsync", fs.SyncEIO(f), EIO)
				write(t, fs, f, "!", 3)
				checkErr(t, "fsync again", fs.Sync(f), 0)
			},
			want: "new!",
		},
		{
			name: "writes after the failure are synced",
			do: func(t *testing.T, fs *FS, f Ino) {
				write(t, fs, f, "new", 0)
				checkErr(t, "fsync", fs.SyncEIO(f), EIO)
				write(t, fs, f, "more", PageBytes)
				checkErr(t, "fsync again", fs.Sync(f), 0)
			},
			want: "old" + strings.Repeat("\x00", PageBytes-3) + "more",
		},
		{
			name: "truncates persist",
			do: func(t *testing.T, fs *FS, f Ino) {
				checkErr(t, "truncate", fs.Truncate(f, 1), 0)
				checkErr(t, "fsync", fs.SyncEIO(f), EIO)
			},
			want: "o",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := newTestFS()
			f := syncedFile(t, fs, "f", "old")
			tt.do(t, fs, f)
			checkConsistent(t, fs)
			fs.Crash()
			checkCrashed(t, fs)
			if got := readFile(t, fs, "f"); got != tt.want {
				t.Errorf("after crash = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSyncEIOKeepsReadsAndOtherInodes(t *testing.T) {
	fs := newStrictFS()
	f := syncedFile(t, fs, "f", "old")
	write(t, fs, f, "new", 0)
	checkErr(t, "fsync", fs.SyncEIO(f), EIO)
	if got := contentOf(t, fs, f); got != "new" {
		t.Fatalf("read after EIO = %q, want the new content", got)
	}
	writeFile(t, fs, "g", "")
	checkErr(t, "directory fsync", fs.SyncEIO(fs.Root()), EIO)
	if len(fs.dirOps) != 1 {
		t.Fatalf("a failed directory fsync changed the pending operations: %d", len(fs.dirOps))
	}
	checkErr(t, "unknown inode", fs.SyncEIO(999), EBADF)
}

func TestSyncLosingPage(t *testing.T) {
	seen := map[int64]bool{}
	for i := range 40 {
		fs := newTestFS()
		f := syncedFile(t, fs, "f", pages(3))
		write(t, fs, f, "xx", 10)
		write(t, fs, f, "yy", 2*PageBytes+10)
		lost, err := fs.SyncLosingPage(f, rng.New(uint64(i), "lost_write"))
		checkErr(t, "fsync", err, 0)
		again, _ := newTestFSWithLostPage(t, uint64(i))
		if lost != again {
			t.Fatalf("stream %d: page %d, then %d from the same stream", i, lost, again)
		}
		seen[lost] = true
		want := []byte(pages(3))
		copy(want[10:], "xx")
		copy(want[2*PageBytes+10:], "yy")
		if got := contentOf(t, fs, f); got != string(want) {
			t.Fatalf("stream %d: reads lost the new content", i)
		}
		checkConsistent(t, fs)
		fs.Crash()
		checkCrashed(t, fs)
		copy(want[lost:lost+PageBytes], pages(3)[lost:lost+PageBytes])
		if got := readFile(t, fs, "f"); got != string(want) {
			t.Fatalf("stream %d: after crash page %d is not the old one", i, lost)
		}
		if got, want := corrupted(fs, "f"), [][2]int64{{lost, lost + PageBytes}}; !reflect.DeepEqual(got, want) {
			t.Fatalf("corrupted = %v, want %v", got, want)
		}
	}
	if !seen[0] || !seen[2*PageBytes] || len(seen) != 2 {
		t.Fatalf("lost pages %v, want both dirty pages and no other", seen)
	}
}

// newTestFSWithLostPage repeats the setup of TestSyncLosingPage.
func newTestFSWithLostPage(t *testing.T, stream uint64) (int64, *FS) {
	fs := newTestFS()
	f := syncedFile(t, fs, "f", pages(3))
	write(t, fs, f, "xx", 10)
	write(t, fs, f, "yy", 2*PageBytes+10)
	lost, err := fs.SyncLosingPage(f, rng.New(stream, "lost_write"))
	checkErr(t, "fsync", err, 0)
	return lost, fs
}

func TestSyncLosingPageCases(t *testing.T) {
	t.Run("a new page is lost as zeros", func(t *testing.T) {
		fs := newTestFS()
		f := syncedFile(t, fs, "f", pages(1))
		write(t, fs, f, "tail", PageBytes)
		lost, err := fs.SyncLosingPage(f, rng.New(1, "lost_write"))
		checkErr(t, "fsync", err, 0)
		if lost != PageBytes {
			t.Fatalf("lost %d, want the only dirty page %d", lost, PageBytes)
		}
		fs.Crash()
		if got := readFile(t, fs, "f"); got != pages(1)+"\x00\x00\x00\x00" {
			t.Fatalf("after crash: %q", got[PageBytes:])
		}
	})
	t.Run("a later fsync that writes the page writes it in full", func(t *testing.T) {
		_, fs := newTestFSWithLostPage(t, 3)
		f := lookup(t, fs, "f")
		write(t, fs, f, "z", 0)
		write(t, fs, f, "z", 2*PageBytes)
		sync(t, fs, f)
		want := contentOf(t, fs, f)
		fs.Crash()
		if got := readFile(t, fs, "f"); got != want {
			t.Fatal("the lost page was not rewritten in full")
		}
		if got := corrupted(fs, "f"); got != nil {
			t.Fatalf("corrupted = %v after the rewrite", got)
		}
	})
	t.Run("nothing pending is a plain sync", func(t *testing.T) {
		fs := newTestFS()
		f := syncedFile(t, fs, "f", "abc")
		checkErr(t, "truncate", fs.Truncate(f, 1), 0)
		lost, err := fs.SyncLosingPage(f, rng.New(1, "lost_write"))
		if lost != -1 || err != nil {
			t.Fatalf("= %d, %v; want -1, nil", lost, err)
		}
		fs.Crash()
		if got := readFile(t, fs, "f"); got != "a" {
			t.Fatalf("after crash %q", got)
		}
		lost, err = fs.SyncLosingPage(fs.Root(), rng.New(1, "lost_write"))
		if lost != -1 || err != nil {
			t.Fatalf("directory: %d, %v", lost, err)
		}
		_, err = fs.SyncLosingPage(999, rng.New(1, "lost_write"))
		checkErr(t, "unknown inode", err, EBADF)
	})
}

func TestSyncMisdirected(t *testing.T) {
	seen := map[[2]int64]bool{}
	for i := range 60 {
		fs := newTestFS()
		f := syncedFile(t, fs, "f", pages(3))
		write(t, fs, f, "xx", 10)
		write(t, fs, f, "yy", PageBytes+10)
		want := contentOf(t, fs, f)
		from, to, ok, err := fs.SyncMisdirected(f, rng.New(uint64(i), "misdirected_write"))
		if !ok || err != nil {
			t.Fatalf("stream %d: ok=%v err=%v", i, ok, err)
		}
		if from == to || from%PageBytes != 0 || to%PageBytes != 0 || from > PageBytes || to > 2*PageBytes {
			t.Fatalf("stream %d: from %d to %d", i, from, to)
		}
		seen[[2]int64{from, to}] = true
		if got := contentOf(t, fs, f); got != want {
			t.Fatalf("stream %d: reads changed", i)
		}
		checkConsistent(t, fs)
		fs.Crash()
		checkCrashed(t, fs)
		got := readFile(t, fs, "f")
		exp := []byte(want)
		copy(exp[from:from+PageBytes], pages(3)[from:from+PageBytes])
		copy(exp[to:to+PageBytes], want[from:from+PageBytes])
		if got != string(exp) {
			t.Fatalf("stream %d: from %d to %d: wrong content after crash", i, from, to)
		}
		wantDamage := [][2]int64{{min(from, to), min(from, to) + PageBytes}, {max(from, to), max(from, to) + PageBytes}}
		if from+PageBytes == to || to+PageBytes == from {
			wantDamage = [][2]int64{{min(from, to), max(from, to) + PageBytes}}
		}
		if got := corrupted(fs, "f"); !reflect.DeepEqual(got, wantDamage) {
			t.Fatalf("corrupted %v, want %v", got, wantDamage)
		}
	}
	if len(seen) != 4 { // from 0 or 1, to either other page
		t.Fatalf("saw %v, want all 4 pairs", seen)
	}
}

func TestSyncMisdirectedCases(t *testing.T) {
	t.Run("one page is a plain sync", func(t *testing.T) {
		fs := newTestFS()
		f := syncedFile(t, fs, "f", "abc")
		write(t, fs, f, "X", 0)
		_, _, ok, err := fs.SyncMisdirected(f, rng.New(1, "m"))
		if ok || err != nil {
			t.Fatalf("ok=%v err=%v; want a plain sync", ok, err)
		}
		fs.Crash()
		if got := readFile(t, fs, "f"); got != "Xbc" {
			t.Fatalf("after crash %q", got)
		}
	})
	t.Run("a write to a short last page is cut at the end of the file", func(t *testing.T) {
		fs := newTestFS()
		f := syncedFile(t, fs, "f", pages(1)+"tail")
		write(t, fs, f, "X", 0)
		from, to, ok, _ := fs.SyncMisdirected(f, rng.New(1, "m"))
		if !ok || from != 0 || to != PageBytes {
			t.Fatalf("from %d to %d ok %v", from, to, ok)
		}
		fs.Crash()
		if got := readFile(t, fs, "f"); got != pages(1)+"XAAA" {
			t.Fatalf("after crash: size %d, tail %q", len(got), got[PageBytes:])
		}
	})
	t.Run("a short last page lands zero-padded", func(t *testing.T) {
		fs := newTestFS()
		f := syncedFile(t, fs, "f", pages(1)+"tail")
		write(t, fs, f, "T", PageBytes)
		from, to, ok, _ := fs.SyncMisdirected(f, rng.New(1, "m"))
		if !ok || from != PageBytes || to != 0 {
			t.Fatalf("from %d to %d ok %v", from, to, ok)
		}
		fs.Crash()
		want := "Tail" + strings.Repeat("\x00", PageBytes-4) + "tail"
		if got := readFile(t, fs, "f"); got != want {
			t.Fatalf("after crash: %q...", got[:8])
		}
	})
}

func TestBitRot(t *testing.T) {
	fs := newTestFS()
	if _, ok := fs.BitRot(rng.New(1, "bitrot")); ok {
		t.Fatal("bit rot on an empty disk")
	}
	syncedFile(t, fs, "small", strings.Repeat("s", 100))
	syncedFile(t, fs, "big", strings.Repeat("b", 300))
	writeFile(t, fs, "unsynced", "never durable")
	hits := map[string]int{}
	r := rng.New(7, "bitrot")
	for range 4000 {
		d, ok := fs.BitRot(r)
		if !ok {
			t.Fatal("no bit rot with durable data")
		}
		hits[d.Path]++
	}
	if len(hits) != 2 || hits["big"] < 2*hits["small"] {
		t.Fatalf("hits %v; want about three times as many in big", hits)
	}
	checkConsistent(t, fs)

	// One flip is seen at once, and survives a crash.
	fs = newTestFS()
	f := syncedFile(t, fs, "f", "\x00")
	d, _ := fs.BitRot(rng.New(1, "bitrot"))
	if d != (Damage{Path: "f", Offset: 0, Bit: d.Bit}) {
		t.Fatalf("damage %+v", d)
	}
	want := string([]byte{1 << d.Bit})
	if got := contentOf(t, fs, f); got != want {
		t.Fatalf("read %q, want %q", got, want)
	}
	if got := corrupted(fs, "f"); !reflect.DeepEqual(got, [][2]int64{{0, 1}}) {
		t.Fatalf("corrupted %v", got)
	}
	fs.Crash()
	if got := readFile(t, fs, "f"); got != want {
		t.Fatalf("after crash %q, want %q", got, want)
	}
}

func TestBitRotUnderPendingWrite(t *testing.T) {
	fs := newTestFS()
	f := syncedFile(t, fs, "f", "\x00")
	write(t, fs, f, "w", 0)
	d, _ := fs.BitRot(rng.New(1, "bitrot"))
	if got := contentOf(t, fs, f); got != "w" {
		t.Fatalf("read %q: the pending write hides the flip", got)
	}
	checkConsistent(t, fs)
	fs.Crash() // the write was never synced: the flipped durable byte shows
	if got := readFile(t, fs, "f"); got != string([]byte{1 << d.Bit}) {
		t.Fatalf("after crash %q", got)
	}
	// A synced rewrite repairs it.
	f = lookup(t, fs, "f")
	write(t, fs, f, "\x00", 0)
	sync(t, fs, f)
	if got := corrupted(fs, "f"); got != nil {
		t.Fatalf("corrupted %v after the rewrite", got)
	}
}

func TestCapacity(t *testing.T) {
	type step struct {
		op   string // write OFF DATA, trunc SIZE, unlink, release, crash
		n    int
		err  Errno
		used int64
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"short write then ENOSPC", []step{
			{op: "write 0 123456", n: 6, used: 6},
			{op: "write 6 abcdef", n: 4, used: 10},
			{op: "write 10 x", err: ENOSPC, used: 10},
			{op: "write 0 ZZZZZ", n: 5, used: 10},
			{op: "write 8 ZZZZZ", n: 2, used: 10},
		}},
		{"holes count", []step{
			{op: "write 8 abcdef", n: 2, used: 10},
			{op: "write 20 x", err: ENOSPC, used: 10},
		}},
		{"space comes back when a file shrinks", []step{
			{op: "write 0 0123456789", n: 10, used: 10},
			{op: "trunc 4", used: 4},
			{op: "write 4 abcdefgh", n: 6, used: 10},
		}},
		{"a growing truncate is never refused", []step{
			{op: "trunc 100", used: 100},
			{op: "write 100 x", err: ENOSPC, used: 100},
			{op: "write 50 x", n: 1, used: 100},
		}},
		{"space comes back when a removed file is released", []step{
			{op: "write 0 0123456789", n: 10, used: 10},
			{op: "unlink", used: 10},
			{op: "release", used: 0},
		}},
		{"space comes back when a crash drops unsynced bytes", []step{
			{op: "write 0 0123456789", n: 10, used: 10},
			{op: "crash", used: 0},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := newTestFS()
			fs.SetCapacity(10)
			f := writeFile(t, fs, "f", "")
			for _, s := range tt.steps {
				fields := strings.Fields(s.op)
				var n int
				var err error
				switch fields[0] {
				case "write":
					var off int64
					fmt.Sscan(fields[1], &off)
					n, err = fs.WriteAt(f, []byte(fields[2]), off)
				case "trunc":
					var size int64
					fmt.Sscan(fields[1], &size)
					err = fs.Truncate(f, size)
				case "unlink":
					err = fs.Unlink(fs.Root(), "f")
				case "release":
					fs.Release(f)
				case "crash":
					fs.Crash()
				}
				checkErr(t, s.op, err, s.err)
				if n != s.n {
					t.Fatalf("%s: wrote %d, want %d", s.op, n, s.n)
				}
				if got := fs.Usage(); got != s.used {
					t.Fatalf("%s: usage %d, want %d", s.op, got, s.used)
				}
				checkConsistent(t, fs)
			}
		})
	}
}

func TestCapacityDefaultsToUnlimited(t *testing.T) {
	fs := newTestFS()
	if fs.Capacity() != 0 {
		t.Fatalf("capacity %d", fs.Capacity())
	}
	f := writeFile(t, fs, "f", "")
	write(t, fs, f, strings.Repeat("x", 1<<20), 0)
	if fs.Usage() != 1<<20 {
		t.Fatalf("usage %d", fs.Usage())
	}
}

func TestCorruptOnCrash(t *testing.T) {
	rules := CrashRules{Torn: true, CorruptOnCrash: true}
	offsets := map[int64]bool{}
	for i := range 300 {
		fs := newTestFS()
		syncedFile(t, fs, "f", "abcdef")
		f := lookup(t, fs, "f")
		write(t, fs, f, "WXYZ", 1)
		rep := fs.CrashWith(rules, rng.New(uint64(i), "crash"))
		checkCrashed(t, fs)
		got := readFile(t, fs, "f")
		if rep.Dropped == 1 {
			if got != "abcdef" || rep.Corrupted != nil {
				t.Fatalf("stream %d: nothing kept, yet %q, %v", i, got, rep.Corrupted)
			}
			continue
		}
		if len(rep.Corrupted) != 1 {
			t.Fatalf("stream %d: report %+v, want one flipped bit", i, rep)
		}
		d := rep.Corrupted[0]
		if d.Path != "f" || d.Offset < 1 || d.Offset > 4 {
			t.Fatalf("stream %d: damage %+v outside the write", i, d)
		}
		offsets[d.Offset] = true
		// Undo the flip: the rest is a torn write.
		b := []byte(got)
		b[d.Offset] ^= 1 << d.Bit
		torn := false
		for j := 1; j <= 4; j++ {
			torn = torn || string(b) == "a"+"WXYZ"[:j]+"bcdef"[j:]
		}
		if !torn {
			t.Fatalf("stream %d: %q is not a torn write", i, b)
		}
		if got := corrupted(fs, "f"); !reflect.DeepEqual(got, [][2]int64{{d.Offset, d.Offset + 1}}) {
			t.Fatalf("corrupted %v", got)
		}
	}
	// Older data inside a torn write flips too.
	if len(offsets) != 4 {
		t.Fatalf("flipped offsets %v, want all four bytes of the write", offsets)
	}
}

func TestCorruptOnCrashNeedsSurvivingWrites(t *testing.T) {
	fs := newTestFS()
	f := syncedFile(t, fs, "f", "abcdef")
	write(t, fs, f, "WXYZ", 1)
	rep := fs.CrashWith(CrashRules{CorruptOnCrash: true}, rng.New(1, "crash"))
	if rep.Corrupted != nil || rep.Dropped != 1 || readFile(t, fs, "f") != "abcdef" {
		t.Fatalf("plain crash: %+v, %q", rep, readFile(t, fs, "f"))
	}
}

func TestCrashReportCounts(t *testing.T) {
	fs := newStrictFS()
	f := syncedFile(t, fs, "f", "abc")
	write(t, fs, f, "1", 0)
	checkErr(t, "truncate", fs.Truncate(f, 1), 0)
	writeFile(t, fs, "g", "xyz") // create and write
	rep := fs.CrashWith(CrashRules{}, rng.New(1, "crash"))
	if rep.Kept != 0 || rep.Torn != 0 || rep.Dropped != 4 {
		t.Fatalf("plain crash: %+v; want 4 dropped", rep)
	}
	// Under torn writes each operation counts once, and some crashes keep
	// all three, some tear the last write, some keep nothing.
	seen := map[[3]int]bool{}
	for i := range 200 {
		fs := newStrictFS()
		f := syncedFile(t, fs, "f", "abc")
		write(t, fs, f, "1", 0)
		writeFile(t, fs, "g", "xyz")
		rep := fs.CrashWith(CrashRules{Torn: true}, rng.New(uint64(i), "crash"))
		if rep.Kept+rep.Torn+rep.Dropped != 3 {
			t.Fatalf("torn crash: %+v; want 3 operations", rep)
		}
		seen[[3]int{rep.Kept, rep.Torn, rep.Dropped}] = true
	}
	for _, want := range [][3]int{{3, 0, 0}, {2, 1, 0}, {0, 0, 3}} {
		if !seen[want] {
			t.Errorf("no crash counted kept, torn, dropped = %v; saw %v", want, seen)
		}
	}
}

func TestCrashDuringSync(t *testing.T) {
	build := func() (*FS, Ino) {
		fs := newTestFS()
		f := syncedFile(t, fs, "f", "")
		write(t, fs, f, "ab", 0)
		write(t, fs, f, "cd", 2)
		checkErr(t, "truncate", fs.Truncate(f, 3), 0)
		g := syncedFile(t, fs, "g", "")
		write(t, fs, g, "other", 0)
		return fs, f
	}
	tests := []struct {
		rules CrashRules
		want  []string // every state of f, g is always empty
	}{
		{CrashRules{}, []string{"", "ab", "abcd", "abc"}},
		{CrashRules{Torn: true}, []string{"", "a", "ab", "abc", "abcd"}},
	}
	for _, tt := range tests {
		t.Run(rulesName(tt.rules), func(t *testing.T) {
			want := map[string]bool{}
			for _, s := range tt.want {
				want[s] = true
			}
			got := map[string]bool{}
			for i := range 400 {
				fs, f := build()
				rules := tt.rules
				rules.Syncing = f
				if tt.rules.Torn {
					// The other file follows the torn rule: g may keep a prefix too.
					fs.CrashWith(rules, rng.New(uint64(i), "crash"))
					got[readFile(t, fs, "f")] = true
					continue
				}
				fs.CrashWith(rules, rng.New(uint64(i), "crash"))
				checkCrashed(t, fs)
				if g := readFile(t, fs, "g"); g != "" {
					t.Fatalf("g = %q; only the file being synced keeps anything", g)
				}
				got[readFile(t, fs, "f")] = true
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("states %q, want %q", keys(got), tt.want)
			}
		})
	}
}

func TestCrashDuringDirSync(t *testing.T) {
	got := map[string]bool{}
	for i := range 200 {
		fs := newStrictFS()
		mkdir(t, fs, "d")
		sync(t, fs, fs.Root())
		writeFile(t, fs, "b", "")
		writeFile(t, fs, "c", "")
		writeFile(t, fs, "d/x", "")
		fs.CrashWith(CrashRules{Syncing: fs.Root()}, rng.New(uint64(i), "crash"))
		checkCrashed(t, fs)
		got[strings.ReplaceAll(tree(fs), "\n", ";")] = true
	}
	want := map[string]bool{"d dir;": true, "b file 0;d dir;": true, "b file 0;c file 0;d dir;": true}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("states %q", keys(got))
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestCrashWithIsAFunctionOfTheStream runs random operations and faults
// twice under each rule set, checking the invariants throughout, and
// compares the results.
func TestCrashWithIsAFunctionOfTheStream(t *testing.T) {
	skipUnderRace(t)
	for _, rules := range crashConfigs() {
		rules.CorruptOnCrash = true
		// Each rule set's runs are its own; they run side by side.
		t.Run(rulesName(rules), func(t *testing.T) {
			t.Parallel()
			var kept, torn, flips int
			for seed := uint64(1); seed <= 12; seed++ {
				a, ra := faultRun(t, seed, rules)
				b, rb := faultRun(t, seed, rules)
				if a != b || !reflect.DeepEqual(ra, rb) {
					t.Fatalf("%s seed %d: two runs differ", rulesName(rules), seed)
				}
				for _, r := range ra {
					kept, torn, flips = kept+r.Kept, torn+r.Torn, flips+len(r.Corrupted)
				}
			}
			// Crashes during Sync keep writes under every rule set; torn
			// writes and reordered pages also keep parts of writes.
			if kept == 0 || flips == 0 || (torn == 0 && (rules.Torn || rules.Reorder)) {
				t.Errorf("%s: kept %d, torn %d, flipped %d; the runs exercise too little", rulesName(rules), kept, torn, flips)
			}
		})
	}
}

// faultRun applies random operations and faults, crashing under rules, and
// checks the invariants throughout. It returns the final view and the
// crash reports.
func faultRun(t *testing.T, seed uint64, rules CrashRules) (string, []CrashReport) {
	t.Helper()
	return faultRunWith(t, seed, rules, nil)
}

// faultRunWith is faultRun with a hook that may replace the file system
// before each step.
func faultRunWith(t *testing.T, seed uint64, rules CrashRules, hook func(step int, fs *FS) *FS) (string, []CrashReport) {
	t.Helper()
	r := xorshift(seed*0x9e3779b97f4a7c15 + 1)
	fs := newTestFS()
	fs.StrictDirs = seed%2 == 0
	fs.SetCapacity(uint64ToCap(seed))
	names := []string{"a", "b", "c", "d/e"}
	mkdir(t, fs, "d")
	var reps []CrashReport
	stream := func(purpose string, n int) *rng.Stream { return rng.New(seed, purpose, uint64(n)) }
	for step := range 400 {
		if hook != nil {
			fs = hook(step, fs)
		}
		name := names[r.intn(len(names))]
		ino, err := fs.Open(fs.Root(), name, OCreate, false)
		if err != nil {
			t.Fatalf("open %s: %v", name, err)
		}
		switch k := r.intn(100); {
		case k < 35:
			offs := []int64{0, PageBytes - 3, PageBytes, 2*PageBytes + 5, int64(r.intn(3 * PageBytes))}
			p := bytes.Repeat([]byte{byte('A' + step%26)}, 1+r.intn(PageBytes+10))
			_, err = fs.WriteAt(ino, p, offs[r.intn(len(offs))])
			if err == ENOSPC {
				err = nil
			}
		case k < 42:
			err = fs.Truncate(ino, int64(r.intn(3*PageBytes)))
		case k < 55:
			err = fs.Sync(ino)
		case k < 60:
			err = fs.Sync(fs.Root())
		case k < 64:
			if e := fs.SyncEIO(ino); e != EIO {
				err = e
			}
		case k < 68:
			_, err = fs.SyncLosingPage(ino, stream("lost_write", step))
		case k < 72:
			_, _, _, err = fs.SyncMisdirected(ino, stream("misdirected_write", step))
		case k < 77:
			fs.BitRot(stream("bitrot", step))
		case k < 82:
			to := names[r.intn(len(names))]
			if to != name {
				err = fs.Rename(fs.Root(), name, fs.Root(), to)
			}
		case k < 85:
			err = fs.Unlink(fs.Root(), name)
		case k < 92:
			rr := rules
			if r.intn(3) == 0 {
				rr.Syncing = ino
			}
			reps = append(reps, fs.CrashWith(rr, stream("crash", step)))
			checkCrashed(t, fs)
			if _, err := fs.Lookup(fs.Root(), "d", false); err != nil {
				mkdir(t, fs, "d")
			}
		default:
			fs.Release(ino)
		}
		if err != nil {
			t.Fatalf("seed %d step %d: %v", seed, step, err)
		}
		checkConsistent(t, fs)
	}
	var b strings.Builder
	b.WriteString(currentView(fs))
	for _, f := range fs.Files() {
		fmt.Fprintf(&b, "%s %v\n", f.Path, f.Corrupted)
	}
	return b.String(), reps
}

func uint64ToCap(seed uint64) int64 {
	if seed%3 == 0 {
		return 0
	}
	return int64(seed%3) * 4 * PageBytes
}

func TestParseFSModel(t *testing.T) {
	for _, m := range []FSModel{ModelExt4Ordered, ModelPageIndependent, ModelDirReorder} {
		got, err := ParseFSModel(m.String())
		if err != nil || got != m {
			t.Errorf("ParseFSModel(%q) = %v, %v", m, got, err)
		}
	}
	_, err := ParseFSModel("ext3")
	if got, want := errString(err), `unknown fs_model "ext3" (want ext4_ordered, page_independent, dir_reorder)`; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
	if got := FSModel(9).String(); got != "fs_model(9)" {
		t.Errorf("String = %q", got)
	}
}

func TestFlipBit(t *testing.T) {
	if _, _, ok := FlipBit(nil, rng.New(1, "read_corrupt")); ok {
		t.Fatal("flipped a bit of nothing")
	}
	p := make([]byte, 16)
	off, bit, ok := FlipBit(p, rng.New(1, "read_corrupt"))
	want := make([]byte, 16)
	want[off] = 1 << bit
	if !ok || !bytes.Equal(p, want) {
		t.Fatalf("p = %v after flipping %d.%d", p, off, bit)
	}
}

func TestAddFile(t *testing.T) {
	for _, strict := range []bool{false, true} {
		fs := newTestFS()
		fs.StrictDirs = strict
		fs.SetCapacity(4)
		checkErr(t, "add", fs.AddFile("data/sub/kv.log", []byte("seeded")), 0)
		checkErr(t, "add again", fs.AddFile("data/sub/kv.log", []byte("again")), 0)
		checkErr(t, "add empty", fs.AddFile("top", nil), 0)
		if got := fs.Usage(); got != 5 {
			t.Fatalf("usage %d; seeded files count, past the capacity", got)
		}
		checkConsistent(t, fs)
		fs.Crash()
		if got := tree(fs); got != "data dir\ndata/sub dir\ndata/sub/kv.log file 5\ntop file 0\n" {
			t.Fatalf("strict=%v: after crash\n%s", strict, got)
		}
		if got := readFile(t, fs, "data/sub/kv.log"); got != "again" {
			t.Fatalf("content %q", got)
		}
	}
	fs := newTestFS()
	checkErr(t, "add", fs.AddFile("f", []byte("x")), 0)
	for _, tt := range []struct {
		path string
		err  Errno
		msg  string
	}{
		{"f/g", ENOTDIR, `add file "f/g": ENOTDIR`},
		{"", EINVAL, `add file "": EINVAL`},
		{"/abs", EINVAL, `add file "/abs": EINVAL`},
		{"a/../b", EINVAL, `add file "a/../b": EINVAL`},
		{"a//b", EINVAL, `add file "a//b": EINVAL`},
	} {
		err := fs.AddFile(tt.path, nil)
		if !errors.Is(err, tt.err) || err.Error() != tt.msg {
			t.Errorf("AddFile(%q) = %v, want %s", tt.path, err, tt.msg)
		}
	}
	mkdir(t, fs, "dir")
	if err := fs.AddFile("dir", nil); !errors.Is(err, EISDIR) {
		t.Errorf("AddFile over a directory = %v", err)
	}
}

func TestCopyIn(t *testing.T) {
	host := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(host, "data", "empty"), 0o755))
	must(os.WriteFile(filepath.Join(host, "data", "kv.log"), []byte("log"), 0o644))
	must(os.WriteFile(filepath.Join(host, "config"), []byte("cfg"), 0o644))
	must(os.Symlink("data/kv.log", filepath.Join(host, "current")))
	for _, strict := range []bool{false, true} {
		fs := newTestFS()
		fs.StrictDirs = strict
		must(fs.AddFile("data/kept", []byte("k")))
		must(fs.CopyIn(host))
		fs.Crash()
		want := "config file 3\ncurrent -> data/kv.log\ndata dir\ndata/empty dir\ndata/kept file 1\ndata/kv.log file 3\n"
		if got := tree(fs); got != want {
			t.Fatalf("strict=%v: after crash\n%s\nwant\n%s", strict, got, want)
		}
		if got := readFile(t, fs, "current"); got != "log" {
			t.Fatalf("through the symlink: %q", got)
		}
	}
	missing := filepath.Join(host, "nope")
	err := newTestFS().CopyIn(missing)
	if err == nil || !strings.HasPrefix(err.Error(), "copy in "+missing+": ") {
		t.Fatalf("missing directory: %v", err)
	}
	err = newTestFS().CopyIn(filepath.Join(host, "config"))
	if got, want := errString(err), "copy in "+filepath.Join(host, "config")+": not a directory"; got != want {
		t.Fatalf("file: %q, want %q", got, want)
	}
	fs := newTestFS()
	must(fs.AddFile("config/x", nil))
	err = fs.CopyIn(host)
	if !errors.Is(err, EISDIR) || !strings.Contains(err.Error(), "copy config: EISDIR") {
		t.Fatalf("file over a directory: %v", err)
	}
}

func TestCopyFromRejectsOtherTypes(t *testing.T) {
	src := fstest.MapFS{"dev": &fstest.MapFile{Mode: os.ModeDevice}}
	err := newTestFS().CopyFrom(src)
	if got := errString(err); got != "copy dev: unsupported file type D---------" {
		t.Fatalf("error %q", got)
	}
}

// TestWrittenBack: a page the kernel wrote back before the crash
// (mmap_early_writeback) is on disk after it, durable; bytes past the
// durable size are not; a freed inode is EBADF.
func TestWrittenBack(t *testing.T) {
	fs := newTestFS()
	f := syncedFile(t, fs, "f", pages(2))
	write(t, fs, f, "pending", 20) // lost at the crash
	fs.Crash()
	page := bytes.Repeat([]byte("m"), PageBytes)
	if n, err := fs.WrittenBack(f, page, PageBytes); err != nil || n != PageBytes {
		t.Fatalf("WrittenBack: %d, %v", n, err)
	}
	if n, err := fs.WrittenBack(f, page, 2*PageBytes); err != nil || n != 0 {
		t.Fatalf("WrittenBack past the durable size: %d, %v, want 0 bytes", n, err)
	}
	want := pages(1) + string(page)
	if got := readFile(t, fs, "f"); got != want {
		t.Fatalf("after the write-back the file reads %.20q..., want the page", got[PageBytes:])
	}
	checkConsistent(t, fs)
	fs.Crash()
	if got := readFile(t, fs, "f"); got != want {
		t.Fatal("the written-back page is not durable")
	}
	if _, err := fs.WrittenBack(Ino(999), page, 0); err == nil {
		t.Fatal("WrittenBack of an unknown inode: no error")
	}
}
