package disk

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/sf-dst/sf/lib/rng"
)

// tornBoundaries crashes a file of 8 KiB of durable zeros with one pending
// write of 0xff bytes at a random offset under rules, and returns the file
// offsets inside the write where kept bytes meet lost ones (the end of the
// file counts), and whether the write was kept in part.
func tornBoundaries(t *testing.T, rules CrashRules, seed uint64) (cuts []int64, partial bool) {
	t.Helper()
	r := rng.New(seed, "sector-test")
	fs := newTestFS()
	f := writeFile(t, fs, "f", string(make([]byte, 8192)))
	sync(t, fs, f)
	off := r.Between(0, 10000)
	data := bytes.Repeat([]byte{0xff}, int(r.Between(2, 3000)))
	if _, err := fs.WriteAt(f, data, off); err != nil {
		t.Fatal(err)
	}
	if rules.Syncing != 0 {
		rules.Syncing = f
	}
	fs.CrashWith(rules, rng.New(seed, "sector-crash"))
	got := []byte(contentOf(t, fs, f))
	end := off + int64(len(data))
	kept := func(p int64) bool { return p < int64(len(got)) && got[p] == 0xff }
	some, all := false, true
	for p := off; p < end; p++ {
		some = some || kept(p)
		all = all && kept(p)
		if p > off && kept(p) != kept(p-1) {
			cuts = append(cuts, p)
		}
	}
	return cuts, some && !all
}

// TestTornSector: with TornSector, every torn write ends at a multiple of
// the sector in the file, under each crash rule that tears (plain Torn,
// Reorder with each model, a crash during the file's Sync); without it, some
// tears end inside a sector, so the check can fail.
func TestTornSector(t *testing.T) {
	for _, rules := range []CrashRules{
		{Torn: true},
		{Torn: true, Reorder: true, Model: ModelExt4Ordered},
		{Torn: true, Reorder: true, Model: ModelPageIndependent},
		{Torn: true, Syncing: 1},
	} {
		name := fmt.Sprintf("reorder=%v,model=%d,syncing=%v", rules.Reorder, rules.Model, rules.Syncing != 0)
		t.Run(name, func(t *testing.T) {
			partial, unaligned := 0, 0
			for seed := uint64(1); seed <= 400; seed++ {
				sectored := rules
				sectored.TornSector = 512
				cuts, torn := tornBoundaries(t, sectored, seed)
				if torn {
					partial++
				}
				for _, c := range cuts {
					if c%512 != 0 {
						t.Fatalf("seed %d: a torn write under torn_sector 512 ends at byte %d", seed, c)
					}
				}
				cuts, _ = tornBoundaries(t, rules, seed)
				for _, c := range cuts {
					if c%512 != 0 {
						unaligned++
					}
				}
			}
			if partial == 0 {
				t.Error("no write was kept in part: the test tears nothing")
			}
			if unaligned == 0 {
				t.Error("without torn_sector no tear ended inside a sector: the test cannot tell them apart")
			}
		})
	}
}

func TestTearEnd(t *testing.T) {
	r := rng.New(1, "tear-end")
	for range 200 {
		lo := r.Between(0, 5000)
		hi := lo + r.Between(0, 2000)
		end, ok := tearEnd(r, lo, hi, 512)
		first := (lo + 511) / 512 * 512
		switch {
		case first > hi && ok:
			t.Fatalf("tearEnd(%d, %d, 512) = %d, want none: no multiple of 512 in range", lo, hi, end)
		case first <= hi && !ok:
			t.Fatalf("tearEnd(%d, %d, 512) found none, but %d is in range", lo, hi, first)
		case ok && (end < lo || end > hi || end%512 != 0):
			t.Fatalf("tearEnd(%d, %d, 512) = %d: not a multiple of 512 in range", lo, hi, end)
		}
	}
	if end, ok := tearEnd(r, 10, 10, 0); !ok || end != 10 {
		t.Fatalf("tearEnd(10, 10, 0) = %d, %v; want 10, true", end, ok)
	}
}
