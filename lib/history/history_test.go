package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
)

const specExample = `{"index":0,"type":"invoke","process":1,"f":"enqueue","key":"q","value":"1-0","time":8,"id":0}
{"index":1,"type":"invoke","process":2,"f":"dequeue","key":"q","value":null,"time":9,"id":1}
{"index":2,"type":"invoke","process":3,"f":"dequeue","key":"q","value":null,"time":10,"id":2}
{"index":3,"type":"fail","process":3,"f":"dequeue","key":"q","value":null,"time":11,"id":2}
{"index":4,"type":"ok","process":1,"f":"enqueue","key":"q","value":null,"time":648261,"id":0}
{"index":5,"type":"invoke","process":4,"f":"enqueue","key":"q","value":"4-0","time":648300,"id":3}
{"index":6,"type":"info","process":4,"f":"enqueue","key":"q","value":"4-0","time":648400,"id":3}
`

func TestReadHistory(t *testing.T) {
	ops, err := ReadHistory(strings.NewReader(specExample))
	if err != nil {
		t.Fatal(err)
	}
	want := []HistoryOp{
		{ID: 0, Process: 1, F: "enqueue", Key: "q", Value: json.RawMessage(`"1-0"`), Output: json.RawMessage(`null`), Status: StatusOK, Call: 8, Return: 648261, CallSeq: 0, ReturnSeq: 4, Line: 1},
		{ID: 1, Process: 2, F: "dequeue", Key: "q", Value: json.RawMessage(`null`), Status: StatusPending, Call: 9, Return: -1, CallSeq: 1, ReturnSeq: -1, Line: 2},
		{ID: 2, Process: 3, F: "dequeue", Key: "q", Value: json.RawMessage(`null`), Status: StatusFailed, Call: 10, Return: 11, CallSeq: 2, ReturnSeq: 3, Line: 3},
		{ID: 3, Process: 4, F: "enqueue", Key: "q", Value: json.RawMessage(`"4-0"`), Status: StatusUnknown, Call: 648300, Return: 648400, CallSeq: 5, ReturnSeq: 6, Line: 6},
	}
	if !reflect.DeepEqual(ops, want) {
		t.Errorf("ops\n%+v\nwant\n%+v", ops, want)
	}
}

func TestPorcupineOperations(t *testing.T) {
	ops, err := ReadHistory(strings.NewReader(specExample))
	if err != nil {
		t.Fatal(err)
	}
	pops := PorcupineOperations(ops)
	if len(pops) != 3 {
		t.Fatalf("%d operations, want 3 (the failed one dropped)", len(pops))
	}
	// Call and Return are ranks among the history's seven events, which
	// order the events by time and then by their place in the file.
	end := int64(7)
	for i, want := range []struct {
		id          int64
		client      int
		call, ret   int64
		status      Status
		outputIsNil bool
	}{
		{0, 0, 0, 4, StatusOK, false},
		{1, 1, 1, end, StatusPending, true},
		{3, 3, 5, end, StatusUnknown, true},
	} {
		p := pops[i]
		in := p.Input.(HistoryOp)
		if in.ID != want.id || p.ClientId != want.client || p.Call != want.call || p.Return != want.ret || in.Status != want.status ||
			(in.Output == nil) != want.outputIsNil || !reflect.DeepEqual(p.Output, p.Input) {
			t.Errorf("operation %d: %+v", i, p)
		}
	}
	// A model of one's own: a register where enqueue writes and dequeue
	// reads, accepting any output of an operation that did not return ok.
	model := porcupine.Model{
		Init: func() any { return "" },
		Step: func(state, input, output any) (bool, any) {
			op := input.(HistoryOp)
			if op.F == "enqueue" {
				return true, string(op.Value)
			}
			return op.Status != StatusOK || string(op.Output) == state.(string), state
		},
	}
	if !porcupine.CheckOperations(model, pops) {
		t.Errorf("not linearizable")
	}
}

func TestReadErrors(t *testing.T) {
	line := func(s string) string { return s + "\n" }
	inv := `{"type":"invoke","process":1,"f":"put","key":"x","value":"1","time":5,"id":3}`
	tests := []struct {
		name, in, want string
	}{
		{"not JSON", line(`put x 1`), `h.jsonl:1: malformed event: column 1: expected '{', found 'p'`},
		{"truncated", line(`{"type":"invoke","process":1`), `h.jsonl:1: malformed event: column 29: expected ',' or '}' after a field`},
		{"text after", line(inv + ` x`), `h.jsonl:1: malformed event: column 79: text after the event's closing '}'`},
		{"bad type", line(`{"type":"done","process":1,"f":"x","time":1,"id":1}`), `h.jsonl:1: event type "done" is not one of invoke, ok, info, fail`},
		{"process not an integer", line(`{"type":"invoke","process":"n1","f":"x","time":1,"id":1}`), `h.jsonl:1: malformed event: "process": column 28: expected a number, found '"'`},
		{"fractional time", line(`{"type":"invoke","process":1,"f":"x","time":1.5,"id":1}`), `h.jsonl:1: malformed event: "time": column 45: expected an integer, found 1.5`},
		{"missing id", line(`{"type":"invoke","process":1,"f":"x","time":1}`), `h.jsonl:1: event has no "id" field`},
		{"bad value", line(`{"type":"invoke","process":1,"f":"x","value":[1,],"time":1,"id":1}`), `h.jsonl:1: malformed event: "value": column 49: expected a value, found ']'`},
		{"completion with no invocation", line(`{"type":"ok","process":1,"f":"x","time":1,"id":1}`), `h.jsonl:1: ok completion of id 1 has no invocation before it`},
		{"duplicate id", line(inv) + "\n" + line(inv), `h.jsonl:3: duplicate id 3: it was already invoked at line 1`},
		{"second completion", line(inv) + line(`{"type":"ok","process":1,"f":"put","time":6,"id":3}`) + line(`{"type":"fail","process":1,"f":"put","time":7,"id":3}`),
			`h.jsonl:3: second completion of id 3 (invoked at line 1)`},
		{"other process", line(inv) + line(`{"type":"ok","process":2,"f":"put","time":6,"id":3}`),
			`h.jsonl:2: completion of id 3 has process 2, but its invocation at line 1 has process 1`},
		{"other f", line(inv) + line(`{"type":"ok","process":1,"f":"get","time":6,"id":3}`),
			`h.jsonl:2: completion of id 3 has f "get", but its invocation at line 1 has f "put"`},
		{"completion before invocation", line(inv) + line(`{"type":"ok","process":1,"f":"put","time":4,"id":3}`),
			`h.jsonl:2: completion of id 3 at time 4 is before its invocation at time 5 (line 1)`},
		{"EDN: not a map", `[:invoke :x]`, `h.jsonl:1: expected an operation map, found a keyword`},
		{"EDN: unknown type", `{:type :start, :process 1, :f :x}`, `h.jsonl:1: :type :start is not one of :invoke, :ok, :info, :fail`},
		{"EDN: no process", `{:type :invoke, :f :x}`, `h.jsonl:1: operation map has no :process`},
		{"EDN: completion with no invocation", "\n{:type :ok, :process 1, :f :x}", `h.jsonl:2: ok completion of process 1 has no invocation before it`},
		{"EDN: invoke twice", "{:type :invoke, :process 1, :f :x}\n{:type :invoke, :process 1, :f :x}",
			`h.jsonl:2: process 1 invokes again while its invocation at line 1 is still open`},
		{"EDN: unclosed", "{:type :invoke,\n :value [1 2", `h.jsonl:2: unreadable EDN: '[' opened here is never closed`},
		{"EDN: mismatched", "{:type :invoke, :value [1 2}", `h.jsonl:1: unreadable EDN: '}' closes a '[' opened at line 1`},
		{"EDN: odd map", "{:type}", `h.jsonl:1: unreadable EDN: map with an odd number of forms`},
		{"EDN: bad string", `{:type :invoke, :f "x\q"}`, `h.jsonl:1: unreadable EDN: invalid escape \q in string`},
		{"EDN: bad number", `{:type :invoke, :process 1x}`, `h.jsonl:1: unreadable EDN: malformed number "1x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.in), ReadOptions{File: "h.jsonl"})
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n %s\nwant\n %s", err, tt.want)
			}
			var he *Error
			if !errors.As(err, &he) || he.Line == 0 {
				t.Errorf("%#v is not an *Error with a line", err)
			}
		})
	}
}

func TestDetectFormat(t *testing.T) {
	for in, want := range map[string]Format{
		"":                        FormatJSONL,
		"\n\n  {\"type\":\"ok\"}": FormatJSONL,
		"{}":                      FormatJSONL,
		"{:type :invoke}":         FormatEDN,
		"  [{:type :invoke}]":     FormatEDN,
		"({:type :invoke})":       FormatEDN,
		"; a comment\n{:type :x}": FormatEDN,
		"\xef\xbb\xbf{\"a\":1}":   FormatJSONL,
		"x":                       FormatJSONL,
	} {
		if got := DetectFormat([]byte(in)); got != want {
			t.Errorf("DetectFormat(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestReadEDN(t *testing.T) {
	in := `; a Jepsen store's history.edn
{:type :invoke, :f :txn, :value [[:r :x nil] [:append :y 3]], :process 0, :time 123, :index 0}
{:type :invoke, :f :start, :value nil, :process :nemesis, :time 124, :index 1}
{:type :invoke, :f :read, :value nil, :process 7, :time 125, :index 2, :key "k"}
{:type :ok, :f :txn, :value [[:r :x [1 2N]] [:append :y 3]], :process 0, :time 200, :index 3}
{:type :info, :f :read, :value nil, :process 7, :time 300, :index 4, :error [:timeout "no reply"]}
#jepsen.history.Op{:type :invoke, :f :add, :value #{1}, :process 1, :time 400, :index 5}
{:type :fail, :f :add, :value #_ 99 #{1}, :process 1, :time 500, :index 6, :extra {:a #inst "2024-01-01"}}
{:type :invoke, :f :write, :value "a\nb", :process 2, :index 7}
`
	ops, err := ReadHistory(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, op := range ops {
		got += strings.Join([]string{
			string(rune('0' + op.ID)), op.F, op.Key, string(op.Value), string(op.Output), op.Status.String(),
		}, " ") + "\n"
	}
	want := `0 txn  [["r","x",null],["append","y","3"]] [["r","x",["1","2"]],["append","y","3"]] ok
2 read k null  unknown
5 add  ["1"]  failed
7 write  "a\nb"  pending
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if ops[3].Call != 7 {
		t.Errorf("an operation with no :time takes its index as time, got %d", ops[3].Call)
	}
	// One vector of maps, as older Jepsen stores write it, reads the same.
	vec := "[" + strings.ReplaceAll(in, "; a Jepsen", "\n; a Jepsen") + "]"
	ops2, err := ReadHistory(strings.NewReader(vec))
	if err != nil {
		t.Fatal(err)
	}
	for i := range ops2 {
		ops2[i].Line, ops[i].Line = 0, 0
	}
	if !reflect.DeepEqual(ops, ops2) {
		t.Errorf("vector form differs:\n%+v\n%+v", ops, ops2)
	}
}

func TestRecorderRoundTrip(t *testing.T) {
	r := NewRecorder()
	a, _ := r.Invoke(1, "enqueue", "q", json.RawMessage(`"1-0"`), 8)
	b, _ := r.Invoke(2, "dequeue", "q", nil, 9)
	c, _ := r.Invoke(3, "txn", "", json.RawMessage(`[["r", "x", null]]`), 10)
	if err := r.Complete(a, OK, nil, 648261); err != nil {
		t.Fatal(err)
	}
	if err := r.Complete(b, Info, json.RawMessage(`"ignored"`), 700000); err != nil {
		t.Fatal(err)
	}
	if err := r.Complete(b, OK, nil, 700001); err == nil || err.Error() != "completion of id 1, which is not an open invocation" {
		t.Errorf("second completion: %v", err)
	}
	if r.Open() != 1 || r.Len() != 5 {
		t.Errorf("open %d, len %d", r.Open(), r.Len())
	}
	_ = c
	var buf bytes.Buffer
	if _, err := r.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	want := `{"index":0,"type":"invoke","process":1,"f":"enqueue","key":"q","value":"1-0","time":8,"id":0}
{"index":1,"type":"invoke","process":2,"f":"dequeue","key":"q","value":null,"time":9,"id":1}
{"index":2,"type":"invoke","process":3,"f":"txn","value":[["r","x",null]],"time":10,"id":2}
{"index":3,"type":"ok","process":1,"f":"enqueue","key":"q","value":null,"time":648261,"id":0}
{"index":4,"type":"info","process":2,"f":"dequeue","key":"q","value":null,"time":700000,"id":1}
`
	if buf.String() != want {
		t.Errorf("file\n%s\nwant\n%s", buf.String(), want)
	}
	read, err := ReadHistory(&buf)
	if err != nil {
		t.Fatal(err)
	}
	sameOps(t, r.Ops(), read)
}

// sameOps compares operations by id, ignoring lines and JSON white space.
func sameOps(t *testing.T, a, b []HistoryOp) {
	t.Helper()
	norm := func(ops []HistoryOp) map[int64]HistoryOp {
		m := map[int64]HistoryOp{}
		for _, op := range ops {
			op.Line = 0
			// Writing a history orders events by time, so positions within
			// one instant may differ; times and everything else may not.
			op.CallSeq, op.ReturnSeq = 0, 0
			op.Value = compact(op.Value)
			op.Output = compact(op.Output)
			m[op.ID] = op
		}
		return m
	}
	if !reflect.DeepEqual(norm(a), norm(b)) {
		t.Errorf("operations differ:\n%+v\n%+v", a, b)
	}
}

func compact(v json.RawMessage) json.RawMessage {
	if v == nil {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		return v
	}
	return buf.Bytes()
}

// roundTrip writes operations as a history file and reads them back.
func roundTrip(t *testing.T, ops []HistoryOp) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteEvents(&buf, Events(ops)); err != nil {
		t.Fatal(err)
	}
	again, err := Parse(buf.Bytes(), ReadOptions{Format: FormatJSONL})
	if err != nil {
		t.Fatalf("re-reading the written history: %v\n%s", err, buf.String())
	}
	sameOps(t, ops, again)
}

func FuzzReadJSONL(f *testing.F) {
	f.Add([]byte(specExample))
	f.Fuzz(func(t *testing.T, data []byte) {
		ops, err := Parse(data, ReadOptions{Format: FormatJSONL})
		if err != nil {
			var he *Error
			if !errors.As(err, &he) || he.Line == 0 {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		roundTrip(t, ops)
	})
}

func FuzzReadEDN(f *testing.F) {
	if b, err := os.ReadFile("testdata/jepsen.edn"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ops, err := Parse(data, ReadOptions{Format: FormatEDN})
		if err != nil {
			var he *Error
			if !errors.As(err, &he) || he.Line == 0 {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		roundTrip(t, ops)
	})
}

func TestUnpackIndependent(t *testing.T) {
	in := `{:type :invoke, :f :write, :value [0 3], :process 0, :index 0}
{:type :ok, :f :write, :value [0 3], :process 0, :index 1}
{:type :invoke, :f :read, :value [:k nil], :process 1, :index 2}
{:type :ok, :f :read, :value [:k [1 2]], :process 1, :index 3}
{:type :invoke, :f :cas, :value [0 [3 4]], :process 2, :index 4}
{:type :info, :f :cas, :value [0 [3 4]], :process 2, :index 5}
`
	ops, err := ReadHistory(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	un, ok := UnpackIndependent(ops)
	if !ok {
		t.Fatal("not unpacked")
	}
	var got []string
	for _, op := range un {
		got = append(got, op.Key+" "+string(op.Value)+" "+string(op.Output))
	}
	want := []string{`0 "3" "3"`, `k null ["1","2"]`, `0 ["3","4"] `}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// Not tuples: left alone.
	for _, bad := range []string{
		`{:type :invoke, :f :write, :value 3, :process 0}`,
		`{:type :invoke, :f :write, :value [0 3 4], :process 0}`,
		`{:type :invoke, :f :write, :value [0 3], :process 0, :key "x"}`,
		"{:type :invoke, :f :read, :value [0 nil], :process 0}\n{:type :ok, :f :read, :value 3, :process 0}",
	} {
		ops, err := ReadHistory(strings.NewReader(bad))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := UnpackIndependent(ops); ok {
			t.Errorf("%s: unpacked", bad)
		}
	}
}
