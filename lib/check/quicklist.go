package check

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/anishathalye/porcupine"
)

// quickSet decides a set key. The set only grows, so its reads, ordered by
// size, must each contain the one before; the elements a read has and the
// one before it lacks were added between the two; elements no read has
// were added after every read, or (if no add of theirs is ok) never. That
// fixes an order up to operations that may swap places, and the check is
// whether it keeps to real time. An element's adds act as one: the first of
// them to take effect adds it and the others change nothing, so they fit
// anywhere after it. That first add can take effect no earlier than the
// earliest invocation among them and must take effect before the earliest
// completion among the ok ones, which all come after it.
func quickSet(d *decoder, g []porcupine.Operation) quickResult {
	elems := map[int32]*seqItem{}
	var reads []int32
	for i := range g {
		if d.stopped(i) {
			return undecided
		}
		in := g[i].Input.(*linInput)
		if in.kind == opRead {
			reads = append(reads, int32(i))
			continue
		}
		e := elems[in.a]
		if e == nil {
			e = &seqItem{call: g[i].Call, ret: g[i].Return, callOp: int32(i), retOp: int32(i), val: in.a, block: -1}
			elems[in.a] = e
		}
		if g[i].Call < e.call {
			e.call, e.callOp = g[i].Call, int32(i)
		}
		if g[i].Return < e.ret {
			e.ret, e.retOp = g[i].Return, int32(i)
		}
		e.adds++
	}
	sortReads(g, reads)
	seq := make([]seqItem, 0, len(elems)+len(reads))
	var (
		prev      []int32 // the members of the group before
		prevRead  = int32(-1)
		groupRead []int32 // by group: one of its reads
		added     []*seqItem
	)
	for i := 0; i < len(reads); {
		r := reads[i]
		list := g[r].Output.(*linOutput).list
		j := i
		for ; j < len(reads) && len(g[reads[j]].Output.(*linOutput).list) == len(list); j++ {
			if !slices.Equal(g[reads[j]].Output.(*linOutput).list, list) {
				return d.incomparable(g, r, reads[j])
			}
		}
		added = added[:0]
		for _, v := range list {
			if _, found := slices.BinarySearch(prev, v); found {
				continue
			}
			e := elems[v]
			if e == nil {
				return d.illegal("%s sees %s, but no add of it succeeded or has an unknown outcome", d.arg(&g[r]), d.vals.Quote(v))
			}
			e.block = int32(len(groupRead))
			added = append(added, e)
		}
		if len(list)-len(added) != len(prev) {
			return d.incomparable(g, prevRead, r)
		}
		slices.SortFunc(added, func(a, b *seqItem) int { return cmp.Compare(a.call, b.call) })
		for _, e := range added {
			seq = append(seq, *e)
		}
		for _, r := range reads[i:j] {
			seq = append(seq, readItem(g, r))
		}
		prev, prevRead = list, r
		groupRead = append(groupRead, r)
		i = j
	}
	start := len(seq)
	for _, e := range elems {
		if e.block < 0 && !g[e.retOp].Output.(*linOutput).unknown {
			seq = append(seq, *e)
		}
	}
	slices.SortFunc(seq[start:], func(a, b seqItem) int { return cmp.Compare(a.call, b.call) })
	x, y, ok := orderFits(seq)
	if ok {
		return quickResult{verdict: Ok}
	}
	return d.outOfOrder(g, seq[x], seq[y], func(x, y seqItem) (int32, bool) { return groupRead[x.block], false })
}

// quickAppend decides an append key whose appended values are all
// different (it leaves the others to the search). The reads must be
// prefixes of the longest one, which fixes the order of the appends it
// holds and where each read goes among them; appends that no read holds come
// after every read, or (if their outcome is unknown) never. The check is
// whether that order keeps to real time.
func quickAppend(d *decoder, g []porcupine.Operation) quickResult {
	appends := map[int32]int32{} // value → its append
	var reads []int32
	long := int32(-1)
	for i := range g {
		if d.stopped(i) {
			return undecided
		}
		in := g[i].Input.(*linInput)
		if in.kind == opRead {
			reads = append(reads, int32(i))
			if long < 0 || len(g[i].Output.(*linOutput).list) > len(g[long].Output.(*linOutput).list) {
				long = int32(i)
			}
			continue
		}
		if _, dup := appends[in.a]; dup {
			return undecided
		}
		appends[in.a] = int32(i)
	}
	var longest []int32
	if long >= 0 {
		longest = g[long].Output.(*linOutput).list
	}
	pos := make(map[int32]int32, len(longest))
	for p, v := range longest {
		if _, dup := pos[v]; dup {
			return d.illegal("%s sees %s twice, but it was appended at most once", d.arg(&g[long]), d.vals.Quote(v))
		}
		if _, found := appends[v]; !found {
			return d.illegal("%s sees %s, but no append of it succeeded or has an unknown outcome", d.arg(&g[long]), d.vals.Quote(v))
		}
		pos[v] = int32(p)
	}
	for _, r := range reads {
		for p, v := range g[r].Output.(*linOutput).list {
			if v != longest[p] {
				return d.illegal("%s sees %s at position %d, where %s sees %s", d.arg(&g[r]), d.vals.Quote(v), p+1, d.arg(&g[long]), d.vals.Quote(longest[p]))
			}
		}
	}
	sortReads(g, reads)
	seq := make([]seqItem, 0, len(g))
	next := 0
	for p := 0; p <= len(longest); p++ {
		for ; next < len(reads) && len(g[reads[next]].Output.(*linOutput).list) == p; next++ {
			seq = append(seq, readItem(g, reads[next]))
		}
		if p < len(longest) {
			seq = append(seq, addItem(g, appends[longest[p]], int32(p)))
		}
	}
	start := len(seq)
	for v, a := range appends {
		if _, read := pos[v]; !read && !g[a].Output.(*linOutput).unknown {
			seq = append(seq, addItem(g, a, -1))
		}
	}
	slices.SortFunc(seq[start:], func(a, b seqItem) int { return cmp.Compare(a.call, b.call) })
	x, y, ok := orderFits(seq)
	if ok {
		return quickResult{verdict: Ok}
	}
	return d.outOfOrder(g, seq[x], seq[y], func(x, y seqItem) (int32, bool) {
		_, both := pos[y.val]
		return long, both
	})
}

// sortReads sorts reads by the length of the list each read, then by call.
func sortReads(g []porcupine.Operation, reads []int32) {
	slices.SortFunc(reads, func(a, b int32) int {
		if n := cmp.Compare(len(g[a].Output.(*linOutput).list), len(g[b].Output.(*linOutput).list)); n != 0 {
			return n
		}
		return cmp.Compare(g[a].Call, g[b].Call)
	})
}

func readItem(g []porcupine.Operation, r int32) seqItem {
	return seqItem{call: g[r].Call, ret: g[r].Return, callOp: r, retOp: r, read: true, block: int32(len(g[r].Output.(*linOutput).list))}
}

func addItem(g []porcupine.Operation, a, block int32) seqItem {
	return seqItem{call: g[a].Call, ret: g[a].Return, callOp: a, retOp: a, val: g[a].Input.(*linInput).a, block: block, adds: 1}
}

// incomparable explains two set reads of which neither holds the other.
func (d *decoder) incomparable(g []porcupine.Operation, a, b int32) quickResult {
	x := firstMissing(g[a].Output.(*linOutput).list, g[b].Output.(*linOutput).list)
	y := firstMissing(g[b].Output.(*linOutput).list, g[a].Output.(*linOutput).list)
	qx, qy := d.vals.Quote(x), d.vals.Quote(y)
	return d.illegal("%s sees %s and not %s, and %s sees %s and not %s, but the set only grows", d.arg(&g[a]), qx, qy, d.arg(&g[b]), qy, qx)
}

// firstMissing returns the first element of list that other lacks; there
// must be one.
func firstMissing(list, other []int32) int32 {
	in := make(map[int32]bool, len(other))
	for _, v := range other {
		in[v] = true
	}
	for _, v := range list {
		if !in[v] {
			return v
		}
	}
	panic("firstMissing: no element is missing")
}

// outOfOrder explains why the order a set or append check built does not
// keep to real time, and why no other order can: y completed before x was
// invoked, yet the reads put x first. For two adds, witness names a read
// that shows it, and whether that read holds both elements (in order) or
// only x's.
func (d *decoder) outOfOrder(g []porcupine.Operation, x, y seqItem, witness func(x, y seqItem) (int32, bool)) quickResult {
	var which string
	if !x.read && x.adds > 1 {
		which = fmt.Sprintf(", the first of the %d adds of %s,", x.adds, d.vals.Quote(x.val))
	}
	const lead = "%s completed before %s%s was invoked, but "
	X, Y := &g[x.callOp], &g[y.retOp]
	switch {
	case x.read && y.read:
		v := firstMissing(Y.Output.(*linOutput).list, X.Output.(*linOutput).list)
		return d.illegal(lead+"sees %s, which that read does not", d.arg(Y), d.arg(X), which, d.vals.Quote(v))
	case x.read:
		return d.illegal(lead+"that read does not see %s", d.arg(Y), d.arg(X), which, d.vals.Quote(y.val))
	case y.read:
		return d.illegal(lead+"sees %s", d.arg(Y), d.arg(X), which, d.vals.Quote(x.val))
	}
	r, both := witness(x, y)
	how := "%s and not %s"
	if both {
		how = "%s before %s"
	}
	return d.illegal(lead+"%s sees "+how, d.arg(Y), d.arg(X), which, d.arg(&g[r]), d.vals.Quote(x.val), d.vals.Quote(y.val))
}
