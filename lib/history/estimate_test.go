package history

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// opsText writes n operations, each an invocation and its ok completion,
// from id first on, whose values are strings of pad bytes.
func opsText(b *strings.Builder, first, n, pad int) {
	v := strings.Repeat("x", pad)
	for id := first; id < first+n; id++ {
		fmt.Fprintf(b, `{"index":%d,"type":"invoke","process":%d,"f":"w","key":"k","value":"%s","time":%d,"id":%d}`+"\n", 2*id, id%7, v, 2*id, id)
		fmt.Fprintf(b, `{"index":%d,"type":"ok","process":%d,"f":"w","key":"k","value":"%s","time":%d,"id":%d}`+"\n", 2*id+1, id%7, v, 2*id+1, id)
	}
}

func TestEstimateOps(t *testing.T) {
	// A uniform history: the guess is at least the operations it holds,
	// and at most a tenth more.
	var b strings.Builder
	opsText(&b, 0, 20_000, 20)
	data := []byte(b.String())
	if len(data) <= 8*estimateWindow {
		t.Fatalf("the history has %d bytes, too few to be estimated", len(data))
	}
	if got := estimateOps(data); got < 20_000 || got > 22_000 {
		t.Errorf("estimateOps on 20,000 operations of equal size = %d, want 20,000 to 22,000", got)
	}

	// Long lines where the windows fall and short ones elsewhere: the
	// guess falls far short, and reading must still give every operation.
	b.Reset()
	next := 0
	for _, part := range []struct{ n, pad int }{{60, 2000}, {6000, 1}, {120, 2000}, {6000, 1}, {60, 2000}} {
		opsText(&b, next, part.n, part.pad)
		next += part.n
	}
	data = []byte(b.String())
	if len(data) <= 8*estimateWindow {
		t.Fatalf("the history has %d bytes, too few to be estimated", len(data))
	}
	if got := estimateOps(data); got >= next/2 {
		t.Fatalf("estimateOps = %d for %d operations: the test wants a guess that falls short", got, next)
	}
	ops, err := Parse(data, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	events, err := ParseEvents(data, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Pair(events)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != next || !reflect.DeepEqual(ops, want) {
		t.Errorf("Parse read %d operations, want %d, the same as pairing the events", len(ops), next)
	}
}
