package disk

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/sf-dst/sf/lib/wire"
	"github.com/sf-dst/sf/lib/wire/wiretest"
)

// TestEncodeGoesOn: a file system encoded and decoded in the middle of a run
// of random writes, syncs, faults and crashes ends exactly as the run that
// kept the original does, and encoding the decoded one gives the same bytes.
func TestEncodeGoesOn(t *testing.T) {
	rules := []CrashRules{{}, {Torn: true}, {Torn: true, Reorder: true, Model: ModelPageIndependent, CorruptOnCrash: true}}
	seeds := uint64(12)
	if testing.Short() {
		seeds = 6 // every rule twice; make test-long does all
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		r := rules[seed%uint64(len(rules))]
		want, wantReps := faultRun(t, seed, r)
		for _, at := range []int{0, 1, 57, 200, 399} {
			t.Run(fmt.Sprintf("seed %d step %d", seed, at), func(t *testing.T) {
				got, gotReps := faultRunWith(t, seed, r, func(step int, fs *FS) *FS {
					if step != at {
						return fs
					}
					enc := encodeFS(fs)
					if again := encodeFS(fs); !bytes.Equal(enc, again) {
						t.Fatal("one file system encoded twice gave different bytes")
					}
					rd := wire.NewReader(enc)
					c := Decode(rd, nil)
					if err := rd.Done(); err != nil {
						t.Fatalf("decoding: %v", err)
					}
					checkConsistent(t, c)
					if currentView(c)+durableView(c) != currentView(fs)+durableView(fs) {
						t.Fatal("the decoded file system reads otherwise than the original")
					}
					if !bytes.Equal(encodeFS(c), enc) {
						t.Fatal("the decoded file system encodes otherwise than the original")
					}
					return c
				})
				if got != want || fmt.Sprint(gotReps) != fmt.Sprint(wantReps) {
					t.Errorf("the decoded file system ended otherwise than the run it was taken from:\n%s\nwant\n%s", got, want)
				}
			})
		}
	}
}

func encodeFS(fs *FS) []byte {
	w := wire.NewWriter(0)
	fs.Encode(w)
	return w.Data()
}

// TestDecodeCorrupt: every prefix of an encoding, and the encoding with any
// one byte changed, decodes to an error or to a file system, never a panic.
func TestDecodeCorrupt(t *testing.T) {
	var enc []byte
	faultRunWith(t, 3, CrashRules{Torn: true}, func(step int, fs *FS) *FS {
		if step == 120 {
			enc = encodeFS(fs)
		}
		return fs
	})
	for n := range len(enc) {
		r := wire.NewReader(enc[:n])
		if Decode(r, nil) != nil && r.Done() == nil {
			t.Fatalf("the first %d of %d bytes decoded without an error", n, len(enc))
		}
	}
	for i := 0; i < len(enc); i += 1 + len(enc)/2000 {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			b := bytes.Clone(enc)
			b[i] ^= x
			r := wire.NewReader(b)
			Decode(r, nil)
			_ = r.Done()
		}
	}
}

// FuzzDecode: no input makes Decode panic.
func FuzzDecode(f *testing.F) {
	fs := newTestFS()
	syncedFile(&testing.T{}, fs, "f", pages(2))
	f.Add(encodeFS(fs))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := wire.NewReader(b)
		Decode(r, nil)
		_ = r.Done()
	})
}

// TestEncodeCoversEveryField pins the fields Encode writes: a field added
// to one of these types fails here until Encode and Decode write it, or
// this list says why not (the free pages, the spare write buffers, the
// sync's scratch list of pages, the tests' replayEverySync and the clock
// are not state; a file's opBuf and spentBufs only hold its pending
// writes' bytes, written with them; deferred, deferredLo and deferredHi list and bound the deferred
// writes, and Decode computes them from those).
func TestEncodeCoversEveryField(t *testing.T) {
	pinned := map[reflect.Type]string{
		reflect.TypeFor[FS](): "StrictDirs now capacityBytes usedBytes inodes nextIno seq dirOps pool spareBufs syncPages replayEverySync mutant mutantHits holes",
		reflect.TypeFor[inode](): "ino typ atim mtim ctim links lastPath durableLinks uncounted data durable pool pending deferred deferredLo deferredHi opBuf spentBufs stale damaged " +
			"entries durableEntries parent subdirs dead target",
		reflect.TypeFor[content]():   "size pages far",
		reflect.TypeFor[fileOp]():    "seq truncate off data deferred rest",
		reflect.TypeFor[dirOp]():     "seq kind edits parents unsynced movesDir emptied",
		reflect.TypeFor[link]():      "dir name",
		reflect.TypeFor[entryEdit](): "dir name ino",
	}
	wiretest.CheckFields(t, pinned)
}
