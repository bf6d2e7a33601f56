package engine

import (
	"context"
	"fmt"

	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/rng"
)

// DiskFaults are the world's disk settings and fault rates.
type DiskFaults struct {
	Torn, Reorder, StrictDirs, CorruptOnCrash    bool
	Model                                        disk.FSModel
	CrashOnIO, FsyncEIO, WriteEIO, WriteENOSPC   float64
	ReadEIO, ReadCorrupt, LostWrite, Misdirected float64
	BitrotPerSec                                 float64
	// MmapWB is the probability that a dirty page of a shared writable
	// mapping was written back before a crash (mmap_early_writeback).
	MmapWB float64
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

// diskFault decides whether a fault of kind fires at operation op of node n:
// from the schedule when one is replayed, otherwise from a stream keyed by
// the seed, the kind, the node and op, so removing another fault never
// changes this one.
func (r *run) diskFault(n *node, kind string, op int64, p float64) bool {
	if !n.spec.Faults || r.quiet() {
		return false
	}
	if r.opts.Faults != nil {
		return r.scheduledOps[opKey{kind, n.idx, op}]
	}
	p = r.rate(kind, p)
	if p <= 0 {
		return false
	}
	var s rng.Stream
	s.Reset(r.seedOf(bsIO), kind, rng.Key(n.spec.Name), uint64(op))
	return s.Chance(p)
}

// faultStream is the stream that decides what a fault does (which page,
// which bit), keyed like the decision itself.
func (r *run) faultStream(kind string, n *node, op int64) *rng.Stream {
	return rng.New(r.seedOf(bsDisk), kind+"/what", rng.Key(n.spec.Name), uint64(op))
}

func (r *run) recordDiskFault(in *instance, kind string, op int64, path string, offset int64) {
	f := Fault{At: Dur(r.now), Kind: kind, Node: in.node.spec.Name, Op: op, Path: path, Offset: offset}
	r.res.Faults = append(r.res.Faults, f)
	where := path
	if offset != 0 {
		where = fmt.Sprintf("%s@%d", path, offset)
	}
	counter := "disk op"
	if kind == KindReadEIO || kind == KindReadCorrupt {
		counter = "disk read"
	}
	r.tracef("fault %s on %s at %s #%d (%s)", kind, in.name, counter, op, where)
}

// nextOp numbers a node's writes, truncates and fsyncs ("disk op #N").
func (n *node) nextOp() int64 { n.diskOps++; return n.diskOps }

// nextRead numbers a node's file reads ("disk read #N").
func (n *node) nextRead() int64 { n.diskReads++; return n.diskReads }

// beforeWrite is called for every write or truncate of a regular file. It
// returns an errno to fail the operation with (nothing is written), and
// whether the node crashes once the operation has reached the page cache.
func (in *instance) beforeWrite(e *fdEntry, write bool) (op int64, errno uint64, crash bool) {
	r, n, d := in.run, in.node, &in.run.spec.Disk
	op = n.nextOp()
	if r.diskFault(n, KindCrashIO, op, d.CrashOnIO) {
		return op, 0, true
	}
	if !write {
		return op, 0, false
	}
	if r.diskFault(n, KindWriteEIO, op, d.WriteEIO) {
		r.recordDiskFault(in, KindWriteEIO, op, e.path, 0)
		return op, eIO, false
	}
	if r.diskFault(n, KindWriteENOSPC, op, d.WriteENOSPC) {
		r.recordDiskFault(in, KindWriteENOSPC, op, e.path, 0)
		return op, eNospc, false
	}
	return op, 0, false
}

// crashInside crashes the node during one of its own disk operations
// (crash_on_io): the operation has reached the page cache, the crash rules
// decide what of it survives, and the guest stops inside this host call.
func (in *instance) crashInside(ctx context.Context, op int64, path string, syncing disk.Ino) {
	r, n := in.run, in.node
	down := rng.New(r.seedOf(bsDisk), KindCrashIO+"/restart", rng.Key(n.spec.Name), uint64(op)).Between(r.spec.RestartAfter[0], r.spec.RestartAfter[1])
	until := r.now + down
	r.res.Faults = append(r.res.Faults, Fault{At: Dur(r.now), Kind: KindCrashIO, Node: n.spec.Name, Op: op, Path: path, Until: Dur(until)})
	r.tracef("fault crash %s during disk op #%d (%s), restart at %s", in.name, op, path, fmtTime(until))
	r.inFlight(in)
	in.crashed = true
	in.flushOutput()
	r.closeSockets(in)
	written := r.mmapWrittenBack(in)
	r.crashDisk(n, syncing)
	r.applyWrittenBack(n, written)
	n.cur = nil
	n.restartAt = until
	in.stop(ctx, 137)
}

// crashDisk applies the world's crash rules to a node's disk.
func (r *run) crashDisk(n *node, syncing disk.Ino) {
	d := &r.spec.Disk
	n.crashes++
	if !d.Torn && !d.Reorder && !d.CorruptOnCrash {
		n.fs.Crash()
		return
	}
	rules := disk.CrashRules{Torn: d.Torn, Reorder: d.Reorder, Model: d.Model, CorruptOnCrash: d.CorruptOnCrash, Syncing: syncing}
	rep := n.fs.CrashWith(rules, rng.New(r.seedOf(bsDisk), "crashdisk", rng.Key(n.spec.Name), uint64(n.crashes)))
	if rep.Kept+rep.Dropped+rep.Torn > 0 || len(rep.Corrupted) > 0 {
		r.tracef("disk of %s after the crash: %d pending writes kept, %d dropped, %d torn", n.spec.Name, rep.Kept, rep.Dropped, rep.Torn)
	}
	for _, dmg := range rep.Corrupted {
		r.tracef("disk of %s: crash corrupted %s at byte %d (bit %d)", n.spec.Name, dmg.Path, dmg.Offset, dmg.Bit)
	}
}

// fsync makes a file durable, with the disk faults that apply to an fsync.
func (in *instance) fsync(ctx context.Context, e *fdEntry) uint64 {
	r, n, d := in.run, in.node, &in.run.spec.Disk
	op := n.nextOp()
	if d.LatencyNs[1] > 0 {
		var s rng.Stream
		s.Reset(r.seedOf(bsDiskLatency), "disklatency", rng.Key(n.spec.Name), uint64(op))
		if lat := s.Between(d.LatencyNs[0], d.LatencyNs[1]); lat > 0 {
			// The whole node waits: a wasip1 guest runs every goroutine on
			// one thread.
			in.deadline = r.now + lat
			in.waits = in.waits[:0]
			in.park(ctx)
			in.deadline = maxTime
		}
	}
	if r.diskFault(n, KindCrashIO, op, d.CrashOnIO) {
		in.crashInside(ctx, op, e.path, e.ino)
	}
	if e.kind == fdFile {
		switch {
		case r.diskFault(n, KindFsyncEIO, op, d.FsyncEIO):
			r.recordDiskFault(in, KindFsyncEIO, op, e.path, 0)
			return errnoOf(n.fs.SyncEIO(e.ino))
		case r.diskFault(n, KindLostWrite, op, d.LostWrite):
			page, err := n.fs.SyncLosingPage(e.ino, r.faultStream(KindLostWrite, n, op))
			if err != nil {
				return errnoOf(err)
			}
			if page >= 0 { // an fsync with nothing dirty has no page to lose
				r.recordDiskFault(in, KindLostWrite, op, e.path, page)
			}
			return eSuccess
		case r.diskFault(n, KindMisdirected, op, d.Misdirected):
			from, to, ok, err := n.fs.SyncMisdirected(e.ino, r.faultStream(KindMisdirected, n, op))
			if err != nil {
				return errnoOf(err)
			}
			if ok {
				r.res.Faults = append(r.res.Faults, Fault{At: Dur(r.now), Kind: KindMisdirected, Node: n.spec.Name, Op: op, Path: e.path, Offset: from, Target: to})
				r.tracef("fault %s on %s at disk op #%d (%s: page at %d landed at %d)", KindMisdirected, in.name, op, e.path, from, to)
			}
			return eSuccess
		}
	}
	return errnoOf(n.fs.Sync(e.ino))
}

// afterRead applies the read faults to a file read that returned p.
func (in *instance) beforeRead(e *fdEntry) (op int64, errno uint64) {
	r, n, d := in.run, in.node, &in.run.spec.Disk
	op = n.nextRead()
	if r.diskFault(n, KindReadEIO, op, d.ReadEIO) {
		r.recordDiskFault(in, KindReadEIO, op, e.path, 0)
		return op, eIO
	}
	return op, 0
}

func (in *instance) afterRead(e *fdEntry, op int64, p []byte, fileOff int64) {
	r, n := in.run, in.node
	if len(p) == 0 || !r.diskFault(n, KindReadCorrupt, op, r.spec.Disk.ReadCorrupt) {
		return
	}
	off, _, ok := disk.FlipBit(p, r.faultStream(KindReadCorrupt, n, op))
	if ok {
		r.recordDiskFault(in, KindReadCorrupt, op, e.path, fileOff+int64(off))
	}
}

// bitrot flips one bit of a node's durable data (a planned fault).
func (r *run) bitrot(n *node, f Fault) {
	dmg, ok := n.fs.BitRot(rng.New(r.seedOf(bsDisk), KindBitrot, rng.Key(n.spec.Name), uint64(f.At)))
	if !ok {
		return
	}
	f.Path, f.Offset = dmg.Path, dmg.Offset
	r.res.Faults = append(r.res.Faults, f)
	r.tracef("fault bitrot on %s: %s at byte %d (bit %d)", n.spec.Name, dmg.Path, dmg.Offset, dmg.Bit)
}

// NodeDisk is one node's disk as -inspect shows it.
type NodeDisk struct {
	Node          string
	UsageBytes    int64
	CapacityBytes int64
	Files         []disk.FileInfo
}
