package disk

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sf-dst/sf/lib/rng"
)

// FSModel says which crash states out-of-order writeback may produce
// (fs_model). The models follow Table 1 of ALICE (OSDI '14).
type FSModel uint8

// The file system models.
const (
	// ModelExt4Ordered is ext4 data=ordered: appends and truncates of a file
	// persist as an in-order prefix split at page boundaries, overwrites of
	// existing bytes persist per page in any order, and bytes past the
	// surviving size are not kept. Under Torn, pending directory operations
	// persist as an in-order prefix.
	ModelExt4Ordered FSModel = iota
	// ModelPageIndependent keeps any subset of the dirty pages of a file, in
	// order within each page, zeros filling the gaps. Directory operations as
	// ModelExt4Ordered.
	ModelPageIndependent
	// ModelDirReorder is ModelPageIndependent for file contents, and each
	// pending directory operation survives independently.
	ModelDirReorder
)

var modelNames = [...]string{"ext4_ordered", "page_independent", "dir_reorder"}

// String returns the model's name in a world file, such as "ext4_ordered".
func (m FSModel) String() string {
	if int(m) < len(modelNames) {
		return modelNames[m]
	}
	return fmt.Sprintf("fs_model(%d)", uint8(m))
}

// ParseFSModel returns the model named s, as written in a world file.
func ParseFSModel(s string) (FSModel, error) {
	for i, name := range modelNames {
		if s == name {
			return FSModel(i), nil
		}
	}
	return 0, fmt.Errorf("unknown fs_model %q (want %s)", s, strings.Join(modelNames[:], ", "))
}

// CrashRules say what a crash keeps of the pending state. The zero value is
// the plain rule of Crash: every pending operation is lost.
type CrashRules struct {
	// Torn (torn_writes) keeps a random in-order prefix of the pending
	// operations of the node, file writes, truncates and directory
	// operations together in the order they were made, possibly ending in
	// a partial write. With Reorder it also tears the last write kept in
	// each page and the last append kept, and keeps an in-order prefix of
	// the pending directory operations under ModelExt4Ordered and
	// ModelPageIndependent. Defaults to false.
	Torn bool
	// TornSector (torn_sector) is the disk's unit of atomic writes in
	// bytes: a torn write keeps its bytes up to a multiple of TornSector of
	// the file, never part of a sector, as on a disk that writes each
	// sector whole or not at all. 0 tears anywhere. Defaults to 0.
	TornSector int64
	// Reorder (reorder_writes) writes pages back out of order within the
	// limits of Model, each file independently of the others. Defaults to
	// false.
	Reorder bool
	// Model is the file system model that Reorder follows; it matters only
	// with Reorder. Defaults to ModelExt4Ordered.
	Model FSModel
	// CorruptOnCrash (corrupt_on_crash) flips one bit in each file that a
	// pending write reached: the byte is chosen uniformly among the bytes
	// those writes covered that are inside the file after the crash, whether
	// the write's new bytes or the older data it was replacing ended up
	// there. Defaults to false.
	CorruptOnCrash bool
	// Syncing is the inode whose Sync the crash interrupted (crash_on_io),
	// 0 for none. Before the other rules apply, a regular file keeps an
	// in-order prefix of its pending operations, ending in a partial write
	// under Torn, and under StrictDirs a directory keeps an in-order prefix
	// of the directory operations its Sync would have made durable.
	Syncing Ino
}

// CrashReport says what a crash kept, for the trace. Kept, Torn and
// Dropped count the pending writes, truncates and directory operations that
// reached the disk whole, in part, or not at all; bytes past the size a file
// has after the crash count as not reached.
type CrashReport struct {
	Kept, Dropped, Torn int
	// Corrupted lists the bits CorruptOnCrash flipped, sorted by path and
	// offset.
	Corrupted []Damage
}

// filePlan is what a crash keeps of one file's pending operations.
type filePlan struct {
	n         *inode
	keepTrunc []bool   // per pending operation: a truncate that persists
	land      []ranges // per pending operation: the bytes of a write that reach the disk
	// size is the size the file has after the crash, or -1 to take the
	// size that replaying the kept operations gives.
	size int64
}

func newPlan(n *inode) *filePlan {
	return &filePlan{n: n, keepTrunc: make([]bool, len(n.pending)), land: make([]ranges, len(n.pending)), size: -1}
}

// CrashWith is a power cut under rules: first the pending operations that
// the rules keep, drawn from r, become durable; then the view becomes the
// durable image, as with Crash; then CorruptOnCrash flips its bits. The same
// pending state, rules and stream give the same result. An unknown Model is
// a programming error and panics.
func (fs *FS) CrashWith(rules CrashRules, r *rng.Stream) CrashReport {
	if rules.Model > ModelDirReorder {
		panic(fmt.Sprintf("disk: unknown %v", rules.Model))
	}
	var rep CrashReport
	hit := map[Ino]ranges{} // bytes that kept writes covered, per file
	for _, ino := range fs.sortedInos() {
		if n := fs.inodes[ino]; n.typ == TypeRegular {
			fs.keepAllDeferred(n) // the crash tears and replays them
		}
	}
	if rules.Syncing != 0 {
		fs.crashDuringSync(rules, r, &rep, hit)
	}
	var files []*inode
	for _, ino := range fs.sortedInos() {
		if n := fs.inodes[ino]; n.typ == TypeRegular && len(n.pending) > 0 {
			files = append(files, n)
		}
	}
	keepDir := make([]bool, len(fs.dirOps))
	var plans []*filePlan
	switch {
	case rules.Reorder:
		for _, n := range files {
			plans = append(plans, planModel(n, rules, r))
		}
		fs.planDirOps(rules, r, keepDir)
	case rules.Torn:
		plans = fs.planPrefix(files, r, keepDir, rules.TornSector)
	default:
		for _, n := range files {
			plans = append(plans, newPlan(n))
		}
	}
	type flip struct {
		ino Ino
		off int64
		bit uint8
	}
	var flips []flip
	for _, p := range plans {
		p.apply(&rep, hit)
	}
	for i := range fs.dirOps {
		if keepDir[i] {
			rep.Kept++
		} else {
			rep.Dropped++
		}
	}
	fs.commitDirOps(keepDir)
	if rules.CorruptOnCrash {
		inos := make([]Ino, 0, len(hit))
		for ino := range hit {
			inos = append(inos, ino)
		}
		slices.Sort(inos)
		for _, ino := range inos {
			cand := hit[ino].clip(fs.inodes[ino].durable.size)
			if total := cand.total(); total > 0 {
				off := cand.nth(int64(r.Uint64n(uint64(total))))
				flips = append(flips, flip{ino, off, uint8(r.Intn(8))})
			}
		}
	}
	fs.Crash()
	for _, f := range flips {
		n := fs.inodes[f.ino]
		if n == nil {
			continue // the file did not survive the crash
		}
		n.flipBoth(f.off, f.bit)
		n.damaged = n.damaged.add(f.off, f.off+1)
		rep.Corrupted = append(rep.Corrupted, Damage{Path: fs.PathOf(f.ino), Offset: f.off, Bit: f.bit})
	}
	slices.SortFunc(rep.Corrupted, func(a, b Damage) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return int(a.Offset - b.Offset)
	})
	return rep
}

// crashDuringSync makes part of the interrupted Sync of rules.Syncing
// durable: an in-order prefix of a file's pending operations, or of the
// directory operations a directory's Sync would commit.
func (fs *FS) crashDuringSync(rules CrashRules, r *rng.Stream, rep *CrashReport, hit map[Ino]ranges) {
	n := fs.inodes[rules.Syncing]
	switch {
	case n == nil:
	case n.typ == TypeRegular && len(n.pending) > 0:
		m := len(n.pending)
		k := r.Intn(m + 1)
		torn := 0
		if rules.Torn && k < m && !n.pending[k].truncate && n.pending[k].size() >= 2 {
			torn = int(tearPrefix(r, n.pending[k].off, n.pending[k].size(), rules.TornSector))
		}
		synced := slices.Clone(n.pending[:k])
		for _, op := range synced {
			rep.Kept++
			if !op.truncate {
				hit[n.ino] = hit[n.ino].add(op.off, op.off+op.size())
			}
		}
		rest := n.pending[k:]
		if torn > 0 {
			op := rest[0]
			synced = append(synced, fileOp{seq: op.seq, off: op.off, data: op.bytes()[:torn]})
			rest[0] = fileOp{seq: op.seq, off: op.off + int64(torn), data: op.bytes()[torn:], rest: true}
			hit[n.ino] = hit[n.ino].add(op.off, op.off+op.size())
			rep.Torn++
		}
		n.replayDurable(nil, synced, func(int64) bool { return false }, false)
		n.pending = rest
	case n.typ == TypeDir && fs.StrictDirs:
		take := fs.syncTakes(n.ino)
		var idx []int
		for i, t := range take {
			if t {
				idx = append(idx, i)
			}
		}
		k := r.Intn(len(idx) + 1)
		keep := make([]bool, len(fs.dirOps))
		for _, i := range idx[:k] {
			keep[i] = true
		}
		rep.Kept += k
		fs.commitDirOps(keep)
	}
}

// apply makes the plan's kept operations durable, counts them, and records
// in hit the bytes covered by the writes that reached the disk.
func (p *filePlan) apply(rep *CrashReport, hit map[Ino]ranges) {
	n := p.n
	d := &n.durable
	for i, op := range n.pending {
		if op.truncate {
			if p.keepTrunc[i] {
				d.resize(op.off, &n.data, n.pool)
				n.damaged = n.damaged.clip(op.off)
			}
			continue
		}
		for _, rg := range p.land[i] {
			d.writeAt(op.bytes()[rg[0]-op.off:rg[1]-op.off], rg[0], &n.data, n.pool)
			n.damaged = n.damaged.remove(rg[0], rg[1])
		}
	}
	if p.size >= 0 {
		d.resize(p.size, &n.data, n.pool)
		n.damaged = n.damaged.clip(p.size)
	}
	size := d.size
	for i, op := range n.pending {
		if op.rest {
			continue
		}
		if op.truncate {
			if p.keepTrunc[i] {
				rep.Kept++
			} else {
				rep.Dropped++
			}
			continue
		}
		landed := p.land[i].clip(size).total()
		switch {
		case landed == op.size():
			rep.Kept++
		case landed > 0:
			rep.Torn++
		default:
			rep.Dropped++
		}
		if landed > 0 {
			hit[n.ino] = hit[n.ino].add(op.off, op.off+op.size())
		}
	}
}

// planPrefix is plain Torn: an in-order prefix of every pending operation
// of the node, file and directory operations together, by sequence number,
// possibly ending in a partial write (cut at a multiple of sector, if set).
func (fs *FS) planPrefix(files []*inode, r *rng.Stream, keepDir []bool, sector int64) []*filePlan {
	type item struct {
		seq  uint64
		plan *filePlan
		op   int // index in the file's pending operations, or in fs.dirOps
	}
	var items []item
	var plans []*filePlan
	for _, n := range files {
		p := newPlan(n)
		plans = append(plans, p)
		for i, op := range n.pending {
			items = append(items, item{op.seq, p, i})
		}
	}
	for i, op := range fs.dirOps {
		items = append(items, item{op.seq, nil, i})
	}
	slices.SortFunc(items, func(a, b item) int {
		switch {
		case a.seq < b.seq:
			return -1
		case a.seq > b.seq:
			return 1
		}
		return 0
	})
	k := r.Intn(len(items) + 1)
	for j, it := range items {
		if j > k || (j == k && it.plan == nil) {
			break
		}
		if it.plan == nil {
			keepDir[it.op] = true
			continue
		}
		op := it.plan.n.pending[it.op]
		switch {
		case op.truncate && j < k:
			it.plan.keepTrunc[it.op] = true
		case op.truncate:
		case j < k:
			it.plan.land[it.op] = ranges{{op.off, op.off + op.size()}}
		case op.size() >= 2:
			if torn := tearPrefix(r, op.off, op.size(), sector); torn > 0 {
				it.plan.land[it.op] = ranges{{op.off, op.off + torn}}
			}
		}
	}
	return plans
}

// unit is a part of a pending operation that a crash keeps whole, in part
// (a write's bytes under Torn) or not at all.
type unit struct {
	op    int     // index in the file's pending operations
	lanes []int64 // the in-order lanes it is part of
	a, b  int64   // the bytes of a write it covers; the size range of a growth
	grow  bool    // ModelExt4Ordered: a page of the size a write adds
	trunc bool
}

// chainLane is the lane of a file's appends and truncates under
// ModelExt4Ordered; page lanes are numbered from 0.
const chainLane = -1

// planModel decides what a crash under Reorder keeps of one file.
//
// The file's pending operations are cut into units, each part of one or
// more lanes. A unit can be kept only if every earlier unit that shares a
// lane with it is kept whole, so each lane keeps an in-order prefix:
//   - ModelExt4Ordered: one lane for appends and truncates, with each append
//     cut at page boundaries into units that grow the size; and a lane per
//     page for the overwrites of bytes inside the size the file had when
//     they were made. The size after the crash is the size the kept part of
//     the first lane gives, and bytes past it are not kept.
//   - ModelPageIndependent and ModelDirReorder: a lane per page; each write
//     is cut at page boundaries, and a truncate is part of every page
//     between the old and the new size. The size is what replaying the kept
//     units gives, zeros filling the gaps.
//
// Each unit that is free to be kept is kept with a probability drawn once
// per file, so that some crashes keep most and others little; under Torn a
// unit that is not kept is cut short with probability 1/2.
func planModel(n *inode, rules CrashRules, r *rng.Stream) *filePlan {
	p := newPlan(n)
	ext4 := rules.Model == ModelExt4Ordered
	var units []unit
	pieces := func(op int, a, b int64, lanes func(page int64) []int64, grow bool) {
		for a < b {
			e := min(b, (a/PageBytes+1)*PageBytes)
			units = append(units, unit{op: op, lanes: lanes(a / PageBytes), a: a, b: e, grow: grow})
			a = e
		}
	}
	pageLane := func(page int64) []int64 { return []int64{page} }
	chain := func(int64) []int64 { return []int64{chainLane} }
	size := n.durable.size
	for i, op := range n.pending {
		if op.truncate {
			u := unit{op: i, trunc: true}
			if ext4 {
				u.lanes = []int64{chainLane}
			} else {
				first, last := pagesOf(min(size, op.off), max(size, op.off))
				for pg := first; pg < last; pg++ {
					u.lanes = append(u.lanes, pg)
				}
			}
			units = append(units, u)
			size = op.off
			continue
		}
		end := op.off + op.size()
		if ext4 {
			pieces(i, op.off, min(end, size), pageLane, false)
			pieces(i, size, end, chain, true)
		} else {
			pieces(i, op.off, end, pageLane, false)
		}
		size = max(size, end)
	}

	q := r.Float64()
	blocked := map[int64]bool{}
	if ext4 {
		p.size = n.durable.size
	}
	for _, u := range units {
		free := true
		for _, l := range u.lanes {
			free = free && !blocked[l]
		}
		keep, torn := false, int64(0)
		if free {
			// A torn unit keeps at least one byte of the write's data:
			// a torn growth never ends inside the hole before it.
			dataAt := u.a
			if !u.trunc {
				dataAt = max(u.a, n.pending[u.op].off)
			}
			if r.Float64() < q {
				keep = true
			} else if rules.Torn && !u.trunc && u.b-dataAt >= 2 && r.Intn(2) == 0 {
				if end, ok := tearEnd(r, dataAt+1, u.b-1, rules.TornSector); ok {
					torn = end - u.a
				}
			}
		}
		if !keep {
			for _, l := range u.lanes {
				blocked[l] = true
			}
		}
		end := u.b
		switch {
		case torn > 0:
			end = u.a + torn
		case !keep:
			continue
		}
		if u.trunc {
			p.keepTrunc[u.op] = true
			if ext4 {
				p.size = n.pending[u.op].off
			}
			continue
		}
		if u.grow {
			p.size = end
		}
		if a := max(u.a, n.pending[u.op].off); a < end {
			p.land[u.op] = p.land[u.op].add(a, end)
		}
	}
	return p
}

// planDirOps decides which pending directory operations a crash under
// Reorder keeps: under ModelDirReorder each one independently, with the
// earlier ones it depends on (see syncDir); under the other models an
// in-order prefix with Torn, and none without.
func (fs *FS) planDirOps(rules CrashRules, r *rng.Stream, keep []bool) {
	ops := fs.dirOps
	if len(ops) == 0 {
		return
	}
	if rules.Model != ModelDirReorder {
		if rules.Torn {
			k := r.Intn(len(ops) + 1)
			for i := range k {
				keep[i] = true
			}
		}
		return
	}
	q := r.Float64()
	for i, op := range ops {
		free := true
		for j := range i {
			if !keep[j] && dependsOn(op, ops[j]) {
				free = false
				break
			}
		}
		keep[i] = free && r.Float64() < q
	}
}

// tearPrefix draws how many bytes a torn write of n bytes at offset off
// keeps, in [0, n-1]. With sector > 0 the kept bytes end at a multiple of
// sector in the file, or none are kept when the write crosses no sector
// boundary. Without it the draw is the one it always was, so worlds without
// torn_sector replay as before.
func tearPrefix(r *rng.Stream, off, n, sector int64) int64 {
	if sector <= 0 {
		return r.Between(0, n-1)
	}
	end, ok := tearEnd(r, off+1, off+n-1, sector)
	if !ok {
		return 0
	}
	return end - off
}

// tearEnd draws the file offset in [lo, hi] at which a torn write's kept
// bytes end: any offset, or with sector > 0 a multiple of sector, false
// when the range holds none.
func tearEnd(r *rng.Stream, lo, hi, sector int64) (int64, bool) {
	if sector <= 0 {
		return r.Between(lo, hi), true
	}
	first := (lo + sector - 1) / sector
	last := hi / sector
	if first > last {
		return 0, false
	}
	return r.Between(first, last) * sector, true
}
