package check

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/sf-dst/sf/lib/history"
)

// lop builds one operation. status is ok, info, fail or pending; value and
// output are raw JSON ("" means null).
func lop(process int64, f, key, value, status, output string, call, ret int64) history.HistoryOp {
	raw := func(s string) []byte {
		if s == "" {
			return []byte("null")
		}
		return []byte(s)
	}
	op := history.HistoryOp{Process: process, F: f, Key: key, Value: raw(value), Call: call, Return: ret}
	switch status {
	case "ok":
		op.Status, op.Output = history.StatusOK, raw(output)
	case "info":
		op.Status = history.StatusUnknown
	case "fail":
		op.Status = history.StatusFailed
	case "pending":
		op.Status, op.Return = history.StatusPending, -1
	default:
		panic(status)
	}
	return op
}

func number(ops ...history.HistoryOp) []history.HistoryOp {
	for i := range ops {
		ops[i].ID = int64(i)
	}
	return ops
}

func TestLinearizabilityModels(t *testing.T) {
	tests := []struct {
		name  string
		model string
		ops   []history.HistoryOp
		want  Verdict
	}{
		{"kv read after write", "kv", number(
			lop(0, "put", "x", `"1"`, "ok", "", 0, 10),
			lop(1, "get", "x", "", "ok", `"1"`, 20, 30),
		), Ok},
		{"kv stale read", "kv", number(
			lop(0, "put", "x", `"1"`, "ok", "", 0, 10),
			lop(1, "get", "x", "", "ok", `""`, 20, 30),
		), Illegal},
		{"kv concurrent read may see either", "kv", number(
			lop(0, "put", "x", `"1"`, "ok", "", 0, 30),
			lop(1, "get", "x", "", "ok", `null`, 10, 20),
			lop(2, "get", "x", "", "ok", `"1"`, 12, 22),
		), Ok},
		{"kv keys are independent", "kv", number(
			lop(0, "put", "x", `"1"`, "ok", "", 0, 10),
			lop(1, "get", "y", "", "ok", `""`, 20, 30),
		), Ok},
		{"kv unknown put may land later", "kv", number(
			lop(0, "put", "x", `"1"`, "info", "", 0, 5),
			lop(1, "get", "x", "", "ok", `""`, 10, 20),
			lop(1, "get", "x", "", "ok", `"1"`, 30, 40),
		), Ok},
		{"kv pending put may land later", "kv", number(
			lop(0, "put", "x", `"1"`, "pending", "", 0, -1),
			lop(1, "get", "x", "", "ok", `""`, 10, 20),
			lop(1, "get", "x", "", "ok", `"1"`, 30, 40),
		), Ok},
		{"kv failed put never lands", "kv", number(
			lop(0, "put", "x", `"1"`, "fail", "", 0, 5),
			lop(1, "get", "x", "", "ok", `"1"`, 30, 40),
		), Illegal},
		{"kv unknown reads are dropped", "kv", number(
			lop(0, "put", "x", `"1"`, "ok", "", 0, 5),
			lop(1, "get", "x", "", "info", "", 10, 20),
		), Ok},
		{"kv Jepsen register names and integers", "kv", number(
			lop(0, "write", "x", `3`, "ok", "3", 0, 10),
			lop(1, "read", "x", "", "ok", `3`, 20, 30),
		), Ok},
		{"cas swap", "cas", number(
			lop(0, "put", "l", `"a"`, "ok", "", 0, 10),
			lop(1, "cas", "l", `["a","b"]`, "ok", "true", 20, 30),
			lop(0, "cas", "l", `["a","c"]`, "ok", "false", 40, 50),
			lop(2, "get", "l", "", "ok", `"b"`, 60, 70),
		), Ok},
		{"cas lock taken twice", "cas", number(
			lop(1, "cas", "l", `["","me"]`, "ok", "true", 0, 10),
			lop(2, "cas", "l", `[null,"you"]`, "ok", "true", 20, 30),
		), Illegal},
		{"cas unknown swap", "cas", number(
			lop(1, "cas", "l", `["","me"]`, "info", "", 0, 10),
			lop(2, "get", "l", "", "ok", `"me"`, 20, 30),
		), Ok},
		{"append in order", "append", number(
			lop(0, "append", "k", `"a"`, "ok", "", 0, 10),
			lop(1, "append", "k", `"b"`, "ok", "", 20, 30),
			lop(2, "read", "k", "", "ok", `["a","b"]`, 40, 50),
		), Ok},
		{"append out of order", "append", number(
			lop(0, "append", "k", `"a"`, "ok", "", 0, 10),
			lop(1, "append", "k", `"b"`, "ok", "", 20, 30),
			lop(2, "read", "k", "", "ok", `["b","a"]`, 40, 50),
		), Illegal},
		{"queue FIFO", "queue", number(
			lop(0, "enqueue", "q", `"a"`, "ok", "", 0, 10),
			lop(0, "enqueue", "q", `"b"`, "ok", "", 20, 30),
			lop(1, "dequeue", "q", "", "ok", `"a"`, 40, 50),
			lop(1, "dequeue", "q", "", "ok", `"b"`, 60, 70),
			lop(1, "dequeue", "q", "", "ok", `""`, 80, 90),
		), Ok},
		{"queue out of order", "queue", number(
			lop(0, "enqueue", "q", `"a"`, "ok", "", 0, 10),
			lop(0, "enqueue", "q", `"b"`, "ok", "", 20, 30),
			lop(1, "dequeue", "q", "", "ok", `"b"`, 40, 50),
		), Illegal},
		{"queue delivered twice", "queue", number(
			lop(0, "enqueue", "q", `"a"`, "ok", "", 0, 10),
			lop(1, "dequeue", "q", "", "ok", `"a"`, 40, 50),
			lop(2, "dequeue", "q", "", "ok", `"a"`, 60, 70),
		), Illegal},
		{"queue unknown dequeue may take an item", "queue", number(
			lop(0, "enqueue", "q", `"a"`, "ok", "", 0, 10),
			lop(1, "dequeue", "q", "", "info", "", 20, 30),
			lop(2, "dequeue", "q", "", "ok", `null`, 40, 50),
		), Ok},
		{"set members in any order", "set", number(
			lop(0, "add", "s", `"a"`, "ok", "", 0, 10),
			lop(1, "add", "s", `"b"`, "ok", "", 20, 30),
			lop(2, "read", "s", "", "ok", `["b","a"]`, 40, 50),
		), Ok},
		{"set lost add", "set", number(
			lop(0, "add", "s", `"a"`, "ok", "", 0, 10),
			lop(1, "add", "s", `"b"`, "ok", "", 20, 30),
			lop(2, "read", "s", "", "ok", `["a"]`, 40, 50),
		), Illegal},
		{"counter sums", "counter", number(
			lop(0, "add", "c", `1`, "ok", "", 0, 10),
			lop(1, "add", "c", `"2"`, "ok", "", 5, 30),
			lop(2, "read", "c", "", "ok", `3`, 40, 50),
		), Ok},
		{"counter lost increment", "counter", number(
			lop(0, "add", "c", `1`, "ok", "", 0, 10),
			lop(1, "add", "c", `2`, "ok", "", 20, 30),
			lop(2, "read", "c", "", "ok", `1`, 40, 50),
		), Illegal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustCheck(t, tt.ops, Options{Model: tt.model})
			if r.Verdict != tt.want {
				t.Fatalf("verdict %s, want %s: %s", r.Verdict, tt.want, dump(r))
			}
			if r.Class != ClassLinearizability {
				t.Errorf("class %q", r.Class)
			}
			if tt.want == Illegal {
				if !r.HasTimeline() {
					t.Fatalf("no timeline for a violation")
				}
				var buf bytes.Buffer
				if err := r.WriteTimeline(&buf); err != nil {
					t.Fatal(err)
				}
				if !bytes.Contains(buf.Bytes(), []byte("<html")) {
					t.Errorf("timeline is not HTML")
				}
				if len(r.Keys) != 1 || len(r.Anomalies) != 1 || r.Anomalies[0].Kind != "nonlinearizable" {
					t.Errorf("keys %q, anomalies %v", r.Keys, r.Anomalies)
				}
			}
		})
	}
}

func TestLinearizabilitySummaries(t *testing.T) {
	ops := number(
		lop(0, "enqueue", "q", `"a"`, "ok", "", 0, 10),
		lop(0, "enqueue", "q", `"b"`, "ok", "", 20, 30),
		lop(1, "dequeue", "q", "", "ok", `"b"`, 40, 50),
		lop(1, "enqueue", "r", `"c"`, "ok", "", 40, 50),
	)
	r := mustCheck(t, ops, Options{Model: "queue"})
	want := `history of 4 operations is not linearizable (model queue): key "q"`
	if r.Summary != want {
		t.Errorf("summary %q, want %q", r.Summary, want)
	}
	wantEx := `key "q": no order of its 3 operations is legal; the longest legal order places 2, not q: dequeue → "b" (id 2, process 1); see the timeline`
	if got := r.Anomalies[0].Example; got != wantEx {
		t.Errorf("example\n %q, want\n %q", got, wantEx)
	}
	r = mustCheck(t, ops[:2], Options{Model: "queue"})
	if want := "history of 2 operations is linearizable (model queue)"; r.Summary != want {
		t.Errorf("summary %q, want %q", r.Summary, want)
	}
}

func TestModelInputErrors(t *testing.T) {
	tests := []struct {
		model string
		op    history.HistoryOp
		want  string
	}{
		{"queue", lop(0, "put", "q", `"a"`, "ok", "", 0, 1),
			`history (model queue): operation "put" is not one of dequeue, enqueue`},
		{"kv", lop(0, "incr", "x", `"a"`, "ok", "", 0, 1),
			`history (model kv): operation "incr" is not one of get, put, read, write`},
		{"list-append", lop(0, "put", "x", `"a"`, "ok", "", 0, 1),
			`history (model list-append): operation "put" is not one of txn`},
		{"kv", lop(0, "put", "x", `["a"]`, "ok", "", 0, 1),
			`history (model kv): operation "put" (id 0) has value ["a"], want a string (found an array)`},
		{"kv", lop(0, "get", "x", ``, "ok", `{"v":1}`, 0, 1),
			`history (model kv): operation "get" (id 0) has output {"v":1}, want a string or null (found an object)`},
		{"kv", lop(0, "put", "x", `"a"`, "fail", "", 0, 1),
			``},
		{"kv", lop(0, "put", "x", ``, "fail", "", 0, 1),
			`history (model kv): operation "put" (id 0) has value null, want a string (found null)`},
		{"counter", lop(0, "add", "c", `"one"`, "ok", "", 0, 1),
			`history (model counter): operation "add" (id 0) has value "one", want an integer (found a string that is not an integer)`},
		{"counter", lop(0, "read", "c", ``, "ok", `1.5`, 0, 1),
			`history (model counter): operation "read" (id 0) has output 1.5, want an integer (column 1: expected an integer, found 1.5)`},
		{"cas", lop(0, "cas", "c", `["a"]`, "ok", `true`, 0, 1),
			`history (model cas): operation "cas" (id 0) has value ["a"], want [old, new] (found 1 elements)`},
		{"cas", lop(0, "cas", "c", `["a","b"]`, "ok", `"yes"`, 0, 1),
			`history (model cas): operation "cas" (id 0) has output "yes", want true or false (found a string)`},
		{"set", lop(0, "read", "s", ``, "ok", `"a"`, 0, 1),
			`history (model set): operation "read" (id 0) has output "a", want a list of strings (found a string)`},
		{"list-append", lop(0, "txn", "", `[["w","x","1"]]`, "info", "", 0, 1),
			`history (model list-append): operation "txn" (id 0) has value [["w","x","1"]], want a list of [f, key, value] micro-ops: micro-op 0: "w" is not one of r, append`},
		{"list-append", lop(0, "txn", "", `[["r","x",null]]`, "ok", `[["r","x",[1,null]]]`, 0, 1),
			`history (model list-append): operation "txn" (id 0) has output [["r","x",[1,null]]], want a list of [f, key, value] micro-ops: micro-op 0: read element 1: found null`},
		{"list-append", lop(0, "txn", "", `[["append","x"]]`, "info", "", 0, 1),
			`history (model list-append): operation "txn" (id 0) has value [["append","x"]], want a list of [f, key, value] micro-ops: column 15: expected ',', found ']'`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			op := tt.op
			op.Line = 7
			_, err := Check([]history.HistoryOp{op}, Options{Model: tt.model})
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n %s\nwant\n %s", err, tt.want)
			}
			var ie *InputError
			if !errors.As(err, &ie) || ie.Line != 7 {
				t.Errorf("error %#v is not an *InputError with the line", err)
			}
		})
	}
}

func TestUnknownModel(t *testing.T) {
	_, err := Check(nil, Options{Model: "register"})
	want := `unknown model "register": want one of append, cas, counter, kv, list-append, queue, set`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// hardHistory is a history Porcupine cannot finish quickly: many concurrent
// writes of unknown outcome and reads that pin down few of their orders.
func hardHistory(n int) []history.HistoryOp {
	var ops []history.HistoryOp
	for i := 0; i < n; i++ {
		ops = append(ops, lop(int64(i), "put", "x", `"`+string(rune('a'+i%26))+string(rune('a'+i/26))+`"`, "info", "", 0, 1))
	}
	for i := 0; i < n; i++ {
		v := `"` + string(rune('a'+(n-1-i)%26)) + string(rune('a'+(n-1-i)/26)) + `"`
		ops = append(ops, lop(int64(n+i), "get", "x", "", "ok", v, int64(2+10*i), int64(3+10*i)))
	}
	ops = append(ops, lop(int64(2*n), "get", "x", "", "ok", `"zz"`, int64(10*n+5), int64(10*n+6)))
	return number(ops...)
}

// TestGaveUp gives the search a budget of model steps far below what the
// hard history needs: the verdict is Unknown on every machine.
func TestGaveUp(t *testing.T) {
	ops := hardHistory(40)
	r := mustCheck(t, ops, Options{Model: "kv", MaxSteps: 1000})
	if r.Verdict != Unknown {
		t.Fatalf("verdict %s (%s), want unknown", r.Verdict, r.Summary)
	}
	if want := "gave up checking 81 operations for linearizability"; r.Summary != want {
		t.Errorf("summary %q, want %q", r.Summary, want)
	}
	if r.Passed() {
		t.Errorf("a check that gave up passed")
	}
}

// TestGaveUpTimeout: the real-time limit still bounds a check. The hard
// history needs far longer than a millisecond on any machine, so the test
// asserts only the verdict, not how long the check took.
func TestGaveUpTimeout(t *testing.T) {
	for _, steps := range []int64{0, 1 << 40} {
		r := mustCheck(t, hardHistory(40), Options{Model: "kv", Timeout: time.Millisecond, MaxSteps: steps})
		if r.Verdict != Unknown {
			t.Fatalf("max steps %d: verdict %s (%s), want unknown", steps, r.Verdict, r.Summary)
		}
	}
}

// TestMaxSteps: a budget that is large enough changes no verdict, and an
// illegal key is found even when another key runs out of steps.
func TestMaxSteps(t *testing.T) {
	hard := hardHistory(40)
	for i := range hard {
		hard[i].Key = "h"
	}
	bad := number(
		lop(0, "put", "x", `"a"`, "ok", "", 0, 10),
		lop(1, "get", "x", "", "ok", `"b"`, 20, 30),
	)
	mixed := number(append(bad, hard...)...)
	tests := []struct {
		name  string
		ops   []history.HistoryOp
		steps int64
		want  Verdict
	}{
		{"ok within budget", number(lop(0, "put", "x", `"a"`, "ok", "", 0, 10), lop(1, "get", "x", "", "ok", `"a"`, 20, 30)), 10, Ok},
		{"illegal within budget", bad, 10, Illegal},
		{"illegal key beats a key out of steps", mixed, 1000, Illegal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustCheck(t, tt.ops, Options{Model: "kv", MaxSteps: tt.steps})
			if r.Verdict != tt.want {
				t.Fatalf("verdict %s (%s), want %s", r.Verdict, r.Summary, tt.want)
			}
		})
	}
}

// TestSameInstantOrder is a regression test: events that share a virtual
// instant happened one after the other, in the history's order. A put that
// completed before a get started, both at one instant, must be seen by it.
func TestSameInstantOrder(t *testing.T) {
	h := `{"index":0,"type":"invoke","process":1,"f":"put","key":"k","value":"old","time":10,"id":0}
{"index":1,"type":"ok","process":1,"f":"put","key":"k","value":null,"time":10,"id":0}
{"index":2,"type":"invoke","process":1,"f":"put","key":"k","value":"fresh","time":47,"id":1}
{"index":3,"type":"ok","process":1,"f":"put","key":"k","value":null,"time":47,"id":1}
{"index":4,"type":"invoke","process":2,"f":"get","key":"k","value":null,"time":47,"id":2}
{"index":5,"type":"ok","process":2,"f":"get","key":"k","value":"old","time":47,"id":2}
`
	ops, err := history.ReadHistory(strings.NewReader(h))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Check(ops, Options{Model: "kv"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != Illegal {
		t.Fatalf("verdict %s, want illegal: %s", rep.Verdict, rep.Summary)
	}
}

// TestCounterOverflow: an add that could take the counter past int64 is an
// input error, not a silent wrap; adds that cancel out in range are fine,
// and a failed add (which did not happen) does not count.
func TestCounterOverflow(t *testing.T) {
	tests := []struct {
		name string
		ops  []history.HistoryOp
		want string
	}{
		{"too big", number(
			lop(0, "add", "c", `9223372036854775807`, "ok", "", 0, 10),
			lop(1, "add", "c", `1`, "ok", "", 20, 30),
		), `history (model counter): operation "add" (id 1) adds 1: the adds to key "c" could sum to more than 9223372036854775807, which the counter model does not support`},
		{"too small", number(
			lop(0, "add", "c", `-9223372036854775808`, "ok", "", 0, 10),
			lop(1, "add", "c", `-1`, "info", "", 20, 30),
		), `history (model counter): operation "add" (id 1) adds -1: the adds to key "c" could sum to less than -9223372036854775808, which the counter model does not support`},
		{"in range", number(
			lop(0, "add", "c", `9223372036854775807`, "ok", "", 0, 10),
			lop(1, "add", "c", `-9223372036854775808`, "ok", "", 20, 30),
			lop(2, "add", "d", `1`, "ok", "", 20, 30),
			lop(3, "add", "c", `1`, "fail", "", 20, 30),
		), ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range tt.ops {
				tt.ops[i].Line = 7
			}
			_, err := Check(tt.ops, Options{Model: "counter"})
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tt.want != "" && err == nil:
				t.Fatalf("no error, want %q", tt.want)
			case tt.want != "" && err.Error() != tt.want:
				t.Errorf("error\n %s\nwant\n %s", err, tt.want)
			}
		})
	}
}

// TestPartitionSlicesGroupedOperations holds partition's two paths to one
// another: operations that build gave, grouped by key, are sliced; any other
// order is grouped by copying, with the same groups.
func TestPartitionSlicesGroupedOperations(t *testing.T) {
	ops := genKV(400, 5, 4, 3)
	d := newDecoder(linModels["kv"])
	pops, keys, err := d.build(ops)
	if err != nil {
		t.Fatal(err)
	}
	grouped := partition(pops, len(keys))
	if len(grouped) != 5 || &grouped[0][0] != &pops[0] {
		t.Fatalf("build's operations were not sliced into 5 groups: %d groups", len(grouped))
	}
	// The same operations in history order (by call) take the copying path.
	mixed := slices.Clone(pops)
	slices.SortStableFunc(mixed, func(a, b porcupine.Operation) int { return int(a.Call - b.Call) })
	if _, ok := sliceGroups(mixed); ok {
		t.Fatal("operations of 5 keys in history order were taken as grouped")
	}
	copied := partition(mixed, len(keys))
	if len(copied) != len(grouped) {
		t.Fatalf("%d groups by copying, %d by slicing", len(copied), len(grouped))
	}
	for g := range grouped {
		if len(copied[g]) != len(grouped[g]) {
			t.Fatalf("group %d: %d operations by copying, %d by slicing", g, len(copied[g]), len(grouped[g]))
		}
		for i := range grouped[g] {
			if copied[g][i].Input != grouped[g][i].Input {
				t.Fatalf("group %d, operation %d differs between the two paths", g, i)
			}
		}
	}
	if r := mustCheck(t, ops, Options{}); r.Verdict != Ok {
		t.Fatalf("generated kv history: %s", dump(r))
	}
}

// TestPlainPairAgrees holds casPair's quick path to the scanner: whatever it
// takes, the scanner reads as the same two values.
func TestPlainPairAgrees(t *testing.T) {
	took := 0
	for _, raw := range []string{
		`["a","b"]`, `[null,"b"]`, `["a",null]`, `[null,null]`, `["",""]`, `["null","x"]`, `["é","\u00e9"]`,
		`["a\"b","c"]`, `["a" ,"b"]`, `[ "a","b"]`, `["a","b","c"]`, `["a"]`, `[]`, `[1,2]`, `["a",2]`,
		`[nul,"b"]`, `[nullx,"b"]`, `["a","b"] `, `["a","b`, `["a`, `"a"`, "[\"a\x01\",\"b\"]", `["a","b"]]`,
	} {
		a, b, ok := plainPair([]byte(raw))
		if !ok {
			continue
		}
		took++
		d := newDecoder(linModels["cas"])
		pair, n, err := d.casPairScan([]byte(raw))
		if err != nil || n != 2 {
			t.Fatalf("%s: the quick path took it, the scanner says %d elements, %v", raw, n, err)
		}
		if got, want := [2]string{string(a), string(b)}, [2]string{d.vals.Names()[pair[0]], d.vals.Names()[pair[1]]}; got != want {
			t.Fatalf("%s: the quick path read %q, the scanner %q", raw, got, want)
		}
	}
	if took != 6 {
		t.Fatalf("the quick path took %d pairs, want 6", took)
	}
}

// TestNoneCompleted: a history whose operations all failed or ended unknown
// passes every model whatever happened, so it gets no verdict rather than
// ok; one completed operation is enough to check it.
func TestNoneCompleted(t *testing.T) {
	ops := number(
		lop(0, "put", "k0", `"a"`, "info", "", 0, 10),
		lop(1, "get", "k0", "", "info", "", 0, 10),
		lop(2, "put", "k1", `"b"`, "fail", "", 5, 15),
		lop(0, "get", "k1", "", "pending", "", 20, -1),
	)
	r := mustCheck(t, ops, Options{Model: "kv"})
	want := "nothing to check: none of the 4 operations of the history completed (each failed or ended unknown)"
	if r.Verdict != Unknown || r.Summary != want || !r.NoneCompleted() || r.Completed != 0 {
		t.Errorf("verdict %s, summary %q, completed %d; want unknown, %q, 0", r.Verdict, r.Summary, r.Completed, want)
	}
	ops = append(ops, lop(1, "get", "k0", "", "ok", `"a"`, 30, 40))
	r = mustCheck(t, number(ops...), Options{Model: "kv"})
	if r.Verdict != Ok || r.NoneCompleted() || r.Completed != 1 {
		t.Errorf("with one completed read: verdict %s, completed %d; want ok, 1", r.Verdict, r.Completed)
	}
	txns := txnHistory(info(0, "a x 1"), fail(1, "r x"))
	r = mustCheck(t, txns, Options{Model: ListAppend})
	if want := "nothing to check: none of the 2 transactions of the history completed (each failed or ended unknown)"; r.Verdict != Unknown || r.Summary != want {
		t.Errorf("list-append: verdict %s, summary %q; want unknown, %q", r.Verdict, r.Summary, want)
	}
}
