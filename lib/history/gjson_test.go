package history

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/tidwall/gjson"
)

// gjson was measured against jsontext as the reader of histories
// (RATIONALE.md: "Why not gjson for histories?"). readJSONLWithGJSON is that
// reader: the same events and the same checks as readJSONL, except that
// errors only say which line is wrong. It stays here so that `make bench`
// keeps comparing the two on the same input.

// gjsonDepthMax bounds nesting before gjson validates a line: its validator
// recurses once per level, and a line of 16 MiB of '[' overflows the stack.
const gjsonDepthMax = 256

func gjsonValid(b []byte) bool {
	if bytes.Count(b, []byte{'['})+bytes.Count(b, []byte{'{'}) > gjsonDepthMax {
		depth := 0
		for i := 0; i < len(b); i++ {
			switch b[i] {
			case '[', '{':
				if depth++; depth > gjsonDepthMax {
					return false
				}
			case ']', '}':
				depth--
			case '"':
				for i++; i < len(b) && b[i] != '"'; i++ {
					if b[i] == '\\' {
						i++
					}
				}
			}
		}
	}
	return gjson.ValidBytes(b)
}

type gjsonEventReader struct {
	ev     Event
	text   []byte
	seen   int
	err    error
	intern map[string]string
	each   func(key, value gjson.Result) bool
}

func readJSONLWithGJSON(data []byte, emit func(*Event) error) error {
	r := gjsonEventReader{intern: map[string]string{}}
	r.each = r.field
	line := 0
	for len(data) > 0 {
		line++
		n := bytes.IndexByte(data, '\n')
		var text []byte
		if n < 0 {
			text, data = data, nil
		} else {
			text, data = data[:n], data[n+1:]
		}
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
		}
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		r.ev = Event{Line: line}
		if err := r.read(text); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if err := emit(&r.ev); err != nil {
			return err
		}
	}
	return nil
}

func (r *gjsonEventReader) read(text []byte) error {
	if !gjsonValid(text) {
		return errors.New("malformed event")
	}
	// The history is read-only once parsed, so gjson may view it without a
	// copy, as the real reader's operations alias it.
	obj := gjson.Parse(unsafe.String(unsafe.SliceData(text), len(text)))
	if !obj.IsObject() {
		return errors.New("malformed event: not an object")
	}
	r.text, r.seen, r.err = text, 0, nil
	obj.ForEach(r.each)
	if r.err != nil {
		return r.err
	}
	if r.seen != seenAll {
		return errors.New("event lacks a field")
	}
	return nil
}

func (r *gjsonEventReader) field(key, v gjson.Result) bool {
	ev := &r.ev
	var err error
	str := func(v gjson.Result) string {
		if v.Type != gjson.String {
			err = fmt.Errorf("%q is not a string", key.Str)
			return ""
		}
		if s, ok := r.intern[v.Str]; ok {
			return s
		}
		s := validString(strings.Clone(v.Str))
		r.intern[s] = s
		return s
	}
	integer := func(v gjson.Result) int64 {
		n, perr := strconv.ParseInt(v.Raw, 10, 64)
		if v.Type != gjson.Number || perr != nil {
			err = fmt.Errorf("%q is not an integer", key.Str)
		}
		return n
	}
	switch key.Str {
	case "type":
		switch str(v) {
		case "invoke":
			ev.Type = Invoke
		case "ok":
			ev.Type = OK
		case "info":
			ev.Type = Info
		case "fail":
			ev.Type = Fail
		default:
			err = errors.New("bad event type")
		}
		r.seen |= seenType
	case "process":
		ev.Process = integer(v)
		r.seen |= seenProcess
	case "f":
		ev.F = str(v)
		r.seen |= seenF
	case "key":
		if v.Type != gjson.Null {
			ev.Key = str(v)
		}
	case "value":
		ev.Value = r.text[v.Index : v.Index+len(v.Raw) : v.Index+len(v.Raw)]
	case "time":
		ev.Time = integer(v)
		r.seen |= seenTime
	case "id":
		ev.ID = integer(v)
		r.seen |= seenID
	case "index":
		ev.Index = integer(v)
	}
	r.err = err
	return err == nil
}

// genTxnHistory writes a list-append history of n transactions of one to
// four micro-ops, as a Jepsen list-append workload writes them: appends of
// fresh values and reads of lists up to 32 long.
func genTxnHistory(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	lists := map[int][]int{}
	var ops []HistoryOp
	var inv, out []byte
	next := 0
	for i := range n {
		inv, out = append(inv[:0], '['), append(out[:0], '[')
		for m := range 1 + rng.IntN(4) {
			if m > 0 {
				inv, out = append(inv, ','), append(out, ',')
			}
			k := next/32 + rng.IntN(8)
			key := strconv.Quote("k" + strconv.Itoa(k))
			if rng.IntN(2) == 0 {
				inv = fmt.Appendf(inv, `["r",%s,null]`, key)
				out = fmt.Appendf(out, `["r",%s,[`, key)
				for j, v := range lists[k] {
					if j > 0 {
						out = append(out, ',')
					}
					out = strconv.AppendInt(out, int64(v), 10)
				}
				out = append(out, "]]"...)
				continue
			}
			next++
			lists[k] = append(lists[k], next)
			inv = fmt.Appendf(inv, `["append",%s,%d]`, key, next)
			out = fmt.Appendf(out, `["append",%s,%d]`, key, next)
		}
		inv, out = append(inv, ']'), append(out, ']')
		ops = append(ops, HistoryOp{ID: int64(i), Process: int64(i % 10), F: "txn", Value: bytes.Clone(inv),
			Output: bytes.Clone(out), Call: 10 * int64(i), Return: 10*int64(i) + 7})
	}
	var buf bytes.Buffer
	if err := WriteEvents(&buf, Events(ops)); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func TestGJSONReaderAgrees(t *testing.T) {
	inputs := [][]byte{genTxnHistory(2000),
		[]byte("\xef\xbb\xbf" + `{"type":"invoke","process":1,"f":"put","key":"x\u00e9","value":{"a":[1,2.5,"\""]},"time":5,"id":3,"extra":[true]}` + "\n\n" +
			` {"id":3, "time":6, "f":"put", "process":1, "type":"ok", "key":null, "value":null} `)}
	for _, in := range inputs {
		var want, got []Event
		if err := readJSONL(in, "", false, func(e *Event) error { want = append(want, *e); return nil }); err != nil {
			t.Fatal(err)
		}
		if err := readJSONLWithGJSON(in, func(e *Event) error { got = append(got, *e); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || len(want) < 2 {
			t.Fatalf("gjson read %d events, jsontext %d", len(got), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("event %d: gjson reads %+v, jsontext %+v", i, got[i], want[i])
			}
		}
	}
	for _, bad := range []string{`{"type":"invoke"`, `[1]`, `{"type":"x","process":1,"f":"x","time":1,"id":1}`,
		`{"type":"ok","process":1.5,"f":"x","time":1,"id":1}`, `{"type":"ok","process":1,"f":"x","time":1}`,
		`{"type":"ok","process":1,"f":"x","time":1,"id":1,"value":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`} {
		if err := readJSONLWithGJSON([]byte(bad), func(*Event) error { return nil }); err == nil {
			t.Errorf("gjson reader accepts %s", bad)
		}
		if err := readJSONL([]byte(bad), "", false, func(*Event) error { return nil }); err == nil {
			t.Errorf("jsontext reader accepts %s", bad)
		}
	}
}

// BenchmarkReadJSONL reads the events of a history of 1,000,000 list-append
// operations (2,000,000 lines) with the reader sf uses (jsontext) and with
// gjson, and Parse pairs them into operations too. Besides the elapsed rate
// it reports CPU time, which other processes on a loaded machine stretch
// less.
func BenchmarkReadJSONL(b *testing.B) {
	const n = 1_000_000
	data := genTxnHistory(n)
	count := func(int) func(*Event) error {
		events := 0
		return func(*Event) error { events++; return nil }
	}
	for _, bench := range []struct {
		name string
		read func() error
	}{
		{"jsontext", func() error { return readJSONL(data, "", false, count(0)) }},
		{"gjson", func() error { return readJSONLWithGJSON(data, count(0)) }},
		{"parse", func() error {
			ops, err := Parse(data, ReadOptions{})
			if err == nil && len(ops) != n {
				err = fmt.Errorf("read %d operations, want %d", len(ops), n)
			}
			return err
		}},
	} {
		b.Run(bench.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			cpu := cpuTime()
			for b.Loop() {
				if err := bench.read(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
			if used := (cpuTime() - cpu).Seconds(); used > 0 {
				b.ReportMetric(used*1e3/float64(b.N), "cpu-ms/op")
			}
		})
	}
}
