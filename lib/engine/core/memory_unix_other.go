//go:build unix && !linux

package core

const mapNoReserve = 0
