package core

import "testing"

// TestTimerGranularity pins the rounding: up to the next multiple of
// 50µs, and a time already due stays as it is.
func TestTimerGranularity(t *testing.T) {
	r := &Run{Now: 1_000_000}
	for _, c := range []struct{ d, want int64 }{
		{1_000_000, 1_000_000},
		{999_999, 999_999},
		{1_000_001, 1_050_000},
		{1_050_000, 1_050_000},
		{1_050_001, 1_100_000},
		{maxTime, maxTime},
	} {
		if got := r.TimerAt(c.d); got != c.want {
			t.Errorf("timerAt(%d) at %d = %d, want %d", c.d, r.Now, got, c.want)
		}
	}
}
