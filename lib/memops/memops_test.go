package memops

import (
	"bytes"
	"testing"
)

// TestClearCold: ClearCold zeroes exactly the bytes it is given, at every
// alignment and length around its streaming path's limits, and nothing
// around them.
func TestClearCold(t *testing.T) {
	buf := make([]byte, 4*ClearColdMin+1024)
	for _, lo := range []int{0, 1, 15, 16, 127, 128, 129, 4095} {
		for _, n := range []int{0, 1, 127, 128, ClearColdMin - 1, ClearColdMin, ClearColdMin + 1, ClearColdMin + 127, 3*ClearColdMin + 333} {
			for i := range buf {
				buf[i] = 0xa5
			}
			ClearCold(buf[lo : lo+n])
			if !bytes.Equal(buf[lo:lo+n], make([]byte, n)) {
				t.Fatalf("ClearCold(buf[%d:%d]) left data in it", lo, lo+n)
			}
			for i, c := range buf {
				if (i < lo || i >= lo+n) && c != 0xa5 {
					t.Fatalf("ClearCold(buf[%d:%d]) wrote byte %d outside it", lo, lo+n, i)
				}
			}
		}
	}
}

// BenchmarkClearCold compares ClearCold with Go's clear on 8 MiB buffers
// that the cache does not hold (16 of them, taken in turn), as a reused
// memory's used pages are at a node start.
func BenchmarkClearCold(b *testing.B) {
	const size = 8 << 20
	bufs := make([][]byte, 16)
	for i := range bufs {
		bufs[i] = bytes.Repeat([]byte{1}, size)
	}
	for _, c := range []struct {
		name  string
		clear func([]byte)
	}{{"clear", func(b []byte) { clear(b) }}, {"ClearCold", ClearCold}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(size)
			i := 0
			for b.Loop() {
				c.clear(bufs[i%len(bufs)])
				i++
			}
		})
	}
}
