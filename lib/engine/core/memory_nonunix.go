//go:build !unix

package core

import "github.com/tetratelabs/wazero/experimental"

func newLinearMemory(capacity, max uint64) experimental.LinearMemory {
	return &sliceMemory{buf: make([]byte, 0, capacity), max: max}
}

func newLinearMemoryOver(capacity, max, _ uint64, _ string, _ [2]uint64) experimental.LinearMemory {
	return newLinearMemory(capacity, max)
}
