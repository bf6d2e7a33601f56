//go:build !race

package core

// raceEnabled: see race_internal_test.go.
const raceEnabled = false
