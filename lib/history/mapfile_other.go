//go:build !unix

package history

import "os"

// canMap says mapReadOnly maps.
const canMap = false

// mapReadOnly does not map on this platform: the file is read instead.
func mapReadOnly(f *os.File, size int) ([]byte, bool) { return nil, false }

// unmap has nothing to remove on this platform.
func unmap([]byte) {}
