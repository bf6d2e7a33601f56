//go:build linux

package core

import "syscall"

const mapNoReserve = syscall.MAP_NORESERVE
