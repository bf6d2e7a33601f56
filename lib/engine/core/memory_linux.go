//go:build linux

package core

import "syscall"

const mapNoReserve = syscall.MAP_NORESERVE

// dropPages gives the pages of b, a page-aligned part of a private anonymous
// mapping, back to the kernel; they read as zero when next touched.
func dropPages(b []byte) { syscall.Madvise(b, syscall.MADV_DONTNEED) }
