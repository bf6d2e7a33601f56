package history

import (
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/history/jsontext"
)

// fastSamples are event lines: the writer's shape, which fastEvent takes,
// and near misses, which it must either read as parseEvent does or leave to
// it.
var fastSamples = []string{
	`{"index":0,"type":"invoke","process":1,"f":"enqueue","key":"q","value":"1-0","time":8,"id":0}`,
	`{"index":4,"type":"ok","process":1,"f":"enqueue","key":"q","value":null,"time":648261,"id":0}`,
	`{"index":7,"type":"info","process":-3,"f":"txn","value":[["r","k1",["1","2"]],["append","k2","3"]],"time":9,"id":12}`,
	`{"index":7,"type":"fail","process":0,"f":"txn","value":[["append","k2",3]],"time":-0,"id":1}` + "\r",
	`{"index":1,"type":"ok","process":2,"f":"read","value":{"a":[1,2.5e3,true,false,null]},"time":3,"id":4}  `,
	`{"index":01,"type":"ok","process":1,"f":"r","value":1,"time":1,"id":1}`,
	`{"index":1.5,"type":"ok","process":1,"f":"r","value":1,"time":1,"id":1}`,
	`{"index":1e3,"type":"ok","process":1,"f":"r","value":1,"time":1,"id":1}`,
	`{"index":1E3,"type":"ok","process":1,"f":"r","value":1,"time":1,"id":1}`,
	`{"index":1,"type":"ok","process":1,"f":"r","value":1,"time":1/2,"id":1}`,
	`{"index":1,"type":"ok","process":1,"f":"r","value":1,"time":1:2,"id":1}`,
	`{"index":1,"type":"okay","process":1,"f":"r","value":1,"time":1,"id":1}`,
	`{"index":1,"type":"\u006fk","process":1,"f":"r","value":1,"time":1,"id":1}`,
	`{"index":1,"type":"ok","process":1,"f":"r\"s","value":1,"time":1,"id":1}`,
	`{"index":1,"type":"ok","process":1,"f":"r` + "\x01" + `","value":1,"time":1,"id":1}`,
	`{"index":1,"type":"ok","process":1,"f":"r` + "\xff" + `","key":"\xfe","value":1,"time":1,"id":1}`,
	`{"index":1,"type":"ok","process":1,"f":"r","key":null,"value":1,"time":1,"id":1}`,
	`{"index":1,"type":"ok","process":1,"f":"r","value": 1,"time":1,"id":1}`,
	`{"index":1,"type":"ok","process":1,"f":"r","value":[1,],"time":1,"id":1}`,
	`{"index":1,"type":"ok","process":1,"f":"r","value":1,"time":1,"id":1,"extra":2}`,
	`{"index":1,"type":"ok","process":1,"f":"r","value":1,"time":1,"id":1} x`,
	`{"index":1,"type":"ok","process":1,"f":"r","value":1,"time":1,"id":1`,
	`{"index":1,"type":"ok","process":1,"f":"r","value":1,"time":1,"id":123456789012345678}`,
	`{"index":1,"type":"ok","process":1,"f":"r","value":1,"time":1,"id":1234567890123456789}`,
	`{"index":1,"type":"ok","process":1,"f":"r","value":1,"time":1,"id":99999999999999999999}`,
	`{"index":1,"type":"ok","process":1,"f":"r","value":1,"time":-,"id":1}`,
	`{"index":1,"type":"ok","process":1,"f":"r","value":1,"id":1,"time":1}`,
	`{"type":"ok","process":1,"f":"r","value":1,"time":1,"id":1}`,
	// For deferOK: ok values that are broken, or hold the tail themselves.
	`{"index":1,"type":"ok","process":1,"f":"txn","value":[["r","x",[1,]]],"time":1,"id":1}`,
	`{"index":1,"type":"ok","process":1,"f":"txn","value":[["r","x",[1]]] ,"time":1,"id":1}`,
	`{"index":1,"type":"ok","process":1,"f":"txn","value":[["r","x",[1]]],"time":1,"id":1,"time":2,"id":3}`,
	`{"index":1,"type":"ok","process":1,"f":"txn","value":{"a":1,"time":1,"id":2}`,
	`{"index":1,"type":"ok","process":1,"f":"txn","value":{"a":1,"time":1,"id":2},"time":3,"id":4}` + " \t",
	`{"index":1,"type":"ok","process":1,"f":"txn","value":,"time":1,"id":2}`,
	`{"index":1,"type":"ok","process":1,"f":"txn","value":"\x","time":1,"id":2}`,
	`{"index":1,"type":"ok","process":1,"f":"txn","value":[1],"time":01,"id":2}`,
	`{"index":1,"type":"ok","process":1,"f":"txn","value":[1],"time":1,"id":--2}`,
	`{"index":1,"type":"ok","process":1,"f":"txn","value":[1]"time":1,"id":2}`,
	// For deferOK: the tail's integers, read backwards, at the edges of
	// fastInt's rules, and what may follow the tail.
	`{"index":1,"type":"ok","process":1,"f":"txn","value":[1],"time":1,"id":007}`,
	`{"index":1,"type":"ok","process":1,"f":"txn","value":[1],"time":00,"id":7}`,
	`{"index":1,"type":"invoke","process":1,"f":"txn","value":[1],"time":-0,"id":-0}`,
	`{"index":1,"type":"invoke","process":1,"f":"txn","value":[1],"time":-00,"id":1}`,
	`{"index":1,"type":"ok","process":1,"f":"txn","value":[1],"time":-123456789012345678,"id":123456789012345678}`,
	`{"index":1,"type":"ok","process":1,"f":"txn","value":[1],"time":1234567890123456789,"id":1}`,
	`{"index":1,"type":"ok","process":1,"f":"txn","value":[1],"time":1,"id":-1234567890123456789}`,
	`{"index":1,"type":"ok","process":1,"f":"txn","value":[1],"time":12345678,"id":87654321}`,
	`{"index":1,"type":"ok","process":1,"f":"txn","value":[1],"time":1,"id":1.0}`,
	`{"index":1,"type":"ok","process":1,"f":"txn","value":[1],"time":1e3,"id":1}`,
	`{"index":1,"type":"ok","process":1,"f":"txn","value":[1],"time":1,"id":-}`,
	`{"index":1,"type":"ok","process":1,"f":"txn","value":[1],"time":1,"id":1}` + " \t\r\n",
	`{"index":1,"type":"ok","process":1,"f":"txn","value":[1],"time":1,"id":1}` + "\n\n",
	`{"index":1,"type":"ok","process":1,"f":"txn","value":[1],"time":1,"id":1}` + "\v",
	`{"index":1,"type":"ok","process":1,"f":"txn","value":[1],"time":1,"id":1 }`,
	`{"index":1,"type":"ok","process":1,"f":"txn","value":[1],"time":1 ,"id":1}`,
	`{"index":1,"type":"ok","process":1,"f":"txn","value":"\u00e9","time":1,"id":1}`,
	`{"index":1,"type":"ok","process":1,"f":"txn","value":"` + "\xba" + `9","time":1,"id":1}`,
}

// checkFast holds fastEvent to parseEvent on one line: whatever it takes,
// parseEvent must read the same way.
func checkFast(t *testing.T, line []byte) {
	t.Helper()
	checkFastDeferred(t, line)
	var fast, slow Event
	if !fastEvent(line, &fast, map[string]string{}, nil, false) {
		return
	}
	s := jsontext.New(line)
	if err := parseEvent(s, &slow, map[string]string{}); err != nil {
		t.Fatalf("%q: fastEvent took a line that parseEvent refuses: %v", line, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%q: fastEvent read %+v, parseEvent %+v", line, fast, slow)
	}
	// readJSONL hands fastEvent the event of the line before, whose names
	// it reuses when they are the same: what is left there from another
	// line, or from this one, must not show through.
	for _, before := range []Event{
		{Index: 9, Type: Fail, Process: 7, F: "txn", Key: "k", Value: []byte("[1]"), Time: 5, ID: 3, Line: 2},
		{F: fast.F, Key: fast.Key},
		{F: fast.F + "x", Key: "\ufffd"},
	} {
		again := before
		if !fastEvent(line, &again, map[string]string{}, nil, false) {
			t.Fatalf("%q: fastEvent refused the line over the event %+v, took it over a zero one", line, before)
		}
		again.Line = 0
		if !reflect.DeepEqual(again, fast) {
			t.Fatalf("%q: fastEvent over the event %+v read %+v, over a zero one %+v", line, before, again, fast)
		}
	}
}

// checkFastDeferred holds fastEvent with deferOK to fastEvent without it on
// one line: they differ only on an invocation or an ok completion whose
// value is not valid JSON, which the caller's strict check of that value
// then refuses.
func checkFastDeferred(t *testing.T, line []byte) {
	t.Helper()
	var lazy, strict Event
	lazyOK := fastEvent(line, &lazy, map[string]string{}, nil, true)
	strictOK := fastEvent(line, &strict, map[string]string{}, nil, false)
	switch {
	case !lazyOK && strictOK:
		t.Fatalf("%q: fastEvent refuses with deferOK a line it takes without", line)
	case !lazyOK:
	case strictOK && !reflect.DeepEqual(lazy, strict):
		t.Fatalf("%q: fastEvent read %+v with deferOK, %+v without", line, lazy, strict)
	case !strictOK:
		// Only an invocation's or an ok value may go unchecked, and then it
		// must not be valid JSON: valid, it is what the strict reading finds.
		if lazy.Type != OK && lazy.Type != Invoke {
			t.Fatalf("%q: fastEvent with deferOK took a %s line it refuses without", line, lazy.Type)
		}
		if end, ok := jsontext.ValidAt(lazy.Value, 0, nil); ok && end == len(lazy.Value) {
			t.Fatalf("%q: fastEvent with deferOK took the valid value %q, which the strict reading does not", line, lazy.Value)
		}
	}
}

func TestFastEventDeferred(t *testing.T) {
	// The writer's lines read the same with deferOK.
	for _, line := range strings.Split(strings.TrimSpace(specExample), "\n") {
		var lazy, strict Event
		if !fastEvent([]byte(line), &lazy, map[string]string{}, nil, true) ||
			!fastEvent([]byte(line), &strict, map[string]string{}, nil, false) || !reflect.DeepEqual(lazy, strict) {
			t.Fatalf("%s: fastEvent with deferOK read %+v, without %+v", line, lazy, strict)
		}
	}
	// What deferOK takes unchecked, and what it leaves to the strict ways.
	tests := []struct {
		line  string
		value string // "" when the line is not taken with deferOK
	}{
		{`{"index":1,"type":"ok","process":1,"f":"txn","value":[["r","x",[1,]]],"time":1,"id":1}`, `[["r","x",[1,]]]`},
		{`{"index":1,"type":"ok","process":1,"f":"txn","value":{"a":1,"time":1,"id":2}`, `{"a":1`},
		{`{"index":1,"type":"ok","process":1,"f":"txn","value":[1],"time":1,"id":1,"time":2,"id":3}`, `[1],"time":1,"id":1`},
		{`{"index":1,"type":"ok","process":1,"f":"txn","value":[1]"time":1,"id":2}`, ``},
		{`{"index":1,"type":"ok","process":1,"f":"txn","value":[1] ,"time":1,"id":2}`, ``},
		{`{"index":1,"type":"ok","process":1,"f":"txn","value":,"time":1,"id":2}`, ``},
		{`{"index":1,"type":"ok","process":1,"f":"txn","value":[1],"time":01,"id":2}`, ``},
		{`{"index":1,"type":"invoke","process":1,"f":"txn","value":[1,],"time":1,"id":2}`, `[1,]`},
		{`{"index":1,"type":"invoke","process":1,"f":"txn","value":[["r","x",nul]],"time":1,"id":2}`, `[["r","x",nul]]`},
		{`{"index":1,"type":"invoke","process":1,"f":"txn","value": [1],"time":1,"id":2}`, ``},
		{`{"index":1,"type":"fail","process":1,"f":"txn","value":[1,],"time":1,"id":2}`, ``},
		{`{"index":1,"type":"info","process":1,"f":"txn","value":[1,],"time":1,"id":2}`, ``},
		// The tail's integers are read by fastInt's rules, backwards.
		{`{"index":1,"type":"ok","process":1,"f":"txn","value":[1,],"time":1,"id":02}`, ``},
		{`{"index":1,"type":"ok","process":1,"f":"txn","value":[1,],"time":-01,"id":2}`, ``},
		{`{"index":1,"type":"ok","process":1,"f":"txn","value":[1,],"time":-0,"id":2}`, `[1,]`},
		{`{"index":1,"type":"ok","process":1,"f":"txn","value":[1,],"time":1,"id":123456789012345678}`, `[1,]`},
		{`{"index":1,"type":"ok","process":1,"f":"txn","value":[1,],"time":1,"id":1234567890123456789}`, ``},
		{`{"index":1,"type":"ok","process":1,"f":"txn","value":[1,],"time":1,"id":2}` + " \r\n", `[1,]`},
		{`{"index":1,"type":"ok","process":1,"f":"txn","value":[1,],"time":1,"id":2}` + "\f", ``},
	}
	for _, tt := range tests {
		var ev Event
		took := fastEvent([]byte(tt.line), &ev, map[string]string{}, nil, true)
		if took != (tt.value != "") || (took && string(ev.Value) != tt.value) {
			t.Errorf("%s: fastEvent with deferOK took it %v with value %q; want %q", tt.line, took, ev.Value, tt.value)
		}
		// Time and id, read from the tail backwards, are what the strict
		// reading finds once the value is a valid one.
		if took {
			fixed := strings.Replace(tt.line, `"value":`+tt.value, `"value":[1]`, 1)
			var strict Event
			if !fastEvent([]byte(fixed), &strict, map[string]string{}, nil, false) || strict.Time != ev.Time || strict.ID != ev.ID {
				t.Errorf("%s: fastEvent with deferOK read time %d and id %d; %s reads %d and %d", tt.line, ev.Time, ev.ID, fixed, strict.Time, strict.ID)
			}
		}
		checkFast(t, []byte(tt.line))
	}
}

func TestFastEventAgrees(t *testing.T) {
	took := 0
	for _, line := range fastSamples {
		checkFast(t, []byte(line))
		var ev Event
		if fastEvent([]byte(line), &ev, map[string]string{}, nil, false) {
			took++
		}
	}
	// The writer's own shapes must take the fast path, or it measures nothing.
	if took < 6 {
		t.Fatalf("fastEvent took %d of the sample lines, want at least the 6 written as AppendEvent writes", took)
	}
	// Every line the writer writes takes it.
	for _, line := range strings.Split(strings.TrimSpace(specExample), "\n") {
		var ev Event
		if !fastEvent([]byte(line), &ev, map[string]string{}, nil, false) {
			t.Errorf("fastEvent refuses the writer's line %s", line)
		}
	}
}

func FuzzFastEvent(f *testing.F) {
	for _, s := range fastSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkFast(t, line) })
}

func TestFastInt(t *testing.T) {
	// Every length of number from 1 to 20 digits, signed or not, followed
	// by each kind of byte or by the end of the data, at every distance
	// from the end: the eight-byte path and the byte loop must agree with
	// strconv.
	digits := "98765432109876543210"
	for n := 1; n <= len(digits); n++ {
		for _, sign := range []string{"", "-"} {
			for _, num := range []string{digits[:n], "1" + strings.Repeat("0", n-1), strings.Repeat("0", n)} {
				for _, after := range []string{"", ",", "}", "/", ":", ".5", "e3", "E3", " ", "x"} {
					for pad := range 10 {
						text := sign + num + after + strings.Repeat("\x00", pad)
						v, end, ok := fastInt([]byte(text), 0)
						want, err := strconv.ParseInt(sign+num, 10, 64)
						wantOK := err == nil && n <= 18 && (n == 1 || num[0] != '0') &&
							!strings.HasPrefix(after, ".") && !strings.HasPrefix(strings.ToLower(after), "e")
						if ok != wantOK || (ok && (v != want || end != len(sign)+n)) {
							t.Fatalf("fastInt(%q) = %d, %d, %v; want %d, %d, %v", text, v, end, ok, want, len(sign)+n, wantOK)
						}
					}
				}
			}
		}
	}
}

func TestReadLongListAllocates(t *testing.T) {
	// A list-append read of a million elements, on one line: the
	// operations alias the input, so reading it needs memory for a few
	// events, not for the list's elements.
	const n = 1_000_000
	var b strings.Builder
	b.WriteString(`{"index":0,"type":"invoke","process":0,"f":"txn","value":[["r","k",null]],"time":1,"id":0}` + "\n")
	b.WriteString(`{"index":1,"type":"ok","process":0,"f":"txn","value":[["r","k",[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(i % 100))
	}
	b.WriteString(`]]],"time":2,"id":0}` + "\n")
	data := []byte(b.String())
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ops, err := Parse(data, ReadOptions{File: "long.jsonl"})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	line2 := strings.Split(b.String(), "\n")[1]
	want := line2[strings.Index(line2, `[["r"`):strings.LastIndex(line2, `,"time"`)]
	if len(ops) != 1 {
		t.Fatalf("read %d operations, want 1", len(ops))
	}
	if ops[0].Status != StatusOK || string(ops[0].Output) != want {
		t.Fatalf("the operation: status %s, output of %d bytes, want %d", ops[0].Status, len(ops[0].Output), len(want))
	}
	// The memo's slots (24 KiB), the event and the operation; per element
	// it would be megabytes.
	if got := after.TotalAlloc - before.TotalAlloc; got > 512<<10 {
		t.Errorf("reading a line with a list of %d elements allocated %d bytes", n, got)
	}
}

func TestIntBefore(t *testing.T) {
	// Every length of number from 1 to 20 digits, signed or not, after
	// each kind of byte (bytes above 0x7f too, whose top bit the
	// eight-byte path tests apart) or at the start of the data, at every
	// distance from the start: intBefore must read what fastInt reads
	// forwards, and refuse what it refuses.
	digits := "98765432109876543210"
	for n := 1; n <= len(digits); n++ {
		for _, sign := range []string{"", "-"} {
			for _, num := range []string{digits[:n], "1" + strings.Repeat("0", n-1), strings.Repeat("0", n), "9" + strings.Repeat("0", n-1)} {
				for _, before := range []string{"", ":", ",", "\"", "/", "-", "\xff", "\xba", "\x8a", "\x00", " "} {
					for pad := range 10 {
						text := strings.Repeat("\xb9", pad) + before + sign + num
						v, k := intBefore([]byte(text), len(text))
						fv, fend, fok := fastInt([]byte(sign+num+"}"), 0)
						if before == "-" && sign == "" {
							// "-" then digits: read as the sign.
							fv, fend, fok = fastInt([]byte("-"+num+"}"), 0)
						}
						wantK := len(text) - fend
						if !fok {
							wantK = -1
						}
						if k != wantK || (fok && v != fv) {
							t.Fatalf("intBefore(%q) = %d, %d; want %d, %d (fastInt %v)", text, v, k, fv, wantK, fok)
						}
					}
				}
			}
		}
	}
}

// ParseEvents validates every value, DeferValueCheck or not: no checker
// decodes its events' values after it.
func TestParseEventsIgnoresDeferValueCheck(t *testing.T) {
	data := []byte(`{"index":0,"type":"invoke","process":0,"f":"txn","value":[["r","x",null]],"time":1,"id":0}
{"index":1,"type":"ok","process":0,"f":"txn","value":[["r","x",[1,]]],"time":2,"id":0}
`)
	if _, err := ParseEvents(data, ReadOptions{DeferValueCheck: true}); err == nil || (!strings.Contains(err.Error(), "line 2") && !strings.Contains(err.Error(), ":2:")) {
		t.Errorf("ParseEvents with DeferValueCheck on a broken ok value: %v, want an error at line 2", err)
	}
	if _, err := Parse(data, ReadOptions{DeferValueCheck: true}); err != nil {
		t.Errorf("Parse with DeferValueCheck refuses the broken ok value itself: %v; it is the caller's to find", err)
	}
}
