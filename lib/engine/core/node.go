package core

import (
	"github.com/tetratelabs/wazero"

	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/faults"
)

// Node is one named program of the world across its incarnations: its disk,
// its clocks and the counters that number what it did, which outlive each
// instance.
type Node struct {
	Idx  int
	Spec *NodeSpec
	FS   *disk.FS
	// Cur is the running incarnation, nil while the node is down.
	Cur *Instance

	// compiled is the module the node runs, from the file wasm: Spec.Wasm,
	// or UpgradeWasm once it upgraded.
	compiled wazero.CompiledModule
	wasm     string

	count     int   // incarnations so far
	restartAt int64 // virtual time of a pending restart, or maxTime
	done      bool  // exited and will not come back
	skew      int64 // clock_skew: this node's constant wall-clock offset
	crashes   int64
	// counts number the events of the node that counted fault kinds fire
	// at (disk operations, datagrams...), each by its faults.Counter, across
	// incarnations: a fault names the event by its number. Buggify hits are
	// counted per site (buggify.go), counted calls by preemption.
	counts [faults.NumCounters]int64
	// Slow is the node's slowdown factor, 1 when it is not slowed.
	Slow        float64
	slowSeq     int
	pausedUntil int64
	jumps       int64 // clock jumps applied so far
	// MonoJumps is, with the monotonic_jump mutant, how far the clock jumps
	// moved the monotonic clock too.
	MonoJumps int64
	preempt   *preemptState // with Spec.Preempt, its goroutine preemption
}

// Name is the node's name in the world file.
func (n *Node) Name() string { return n.Spec.Name }

// Wall is the node's wall clock: the fixed epoch plus virtual time, moved by
// its skew and jumps. The monotonic clock never moves with them.
func (r *Run) Wall(n *Node) int64 { return r.wallEpoch + r.Now + n.skew + n.jumps }

// Next numbers the node's next event of counter c ("disk op #N"). Counting
// draws nothing and adds nothing to the hash, so a counter that no fault of
// a world fires at costs a run nothing but the count.
func (n *Node) Next(c faults.Counter) int64 { n.counts[c]++; return n.counts[c] }

// NextOp numbers a node's writes, truncates and fsyncs ("disk op #N").
func (n *Node) NextOp() int64 { return n.Next(faults.DiskOp) }

// NextRead numbers a node's file reads ("disk read #N").
func (n *Node) NextRead() int64 { return n.Next(faults.DiskRead) }
