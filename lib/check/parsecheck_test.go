package check

import (
	"bytes"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sf-dst/sf/lib/history"
)

// strictParseAndCheck is what ParseAndCheck must give: history.Parse with
// every value validated, then Check.
func strictParseAndCheck(data []byte, read history.ReadOptions, opts Options) (*Report, error) {
	ops, err := history.Parse(data, read)
	if err != nil {
		return nil, err
	}
	return Check(ops, opts)
}

// lazyParseAndCheck is ParseAndCheck's first attempt alone, without the
// strict reading it falls back to.
func lazyParseAndCheck(data []byte, read history.ReadOptions, opts Options) (*Report, error) {
	read.DeferValueCheck = true
	return strictParseAndCheck(data, read, opts)
}

// outcome is a report's dump or an error's text, to compare two ways of
// reading and checking.
func outcome(r *Report, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return dump(r)
}

// sameAsStrict fails unless ParseAndCheck gives exactly what the strict
// reading and Check give, and returns that.
func sameAsStrict(t *testing.T, data []byte, read history.ReadOptions, opts Options) string {
	t.Helper()
	want := outcome(strictParseAndCheck(data, read, opts))
	if got := outcome(ParseAndCheck(data, read, opts)); got != want {
		t.Fatalf("ParseAndCheck gives\n%s\nthe strict reading\n%s", got, want)
	}
	return want
}

func TestParseAndCheckGenerated(t *testing.T) {
	for _, planted := range []bool{false, true} {
		for seed := uint64(1); seed <= 2; seed++ {
			file := historyFile(genListAppend(2000, planted, seed))
			opts := Options{Model: ListAppend}
			want := sameAsStrict(t, file, history.ReadOptions{}, opts)
			// The deferred reading is the one that gave it: the checker
			// accepted every value the reader did not check.
			if got := outcome(lazyParseAndCheck(file, history.ReadOptions{}, opts)); got != want {
				t.Fatalf("planted %v, seed %d: the deferred reading gives\n%s\nwant\n%s", planted, seed, got, want)
			}
			if planted != strings.Contains(want, "not serializable") {
				t.Fatalf("planted %v, seed %d: %s", planted, seed, want)
			}
		}
	}
}

// okLines is a list-append history in the writer's form whose ok values
// the tests below break: T0 appends, T1 reads y twice over.
const okLines = `{"index":0,"type":"invoke","process":0,"f":"txn","value":[["append","x","1"],["append","y","5"],["append","y","6"]],"time":1,"id":0}
{"index":1,"type":"ok","process":0,"f":"txn","value":OK0,"time":2,"id":0}
{"index":2,"type":"invoke","process":1,"f":"txn","value":[["r","x",null],["r","y",null]],"time":3,"id":1}
{"index":3,"type":"ok","process":1,"f":"txn","value":[["r","x",["1"]],["r","y",["5","6"]]],"time":4,"id":1}
{"index":4,"type":"invoke","process":1,"f":"txn","value":[["r","y",null],["r","x",null]],"time":5,"id":2}
{"index":5,"type":"ok","process":1,"f":"txn","value":OK2,"time":6,"id":2}
`

const (
	okValue0 = `[["append","x","1"],["append","y","5"],["append","y","6"]]`
	okValue2 = `[["r","y",["5","6"]],["r","x",["1"]]]`
)

func TestParseAndCheckHandMade(t *testing.T) {
	tests := []struct {
		name     string
		ok0, ok2 string // the ok values of T0 and T2; "" keeps the valid one
		valid    bool   // the history reads and checks without an error
	}{
		{"valid", "", "", true},
		{"valid with white space, escapes and numbers", `[ ["append" ,"x", "\u0031"],["append","y",5],["append","y","6" ] ]`, `[["r","y",[5,"6"]],["r","x",["\u0031"]]]`, true},
		// Refused since issue 30: a value is UTF-8 text, in either reading.
		{"value: bytes that are not UTF-8", `[["append","x","1"],["append","y","5` + "\xff" + `"],["append","y","6"]]`, `[["r","y",["5` + "\xff" + `","6"]],["r","x",["1"]]]`, false},
		{"valid, an anomaly", "", `[["r","y",["6","5"]],["r","x",["1"]]]`, true},
		{"read list: trailing comma", "", `[["r","y",["5","6",]],["r","x",["1"]]]`, false},
		{"read list: no comma", "", `[["r","y",["5" "6"]],["r","x",["1"]]]`, false},
		{"read list: unclosed", "", `[["r","y",["5","6"],["r","x",["1"]]]`, false},
		{"read list: shared prefix, then text after an element", "", `[["r","y",["5","6"x]],["r","x",["1"]]]`, false},
		{"read list: shared prefix, then a broken string", "", `[["r","y",["5","6"` + "\x01" + `"]],["r","x",["1"]]]`, false},
		{"read list: element is a bare word", "", `[["r","y",["5",six]],["r","x",["1"]]]`, false},
		{"read list: nul for null", "", `[["r","y",nul],["r","x",["1"]]]`, false},
		{"read list: nested", "", `[["r","y",["5",["6"]]],["r","x",["1"]]]`, false},
		{"key: unquoted", "", `[["r",y",["5","6"]],["r","x",["1"]]]`, false},
		{"key: bad escape", "", `[["r","y\q",["5","6"]],["r","x",["1"]]]`, false},
		{"key: control character", "", `[["r","y` + "\t" + `",["5","6"]],["r","x",["1"]]]`, false},
		{"function: bad escape", "", `[["\r","y",["5","6"]],["r","x",["1"]]]`, false},
		{"appended value: bad escape", `[["append","x","1\x"],["append","y","5"],["append","y","6"]]`, "", false},
		{"appended value: short \\u", `[["append","x","\u31"],["append","y","5"],["append","y","6"]]`, "", false},
		{"appended value: bad surrogate pair", `[["append","x","\ud800\u00zz"],["append","y","5"],["append","y","6"]]`, "", false},
		{"appended value: leading zero", `[["append","x",01],["append","y","5"],["append","y","6"]]`, "", false},
		{"appended value: point without digits", `[["append","x",1.],["append","y","5"],["append","y","6"]]`, "", false},
		{"appended value: exponent without digits", `[["append","x",1e],["append","y","5"],["append","y","6"]]`, "", false},
		{"appended value: minus alone", `[["append","x",-],["append","y","5"],["append","y","6"]]`, "", false},
		{"appended value: unterminated string", `[["append","x","1],["append","y","5"],["append","y","6"]]`, "", false},
		{"micro-op: four elements", `[["append","x","1","2"],["append","y","5"],["append","y","6"]]`, "", false},
		{"trailing comma between micro-ops", `[["append","x","1"],["append","y","5"],["append","y","6"],]`, "", false},
		{"trailing text after the value", "", okValue2 + `x`, false},
		{"a second value", "", okValue2 + `[]`, false},
		{"an extra bracket", "", okValue2 + `]`, false},
		// Lines the strict reader's general way reads: the second time and
		// id win.
		{"white space before the tail", "", okValue2 + ` `, true},
		{"the value holds the tail", "", okValue2 + `,"time":1,"id":2`, true},
		{"the tail only inside the value", "", `{"a":[1],"time":6,"id":2}` + `,"x":1`, false},
		{"no value", "", ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok0, ok2 := okValue0, okValue2
			if tt.ok0 != "" {
				ok0 = tt.ok0
			}
			if tt.ok2 != "" || tt.name == "no value" {
				ok2 = tt.ok2
			}
			data := []byte(strings.NewReplacer("OK0", ok0, "OK2", ok2).Replace(okLines))
			checkHandMade(t, data, tt.valid)
		})
	}
	// A line cut anywhere in an ok value.
	full := strings.NewReplacer("OK0", okValue0, "OK2", okValue2).Replace(okLines)
	at := strings.Index(full, `{"index":5`)
	for cut := at + strings.Index(full[at:], `"value":`); cut < len(full)-1; cut++ {
		checkHandMade(t, []byte(full[:cut]+"\n"), false)
	}
}

func checkHandMade(t *testing.T, data []byte, valid bool) {
	t.Helper()
	read := history.ReadOptions{File: "h.jsonl"}
	opts := Options{Model: ListAppend}
	want := sameAsStrict(t, data, read, opts)
	if valid == strings.HasPrefix(want, "error: ") {
		t.Fatalf("%s: the strict reading gives %s", data, want)
	}
	if lazy := outcome(lazyParseAndCheck(data, read, opts)); !deferredAgrees(lazy, want) {
		t.Fatalf("%s: the deferred reading gives %s, the strict one %s", data, lazy, want)
	}
}

// deferredAgrees says whether the deferred reading's outcome lazy is one
// ParseAndCheck may stand on or fall back from, given the strict one: every
// error the strict reading finds, the deferred one finds too (maybe another
// one), and a result of the deferred one without an error is the strict
// one's. It may find an error where the strict reading finds none, in a line
// the strict reader reads its general way.
func deferredAgrees(lazy, strict string) bool {
	if strings.HasPrefix(lazy, "error: ") {
		return true
	}
	return lazy == strict
}

// FuzzParseAndCheck holds ParseAndCheck to the strict reading and Check on
// list-append histories, and the deferred reading alone to deferredAgrees.
func FuzzParseAndCheck(f *testing.F) {
	f.Add([]byte(strings.NewReplacer("OK0", okValue0, "OK2", okValue2).Replace(okLines)))
	f.Add([]byte(strings.NewReplacer("OK0", okValue0, "OK2", `[["r","y",["5","6",]],["r","x",["1"]]]`).Replace(okLines)))
	f.Add([]byte(strings.NewReplacer("OK0", okValue0, "OK2", okValue2+`,"time":1,"id":2`).Replace(okLines)))
	f.Add(historyFile(genListAppend(20, true, 1)))
	// Invocations and completions of every kind, as written, changed
	// validly and broken.
	f.Add(invHistory(nil))
	f.Add(invHistory(map[string]string{"INV1": `[ ["r","q",null],["r","y",["5"]],["append","z","9"]]`}))
	f.Add(invHistory(map[string]string{"INV1": `[["r","x",null],["r","y",nul]]`}))
	f.Add(invHistory(map[string]string{"INV0": `[["append","x",01],["append","y","5"]]`}))
	f.Add(invHistory(map[string]string{"INV2": `[["append","z","1"],["r","x",[1,]]]`}))
	f.Add(invHistory(map[string]string{"INV3": `[["r","w",null],["append","w","\u00g1"]]`}))
	f.Add(invHistory(map[string]string{"INV4": `[["append",x,"2"],["r","y",null]]`}))
	f.Add(invHistory(map[string]string{"INV4": `[["append","x","2"],["r","y",` + strings.Repeat("[", 255) + strings.Repeat("]", 255) + `]]`}))
	f.Add(invHistory(map[string]string{"INFO3": `nul`}))
	// Reads long enough that jsonvalue.ListMemo.Shared compares them at
	// once, and tails at the edges of the integers the fast reader reads backwards.
	f.Add(historyFile(genListAppend(150, false, 2)))
	f.Add(bytes.Replace(historyFile(genListAppend(10, false, 3)), []byte(`"time":`), []byte(`"time":1234567890123456789`), 3))
	f.Add(bytes.Replace(historyFile(genListAppend(10, false, 3)), []byte(`,"id":`), []byte(`,"id":-0`), 2))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		read := history.ReadOptions{Format: history.FormatJSONL}
		opts := Options{Model: ListAppend}
		want := outcome(strictParseAndCheck(data, read, opts))
		if got := outcome(ParseAndCheck(data, read, opts)); got != want {
			t.Fatalf("ParseAndCheck gives\n%s\nthe strict reading\n%s", got, want)
		}
		if lazy := outcome(lazyParseAndCheck(data, read, opts)); !deferredAgrees(lazy, want) {
			t.Fatalf("the deferred reading gives\n%s\nthe strict one\n%s", lazy, want)
		}
	})
}

func TestParseAndCheckOtherWays(t *testing.T) {
	// Other models, and list-append in EDN, read strictly once: the same
	// outcome as the strict reading, whether the history is good or not.
	kv := historyFile(genKV(300, 4, 8, 1))
	sameAsStrict(t, kv, history.ReadOptions{}, Options{Model: "kv"})
	sameAsStrict(t, kv, history.ReadOptions{}, Options{Model: "list-append"})
	edn := []byte(`{:type :invoke, :f :txn, :value [[:append :x 1]], :process 0, :index 0}
{:type :ok, :f :txn, :value [[:append :x 1]], :process 0, :index 1}
{:type :invoke, :f :txn, :value [[:r :x nil]], :process 1, :index 2}
{:type :ok, :f :txn, :value [[:r :x [1 2]]], :process 1, :index 3}
`)
	if got := sameAsStrict(t, edn, history.ReadOptions{}, Options{Model: ListAppend}); !strings.Contains(got, "garbage-read") {
		t.Errorf("an EDN list-append history with a garbage read: %s", got)
	}
}

func TestParseAndCheckInterrupted(t *testing.T) {
	// Stopped while reading or while checking, it gives the error that
	// says so, not a strict reading's outcome.
	file := historyFile(genListAppend(3000, false, 1))
	stop := new(atomic.Bool)
	stop.Store(true)
	if _, err := ParseAndCheck(file, history.ReadOptions{Interrupt: stop}, Options{Model: ListAppend}); !errors.Is(err, history.ErrInterrupted) {
		t.Errorf("interrupted while reading: %v", err)
	}
	if _, err := ParseAndCheck(file, history.ReadOptions{}, Options{Model: ListAppend, Interrupt: stop}); !errors.Is(err, ErrInterrupted) {
		t.Errorf("interrupted while checking: %v", err)
	}
}

// invLines is a list-append history in the writer's form whose invocations
// the tests below break or change: T0 appends and T1 reads, both ok; T2
// fails, T3's outcome is unknown and T4 never returns. Each INVn is Tn's
// invocation; FAIL2 and INFO3 are the values of T2's and T3's completions.
const invLines = `{"index":0,"type":"invoke","process":0,"f":"txn","value":INV0,"time":1,"id":0}
{"index":1,"type":"ok","process":0,"f":"txn","value":[["append","x","1"],["append","y","5"]],"time":2,"id":0}
{"index":2,"type":"invoke","process":1,"f":"txn","value":INV1,"time":3,"id":1}
{"index":3,"type":"ok","process":1,"f":"txn","value":[["r","x",["1"]],["r","y",["5"]]],"time":4,"id":1}
{"index":4,"type":"invoke","process":2,"f":"txn","value":INV2,"time":5,"id":2}
{"index":5,"type":"fail","process":2,"f":"txn","value":FAIL2,"time":6,"id":2}
{"index":6,"type":"invoke","process":3,"f":"txn","value":INV3,"time":7,"id":3}
{"index":7,"type":"info","process":3,"f":"txn","value":INFO3,"time":8,"id":3}
{"index":8,"type":"invoke","process":4,"f":"txn","value":INV4,"time":9,"id":4}
`

// invValues are invLines' values as a writer writes them.
var invValues = map[string]string{
	"INV0":  `[["append","x","1"],["append","y","5"]]`,
	"INV1":  `[["r","x",null],["r","y",null]]`,
	"INV2":  `[["append","z","1"],["r","x",null]]`,
	"FAIL2": `[["append","z","1"],["r","x",null]]`,
	"INV3":  `[["r","w",null],["append","w","1"]]`,
	"INFO3": `null`,
	"INV4":  `[["append","x","2"],["r","y",null]]`,
}

// invHistory is invLines with the values of set in place of the writer's.
func invHistory(set map[string]string) []byte {
	var pairs []string
	for _, name := range []string{"INV0", "INV1", "INV2", "FAIL2", "INV3", "INFO3", "INV4"} {
		v, ok := set[name]
		if !ok {
			v = invValues[name]
		}
		pairs = append(pairs, name, v)
	}
	return []byte(strings.NewReplacer(pairs...).Replace(invLines))
}

func TestParseAndCheckInvocations(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		name  string
		set   map[string]string
		valid bool // the history reads and checks without an error
		// fallback: the deferred reading alone gives an error of its own and
		// ParseAndCheck reads strictly; otherwise the deferred reading gives
		// the strict one's outcome (report or error) itself.
		fallback bool
	}{
		{"valid", nil, true, false},
		// Invocations of ok transactions that are not their results with
		// null for each read's list, but valid: the check ignores them.
		{"ok invocation names another key", map[string]string{"INV1": `[["r","q",null],["r","y",null]]`}, true, false},
		{"ok invocation has another appended value", map[string]string{"INV0": `[["append","x","7"],["append","y","5"]]`}, true, false},
		{"ok invocation has an extra micro-op", map[string]string{"INV1": `[["r","x",null],["r","y",null],["append","z","9"]]`}, true, false},
		{"ok invocation has a micro-op fewer", map[string]string{"INV1": `[["r","x",null]]`}, true, false},
		{"ok invocation reads with a list", map[string]string{"INV1": `[["r","x",["1"]],["r","y",null]]`}, true, false},
		{"ok invocation with white space", map[string]string{"INV1": `[ ["r", "x",null] ,["r","y",` + "\t" + `null]]`}, true, false},
		{"ok invocation with escapes", map[string]string{"INV0": `[["append","\u0078","1"],["append","y","5"]]`}, true, false},
		{"ok invocation is null", map[string]string{"INV1": `null`}, true, false},
		{"ok invocation is an object", map[string]string{"INV0": `{"a":[1,2.5e3,true]}`}, true, false},
		{"ok invocation nested 256 deep", map[string]string{"INV1": `[["r","x",` + deep(254) + `],["r","y",null]]`}, true, false},
		{"ok invocation nested 257 deep", map[string]string{"INV1": `[["r","x",` + deep(255) + `],["r","y",null]]`}, false, true},
		{"failed invocation nested 256 deep", map[string]string{"INV2": `[["append","z","1"],["r","x",` + deep(254) + `]]`}, true, false},
		{"failed invocation nested 257 deep", map[string]string{"INV2": `[["append","z","1"],["r","x",` + deep(255) + `]]`}, false, true},
		{"pending invocation nested 257 deep", map[string]string{"INV4": `[["append","x","2"],["r","y",` + deep(255) + `]]`}, false, true},
		{"pending invocation reads an object", map[string]string{"INV4": `[["append","x","2"],["r","y",{"a":[]}]]`}, true, false},
		{"ok invocation holds the tail", map[string]string{"INV1": invValues["INV1"] + `,"time":1,"id":1`}, true, true},
		// Broken ones, in each kind of operation.
		{"ok invocation: nul for null", map[string]string{"INV1": `[["r","x",null],["r","y",nul]]`}, false, true},
		{"ok invocation: bad escape in a key", map[string]string{"INV1": `[["r","x\q",null],["r","y",null]]`}, false, true},
		{"ok invocation: control character", map[string]string{"INV0": `[["append","x","1` + "\x01" + `"],["append","y","5"]]`}, false, true},
		{"ok invocation: leading zero", map[string]string{"INV0": `[["append","x",01],["append","y","5"]]`}, false, true},
		{"ok invocation: trailing comma", map[string]string{"INV0": `[["append","x","1"],["append","y","5"],]`}, false, true},
		{"ok invocation: trailing text", map[string]string{"INV1": invValues["INV1"] + `x`}, false, true},
		{"ok invocation: an extra bracket", map[string]string{"INV1": invValues["INV1"] + `]`}, false, true},
		{"ok invocation: unclosed", map[string]string{"INV1": `[["r","x",null],["r","y",null]`}, false, true},
		// An empty value is left to the reader, which finds it.
		{"ok invocation: no value", map[string]string{"INV1": ``}, false, false},
		{"failed invocation: nul for null", map[string]string{"INV2": `[["append","z","1"],["r","x",nul]]`}, false, true},
		{"failed invocation: broken read value", map[string]string{"INV2": `[["append","z","1"],["r","x",[1,]]]`}, false, true},
		{"failed completion: broken value", map[string]string{"FAIL2": `[["append","z","1"],["r","x",nul]]`}, false, false},
		{"failed completion: another valid value", map[string]string{"FAIL2": `{"error":"aborted"}`}, true, false},
		{"info invocation: bad \\u", map[string]string{"INV3": `[["r","w",null],["append","w","\u00g1"]]`}, false, true},
		{"info completion: broken value", map[string]string{"INFO3": `nul`}, false, false},
		{"pending invocation: unquoted key", map[string]string{"INV4": `[["append",x,"2"],["r","y",null]]`}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := invHistory(tt.set)
			checkHandMade(t, data, tt.valid)
			read := history.ReadOptions{File: "h.jsonl"}
			opts := Options{Model: ListAppend}
			strict := outcome(strictParseAndCheck(data, read, opts))
			lazy := outcome(lazyParseAndCheck(data, read, opts))
			switch {
			case tt.fallback && (lazy == strict || !strings.HasPrefix(lazy, "error: ")):
				t.Errorf("the deferred reading gives %s, the strict one %s; want an error of its own", lazy, strict)
			case !tt.fallback && lazy != strict:
				t.Errorf("the deferred reading gives %s, the strict one %s", lazy, strict)
			}
		})
	}
	// Each invocation and completion value broken or changed at every
	// byte: cut short there, the byte dropped, or a stray byte put before
	// it. Some of these are still valid JSON; either way ParseAndCheck
	// must give what the strict reading gives.
	n := 0
	for name, v := range invValues {
		for i := range len(v) {
			for _, w := range []string{v[:i], v[:i] + v[i+1:], v[:i] + "x" + v[i:], v[:i] + "\x01" + v[i:], v[:i] + "," + v[i:]} {
				checkHandMadeAny(t, invHistory(map[string]string{name: w}))
				n++
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d broken values", n)
	}
}

// checkHandMadeAny is checkHandMade for a history that may or may not be
// valid.
func checkHandMadeAny(t *testing.T, data []byte) {
	t.Helper()
	read := history.ReadOptions{File: "h.jsonl"}
	opts := Options{Model: ListAppend}
	want := sameAsStrict(t, data, read, opts)
	if lazy := outcome(lazyParseAndCheck(data, read, opts)); !deferredAgrees(lazy, want) {
		t.Fatalf("%s: the deferred reading gives %s, the strict one %s", data, lazy, want)
	}
}
