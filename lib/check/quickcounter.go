package check

import (
	"cmp"
	"container/heap"
	"slices"
	"sort"

	"github.com/anishathalye/porcupine"
)

// quickCounter decides a counter key whose adds all add the same amount,
// adds of 0 aside: then only how many adds a read saw matters, not which,
// and the reads' values, in order, say how many adds land between them.
// With adds of different amounts (or signs) a read's value is a subset sum
// of them, which no polynomial check decides, and the key is left to the
// search. RATIONALE.md ("Why do counter, set and append histories skip the
// search?") proves the steps below.
func quickCounter(d *decoder, g []porcupine.Operation) quickResult {
	c := &counterKey{d: d, g: g}
	if !c.collect() {
		return undecided
	}
	if res, ok := c.countReads(); !ok {
		return res
	}
	if res, ok := c.groupReads(); !ok {
		return res
	}
	if res, ok := c.bound(); !ok {
		return res
	}
	if res, ok := c.assign(); !ok {
		return res
	}
	return c.verify()
}

// counterKey is the quick check of one counter key. Operations are named
// by their index in g.
type counterKey struct {
	d     *decoder
	g     []porcupine.Operation
	step  int64   // what every add that is not 0 adds; 0 if none does
	adds  []int32 // the adds that are not 0
	reads []int32 // sorted by count, then call
	count []int64 // by operation: how many adds a read saw
	// The reads in groups of one count, in increasing count.
	groups []readGroup
	// By position in adds: the first and last gap (see assign) each add
	// may take effect in, and the gap it was given (-1: none).
	first, last, gap []int32
}

// readGroup is the reads that saw one count, reads[from:to].
type readGroup struct {
	count    int64
	from, to int
	lo, hi   int64 // the latest call and the earliest return among them
	loOp     int32 // the read invoked last
	hiOp     int32 // the read that completed first
}

func (c *counterKey) op(i int32) opArg { return c.d.arg(&c.g[i]) }

// collect sorts the key's operations into adds and reads, and reports
// whether every add that is not 0 adds the same amount.
func (c *counterKey) collect() bool {
	for i := range c.g {
		in := c.g[i].Input.(*linInput)
		switch {
		case in.kind == opRead:
			c.reads = append(c.reads, int32(i))
		case in.n == 0:
			// Changes nothing: it fits anywhere in its interval.
		case c.step == 0 || in.n == c.step:
			c.step = in.n
			c.adds = append(c.adds, int32(i))
		default:
			return false
		}
	}
	return true
}

// countReads turns each read's value into the number of adds it saw.
func (c *counterKey) countReads() (quickResult, bool) {
	c.count = make([]int64, len(c.g))
	for _, r := range c.reads {
		v := c.g[r].Output.(*linOutput).n
		switch {
		case c.step == 0 && v != 0:
			return c.d.illegal("%s is not a sum of the key's adds, which add nothing", c.op(r)), false
		case c.step == 0:
		case v%c.step != 0 || v/c.step < 0:
			return c.d.illegal("%s is not a sum of the key's adds, which all add %d", c.op(r), c.step), false
		default:
			c.count[r] = v / c.step
		}
	}
	slices.SortFunc(c.reads, func(a, b int32) int {
		if n := cmp.Compare(c.count[a], c.count[b]); n != 0 {
			return n
		}
		return cmp.Compare(c.g[a].Call, c.g[b].Call)
	})
	return quickResult{}, true
}

// groupReads groups the reads by count, and checks that no read completed
// before a read of a smaller count was invoked: the counter only moves one
// way.
func (c *counterKey) groupReads() (quickResult, bool) {
	for i := 0; i < len(c.reads); {
		r := c.reads[i]
		grp := readGroup{count: c.count[r], from: i, lo: -1, hi: 1 << 62}
		for ; i < len(c.reads) && c.count[c.reads[i]] == grp.count; i++ {
			op := &c.g[c.reads[i]]
			if op.Call > grp.lo {
				grp.lo, grp.loOp = op.Call, c.reads[i]
			}
			if op.Return < grp.hi {
				grp.hi, grp.hiOp = op.Return, c.reads[i]
			}
		}
		grp.to = i
		c.groups = append(c.groups, grp)
	}
	maxLo, at := int64(-1), int32(-1)
	for _, grp := range c.groups {
		if maxLo > grp.hi {
			way := "never goes down"
			if c.step < 0 {
				way = "never goes up"
			}
			return c.d.illegal("%s completed before %s was invoked, but every add adds %d, so the counter %s",
				c.op(grp.hiOp), c.op(at), c.step, way), false
		}
		if grp.lo > maxLo {
			maxLo, at = grp.lo, grp.loOp
		}
	}
	return quickResult{}, true
}

// bound finds the gaps each add may take effect in. Gap k lies between the
// reads of groups k-1 and k (gap 0 before every read, gap len(groups) after
// every read). An add must come after every group with a read that
// completed before it was invoked, and (if it is ok) before every group with
// a read invoked after it completed; since the groups come in count order,
// that leaves a range of gaps, first to last.
func (c *counterKey) bound() (quickResult, bool) {
	m := len(c.groups)
	byHi := make([]int32, m) // group indexes by their earliest return
	byLo := make([]int32, m) // by their latest call
	for k := range byHi {
		byHi[k], byLo[k] = int32(k), int32(k)
	}
	slices.SortFunc(byHi, func(a, b int32) int { return cmp.Compare(c.groups[a].hi, c.groups[b].hi) })
	slices.SortFunc(byLo, func(a, b int32) int { return cmp.Compare(c.groups[a].lo, c.groups[b].lo) })
	after := make([]int32, m) // after[i]: the last group among byHi[:i+1]
	for i, k := range byHi {
		after[i] = k
		if i > 0 {
			after[i] = max(after[i-1], k)
		}
	}
	before := make([]int32, m) // before[i]: the first group among byLo[i:]
	for i := m - 1; i >= 0; i-- {
		before[i] = byLo[i]
		if i < m-1 {
			before[i] = min(before[i+1], byLo[i])
		}
	}
	n := len(c.adds)
	c.first, c.last, c.gap = make([]int32, n), make([]int32, n), make([]int32, n)
	for j, a := range c.adds {
		if c.d.stopped(j) {
			return undecided, false
		}
		op := &c.g[a]
		lo, hi := int32(0), int32(m)
		k1, k2 := int32(-1), int32(-1)
		if i := sort.Search(m, func(i int) bool { return c.groups[byHi[i]].hi > op.Call }); i > 0 {
			k1 = after[i-1]
			lo = k1 + 1
		}
		if !op.Output.(*linOutput).unknown {
			if i := sort.Search(m, func(i int) bool { return c.groups[byLo[i]].lo > op.Return }); i < m {
				k2 = before[i]
				hi = k2
			}
		}
		if lo > hi {
			if k1 != k2 {
				// groupReads rules this out: the read of group k1
				// completed before the add, and so before the later
				// read of group k2 began.
				return undecided, false
			}
			v := c.g[c.groups[k1].hiOp].Output.(*linOutput).n
			return c.d.illegal("%s was invoked after %s completed and completed before %s was invoked, but it changes the counter between two reads of %d",
				c.op(a), c.op(c.groups[k1].hiOp), c.op(c.groups[k2].loOp), v), false
		}
		c.first[j], c.last[j] = lo, hi
	}
	return quickResult{}, true
}

// addHeap holds adds (positions in counterKey.adds) by the last gap they
// may take effect in, earliest first; ties go to the add that completed
// first, then to the one invoked first, so that an add never lands in a
// later gap than one invoked after it completed.
type addHeap struct {
	c  *counterKey
	at []int32
}

func (h *addHeap) Len() int { return len(h.at) }
func (h *addHeap) Less(i, j int) bool {
	a, b := h.at[i], h.at[j]
	c := h.c
	if c.last[a] != c.last[b] {
		return c.last[a] < c.last[b]
	}
	x, y := &c.g[c.adds[a]], &c.g[c.adds[b]]
	if x.Return != y.Return {
		return x.Return < y.Return
	}
	return x.Call < y.Call
}
func (h *addHeap) Swap(i, j int) { h.at[i], h.at[j] = h.at[j], h.at[i] }
func (h *addHeap) Push(x any)    { h.at = append(h.at, x.(int32)) }
func (h *addHeap) Pop() any {
	x := h.at[len(h.at)-1]
	h.at = h.at[:len(h.at)-1]
	return x
}

// assign gives each gap before a group exactly as many adds as the group's
// count exceeds the one before it, earliest deadline first: in gap k, of
// the adds that may take effect there and have no gap yet, those whose last
// gap comes first. If some assignment exists this one succeeds; when it
// fails, it names the reads that no assignment satisfies.
func (c *counterKey) assign() (quickResult, bool) {
	m := len(c.groups)
	byFirst := make([]int32, len(c.adds))
	for j := range byFirst {
		byFirst[j] = int32(j)
		c.gap[j] = -1
	}
	slices.SortFunc(byFirst, func(a, b int32) int { return cmp.Compare(c.first[a], c.first[b]) })
	h := &addHeap{c: c}
	next, prev := 0, int64(0)
	for k := range c.groups {
		for ; next < len(byFirst) && c.first[byFirst[next]] <= int32(k); next++ {
			heap.Push(h, byFirst[next])
		}
		grp := &c.groups[k]
		for need := grp.count - prev; need > 0; need-- {
			if h.Len() == 0 {
				return c.tooFew(k, next), false
			}
			c.gap[heap.Pop(h).(int32)] = int32(k)
		}
		prev = grp.count
		if h.Len() > 0 && c.last[h.at[0]] <= int32(k) {
			return c.tooMany(k), false
		}
	}
	for _, j := range append(h.at, byFirst[next:]...) {
		if !c.g[c.adds[j]].Output.(*linOutput).unknown {
			c.gap[j] = int32(m)
		}
	}
	return quickResult{}, true
}

// tooFew explains why group k's reads saw more adds than could have taken
// effect before them: only the have adds whose first gap is k or earlier
// can.
func (c *counterKey) tooFew(k, have int) quickResult {
	grp := &c.groups[k]
	r := c.op(grp.hiOp)
	if have == len(c.adds) {
		return c.d.illegal("%s needs %d adds of %d before it, but the key has only %d", r, grp.count, c.step, have)
	}
	beyond := "more"
	if c.step < 0 {
		beyond = "less"
	}
	return c.d.illegal("%s needs %d adds of %d before it, but only %d could take effect before it: the other %d were invoked after a read of %d or %s completed",
		r, grp.count, c.step, have, len(c.adds)-have, grp.count*c.step, beyond)
}

// tooMany explains why the adds that must take effect before group k's
// reads are more than its count allows: the adds whose gaps all lie from p
// to k number more than the groups p-1 and k differ by, for some p.
func (c *counterKey) tooMany(k int) quickResult {
	hist := make([]int, k+1)
	for j := range c.adds {
		if c.last[j] <= int32(k) {
			hist[c.first[j]]++
		}
	}
	n := 0
	for p := k; p >= 0; p-- {
		n += hist[p]
		room := c.groups[k].count
		if p > 0 {
			room -= c.groups[p-1].count
		}
		if int64(n) <= room {
			continue
		}
		var ids []int64
		for j, a := range c.adds {
			if c.first[j] >= int32(p) && c.last[j] <= int32(k) {
				ids = append(ids, c.g[a].Input.(*linInput).op.ID)
			}
		}
		before := c.op(c.groups[k].loOp)
		var res quickResult
		if p == 0 {
			res = c.d.illegal("%d adds of %d (%s) must take effect before %s", n, c.step, idList(ids), before)
		} else {
			res = c.d.illegal("%d adds of %d (%s) must take effect after %s and before %s", n, c.step, idList(ids), c.op(c.groups[p-1].hiOp), before)
		}
		res.ids = append(ids[:min(len(ids), 5):min(len(ids), 5)], res.ids...)
		return res
	}
	// Cannot happen (see RATIONALE.md); leave the key to the search.
	return undecided
}

// verify lays out the order that assign found, each gap's adds and then
// each group's reads, in call order within each, and checks that it keeps to
// real time. It always does; the check keeps a mistake here from passing a
// history.
func (c *counterKey) verify() quickResult {
	byGap := make([]int32, 0, len(c.adds))
	for j := range c.adds {
		if c.gap[j] >= 0 {
			byGap = append(byGap, int32(j))
		}
	}
	slices.SortFunc(byGap, func(a, b int32) int {
		if n := cmp.Compare(c.gap[a], c.gap[b]); n != 0 {
			return n
		}
		return cmp.Compare(c.g[c.adds[a]].Call, c.g[c.adds[b]].Call)
	})
	seq := make([]seqItem, 0, len(byGap)+len(c.reads))
	item := func(i int32) seqItem {
		return seqItem{call: c.g[i].Call, ret: c.g[i].Return, callOp: i, retOp: i}
	}
	next := 0
	for k := 0; k <= len(c.groups); k++ {
		for ; next < len(byGap) && c.gap[byGap[next]] == int32(k); next++ {
			seq = append(seq, item(c.adds[byGap[next]]))
		}
		if k == len(c.groups) {
			break
		}
		for _, r := range c.reads[c.groups[k].from:c.groups[k].to] { // in call order
			seq = append(seq, item(r))
		}
	}
	if _, _, ok := orderFits(seq); !ok {
		return undecided
	}
	return quickResult{verdict: Ok}
}
