package wasmrewrite

import (
	"bytes"
	"os"
	"testing"
)

// callsTo counts, body by body, the calls of function fn in a code section.
func callsTo(t *testing.T, code []byte, fn uint32) []int {
	t.Helper()
	count, n, _ := uleb(code)
	code = code[n:]
	var out []int
	for range count {
		size, n, ok := uleb(code)
		if !ok {
			t.Fatal("a code section cut short")
		}
		body := code[n : n+int(size)]
		code = code[n+int(size):]
		p, ok := skipLocals(body)
		if !ok {
			t.Fatal("a body without locals")
		}
		calls := 0
		for p < len(body) {
			start := p
			if p, ok = instrEnd(body, p); !ok {
				t.Fatalf("an instruction the decoder does not know at %d", start)
			}
			if callee, _, _ := uleb(body[start+1:]); body[start] == 0x10 && callee == fn {
				calls++
			}
		}
		out = append(out, calls)
	}
	return out
}

// TestClockRewrite: a prepared Go module calls clock_time_get only from the
// function the clock rewrite adds, which is its last, exports where the
// clock's words are, has no data there, and can still fork; a module that
// does not import the clock, or has data where the words would go, is left
// as it is.
func TestClockRewrite(t *testing.T) {
	bin, err := os.ReadFile(buildSpin(t))
	if err != nil {
		t.Fatal(err)
	}
	section := func(b []byte, id byte) []byte { return moduleSection(t, b, id) }
	imp, err := parseImports(section(bin, 2))
	if err != nil || len(imp.clocks) != 1 {
		t.Fatalf("Go's runtime imports clock_time_get %d times (%v), want once", len(imp.clocks), err)
	}
	clock := imp.clocks[0]
	before := 0
	for _, c := range callsTo(t, section(bin, 10), clock) {
		before += c
	}
	if before == 0 {
		t.Fatal("Go's runtime never calls clock_time_get")
	}

	out, err := Prepare(bin, Mode{})
	if err != nil {
		t.Fatal(err)
	}
	calls := callsTo(t, section(out, 10), clock)
	for i, c := range calls[:len(calls)-1] {
		if c != 0 {
			t.Errorf("function %d still calls clock_time_get %d times", i, c)
		}
	}
	if last := calls[len(calls)-1]; last != 1 {
		t.Errorf("the added function calls clock_time_get %d times, want once (the host's answer)", last)
	}
	if _, err := exportedIndex(section(out, 7), ExportClockArea, 3); err != nil {
		t.Errorf("the prepared module does not export the global %s: %v", ExportClockArea, err)
	}
	segs, err := parseActiveSegments(section(out, 11))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range segs {
		if s.offset < ClockArea+32 {
			t.Errorf("a data segment at %d overlaps the clock's words at %d", s.offset, ClockArea)
		}
	}
	// Data below Go's usual start (another linker) keeps every read a host call.
	low := bytes.Clone(bin)
	if got, err := addClock(MergeDataSegments(lowData(t, low))); err != nil || bytes.Contains(got, []byte(ExportClockArea)) {
		t.Errorf("a module with data at the clock's words was rewritten (%v)", err)
	}
	if info, err := ReadForkInfo(out); err != nil || info == nil {
		t.Errorf("the prepared module cannot fork any more: %v", err)
	}

	bare := []byte("\x00asm\x01\x00\x00\x00")
	if got, err := addClock(bare); err != nil || !bytes.Equal(got, bare) {
		t.Errorf("a module without clock_time_get: %x, %v; want it unchanged", got, err)
	}
}

// lowData returns bin with its first data segment moved to ClockArea.
func lowData(t *testing.T, bin []byte) []byte {
	t.Helper()
	secs, err := splitSections(bin)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range secs {
		if s.id != 11 {
			continue
		}
		segs, err := parseActiveSegments(s.body)
		if err != nil || len(segs) == 0 {
			t.Fatalf("data segments: %v", err)
		}
		segs[0].offset = ClockArea
		secs[i].body = encodeSegments(segs)
		return joinSections(bin[:8], secs)
	}
	t.Fatal("no data section")
	return nil
}
