//go:build !(linux && (amd64 || arm64))

package core

// Without the kernel's write watch (dirty_watch_linux.go), the tracker
// compares every page of a mapping.

func watchStart(host, n uintptr) bool { return false }

func watchCollect(host, n uintptr, mark func(lo, hi uintptr)) bool { return false }

func watchScan(host, n uintptr, flags uint64, mark func(lo, hi uintptr)) bool { return false }

func watchRelease(b []byte) {}

func watchRegister(b []byte) bool { return false }

func watchProtect(b []byte) bool { return false }

func imageWritten(b []byte, n uint64, mark func(lo, hi uint64)) bool { return false }

func touchedScan(host, n uintptr, mark func(lo, hi uintptr, writable bool)) bool { return false }
