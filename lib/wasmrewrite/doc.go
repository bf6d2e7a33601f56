// Package wasmrewrite changes a Go wasip1 module before it is compiled: it
// adds the loop ticks that let the watchdog stop a guest that spins without
// host calls, the call counting that preemption needs (with the exports
// through which the host reads and reloads the countdown), and it merges
// Go's many small data segments into a few, which makes instantiation
// cheaper. Every rewrite checks the assumptions it makes about the module's
// shape and refuses a module it does not understand.
package wasmrewrite
