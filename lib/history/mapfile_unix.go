//go:build unix

package history

import (
	"os"
	"syscall"
)

// canMap says mapReadOnly maps.
const canMap = true

// mapReadOnly maps the first size bytes of f, private and read-only.
func mapReadOnly(f *os.File, size int) ([]byte, bool) {
	data, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, false
	}
	return data, true
}

// unmap removes a mapping mapReadOnly made.
func unmap(data []byte) { _ = syscall.Munmap(data) }
