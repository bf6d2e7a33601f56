// Package engine runs one seed of a world: every node's wasip1 module under
// wazero, on one scheduler with a virtual clock, a simulated disk per node
// and a simulated network, with the faults the seed draws or a schedule
// gives.
//
// Each node instance runs in its own goroutine, but only the one holding the
// baton runs. A node hands the baton back when it blocks in poll_oneoff (Go's
// runtime does that when all its goroutines wait), when it exits, or when the
// run ends. Virtual time moves only when no node can run, straight to the
// next timer, network delivery or planned fault. When several nodes can run
// at the same instant, the seed's "sched" stream picks one. Host calls are
// the only way a guest observes the world, and each one goes through the
// same accounting: the determinism hash, the trace and the fault hooks.
//
// A running world can be forked at a scheduler step (Options.AtStep,
// StepPoint.Fork) and the fork resumed any number of times, in this engine
// or another (Engine.Resume): every guest is copied while it waits in a
// host call and continues in a fresh instance of its module, and the
// resumed run ends exactly as the run that was never forked.
package engine
