package check

import (
	"strings"
	"testing"
)

func TestListAppendAnomalies(t *testing.T) {
	tests := []struct {
		name    string
		txns    []txnSpec
		want    string // anomaly kinds, comma separated; "" passes
		example string // a substring of the first anomaly's example
	}{
		{"G0", []txnSpec{
			ok(0, "a x 1 | a y 1"), ok(1, "a x 2 | a y 2"), ok(2, "r x 1 2 | r y 2 1"),
		}, "G0", "T0 -ww x-> T1 -ww y-> T0"},
		{"G0 near miss", []txnSpec{
			ok(0, "a x 1 | a y 1"), ok(1, "a x 2 | a y 2"), ok(2, "r x 1 2 | r y 1 2"),
		}, "", ""},
		{"G1a", []txnSpec{
			fail(0, "a x 1"), ok(1, "r x 1"),
		}, "G1a", `T1 read x ["1"], including "1" appended by T0, which failed`},
		{"G1a near miss: unknown appends may have committed", []txnSpec{
			info(0, "a x 1"), ok(1, "r x 1"),
		}, "", ""},
		{"G1b", []txnSpec{
			ok(0, "a x 1 | a x 2"), ok(1, "r x 1"),
		}, "G1b", `ending in "1", an intermediate append of T0, which appended "2" to x after it`},
		{"G1b near miss", []txnSpec{
			ok(0, "a x 1 | a x 2"), ok(1, "r x 1 2"),
		}, "", ""},
		{"G1c", []txnSpec{
			ok(0, "a x 1 | r y 1"), ok(1, "a y 1 | r x 1"),
		}, "G1c", "T0 -wr x-> T1 -wr y-> T0"},
		{"G1c near miss", []txnSpec{
			ok(0, "a x 1 | r y 1"), ok(1, "a y 1 | r x"), ok(2, "r x 1"),
		}, "", ""},
		{"G-single: read skew", []txnSpec{
			ok(0, "a x 1 | a y 1"), ok(1, "r x | r y 1"), ok(2, "r x 1"),
		}, "G-single", "T1 -rw x-> T0 -wr y-> T1"},
		{"G-single near miss", []txnSpec{
			ok(0, "a x 1 | a y 1"), ok(1, "r x 1 | r y 1"), ok(2, "r x 1"),
		}, "", ""},
		{"G2: write skew", []txnSpec{
			ok(0, "r x | a y 1"), ok(1, "r y | a x 1"), ok(2, "r x 1 | r y 1"),
		}, "G2", "T0 -rw x-> T1 -rw y-> T0"},
		{"G2 near miss", []txnSpec{
			ok(0, "r x | a y 1"), ok(1, "r y 1 | a x 1"), ok(2, "r x 1 | r y 1"),
		}, "", ""},
		{"internal", []txnSpec{
			ok(0, "a x 1 | r x"),
		}, "internal", `T0 read x [] after appending ["1"] to it`},
		{"internal: read then read", []txnSpec{
			ok(0, "a x 1"), ok(1, "r x 1 | a x 2 | r x 1"),
		}, "internal", `its own earlier read and appends make it ["1" "2"]`},
		{"internal near miss", []txnSpec{
			ok(0, "a x 1"), ok(1, "r x 1 | a x 2 | r x 1 2"),
		}, "", ""},
		{"incompatible-order", []txnSpec{
			ok(0, "a x 1"), ok(1, "a x 2"), ok(2, "r x 1 2"), ok(3, "r x 2"),
		}, "incompatible-order", "neither is a prefix of the other"},
		{"incompatible-order near miss", []txnSpec{
			ok(0, "a x 1"), ok(1, "a x 2"), ok(2, "r x 1 2"), ok(3, "r x 1"),
		}, "", ""},
		{"duplicate-elements", []txnSpec{
			ok(0, "a x 1"), ok(1, "r x 1 1"),
		}, "duplicate-elements", `which has "1" twice`},
		{"duplicate-elements near miss", []txnSpec{
			ok(0, "a x 1"), ok(1, "r x 1"),
		}, "", ""},
		{"duplicate-append", []txnSpec{
			ok(0, "a x 1"), ok(1, "a x 1"),
		}, "duplicate-append", `T0 and T1 both appended "1" to x`},
		{"duplicate-append near miss: same value, other key", []txnSpec{
			ok(0, "a x 1"), ok(1, "a y 1"),
		}, "", ""},
		{"garbage-read", []txnSpec{
			ok(0, "a x 1"), ok(1, "r x 9"),
		}, "garbage-read", `but nobody appended "9" to x`},
		{"garbage-read near miss", []txnSpec{
			ok(0, "a x 9"), ok(1, "r x 9"),
		}, "", ""},
		{"unknown reads are ignored", []txnSpec{
			ok(0, "a x 1"), info(1, "r x | a y 1"), ok(2, "r y 1 | r x"),
		}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustCheck(t, txnHistory(tt.txns...), Options{Model: ListAppend})
			if got := kinds(r); got != tt.want {
				t.Fatalf("anomalies %q, want %q\n%s", got, tt.want, dump(r))
			}
			if tt.want == "" {
				if r.Verdict != Ok {
					t.Fatalf("verdict %s, want ok", r.Verdict)
				}
				return
			}
			if r.Verdict != Illegal {
				t.Fatalf("verdict %s, want illegal", r.Verdict)
			}
			if !strings.Contains(r.Anomalies[0].Example, tt.example) {
				t.Errorf("example %q does not contain %q", r.Anomalies[0].Example, tt.example)
			}
		})
	}
}

func dump(r *Report) string {
	var b strings.Builder
	b.WriteString(r.Summary + "\n")
	for _, a := range r.Anomalies {
		b.WriteString("  " + a.String() + "\n")
	}
	return b.String()
}
