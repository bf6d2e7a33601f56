package core

import (
	"github.com/sf-dst/sf/lib/faults"
	"github.com/sf-dst/sf/lib/simnet"
)

// faultWorld is the run as a timed fault's Apply sees it (faults.World):
// the mechanics of a crash, a clock jump, a partition, behind the kind's
// own rules of when it fires and what the trace says.
type faultWorld struct{ r *Run }

var _ faults.World = faultWorld{}

func (w faultWorld) Quiet() bool                       { return w.r.Quiet() }
func (w faultWorld) Tracef(format string, args ...any) { w.r.Tracef(format, args...) }
func (w faultWorld) Record(f Fault)                    { w.r.res.Faults = append(w.r.res.Faults, f) }
func (w faultWorld) Node(node string) bool             { return w.r.NodeByName(node) != nil }

func (w faultWorld) Instance(node string) string {
	if n := w.r.NodeByName(node); n != nil && n.Cur != nil {
		return n.Cur.Name
	}
	return ""
}

func (w faultWorld) Crash(node string, until int64) {
	r := w.r
	n := r.NodeByName(node)
	in := n.Cur
	r.inFlight(in)
	written := r.mmapWrittenBack(in)
	r.kill(in)
	r.crashDisk(n, 0)
	r.applyWrittenBack(n, written)
	n.Cur = nil
	n.done = false
	n.restartAt = until
}

func (w faultWorld) JumpClock(node string, delta int64) {
	r, n := w.r, w.r.NodeByName(node)
	n.jumps += delta
	if r.mutant == MutantMonotonicJump && delta != 0 {
		n.MonoJumps += delta
		r.engineHits++
	}
}

func (w faultWorld) Bitrot(node string, f Fault) { w.r.bitrot(w.r.NodeByName(node), f) }

func (w faultWorld) Partition(f Fault) error {
	r := w.r
	if err := r.Net.Partition(f.Groups); err != nil {
		return err
	}
	r.partitionSeq++
	r.schedule(netEnd{at: int64(f.Until), fault: f, gen: r.partitionSeq})
	return nil
}

func (w faultWorld) Clog(f Fault) error {
	r := w.r
	id, err := r.Net.Clog(simnet.Clog{From: f.From, To: f.To, Node: f.Node, Dir: f.Dir, Mode: f.Mode, DelayNs: int64(f.Delay)})
	if err != nil {
		return err
	}
	r.schedule(netEnd{at: int64(f.Until), fault: f, clog: id})
	return nil
}

func (w faultWorld) Reset(node string) int { return w.r.Net.ResetNode(node) }

func (w faultWorld) Slow(f Fault) {
	r, n := w.r, w.r.NodeByName(f.Node)
	r.Net.SetSlow(f.Node, f.Factor)
	n.Slow = f.Factor
	n.slowSeq++
	r.schedule(netEnd{at: int64(f.Until), fault: f, gen: n.slowSeq})
}

func (w faultWorld) Pause(f Fault) bool {
	r, n := w.r, w.r.NodeByName(f.Node)
	until := int64(f.Until)
	if until <= n.pausedUntil {
		return false
	}
	n.pausedUntil = until
	r.schedule(netEnd{at: until, fault: f})
	return true
}
