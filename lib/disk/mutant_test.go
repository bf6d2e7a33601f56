package disk

import "testing"

// TestFsyncMutants: each file-sync mutant changes what a crash leaves, and
// counts the syncs it weakened; a sync with nothing pending is not a hit.
func TestFsyncMutants(t *testing.T) {
	for _, tc := range []struct {
		name      string
		m         Mutant
		wantAfter string
		wantHits  int
	}{
		{"none", MutantNone, "hello", 0},
		{"fsync noop", MutantFsyncNoop, "", 2}, // the second sync still finds the write pending
		{"fsync corrupts", MutantFsyncCorrupts, "iello", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := newTestFS()
			fs.SetMutant(tc.m)
			ino := writeFile(t, fs, "f", "hello")
			sync(t, fs, ino)
			if got := contentOf(t, fs, ino); got != "hello" {
				t.Fatalf("before the crash reads see %q", got)
			}
			sync(t, fs, ino) // nothing pending: not a hit
			fs.Crash()
			if got := readFile(t, fs, "f"); got != tc.wantAfter {
				t.Errorf("after the crash %q, want %q", got, tc.wantAfter)
			}
			if fs.MutantHits() != tc.wantHits {
				t.Errorf("%d hits, want %d", fs.MutantHits(), tc.wantHits)
			}
		})
	}
}

// TestDirsyncNoop: without strict_dirs a directory sync has nothing to do,
// so the mutant is not exercised; with them, the entry it should have made
// durable is lost.
func TestDirsyncNoop(t *testing.T) {
	for _, strict := range []bool{false, true} {
		fs := newTestFS()
		fs.StrictDirs = strict
		fs.SetMutant(MutantDirsyncNoop)
		ino := writeFile(t, fs, "f", "x")
		sync(t, fs, ino)
		sync(t, fs, fs.Root())
		fs.Crash()
		got := readFile(t, fs, "f")
		switch {
		case !strict && (got != "x" || fs.MutantHits() != 0):
			t.Errorf("without strict_dirs: %q with %d hits, want \"x\" with none", got, fs.MutantHits())
		case strict && (got == "x" || fs.MutantHits() != 1):
			t.Errorf("with strict_dirs: %q with %d hits, want the file gone with 1", got, fs.MutantHits())
		}
	}
}

// TestRenameNotAtomic: a rename over an existing file loses both names in
// a crash before the next sync, and is whole again after one; a rename to a
// new name is unchanged.
func TestRenameNotAtomic(t *testing.T) {
	setup := func() *FS {
		fs := newTestFS()
		fs.SetMutant(MutantRenameNotAtomic)
		sync(t, fs, writeFile(t, fs, "cur", "old"))
		sync(t, fs, writeFile(t, fs, "tmp", "new"))
		return fs
	}
	fs := setup()
	if err := fs.Rename(fs.Root(), "tmp", fs.Root(), "cur"); err != nil {
		t.Fatal(err)
	}
	fs.Crash()
	if a, b := readFile(t, fs, "cur"), readFile(t, fs, "tmp"); a == "old" || a == "new" || b == "new" || fs.MutantHits() != 1 {
		t.Errorf("crash right after the rename: cur %q tmp %q hits %d, want both gone and 1 hit", a, b, fs.MutantHits())
	}

	fs = setup()
	fs.Rename(fs.Root(), "tmp", fs.Root(), "cur")
	other := writeFile(t, fs, "other", "z")
	sync(t, fs, other)
	fs.Crash()
	if got := readFile(t, fs, "cur"); got != "new" {
		t.Errorf("crash after a later sync: cur %q, want \"new\"", got)
	}

	fs = setup()
	fs.Rename(fs.Root(), "tmp", fs.Root(), "fresh")
	fs.Crash()
	if got := readFile(t, fs, "fresh"); got != "new" || fs.MutantHits() != 0 {
		t.Errorf("rename to a new name: %q with %d hits, want \"new\" and no hit", got, fs.MutantHits())
	}
}

// TestTruncateNotDurable: a sync skips a truncation that shrinks the file,
// so a crash brings back the old length and the old bytes past the new
// data; growing the file is not weakened.
func TestTruncateNotDurable(t *testing.T) {
	for _, m := range []Mutant{MutantNone, MutantTruncateNotDurable} {
		fs := newTestFS()
		fs.SetMutant(m)
		ino := writeFile(t, fs, "f", "0123456789")
		sync(t, fs, ino)
		if err := fs.Truncate(ino, 4); err != nil {
			t.Fatal(err)
		}
		fs.WriteAt(ino, []byte("ab"), 4)
		if err := fs.Truncate(ino, 12); err != nil { // grows past the durable size: not a hit
			t.Fatal(err)
		}
		sync(t, fs, ino)
		if got := contentOf(t, fs, ino); got != "0123ab\x00\x00\x00\x00\x00\x00" {
			t.Fatalf("before the crash %q", got)
		}
		fs.Crash()
		want, hits := "0123ab\x00\x00\x00\x00\x00\x00", 0
		if m == MutantTruncateNotDurable {
			want, hits = "0123ab6789\x00\x00", 1
		}
		if got := readFile(t, fs, "f"); got != want || fs.MutantHits() != hits {
			t.Errorf("mutant %d: after the crash %q with %d hits, want %q with %d", m, got, fs.MutantHits(), want, hits)
		}
	}
}
