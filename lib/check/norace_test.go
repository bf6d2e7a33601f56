//go:build !race

package check

// raceEnabled: see race_test.go.
const raceEnabled = false
