package simtest

import (
	"fmt"
	"testing"
)

// TestSelectSeeds: -run picks the seeds whose subtest it would run, by the
// testing package's rules for splitting a pattern, and a pattern that says
// nothing about the seeds' level keeps them all.
func TestSelectSeeds(t *testing.T) {
	seeds := []uint64{1, 2, 3, 7, 17, 70}
	tests := []struct {
		pattern, parent string
		want            string
		whole           bool
	}{
		{"", "TestKV", "[1 2 3 7 17 70]", true},
		{"TestKV", "TestKV", "[1 2 3 7 17 70]", true},
		{"TestKV/seed-7$", "TestKV", "[7]", false},
		{"TestKV/seed-7", "TestKV", "[7 70]", false},
		{"TestKV/seed-(1|2)$", "TestKV", "[1 2]", false},
		{"TestKV/seed-[13]$", "TestKV", "[1 3]", false},
		{"TestKV/seed-3$|TestKV/seed-17$", "TestKV", "[3 17]", false},
		{"TestOther/seed-3$|TestKV", "TestKV", "[1 2 3 7 17 70]", true},
		{"TestOther/seed-3$|TestKV/seed-2$", "TestKV", "[2]", false},
		{"TestKV/nothing", "TestKV", "[]", false},
		{"TestKV/", "TestKV", "[1 2 3 7 17 70]", true},
		{"Test/sub/seed-2$", "Test/sub", "[2]", false},
		{"TestKV/seed-(", "TestKV", "[1 2 3 7 17 70]", true}, // testing reports the bad pattern
		{"^TestKV$/^seed-7$", "TestKV", "[7]", false},
		{"^TestKV$/^seed-7$", "TestKVFixed", "[]", false},
		{"^Test$/^sub$/^seed-2$", "Test/sub", "[2]", false},
	}
	for _, tt := range tests {
		got, whole := selectSeeds(tt.pattern, tt.parent, seeds)
		if s := fmt.Sprint(got); (s != tt.want && !(tt.want == "[]" && got == nil)) || whole != tt.whole {
			t.Errorf("selectSeeds(%q, %q) = %v, %v; want %s, %v", tt.pattern, tt.parent, got, whole, tt.want, tt.whole)
		}
	}
}

// TestRunPattern: the -run line of a failing seed names that test and that
// seed alone, each level anchored and quoted (issue 29).
func TestRunPattern(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{"TestCounter/seed-8", "^TestCounter$/^seed-8$"},
		{"TestKV/sub/seed-2", "^TestKV$/^sub$/^seed-2$"},
		{"TestKV/a.b+c", `^TestKV$/^a\.b\+c$`},
	} {
		if got := RunPattern(tt.name); got != tt.want {
			t.Errorf("RunPattern(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
