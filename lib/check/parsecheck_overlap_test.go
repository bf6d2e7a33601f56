package check

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/check/internal/txngen"
	"github.com/sf-dst/sf/lib/history"
)

// ParseAndCheck on histories of overlapping transactions with failed and
// unknown ones and cycles (see txngen.Concurrent), as written and with a
// byte changed, dropped or a tail put in anywhere: always what the strict
// reading gives, and a written one read by the deferred reading alone.
func TestParseAndCheckOverlapping(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	read := history.ReadOptions{File: "h.jsonl"}
	opts := Options{Model: ListAppend}
	failing, broken := 0, 0
	for round := range 120 {
		file := historyFile(txngen.Concurrent(rng))
		want := sameAsStrict(t, file, read, opts)
		if lazy := outcome(lazyParseAndCheck(file, read, opts)); lazy != want {
			t.Fatalf("round %d: the deferred reading gives\n%s\nthe strict one\n%s", round, lazy, want)
		}
		if strings.Contains(want, "not serializable") {
			failing++
		}
		for range 8 {
			bad := slices.Clone(file)
			i := rng.IntN(len(bad))
			switch rng.IntN(3) {
			case 0:
				bad[i] = `[]{},": nul0-x`[rng.IntN(14)]
			case 1:
				bad = slices.Delete(bad, i, i+1)
			case 2:
				bad = slices.Insert(bad, i, []byte(`,"time":1,"id":2`)...)
			}
			got := sameAsStrict(t, bad, read, opts)
			if lazy := outcome(lazyParseAndCheck(bad, read, opts)); !deferredAgrees(lazy, got) {
				t.Fatalf("round %d: %s: the deferred reading gives %s, the strict one %s", round, bad, lazy, got)
			}
			if strings.HasPrefix(got, "error: ") {
				broken++
			}
		}
	}
	if failing < 20 || broken < 200 {
		t.Fatalf("%d histories not serializable, %d changed ones refused: too few to test", failing, broken)
	}
}
