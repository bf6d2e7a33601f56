package faults

import "fmt"

// World is what a timed fault acts on: the run it fires in.
type World interface {
	// Quiet says faults are held back now (a quiet period, before setup
	// completes when the world waits for it).
	Quiet() bool
	Tracef(format string, args ...any)
	// Record adds a fault to those that fired.
	Record(f Fault)
	// Instance names node's running instance ("server#2"), or "" when the
	// node is down or unknown.
	Instance(node string) string
	// Node reports whether the world has a node of that name.
	Node(node string) bool
	// Crash stops node's instance and applies the crash rules to its
	// disk; it restarts at until.
	Crash(node string, until int64)
	// JumpClock moves node's wall clock by delta.
	JumpClock(node string, delta int64)
	// Bitrot flips one bit of node's durable data, records the fault with
	// where it struck, and says so in the trace; nothing when the node's
	// disk holds no durable data.
	Bitrot(node string, f Fault)
	// Partition, Clog, Reset, Slow and Pause change the network and the
	// nodes, and undo what lasts at the fault's until. Partition and Clog
	// return an error when the fault does not fit the network; Reset
	// returns the connections it reset; Pause reports false when the node
	// is paused until then already.
	Partition(f Fault) error
	Clog(f Fault) error
	Reset(node string) int
	Slow(f Fault)
	Pause(f Fault) bool
}

// Apply applies a planned fault of any timed kind to w.
func Apply(w World, f Fault) {
	if k, ok := Lookup(f.Kind); ok && k.Apply != nil {
		k.Apply(w, f)
	}
}

func applyCrash(w World, f Fault) {
	in := w.Instance(f.Node)
	if in == "" {
		return // down already: nothing to crash, and nothing fired
	}
	if w.Quiet() {
		w.Tracef("quiet: crash of %s suppressed", in)
		return
	}
	w.Record(f)
	w.Tracef("fault crash %s, restart at %s", in, fmtTime(int64(f.Until)))
	w.Crash(f.Node, int64(f.Until))
}

func applyBitrot(w World, f Fault) {
	if !w.Node(f.Node) || w.Quiet() {
		return
	}
	w.Bitrot(f.Node, f)
}

func applyClockJump(w World, f Fault) {
	if !w.Node(f.Node) {
		return
	}
	if w.Quiet() {
		w.Tracef("quiet: clock jump of %s suppressed", f.Node)
		return
	}
	w.JumpClock(f.Node, int64(f.Delta))
	w.Record(f)
	w.Tracef("fault clock jump %s by %s", f.Node, Time(int64(f.Delta)))
}

// applyNet applies a fault of the network or of a node's process: a
// partition, clog, reset, slowdown or pause.
func applyNet(w World, f Fault) {
	if w.Quiet() {
		what := f.Describe()
		if f.Kind == KindNetReset {
			what = "reset the connections of " + instanceOr(w, f.Node)
		}
		w.Tracef("quiet: %s suppressed", what)
		return
	}
	switch f.Kind {
	case KindPartition:
		if err := w.Partition(f); err != nil {
			w.Tracef("partition not applied: %v", err)
			return
		}
		w.Record(f)
		w.Tracef("fault partition %s until %s", GroupsText(f.Groups), fmtTime(int64(f.Until)))
	case KindClog:
		if err := w.Clog(f); err != nil {
			w.Tracef("clog not applied: %v", err)
			return
		}
		w.Record(f)
		w.Tracef("fault clog %s until %s", ClogText(f), fmtTime(int64(f.Until)))
	case KindNetReset:
		n := w.Reset(f.Node)
		w.Record(f)
		if n == 1 {
			w.Tracef("fault reset 1 connection of %s", instanceOr(w, f.Node))
		} else {
			w.Tracef("fault reset %d connections of %s", n, instanceOr(w, f.Node))
		}
	case KindSlow:
		if !w.Node(f.Node) {
			return
		}
		w.Slow(f)
		w.Record(f)
		w.Tracef("fault slow %s by %gx until %s", f.Node, f.Factor, fmtTime(int64(f.Until)))
	case KindPause:
		if !w.Node(f.Node) || !w.Pause(f) {
			return
		}
		w.Record(f)
		w.Tracef("fault pause %s until %s", f.Node, fmtTime(int64(f.Until)))
	}
}

// instanceOr names node's running instance, or the node when it is down.
func instanceOr(w World, node string) string {
	if in := w.Instance(node); in != "" {
		return in
	}
	return node
}

// fmtTime renders virtual time as the trace shows it: seconds with three
// decimals.
func fmtTime(ns int64) string {
	return fmt.Sprintf("%d.%03ds", ns/1e9, (ns%1e9)/1e6)
}
