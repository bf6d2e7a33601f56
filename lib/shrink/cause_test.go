package shrink

import (
	"fmt"
	"testing"

	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/schedule"
)

// TestCauseMomentsFrom: the moments spread over [from, failAt), and the
// fault times before from (a setup that every seed shares) give none.
func TestCauseMomentsFrom(t *testing.T) {
	faults := []engine.Fault{{At: schedule.Dur(50)}, {At: schedule.Dur(700)}, {At: schedule.Dur(900)}}
	for _, c := range []struct {
		from int64
		want string
	}{
		{0, "[0 50 51 250 500 700 701 750 900 901]"},
		{600, "[600 700 701 800 900 901]"},
	} {
		if got := fmt.Sprint(CauseMoments(4, c.from, 1000, faults)); got != c.want {
			t.Errorf("from %d: %s, want %s", c.from, got, c.want)
		}
	}
}
