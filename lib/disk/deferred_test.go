package disk

import (
	"bytes"
	"testing"

	"github.com/sf-dst/sf/lib/rng"
	"github.com/sf-dst/sf/lib/wire"
)

// TestDeferredWritesKeepTheirBytes: a pending write whose bytes were left in
// the current content must still read as the bytes it wrote, whatever came
// after it: overlapping writes, truncates below it, syncs with and without
// faults, bit rot, clones and encodings. The test keeps its own copy of every
// write's bytes and compares each pending write with it after every step, in
// the FS and in a clone and a decoded copy of it.
func TestDeferredWritesKeepTheirBytes(t *testing.T) {
	seeds := uint64(16)
	if testing.Short() {
		seeds = 4 // each seed checks every step; make test-long does all
	}
	for seed := range seeds {
		fs := newTestFS()
		inos := []Ino{writeFile(t, fs, "a", ""), writeFile(t, fs, "b", "")}
		sync(t, fs, fs.Root())
		wrote := map[uint64][]byte{} // seq of a write -> its bytes
		r := rng.New(seed, "deferred-writes-test")
		for step := range 300 {
			ino := inos[r.Intn(len(inos))]
			switch k := r.Intn(20); {
			case k < 11:
				off := int64(r.Intn(8 * PageBytes))
				p := make([]byte, 1+r.Intn(2*PageBytes))
				for i := range p {
					p[i] = byte(r.Intn(256))
				}
				if _, err := fs.WriteAt(ino, p, off); err != nil {
					t.Fatal(err)
				}
				n := fs.inodes[ino]
				wrote[n.pending[len(n.pending)-1].seq] = bytes.Clone(p)
			case k < 14:
				if err := fs.Truncate(ino, int64(r.Intn(9*PageBytes))); err != nil {
					t.Fatal(err)
				}
			case k < 16:
				sync(t, fs, ino)
			case k == 16:
				if err := fs.SyncEIO(ino); err != EIO {
					t.Fatalf("SyncEIO: %v", err)
				}
			case k == 17:
				if _, err := fs.SyncLosingPage(ino, r); err != nil {
					t.Fatal(err)
				}
			case k == 18:
				fs.BitRot(r)
			default:
				// A crash that tears and reorders reads the pending bytes;
				// it runs on a clone, so that the writes go on piling up.
				c := fs.Clone(nil)
				c.CrashWith(CrashRules{Torn: true, Reorder: true, Model: ModelPageIndependent}, r)
				checkCrashed(t, c)
			}
			checkConsistent(t, fs)
			w := wire.NewWriter(0)
			fs.Encode(w)
			rd := wire.NewReader(w.Data())
			decoded := Decode(rd, nil)
			if err := rd.Done(); err != nil {
				t.Fatal(err)
			}
			for _, copy := range []struct {
				name string
				fs   *FS
			}{{"fs", fs}, {"clone", fs.Clone(nil)}, {"decoded", decoded}} {
				for _, ino := range inos {
					n := copy.fs.inodes[ino]
					for _, op := range n.pending {
						if op.truncate || op.rest {
							continue
						}
						if got, want := n.writeBytes(op), wrote[op.seq]; !bytes.Equal(got, want) {
							t.Fatalf("seed %d step %d, %s: ino %d's pending write %d at %d reads %d bytes unlike the %d it wrote",
								seed, step, copy.name, ino, op.seq, op.off, len(got), len(want))
						}
					}
				}
			}
		}
	}
}

// TestAppendsAndSyncsKeepNoBytes: writes that nothing overwrites, synced
// without a fault, are never copied anywhere but into the current content;
// a write inside the span of the deferred ones makes them all keep their
// bytes, and is deferred itself.
func TestAppendsAndSyncsKeepNoBytes(t *testing.T) {
	fs := newTestFS()
	f := writeFile(t, fs, "log", "")
	n := fs.inodes[f]
	rec := bytes.Repeat([]byte{'r'}, 3000)
	for i := range 20 {
		if _, err := fs.WriteAt(f, rec, int64(i*len(rec))); err != nil {
			t.Fatal(err)
		}
		if i%5 == 4 {
			for _, op := range n.pending {
				if op.data != nil || op.deferred != int64(len(rec)) {
					t.Fatalf("append %d: a pending append holds %d kept bytes, deferred %d", i, len(op.data), op.deferred)
				}
			}
			sync(t, fs, f)
		}
	}
	if len(n.opBuf) != 0 || len(n.spentBufs) != 0 || len(fs.spareBufs) != 0 {
		t.Fatalf("appends and plain syncs used write buffers: %d bytes, %d spent, %d spare", len(n.opBuf), len(n.spentBufs), len(fs.spareBufs))
	}
	if got := contentOf(t, fs, f); got != string(bytes.Repeat(rec, 20)) {
		t.Fatalf("the log reads %d bytes unlike the appends", len(got))
	}

	// Three appends, then an overwrite of the middle one's end.
	base := int64(20 * len(rec))
	for i := range 3 {
		if _, err := fs.WriteAt(f, []byte("abc"), base+int64(3*i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := fs.WriteAt(f, []byte("X"), base+5); err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		kept     string
		deferred int64
	}{{"abc", 0}, {"abc", 0}, {"abc", 0}, {"", 1}} {
		if op := n.pending[i]; string(op.data) != want.kept || op.deferred != want.deferred {
			t.Errorf("pending write %d: kept %q, deferred %d; want %q, %d", i, op.data, op.deferred, want.kept, want.deferred)
		}
	}
	if got := contentOf(t, fs, f)[base:]; got != "abcabXabc" {
		t.Errorf("after the overwrite the file ends in %q", got)
	}
	if len(n.deferred) != 1 || n.deferred[0] != 3 {
		t.Errorf("deferred writes listed: %v, want only the last, [3]", n.deferred)
	}
}

// BenchmarkRandomWritesWithoutSync: writes at random places of a file that
// is never fsynced, the pending list growing all the while. Each write must
// cost the same however many are pending (a walk of the pending writes at
// each write made 20,000 of them take 1.6 s where 5,000 took 0.1 s).
func BenchmarkRandomWritesWithoutSync(b *testing.B) {
	p := make([]byte, 100)
	for b.Loop() {
		fs := newTestFS()
		f, err := fs.Open(fs.Root(), "f", OCreate, true)
		if err != nil {
			b.Fatal(err)
		}
		x := uint64(1)
		for range 20000 {
			x = x*6364136223846793005 + 1442695040888963407
			if _, err := fs.WriteAt(f, p, int64(x>>40)%(4<<20)); err != nil {
				b.Fatal(err)
			}
		}
	}
}
