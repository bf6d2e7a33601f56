//go:build race

package disk

import "testing"

// skipUnderRace skips a long single-goroutine model test under the race
// detector: the disk starts no goroutine and shares nothing between the
// file systems these tests make, so the detector has nothing to watch, and
// the run without -race does all of it (make test runs both).
func skipUnderRace(t *testing.T) {
	t.Helper()
	t.Skip("the disk model runs on one goroutine: nothing for -race to watch; the run without -race does it")
}
