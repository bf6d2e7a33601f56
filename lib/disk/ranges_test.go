package disk

import (
	"reflect"
	"testing"
)

func TestRanges(t *testing.T) {
	var rs ranges
	steps := []struct {
		op   string
		a, b int64
		want ranges
	}{
		{"add", 10, 20, ranges{{10, 20}}},
		{"add", 30, 40, ranges{{10, 20}, {30, 40}}},
		{"add", 20, 30, ranges{{10, 40}}},
		{"add", 5, 5, ranges{{10, 40}}},
		{"add", 0, 2, ranges{{0, 2}, {10, 40}}},
		{"remove", 15, 25, ranges{{0, 2}, {10, 15}, {25, 40}}},
		{"remove", 1, 12, ranges{{0, 1}, {12, 15}, {25, 40}}},
		{"add", 50, 60, ranges{{0, 1}, {12, 15}, {25, 40}, {50, 60}}},
		{"clip", 30, 0, ranges{{0, 1}, {12, 15}, {25, 30}}},
		{"remove", 0, 100, nil},
	}
	for _, s := range steps {
		switch s.op {
		case "add":
			rs = rs.add(s.a, s.b)
		case "remove":
			rs = rs.remove(s.a, s.b)
		case "clip":
			rs = rs.clip(s.a)
		}
		if !reflect.DeepEqual(rs, s.want) {
			t.Fatalf("%s %d %d = %v, want %v", s.op, s.a, s.b, rs, s.want)
		}
	}
	rs = ranges{{0, 2}, {10, 13}}
	if rs.total() != 5 {
		t.Fatalf("total %d", rs.total())
	}
	for i, want := range []int64{0, 1, 10, 11, 12} {
		if got := rs.nth(int64(i)); got != want {
			t.Fatalf("nth(%d) = %d, want %d", i, got, want)
		}
	}
}
