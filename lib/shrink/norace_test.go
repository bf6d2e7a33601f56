//go:build !race

package shrink

// raceEnabled: see race_test.go.
const raceEnabled = false
