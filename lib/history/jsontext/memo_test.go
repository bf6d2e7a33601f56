package jsontext

import (
	"bytes"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// memoSamples are runs of values, one a line, that ValidAt checks in turn
// with one memo: arrays that repeat an earlier one's start and then go on,
// stop, differ inside a token or turn invalid.
var memoSamples = []string{
	"[\"a\",\"b\"]\n[\"a\",\"b\",\"c\"]\n[\"a\",\"b\",\"c\",\"d\"]\n[\"a\",\"b\"]\n[\"a\"]\n[\"a\",\"b\",]\n[\"a\",\"b\",\"c\"",
	"[12,13]\n[123,13]\n[12,134]\n[12,13,14]\n[12,13 ,14]\n[12, 13]\n[12,13.]\n[12,13e5]\n[12,1]",
	"[\"a,b\",\"c\"]\n[\"a,b\",\"c\",\"d\"]\n[\"a,b\",\"c]\"]\n[\"a,b\",\"c\"\n[\"a,b\",\"c\\\"\"]",
	"[true,false,null]\n[true,false,null,1]\n[true,fals]\n[true,false,nul]\n[true,false,[1]]\n[true,false,{}]",
	"[[\"r\",\"k1\",[\"1\",\"2\"]],[\"append\",\"k1\",\"3\"]]\n[[\"r\",\"k1\",[\"1\",\"2\",\"3\"]],[\"append\",\"k1\",\"4\"]]\n[[\"r\",\"k1\",[\"1\",\"2\",\"3\",]]]",
	"[ ]\n[]\n[ \"x\" ]\n[ \"x\" , \"y\" ]\n[ \"x\" , \"y\" , ]\n[ \"x\" , \"y\" \"z\" ]",
	"{\"a\":[1,2]}\n{\"a\":[1,2,3]}\n[1,2,3]\n[1,2,3,{\"a\":[1,2,3,4]}]\n[1,2,3,4",
}

// checkMemo holds ValidAt with one memo to validate without on each line of
// data, inside two arrays (the memo serves only nested arrays), in one
// buffer so that the memo sees earlier lines.
func checkMemo(t *testing.T, data []byte) {
	t.Helper()
	var buf []byte
	var starts []int
	for _, line := range bytes.Split(data, []byte("\n")) {
		starts = append(starts, len(buf))
		buf = append(buf, "[["...)
		buf = append(buf, line...)
		buf = append(buf, "]]\n"...)
	}
	var memo ArrayMemo
	for n, start := range starts {
		end := len(buf)
		if n+1 < len(starts) {
			end = starts[n+1]
		}
		line := buf[:end-1] // a value ends at its line's end, as in a history
		gotEnd, got := ValidAt(line, start, &memo)
		wantEnd, want := validate(line, start)
		if got != want || (got && gotEnd != wantEnd) {
			t.Fatalf("%q: with the memo %v (end %d), without %v (end %d)", buf[start:end-1], got, gotEnd, want, wantEnd)
		}
	}
}

func TestArrayMemoAgrees(t *testing.T) {
	for _, s := range memoSamples {
		checkMemo(t, []byte(s))
	}
}

func TestArrayMemoTakesShared(t *testing.T) {
	// A memo that never matched would pass the agreement test too.
	arrays := []string{`["aaaa","bbbb","cccc"]`, `["aaaa","bbbb","cccc","dddd"]`, `["aaaa","bbbb","cccd"]`, `["aaaa","bbbb","cccc"]`}
	var d []byte
	var at []int
	for _, a := range arrays {
		d = append(d, "[["...)
		at = append(at, len(d))
		d = append(d, a...)
		d = append(d, "]] "...)
	}
	var memo ArrayMemo
	for n, shared := range []int{0, 3, 2, 2} {
		if _, k := memo.shared(d, at[n]); k != shared {
			t.Errorf("array %d shares %d elements with the memo, want %d", n, k, shared)
		}
		if end, ok := ValidAt(d, at[n]-2, &memo); !ok || end != at[n]+len(arrays[n])+2 {
			t.Fatalf("array %d: end %d, %v", n, end, ok)
		}
	}
}

func FuzzArrayMemo(f *testing.F) {
	for _, s := range memoSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkMemo(t, data) })
}

func TestArrayMemoBounded(t *testing.T) {
	// A list longer than memoElemsMax is checked but not kept.
	long := "[[[" + strings.Repeat(`"a",`, memoElemsMax) + `"b"]]]`
	d := []byte(long + " " + long)
	var memo ArrayMemo
	if end, ok := ValidAt(d, 0, &memo); !ok || end != len(long) {
		t.Fatalf("long list: %d %v", end, ok)
	}
	for _, slot := range memo.slots {
		if slot.text != nil || len(slot.ends) > memoElemsMax {
			t.Fatalf("the memo kept a list of %d elements", len(slot.ends))
		}
	}
	if end, ok := ValidAt(d, len(long)+1, &memo); !ok || end != len(d) {
		t.Fatalf("second long list: %d %v", end, ok)
	}
}

func TestArrayMemoLongListAllocates(t *testing.T) {
	// A list far past memoElemsMax, inside a list-append read as a history
	// holds it: checking it must not allocate per element, even for a
	// moment. Per element would be 4 MB of ends and more as they grow.
	const n = 1_000_000
	var b strings.Builder
	b.WriteString(`[["r","k",[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(i % 10))
	}
	b.WriteString(`]]]`)
	d := []byte(b.String())
	var memo ArrayMemo
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	// Twice: the second read finds the slot the first one used.
	for range 2 {
		if end, ok := ValidAt(d, 0, &memo); !ok || end != len(d) {
			t.Fatalf("a list of %d elements: end %d of %d, ok %v", n, end, len(d), ok)
		}
	}
	runtime.ReadMemStats(&after)
	// Up to memoElemsMax ends (16 KiB) and the slices append went through.
	if got := after.TotalAlloc - before.TotalAlloc; got > 256<<10 {
		t.Errorf("checking a list of %d elements twice allocated %d bytes", n, got)
	}
	for _, slot := range memo.slots {
		if slot.text != nil || cap(slot.ends) > 2*memoElemsMax {
			t.Fatalf("the memo kept %d bytes of the list, capacity %d ends", len(slot.text), cap(slot.ends))
		}
	}
	// Invalid past the bound is still invalid.
	bad := append([]byte(nil), d...)
	bad[len(bad)-5] = 'x'
	if _, ok := ValidAt(bad, 0, &memo); ok {
		t.Error("a long list with a bad element near its end is valid")
	}
}

func TestArrayMemoAgreesPastBound(t *testing.T) {
	// Lists around memoElemsMax, each starting as the last one did: kept,
	// then too long to keep, then kept again, with bad and nested elements
	// before and past the bound.
	list := func(n int, tail string) string {
		var b strings.Builder
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(i))
		}
		return b.String() + tail
	}
	lines := []string{
		list(memoElemsMax, "]"),
		list(memoElemsMax+1, "]"),
		list(memoElemsMax+500, "]"),
		list(memoElemsMax, "]"),
		list(memoElemsMax+2, ",]"),
		list(memoElemsMax+2, `,"x]`),
		list(memoElemsMax+2, ",[1]]"),
		list(memoElemsMax-1, "]"),
		list(memoElemsMax+3, ",1 ,2]"),
		list(memoElemsMax+3, ""),
	}
	checkMemo(t, []byte(strings.Join(lines, "\n")))
}
