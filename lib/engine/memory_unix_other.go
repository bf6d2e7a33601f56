//go:build unix && !linux

package engine

const mapNoReserve = 0
