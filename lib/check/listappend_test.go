package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/history"
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
		{"internal: reads what it appends only later", []txnSpec{
			ok(0, "a x 0"), ok(1, "r x 0 2 | a x 1 | a x 2"),
		}, "internal", `T1 read x ["0" "2"], including "2", which it appends only later`},
		{"internal: a later append to another key", []txnSpec{
			ok(0, "a x 0 | a y 2"), ok(1, "r x 0 | a y 1 | a x 2"), ok(2, "r y 2 1"),
		}, "", ""},
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
		{"G-single through a transaction of unknown outcome", []txnSpec{
			info(0, "a x 1 | a y 1"), ok(1, "r x | r y 1"), ok(2, "r x 1"),
		}, "G-single", "T1 -rw x-> T0 -wr y-> T1; T1 (client 1, ok) [r x [], r y [\"1\"]]; T0 (client 0, unknown) [append x \"1\", append y \"1\"]"},
		{"a pending transaction's appends count once read", []txnSpec{
			{Process: 0, Status: "pending", Mops: "a x 1 | a y 1"}, ok(1, "r x 1 | r y 1"),
		}, "", ""},
		{"an unread unknown append adds nothing", []txnSpec{
			info(0, "a x 1"), ok(1, "r x"), ok(2, "r x"),
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

// The cycle of the spec's example, T4 -rw z-> T0 -wr z-> T6 -ww y-> T4, in
// the spec's format, with ids as in the history file.
func TestListAppendSpecExample(t *testing.T) {
	ops := txnHistory(
		ok(0, "a z 0-0"),         // T0
		ok(1, "a x 1-0"),         // T1
		ok(2, "r x 1-0"),         // T2
		ok(3, "a y 3-0"),         // T3
		ok(4, "r z | a y 4-1"),   // T4: reads z before T0's append
		ok(5, "r y 3-0 6-1 4-1"), // T5 sees y's order
		ok(6, "r z 0-0 | a y 6-1"),
	)
	r := mustCheck(t, ops, Options{Model: ListAppend})
	want := `G-single: T4 -rw z-> T0 -wr z-> T6 -ww y-> T4; T4 (client 4, ok) [r z [], append y "4-1"]; T0 (client 0, ok) [append z "0-0"]; T6 (client 6, ok) [r z ["0-0"], append y "6-1"]`
	if len(r.Anomalies) != 1 || r.Anomalies[0].String() != want {
		t.Fatalf("got\n%s\nwant\n%s", dump(r), want)
	}
	if r.Summary != "history of 7 transactions is not serializable: G-single" {
		t.Errorf("summary %q", r.Summary)
	}
	if got := r.Anomalies[0].Ops; len(got) != 3 || got[0] != 4 || got[1] != 0 || got[2] != 6 {
		t.Errorf("ops %v", got)
	}
}

// A history recorded by the engine and written to a file gives the same
// report when sf-check reads the file back, in either format of events.
func TestRecordedHistoryRoundTrip(t *testing.T) {
	rec := history.NewRecorder()
	at := int64(0)
	tick := func() int64 { at += 1000; return at }
	// T0 commits; T1 reads x before T0's append and y after it (read skew);
	// T2 is in flight when its client crashes.
	t0, _ := rec.Invoke(0, "txn", "", json.RawMessage(`[["append","x","0-0"],["append","y","0-1"]]`), tick())
	t1, _ := rec.Invoke(1, "txn", "", json.RawMessage(`[["r","x",null],["r","y",null]]`), tick())
	rec.Complete(t0, history.OK, json.RawMessage(`[["append","x","0-0"],["append","y","0-1"]]`), tick())
	rec.Complete(t1, history.OK, json.RawMessage(`[["r","x",[]],["r","y",["0-1"]]]`), tick())
	rec.Invoke(2, "txn", "", json.RawMessage(`[["append","x","2-0"]]`), tick())
	t3, _ := rec.Invoke(3, "txn", "", json.RawMessage(`[["r","x",null]]`), tick())
	rec.Complete(t3, history.OK, json.RawMessage(`[["r","x",["0-0","2-0"]]]`), tick())

	direct := mustCheck(t, rec.Ops(), Options{Model: ListAppend})
	var buf bytes.Buffer
	if _, err := rec.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	ops, err := history.ReadHistory(&buf)
	if err != nil {
		t.Fatal(err)
	}
	again := mustCheck(t, ops, Options{Model: ListAppend})
	if dump(direct) != dump(again) {
		t.Errorf("recorded:\n%s\nre-read:\n%s", dump(direct), dump(again))
	}
	if kinds(direct) != "G-single" {
		t.Errorf("anomalies %q, want G-single:\n%s", kinds(direct), dump(direct))
	}
}

func TestListAppendFromEDN(t *testing.T) {
	edn := `{:type :invoke, :f :txn, :value [[:append :x 1] [:r :y nil]], :process 0, :time 10, :index 0}
{:type :invoke, :f :txn, :value [[:append :y 1] [:r :x nil]], :process 1, :time 11, :index 1}
{:type :ok, :f :txn, :value [[:append :x 1] [:r :y [1]]], :process 0, :time 20, :index 2}
{:type :ok, :f :txn, :value [[:append :y 1] [:r :x [1]]], :process 1, :time 21, :index 3}
`
	ops, err := history.ReadHistory(strings.NewReader(edn))
	if err != nil {
		t.Fatal(err)
	}
	r := mustCheck(t, ops, Options{Model: ListAppend})
	want := `G1c: T0 -wr x-> T1 -wr y-> T0; T0 (client 0, ok) [append x "1", r y ["1"]]; T1 (client 1, ok) [append y "1", r x ["1"]]`
	if len(r.Anomalies) != 1 || r.Anomalies[0].String() != want {
		t.Errorf("got\n%s\nwant\n%s", dump(r), want)
	}
}

// Checking the same history twice gives byte-identical reports.
func TestListAppendDeterministic(t *testing.T) {
	ops := genListAppend(3000, true, 7)
	a, b := mustCheck(t, ops, Options{Model: ListAppend}), mustCheck(t, ops, Options{Model: ListAppend})
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Errorf("reports differ:\n%s\n%s", ja, jb)
	}
}

// A large strongly connected component: every transaction reads what the
// previous one wrote and misses what the next one wrote, in a ring. The
// search must finish and still report a cycle; how fast it does is
// BenchmarkListAppendBigComponent's business, not a test's.
func TestListAppendBigComponent(t *testing.T) {
	r := mustCheck(t, bigComponentHistory(20000), Options{Model: ListAppend})
	if !strings.Contains(kinds(r), "G") {
		t.Errorf("anomalies %q", kinds(r))
	}
	for _, a := range r.Anomalies {
		if len(a.Example) > 2000 || !strings.Contains(a.Example, "more edges...") {
			t.Errorf("example of %d bytes: %.300s", len(a.Example), a.Example)
		}
	}
}

func BenchmarkListAppendBigComponent(b *testing.B) {
	ops := bigComponentHistory(20000)
	b.ResetTimer()
	for range b.N {
		if _, err := Check(ops, Options{Model: ListAppend}); err != nil {
			b.Fatal(err)
		}
	}
}

func bigComponentHistory(n int) []history.HistoryOp {
	var specs []txnSpec
	for i := 0; i < n; i++ {
		prev := (i + n - 1) % n
		// T_i appends to key i, reads key prev after prev's append, and reads
		// key i+1 before its append.
		next := (i + 1) % n
		specs = append(specs, ok(int64(i%10), fmt.Sprintf("a k%d v | r k%d v | r k%d", i, prev, next)))
	}
	return txnHistory(specs...)
}

// TestListAppendReadMemo: a read takes the elements it shares with the key's
// last read from that read, but only whole elements: after a read of
// [1, 12], a read of [1, 123] has 123, not 12, and the two are incompatible.
func TestListAppendReadMemo(t *testing.T) {
	mops := []string{`[["append","x",1]]`, `[["append","x",12]]`, `[["append","x",123]]`,
		`[["r","x",[1,12]]]`, `[["r","x",[1,123]]]`, `[["r","x",[1, 12,123]],["r","x",[1,12,123]]]`}
	var ops []history.HistoryOp
	for i, m := range mops {
		ops = append(ops, history.HistoryOp{ID: int64(i), Process: int64(i), F: "txn", Call: int64(10 * i), Return: int64(10*i + 5),
			Value: []byte(m), Output: []byte(m), Status: history.StatusOK})
	}
	r := mustCheck(t, ops, Options{Model: ListAppend})
	if got := kinds(r); got != "incompatible-order" {
		t.Fatalf("anomalies %q, want incompatible-order:\n%s", got, dump(r))
	}
	if ex := r.Anomalies[0].Example; !strings.Contains(ex, `T4 read x ["1" "123"]`) || !strings.Contains(ex, `[r x ["1" "12" "123"], r x ["1" "12" "123"]]`) {
		t.Errorf("example %q does not show T4's read [1 123] and T5's reads [1 12 123]", ex)
	}
}

// TestListAppendEscapedValues: values written with escapes, the same value
// written in different ways, are one value, and examples show them as
// they are.
func TestListAppendEscapedValues(t *testing.T) {
	ops := number(
		lop(0, "txn", "", `[["append","x","a\"1"],["append","x","b\n2"],["append","x","c3"]]`, "ok",
			`[["append","x","a\"1"],["append","x","b\n2"],["append","x","c3"]]`, 0, 1),
		lop(1, "txn", "", `[["r","x",null]]`, "ok", `[["r","x",["a\u0022\u0031","b\u000a2","c3","\u0061\"1"]]]`, 2, 3),
	)
	r := mustCheck(t, ops, Options{Model: ListAppend})
	if got := r.Summary; got != "history of 2 transactions is not serializable: G1b, duplicate-elements" {
		t.Fatalf("summary %q:\n%s", got, dump(r))
	}
	dup := r.Anomalies[1].Example
	for _, want := range []string{`which has "a\"1" twice`, `append x "b\n2"`, `x ["a\"1" "b\n2" "c3" "a\"1"]`} {
		if !strings.Contains(dup, want) && !strings.Contains(r.Anomalies[0].Example, want) {
			t.Errorf("examples lack %s:\n%s", want, dump(r))
		}
	}
}

// TestListAppendPrefixReads: reads that are prefixes of their key's longest
// read are checked from what that read holds at each position; each
// anomaly counts only the reads long enough to reach it, and reads that are
// not prefixes are checked element by element.
func TestListAppendPrefixReads(t *testing.T) {
	counts := func(r *Report) map[string]int {
		m := map[string]int{}
		for _, a := range r.Anomalies {
			m[a.Kind] = a.Count
		}
		return m
	}
	// x's longest read is 1 2 3 9 1 4: 3 was appended by a failed
	// transaction (position 2), 9 by nobody (3), 1 comes twice (4).
	r := mustCheck(t, txnHistory(
		ok(0, "a x 1 | a x 2"), fail(1, "a x 3"), ok(2, "a x 4"),
		ok(3, "r x 1"), ok(4, "r x 1 2"), ok(5, "r x 1 2 3"), ok(6, "r x 1 2 3 9"),
		ok(7, "r x 1 2 3 9 1"), ok(8, "r x 1 2 3 9 1 4"),
		// Not a prefix: checked on its own, with its own duplicate.
		ok(9, "r x 2 2"),
	), Options{Model: ListAppend})
	got := counts(r)
	for kind, want := range map[string]int{"G1a": 4, "garbage-read": 3, "duplicate-elements": 3, "incompatible-order": 1} {
		if got[kind] != want {
			t.Errorf("%s: %d, want %d\n%s", kind, got[kind], want, dump(r))
		}
	}
	for _, a := range r.Anomalies {
		switch a.Kind {
		case "duplicate-elements":
			if !strings.Contains(a.Example, `T7 read x ["1" "2" "3" "9" "1"], which has "1" twice`) {
				t.Errorf("duplicate example: %s", a.Example)
			}
		case "garbage-read":
			if !strings.Contains(a.Example, `T6 read x ["1" "2" "3" "9"], but nobody appended "9" to x`) {
				t.Errorf("garbage example: %s", a.Example)
			}
		case "G1a":
			if !strings.Contains(a.Example, `T5 read x ["1" "2" "3"], including "3" appended by T1, which failed`) {
				t.Errorf("G1a example: %s", a.Example)
			}
		}
	}
}
