package check

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// The quick checks decide a key of a counter, set or append history in
// polynomial time, before and instead of Porcupine's search, which is
// exponential in the number of operations of unknown outcome. Each one
// either builds an order of the key's operations that is legal and keeps to
// real time (Ok), or finds a few operations that no legal order can place
// (Illegal), or leaves the key to the search (Unknown) when its shape is
// outside what it decides exactly: a counter whose adds are not all the same
// amount, an append log with a value appended twice. RATIONALE.md ("Why do
// counter, set and append histories skip the search?") proves each of them
// sound and complete.

// quickResult is what a quick check decided about one key.
type quickResult struct {
	verdict Verdict // Ok, Illegal, or Unknown: left to the search
	why     string  // for Illegal: why no order of the key's operations is legal
	ids     []int64 // for Illegal: the ids of the operations that why names
}

var undecided = quickResult{verdict: Unknown}

// quickTimelineSteps bounds, per key, the verbose search that draws the
// timeline of a history the quick check proved not linearizable, unless
// Options.MaxSteps sets a bound of its own. That search may take as long as
// the one the quick check spared, exponential in the operations of unknown
// outcome; a partial timeline, drawn in about half a second, shows the
// operations all the same.
const quickTimelineSteps = 1 << 20

const quickTimelineTime = time.Second

// quickPoll is how many operations a quick check handles between two looks
// at the interrupt flag: a few milliseconds of its work.
const quickPoll = 1 << 14

// stopped reports, every quickPoll calls with i counting up, whether the
// check was interrupted. A quick check that sees it returns undecided, and
// its caller then sees the flag too.
func (d *decoder) stopped(i int) bool {
	return i%quickPoll == quickPoll-1 && interrupted(d.interrupt)
}

// quickOutcome is what the quick check decided about a history's keys.
type quickOutcome struct {
	proven  []bool                // by key rank: proved linearizable
	illegal []quickFailure        // the keys proved not linearizable, in key order
	search  []porcupine.Operation // the operations of the keys left to the search
}

// quickFailure is one key that the quick check proved not linearizable.
type quickFailure struct {
	key   int32
	group []porcupine.Operation
	res   quickResult
}

// quickCheck runs the model's quick check, if it has one, on each key.
func (d *decoder) quickCheck(pops []porcupine.Operation, nkeys int) *quickOutcome {
	q := &quickOutcome{proven: make([]bool, nkeys), search: pops}
	if d.m.quick == nil {
		return q
	}
	left := 0
	groups := partition(pops, nkeys)
	for _, g := range groups {
		if interrupted(d.interrupt) {
			return q // the caller sees the flag too
		}
		k := g[0].Input.(*linInput).key
		switch res := d.m.quick(d, g); res.verdict {
		case Ok:
			q.proven[k] = true
		case Illegal:
			q.illegal = append(q.illegal, quickFailure{key: k, group: g, res: res})
		default:
			left += len(g)
		}
	}
	if left < len(pops) {
		q.search = make([]porcupine.Operation, 0, left)
		for _, g := range groups {
			k := g[0].Input.(*linInput).key
			if !q.proven[k] && !q.isIllegal(k) {
				q.search = append(q.search, g...)
			}
		}
	}
	return q
}

func (q *quickOutcome) isIllegal(k int32) bool {
	for _, f := range q.illegal {
		if f.key == k {
			return true
		}
	}
	return false
}

// unproven returns the operations of pops whose keys the quick check did
// not prove linearizable: the ones a verbose search can still say
// something about.
func (q *quickOutcome) unproven(pops []porcupine.Operation) []porcupine.Operation {
	out := make([]porcupine.Operation, 0, len(pops))
	for _, op := range pops {
		if !q.proven[op.Input.(*linInput).key] {
			out = append(out, op)
		}
	}
	return out
}

// seqItem is one step of an order that a quick check builds: an operation,
// or for the set model all the adds of one element, which act as one add
// invoked when the first of them was and completed when the first of the
// ok ones did (see quickSet).
type seqItem struct {
	call, ret     int64 // the ranks it must take effect between
	callOp, retOp int32 // the operations (indexes into the key's group) whose call and return those are
	read          bool
	val           int32 // for the adds and appends of set and append: the element
	block         int32 // set: the group of reads it is before or in; append: a read's length or an append's position
	adds          int32 // for the adds of set and append: how many add the element
}

// orderFits reports whether seq, in its order, keeps to real time: every
// item is invoked before each later one completes. If it does not, x and y
// are the first pair that breaks it: y completed before x, which comes
// before it in seq, was invoked.
func orderFits(seq []seqItem) (x, y int, ok bool) {
	maxCall, at := int64(-1), -1
	for k := range seq {
		if at >= 0 && maxCall > seq[k].ret {
			return at, k, false
		}
		if seq[k].call > maxCall {
			maxCall, at = seq[k].call, k
		}
	}
	return 0, 0, true
}

// opName names an operation in a quick check's explanation, such as
// `read → 3 (id 5, process 1)`, `add "x" (id 2, process 0)`, or for the
// reads of set and append, whose lists can be long, `read (id 5, process 1)`.
func (d *decoder) opName(op porcupine.Operation) string {
	in, out := op.Input.(*linInput), op.Output.(*linOutput)
	var s string
	switch {
	case in.kind == opRead && d.m.name == "counter":
		s = "read → " + strconv.FormatInt(out.n, 10)
	case in.kind == opRead:
		s = "read"
	case d.m.name == "counter":
		s = "add " + strconv.FormatInt(in.n, 10)
	default:
		s = opKindNames[in.kind] + " " + d.vals.Quote(in.a)
	}
	return fmt.Sprintf("%s (id %d, process %d)", s, in.op.ID, in.op.Process)
}

// opArg is an operation as an argument of illegal: it prints as opName
// does, and illegal lists its id.
type opArg struct {
	d  *decoder
	op *porcupine.Operation
}

func (a opArg) String() string { return a.d.opName(*a.op) }

func (d *decoder) arg(op *porcupine.Operation) opArg { return opArg{d, op} }

// illegal returns a quick check's Illegal verdict, explained by the
// sentence built from format and args, with the ids of its opArg
// arguments.
func (d *decoder) illegal(format string, args ...any) quickResult {
	res := quickResult{verdict: Illegal, why: fmt.Sprintf(format, args...)}
	for _, a := range args {
		if op, ok := a.(opArg); ok {
			res.ids = append(res.ids, op.op.Input.(*linInput).op.ID)
		}
	}
	return res
}

// idList lists ids as "ids 4, 6, 7" or "ids 4, 6, 7, 9, 12 and 3 more".
func idList(ids []int64) string {
	const shown = 5
	var b strings.Builder
	if len(ids) == 1 {
		b.WriteString("id ")
	} else {
		b.WriteString("ids ")
	}
	for i, id := range ids[:min(len(ids), shown)] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(id, 10))
	}
	if len(ids) > shown {
		fmt.Fprintf(&b, " and %d more", len(ids)-shown)
	}
	return b.String()
}

// explainQuick describes a key the quick check proved not linearizable, in
// the form of explain's examples.
func explainQuick(f quickFailure, count int) Anomaly {
	first := f.group[0].Input.(*linInput).op
	var b strings.Builder
	if first.Key != "" {
		fmt.Fprintf(&b, "key %q: ", first.Key)
	}
	fmt.Fprintf(&b, "no order of its %d operations is legal: %s; see the timeline", len(f.group), f.res.why)
	return Anomaly{Kind: "nonlinearizable", Count: count, Example: b.String(), Ops: f.res.ids}
}
