// Package wasmrewrite changes a Go wasip1 module before it is compiled: it
// adds the loop ticks that let the watchdog stop a guest that spins without
// host calls, the call counting that preemption needs (with the exports
// through which the host reads and reloads the countdown), it merges Go's
// many small data segments into a few, which makes instantiation cheaper,
// and it lets the guest answer its own clock reads (clock.go). Every
// rewrite checks the assumptions it makes about the module's shape and
// refuses a module it does not understand, or, for the clock, leaves it as
// it was.
package wasmrewrite
