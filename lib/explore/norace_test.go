//go:build !race

package explore

// raceEnabled: see race_test.go.
const raceEnabled = false
