package sweep

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/record"
)

// TestMoreFailingSeeds: past the failures that get a line each, the rest
// of the failing seeds are listed as ranges, as sf-report lists them, up
// to 20 items (issue 24: one seed list for every tool).
func TestMoreFailingSeeds(t *testing.T) {
	for _, tc := range []struct {
		failed []uint64
		want   string
	}{
		{seq(1, 30), "... and 19 more failing seeds: 12-30\n"},
		{append(seq(1, 11), 13, 14, 15, 20), "... and 4 more failing seeds: 13-15 20\n"},
		{odd(1, 101), "... and 40 more failing seeds: 23 25 27 29 31 33 35 37 39 41 43 45 47 49 51 53 55 57 59 61 ... (40 in all; -json lists every seed)\n"},
	} {
		var b bytes.Buffer
		printSummary(&b, record.Summary{Seeds: 200, Failed: len(tc.failed), FailedSeeds: tc.failed}, 0, false)
		if first, _, _ := strings.Cut(b.String(), "\n"); first+"\n" != tc.want {
			t.Errorf("first line %q, want %q", first, tc.want)
		}
	}
}

func seq(lo, hi uint64) []uint64 {
	var s []uint64
	for i := lo; i <= hi; i++ {
		s = append(s, i)
	}
	return s
}

func odd(lo, hi uint64) []uint64 {
	var s []uint64
	for i := lo; i <= hi; i += 2 {
		s = append(s, i)
	}
	return s
}
