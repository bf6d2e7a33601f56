package sweep

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/record"
)

// TestSummaryCounts: the summary's last lines count seeds and properties in
// the singular when there is one (issue 29: "1 properties were never
// reached").
func TestSummaryCounts(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    record.Summary
		want string
	}{
		{"one seed passed", record.Summary{Seeds: 1, Passed: 1}, "ok  1 seed passed (0 hit the time horizon) in 2s\n"},
		{"seeds passed", record.Summary{Seeds: 3, Passed: 3, Horizon: 1}, "ok  3 seeds passed (1 hit the time horizon) in 2s\n"},
		{"one property", record.Summary{Seeds: 10, Passed: 10, PropertyFailures: 1},
			"FAIL 1 property was never reached or never true in 10 seeds\n"},
		{"properties over one seed", record.Summary{Seeds: 1, Passed: 1, PropertyFailures: 2},
			"FAIL 2 properties were never reached or never true in 1 seed\n"},
		{"seeds and a property", record.Summary{Seeds: 10, Failed: 10, PropertyFailures: 1},
			"FAIL 10 of 10 seeds failed (0 passed, 0 hit the time horizon) in 2s\nFAIL 1 property was never reached or never true in 10 seeds\n"},
	} {
		var b bytes.Buffer
		printSummary(&b, tc.s, 2*time.Second, false)
		if !strings.HasSuffix(b.String(), tc.want) {
			t.Errorf("%s: the summary ends\n%s\nwant\n%s", tc.name, b.String(), tc.want)
		}
	}
}

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
