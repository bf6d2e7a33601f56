package disk

import (
	"fmt"
	"testing"

	"github.com/sf-dst/sf/lib/rng"
)

// TestCloneGoesOnApart: a file system cloned in the middle of a run of
// random writes, syncs, faults and crashes ends exactly as the run without
// the clone does, however the original is used after the clone.
func TestCloneGoesOnApart(t *testing.T) {
	skipUnderRace(t)
	rules := []CrashRules{{}, {Torn: true}, {Torn: true, Reorder: true, Model: ModelPageIndependent, CorruptOnCrash: true}}
	for seed := uint64(1); seed <= 12; seed++ {
		r := rules[seed%uint64(len(rules))]
		want, wantReps := faultRun(t, seed, r)
		for _, at := range []int{0, 1, 57, 200, 399} {
			t.Run(fmt.Sprintf("seed %d step %d", seed, at), func(t *testing.T) {
				t.Parallel()
				var before string
				got, gotReps := faultRunWith(t, seed, r, func(step int, fs *FS) *FS {
					if step != at {
						return fs
					}
					before = currentView(fs) + durableView(fs)
					c := fs.Clone(nil)
					scribble(t, fs)
					checkConsistent(t, c)
					if now := currentView(c) + durableView(c); now != before {
						t.Fatalf("using the original changed the clone:\n%s\nwant\n%s", now, before)
					}
					return c
				})
				if got != want || fmt.Sprint(gotReps) != fmt.Sprint(wantReps) {
					t.Errorf("the clone ended otherwise than the run it was taken from:\n%s\nwant\n%s", got, want)
				}
			})
		}
	}
}

// scribble syncs every file of fs (so that its small writes' buffer is
// reused from the start), changes every file, syncs some, crashes it and
// removes a name: whatever the clone shares with it by mistake shows.
func scribble(t *testing.T, fs *FS) {
	t.Helper()
	for _, f := range fs.Files() {
		if f.Type == TypeRegular {
			if err := fs.Sync(f.Ino); err != nil && err != EIO {
				t.Fatal(err)
			}
		}
	}
	for i, f := range fs.Files() {
		if f.Type != TypeRegular {
			continue
		}
		junk := make([]byte, 100+i)
		for j := range junk {
			junk[j] = byte(i + j)
		}
		if _, err := fs.WriteAt(f.Ino, junk, 0); err != nil && err != ENOSPC {
			t.Fatal(err)
		}
		if i%2 == 0 {
			if err := fs.Sync(f.Ino); err != nil {
				t.Fatal(err)
			}
		}
	}
	fs.CrashWith(CrashRules{Torn: true, Reorder: true, Model: ModelPageIndependent, CorruptOnCrash: true}, rng.New(99, "scribble"))
	_ = fs.Unlink(fs.Root(), "a")
}
