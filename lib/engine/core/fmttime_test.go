package core

import "testing"

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
