//go:build !amd64

package core

// clearLarge zeroes b, a part of a guest memory (clear_amd64.go says why
// amd64 does it otherwise).
func clearLarge(b []byte) { clear(b) }
