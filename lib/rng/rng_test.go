package rng

import "testing"

func TestStreamsAreStableAndIndependent(t *testing.T) {
	// Pinned values: a change here changes every seed's schedule, which users
	// would see as old failing seeds no longer reproducing.
	s := New(1, "sched")
	got := []uint64{s.Uint64(), s.Uint64()}
	again := New(1, "sched")
	for i, want := range got {
		if v := again.Uint64(); v != want {
			t.Fatalf("draw %d: %x vs %x", i, v, want)
		}
	}
	if New(1, "net").Uint64() == got[0] {
		t.Fatal("purposes share a stream")
	}
	if New(2, "sched").Uint64() == got[0] {
		t.Fatal("seeds share a stream")
	}
	if New(1, "random", 1, 1).Uint64() == New(1, "random", 1, 2).Uint64() {
		t.Fatal("keys share a stream")
	}
}

func TestRanges(t *testing.T) {
	s := New(7, "test")
	seen := make([]int, 5)
	for range 10000 {
		v := s.Between(10, 14)
		if v < 10 || v > 14 {
			t.Fatalf("Between out of range: %d", v)
		}
		seen[v-10]++
		f := s.Float64()
		if f < 0 || f >= 1 {
			t.Fatalf("Float64 out of range: %v", f)
		}
	}
	for i, n := range seen {
		if n < 1700 || n > 2300 {
			t.Fatalf("value %d drawn %d times of 10000, want about 2000", i+10, n)
		}
	}
	if s.Chance(0) {
		t.Fatal("Chance(0) fired")
	}
	if got := New(1, "x").ExpNs(0); got <= 0 {
		t.Fatalf("ExpNs(0) = %d", got)
	}
}

func TestFill(t *testing.T) {
	a, b := make([]byte, 13), make([]byte, 13)
	New(3, "random").Fill(a)
	New(3, "random").Fill(b)
	if string(a) != string(b) {
		t.Fatal("Fill not deterministic")
	}
}
