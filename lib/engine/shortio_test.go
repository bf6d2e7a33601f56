package engine

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/faults"
)

// TestShortReadsAndWrites: with short_read and short_write at 1, every read
// and write call on a file returns fewer bytes than it asked for, at least
// 1, and each is recorded with its call's number and byte count. A program
// that trusts one Read gets part of the file; io.ReadFull and os.File's
// Write, which loop, get and write all of it. A replay moves as many bytes
// as the schedule says; with both at 0 nothing is cut and nothing recorded.
func TestShortReadsAndWrites(t *testing.T) {
	wasm := buildGuest(t, "shortio")
	e, err := New(testCache())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	spec := func(read, write float64) *Spec {
		return &Spec{
			Nodes:      []NodeSpec{{Name: "w", Wasm: wasm, Workload: true, Faults: true}},
			DurationNs: int64(time.Second), LatencyNs: [2]int64{1e6, 1e6},
			Kinds: faults.Values{"short_read": read, "short_write": write},
		}
	}
	oneRead := regexp.MustCompile(`one read: (\d+) of 1000 bytes`)
	run := func(s *Spec, opts Options) (*Result, int, string) {
		t.Helper()
		res, err := e.Run(s, 1, opts)
		if err != nil {
			t.Fatal(err)
		}
		trace := strings.Join(res.Trace, "\n")
		if res.Status != StatusPass || !strings.Contains(trace, "read full: 1000 of 1000 bytes, intact true") {
			t.Fatalf("status %s %s; want a pass with the file read whole by io.ReadFull\n%s", res.Status, res.Message, trace)
		}
		m := oneRead.FindStringSubmatch(trace)
		if m == nil {
			t.Fatalf("no line of the one read\n%s", trace)
		}
		n, _ := strconv.Atoi(m[1])
		return res, n, trace
	}

	res, n, _ := run(spec(0, 0), Options{})
	if n != 1000 || len(res.Faults) != 0 {
		t.Errorf("without the faults: one read got %d bytes and %d faults fired, want 1000 and none", n, len(res.Faults))
	}

	res, n, trace := run(spec(1, 1), Options{})
	if n < 1 || n >= 1000 {
		t.Errorf("with short_read 1 one read got %d bytes, want 1 to 999", n)
	}
	var reads, writes []faults.Fault
	for _, f := range res.Faults {
		switch f.Kind {
		case faults.KindShortRead:
			reads = append(reads, f)
		case faults.KindShortWrite:
			writes = append(writes, f)
		}
		if f.Node != "w" || f.Op < 1 || f.Bytes < 1 || f.Path != "blob" {
			t.Errorf("fault %+v: want node w, an op, the bytes it moved and the file", f)
		}
	}
	if len(writes) == 0 || len(reads) == 0 || reads[0].Bytes != int64(n) {
		t.Fatalf("short writes %v and reads %v; want some of each, the first read of %d bytes", writes, reads, n)
	}
	want := "fault short_read w#1 at read call #" + strconv.FormatInt(reads[0].Op, 10) + ": " + strconv.Itoa(n) + " bytes (blob)"
	if !strings.Contains(trace, want) {
		t.Errorf("the trace does not say %q\n%s", want, trace)
	}

	// The replay of what fired is the same run; with the first read's bytes
	// changed, it moves as many as the schedule says.
	again, n2, _ := run(spec(1, 1), Options{Faults: res.Faults})
	if n2 != n || again.Hash != res.Hash {
		t.Errorf("the replay read %d bytes with hash %x, the run %d with %x", n2, again.Hash, n, res.Hash)
	}
	edited := append([]faults.Fault(nil), res.Faults...)
	for i := range edited {
		if edited[i].Kind == faults.KindShortRead && edited[i].Op == reads[0].Op {
			edited[i].Bytes = 7
		}
	}
	if _, n3, _ := run(spec(0, 0), Options{Faults: edited}); n3 != 7 {
		t.Errorf("a replay of a short read of 7 bytes read %d", n3)
	}
}
