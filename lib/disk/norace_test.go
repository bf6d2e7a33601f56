//go:build !race

package disk

import "testing"

// skipUnderRace skips a long single-goroutine model test under the race
// detector (race_test.go); without it, it does nothing.
func skipUnderRace(*testing.T) {}
