package core

import (
	"context"
	"fmt"

	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/faults"
	"github.com/sf-dst/sf/lib/rng"
)

// DiskFaults are the world's disk settings that belong to no fault kind;
// the disk faults' probabilities are Spec.Kinds.
type DiskFaults struct {
	Torn, Reorder, StrictDirs, CorruptOnCrash bool
	Model                                     disk.FSModel
	// TornSector is the atomic write unit of a torn write, in bytes; 0
	// tears anywhere.
	TornSector int64
	// CapacityBytes is each node's disk size; 0 is unlimited.
	CapacityBytes int64
	// LatencyNs is the range of extra time each fsync takes.
	LatencyNs [2]int64
}

type opKey struct {
	kind string
	node int
	op   int64
}

// countedState is runExec.counted.
type countedState uint8

const (
	countedUnknown countedState = iota
	countedNone
	countedSome
)

// Fires decides whether a fault of the counted kind fires at event op of
// node n: from the schedule when one is replayed, otherwise from a stream
// keyed by the seed, the kind, the node and op, so that removing another
// fault never changes this one. Nodes that take no per-node faults, quiet
// periods and the recovery phase take none.
func (r *Run) Fires(n *Node, kind string, op int64) bool {
	if !n.Spec.Faults || r.Quiet() {
		return false
	}
	if r.Opts.Faults != nil {
		_, ok := r.scheduledOps[opKey{kind, n.Idx, op}]
		return ok
	}
	if r.exec.counted == countedUnknown {
		r.exec.counted = countedNone
		for _, k := range faults.Registry() {
			if k.Positional() && r.kindRate(k.Name) > 0 {
				r.exec.counted = countedSome
				break
			}
		}
	}
	if r.exec.counted == countedNone {
		return false
	}
	p := r.kindRate(kind)
	if p <= 0 {
		return false
	}
	var s rng.Stream
	s.Reset(r.SeedOf(bsIO), kind, rng.Key(n.Spec.Name), uint64(op))
	return s.Chance(p)
}

// Replayed returns the entry of the schedule being replayed for a fault of
// the counted kind at event op of node n, whose fields may say more of what
// the fault does; false when no schedule is replayed or it lists none.
func (r *Run) Replayed(n *Node, kind string, op int64) (Fault, bool) {
	f, ok := r.scheduledOps[opKey{kind, n.Idx, op}]
	return f, ok
}

// FaultStream is the stream that decides what a counted fault does (which
// page, which bit, how many bytes), keyed like the decision itself.
func (r *Run) FaultStream(kind string, n *Node, op int64) *rng.Stream {
	return rng.New(r.SeedOf(bsDisk), kind+"/what", rng.Key(n.Spec.Name), uint64(op))
}

// RecordFault records a fault of a counted kind that fired on in, and says
// so in the trace as its kind describes it, with the instance for the node
// ("fault short_read server#1 at read call #7 ...").
func (in *Instance) RecordFault(f Fault) {
	r := in.Run
	f.At, f.Node = Dur(r.Now), in.Node.Spec.Name
	r.res.Faults = append(r.res.Faults, f)
	shown := f
	shown.Node = in.Name
	r.Tracef("fault %s", shown.Describe())
}

func (r *Run) RecordDiskFault(in *Instance, kind string, op int64, path string, offset int64) {
	f := Fault{At: Dur(r.Now), Kind: kind, Node: in.Node.Spec.Name, Op: op, Path: path, Offset: offset}
	r.res.Faults = append(r.res.Faults, f)
	where := path
	if offset != 0 {
		where = fmt.Sprintf("%s@%d", path, offset)
	}
	counter := "disk op"
	if kind == faults.KindReadEIO || kind == faults.KindReadCorrupt {
		counter = "disk read"
	}
	r.Tracef("fault %s on %s at %s #%d (%s)", kind, in.Name, counter, op, where)
}

// beforeWrite is called for every write or truncate of a regular file. It
// returns an errno to fail the operation with (nothing is written), and
// whether the node crashes once the operation has reached the page cache.
func (in *Instance) BeforeWrite(e *Desc, write bool) (op int64, errno uint64, crash bool) {
	r, n := in.Run, in.Node
	op = n.NextOp()
	if r.Fires(n, faults.KindCrashIO, op) {
		return op, 0, true
	}
	if !write {
		return op, 0, false
	}
	if r.Fires(n, faults.KindWriteEIO, op) {
		r.RecordDiskFault(in, faults.KindWriteEIO, op, e.Path, 0)
		return op, EIO, false
	}
	if r.Fires(n, faults.KindWriteENOSPC, op) {
		r.RecordDiskFault(in, faults.KindWriteENOSPC, op, e.Path, 0)
		return op, ENospc, false
	}
	return op, 0, false
}

// crashInside crashes the node during one of its own disk operations
// (crash_on_io): the operation has reached the page cache, the crash rules
// decide what of it survives, and the guest stops inside this host call.
func (in *Instance) CrashInside(ctx context.Context, op int64, path string, syncing disk.Ino) {
	r, n := in.Run, in.Node
	down := rng.New(r.SeedOf(bsDisk), faults.KindCrashIO+"/restart", rng.Key(n.Spec.Name), uint64(op)).Between(r.restartAfter())
	until := r.Now + down
	r.res.Faults = append(r.res.Faults, Fault{At: Dur(r.Now), Kind: faults.KindCrashIO, Node: n.Spec.Name, Op: op, Path: path, Until: Dur(until)})
	r.Tracef("fault crash %s during disk op #%d (%s), restart at %s", in.Name, op, path, fmtTime(until))
	r.inFlight(in)
	in.crashed = true
	in.flushOutput()
	r.closeSockets(in)
	written := r.mmapWrittenBack(in)
	r.crashDisk(n, syncing)
	r.applyWrittenBack(n, written)
	n.Cur = nil
	n.restartAt = until
	in.Stop(ctx, 137)
}

// crashDisk applies the world's crash rules to a node's disk.
func (r *Run) crashDisk(n *Node, syncing disk.Ino) {
	d := &r.Spec.Disk
	n.crashes++
	if !d.Torn && !d.Reorder && !d.CorruptOnCrash {
		n.FS.Crash()
		return
	}
	rules := disk.CrashRules{Torn: d.Torn, TornSector: d.TornSector, Reorder: d.Reorder, Model: d.Model, CorruptOnCrash: d.CorruptOnCrash, Syncing: syncing}
	rep := n.FS.CrashWith(rules, rng.New(r.SeedOf(bsDisk), "crashdisk", rng.Key(n.Spec.Name), uint64(n.crashes)))
	if rep.Kept+rep.Dropped+rep.Torn > 0 || len(rep.Corrupted) > 0 {
		r.Tracef("disk of %s after the crash: %d pending writes kept, %d dropped, %d torn", n.Spec.Name, rep.Kept, rep.Dropped, rep.Torn)
	}
	for _, dmg := range rep.Corrupted {
		r.Tracef("disk of %s: crash corrupted %s at byte %d (bit %d)", n.Spec.Name, dmg.Path, dmg.Offset, dmg.Bit)
	}
}

// fsync makes a file durable, with the disk faults that apply to an fsync.
func (in *Instance) Fsync(ctx context.Context, e *Desc) uint64 {
	r, n := in.Run, in.Node
	var op int64
	if in.exec.resuming { // a fork copied the node waiting out the latency
		op = in.park.op
		in.ParkAgain(ctx)
	} else {
		op = n.NextOp()
		in.fsyncLatency(ctx, op)
	}
	if r.Fires(n, faults.KindCrashIO, op) {
		in.CrashInside(ctx, op, e.Path, e.Ino)
	}
	if e.Kind == DescFile {
		switch {
		case r.Fires(n, faults.KindFsyncEIO, op):
			r.RecordDiskFault(in, faults.KindFsyncEIO, op, e.Path, 0)
			return Errno(n.FS.SyncEIO(e.Ino))
		case r.Fires(n, faults.KindLostWrite, op):
			page, err := n.FS.SyncLosingPage(e.Ino, r.FaultStream(faults.KindLostWrite, n, op))
			if err != nil {
				return Errno(err)
			}
			if page >= 0 { // an fsync with nothing dirty has no page to lose
				r.RecordDiskFault(in, faults.KindLostWrite, op, e.Path, page)
			}
			return ESuccess
		case r.Fires(n, faults.KindMisdirected, op):
			from, to, ok, err := n.FS.SyncMisdirected(e.Ino, r.FaultStream(faults.KindMisdirected, n, op))
			if err != nil {
				return Errno(err)
			}
			if ok {
				r.res.Faults = append(r.res.Faults, Fault{At: Dur(r.Now), Kind: faults.KindMisdirected, Node: n.Spec.Name, Op: op, Path: e.Path, Offset: from, Target: to})
				r.Tracef("fault %s on %s at disk op #%d (%s: page at %d landed at %d)", faults.KindMisdirected, in.Name, op, e.Path, from, to)
			}
			return ESuccess
		}
	}
	return Errno(n.FS.Sync(e.Ino))
}

// fsyncLatency makes the node wait out the latency of its fsync, disk
// operation op, if the world gives fsyncs one.
func (in *Instance) fsyncLatency(ctx context.Context, op int64) {
	r, n, d := in.Run, in.Node, &in.Run.Spec.Disk
	if d.LatencyNs[1] <= 0 {
		return
	}
	var s rng.Stream
	s.Reset(r.SeedOf(bsDiskLatency), "disklatency", rng.Key(n.Spec.Name), uint64(op))
	if lat := s.Between(d.LatencyNs[0], d.LatencyNs[1]); lat > 0 {
		// The whole node waits: a wasip1 guest runs every goroutine on one
		// thread.
		in.deadline = r.Now + lat
		in.Waits = in.Waits[:0]
		in.parkAt(ctx, op, false)
		in.deadline = maxTime
	}
}

// BeforeRead numbers a file read and decides whether it fails (read_eio).
func (in *Instance) BeforeRead(e *Desc) (op int64, errno uint64) {
	r, n := in.Run, in.Node
	op = n.NextRead()
	if r.Fires(n, faults.KindReadEIO, op) {
		r.RecordDiskFault(in, faults.KindReadEIO, op, e.Path, 0)
		return op, EIO
	}
	return op, 0
}

// AfterRead applies the read faults to a file read that returned p, and
// reports whether they changed it.
func (in *Instance) AfterRead(e *Desc, op int64, p []byte, fileOff int64) (flipped bool) {
	r, n := in.Run, in.Node
	if len(p) == 0 || !r.Fires(n, faults.KindReadCorrupt, op) {
		return false
	}
	off, _, ok := disk.FlipBit(p, r.FaultStream(faults.KindReadCorrupt, n, op))
	if ok {
		r.RecordDiskFault(in, faults.KindReadCorrupt, op, e.Path, fileOff+int64(off))
	}
	return ok
}

// bitrot flips one bit of a node's durable data (a planned fault).
func (r *Run) bitrot(n *Node, f Fault) {
	dmg, ok := n.FS.BitRot(rng.New(r.SeedOf(bsDisk), faults.KindBitrot, rng.Key(n.Spec.Name), uint64(f.At)))
	if !ok {
		return
	}
	f.Path, f.Offset = dmg.Path, dmg.Offset
	r.res.Faults = append(r.res.Faults, f)
	r.Tracef("fault bitrot on %s: %s at byte %d (bit %d)", n.Spec.Name, dmg.Path, dmg.Offset, dmg.Bit)
}

// NodeDisk is one node's disk as -inspect shows it.
type NodeDisk struct {
	Node          string
	UsageBytes    int64
	CapacityBytes int64
	Files         []disk.FileInfo
}
