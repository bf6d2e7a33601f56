package simnet

import (
	"bytes"
	"fmt"
	"testing"
)

// sendChunks writes count one-line chunks from a to b, each delivered
// before the next is written, and returns what b read.
func sendChunks(t *testing.T, n *Net, count int) []byte {
	t.Helper()
	l := listen(t, n, "b", 7000)
	c, s := connect(t, n, l)
	for i := range count {
		if _, e := n.Write(c, fmt.Appendf(nil, "line %d\n", i)); e != OK {
			t.Fatalf("write: errno %d", e)
		}
	}
	settle(n)
	return readAll(t, n, s)
}

func want(count int) []byte {
	var b []byte
	for i := range count {
		b = fmt.Appendf(b, "line %d\n", i)
	}
	return b
}

// TestDupChunkDeliversSomeChunksTwice: with net_dup_chunk, a seeded few
// chunks sent to an affected node arrive twice in a row, the same ones on
// every run; a node that is not affected reads exactly what was sent.
func TestDupChunkDeliversSomeChunksTwice(t *testing.T) {
	const count = 200
	run := func(nodes ...string) ([]byte, int) {
		n := fixed(t)
		n.SetMutant(MutantDupChunk, nodes)
		got := sendChunks(t, n, count)
		return got, n.MutantHits()
	}
	got, hits := run("b")
	if hits == 0 || hits > count/5 {
		t.Fatalf("%d of %d chunks duplicated, want a few", hits, count)
	}
	if len(got) <= len(want(count)) {
		t.Fatalf("read %d bytes, want more than the %d sent", len(got), len(want(count)))
	}
	again, hits2 := run("b")
	if !bytes.Equal(got, again) || hits != hits2 {
		t.Error("a second run duplicated other chunks")
	}
	other, hits := run("a")
	if hits != 0 || !bytes.Equal(other, want(count)) {
		t.Errorf("an unaffected receiver saw %d duplicates", hits)
	}
}

// TestDropAfterCloseLosesTheLastChunk: with net_drop_after_close, closing a
// connection drops the last chunk the peer has not read, whether it is in
// flight or waiting in the peer's buffer; a chunk already read is safe.
func TestDropAfterCloseLosesTheLastChunk(t *testing.T) {
	for _, tc := range []struct {
		name      string
		deliver   bool // let the chunk arrive before the close
		read      bool // and read it
		wantBytes string
		wantHits  int
	}{
		{"in flight", false, false, "first\n", 1},
		{"unread in the buffer", true, false, "first\n", 1},
		{"already read", true, true, "first\nlast\n", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := fixed(t)
			n.SetMutant(MutantDropAfterClose, []string{"b"})
			l := listen(t, n, "b", 7000)
			c, s := connect(t, n, l)
			n.Write(c, []byte("first\n"))
			settle(n)
			got := readAll(t, n, s)
			n.Write(c, []byte("last\n"))
			if tc.deliver {
				settle(n)
			}
			if tc.read {
				got = append(got, readAll(t, n, s)...)
			}
			n.Close(c)
			settle(n)
			got = append(got, readAll(t, n, s)...)
			if string(got) != tc.wantBytes || n.MutantHits() != tc.wantHits {
				t.Errorf("peer read %q with %d hits, want %q with %d", got, n.MutantHits(), tc.wantBytes, tc.wantHits)
			}
		})
	}
}

// TestNoMutantChangesNothing: the default network delivers every byte once.
func TestNoMutantChangesNothing(t *testing.T) {
	n := fixed(t)
	if got := sendChunks(t, n, 100); !bytes.Equal(got, want(100)) || n.MutantHits() != 0 {
		t.Errorf("read %d bytes with %d hits", len(got), n.MutantHits())
	}
}
