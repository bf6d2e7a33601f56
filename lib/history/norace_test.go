//go:build !race

package history

// raceEnabled: see race_test.go.
const raceEnabled = false
