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
