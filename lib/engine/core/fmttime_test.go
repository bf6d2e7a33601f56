package core

import (
	"fmt"
	"testing"
)

func TestFmtTime(t *testing.T) {
	tests := []struct {
		ns   int64
		want string
	}{
		{0, "0.000s"},
		{1, "0.000s"},
		{999_999, "0.000s"},
		{1_000_000, "0.001s"},
		{250_000_000, "0.250s"},
		{999_999_999, "0.999s"}, // truncated, never rounded up to the next second
		{1_000_000_000, "1.000s"},
		{1_204_000_000, "1.204s"},
		{61_000_000_000, "61.000s"},
		{3600_000_000_000 + 5_000_000, "3600.005s"},
	}
	for _, tt := range tests {
		if got := fmtTime(tt.ns); got != tt.want {
			t.Errorf("fmtTime(%d) = %q, want %q", tt.ns, got, tt.want)
		}
	}
}

// TestTraceTime: a trace line starts with its time as fmtTime writes it,
// right-aligned in ten columns, and two spaces, however it is made.
func TestTraceTime(t *testing.T) {
	for _, ns := range []int64{0, 1, 999_999, 1_000_000, 250_000_000, 999_999_999, 1_204_000_000,
		61_000_000_000, 3600_000_000_000 + 5_000_000, 99_999_999_999_999, 1 << 62, -1, -1_500_000_000} {
		want := fmt.Sprintf("%10s  ", fmtTime(ns))
		if got := string(appendTraceTime([]byte("x"), ns)); got != "x"+want {
			t.Errorf("appendTraceTime(%d) = %q, want %q", ns, got, "x"+want)
		}
	}
}
