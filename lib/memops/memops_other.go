//go:build !amd64

package memops

// ClearCold zeroes b (memops_amd64.go says why amd64 does it otherwise).
func ClearCold(b []byte) { clear(b) }
