package check

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/sf-dst/sf/lib/check/jsonvalue"
	"github.com/sf-dst/sf/lib/history"
	"github.com/sf-dst/sf/lib/textfmt"
)

// build decodes the history into Porcupine operations, dropping failed
// operations and reads of unknown outcome, with unknown and pending
// operations returning after the end of the history. It also returns the
// history's keys, sorted; linInput.key is an index into them. The
// operations come grouped by key, in key order, each group in history
// order, so that partition can hand Porcupine slices of them instead of
// copies.
func (d *decoder) build(ops []history.HistoryOp) ([]porcupine.Operation, []string, error) {
	calls, rets, end := history.Order(ops)
	clients := history.ClientIDs(ops)
	ins := make([]linInput, len(ops))
	outs := make([]linOutput, len(ops))
	keyOf := make([]int32, len(ops)) // by operation: the key's id, or -1 if dropped
	var counts []int                 // by key id
	kept := 0
	for i := range ops {
		if i%4096 == 0 && interrupted(d.interrupt) {
			return nil, nil, ErrInterrupted
		}
		op := &ops[i]
		keyOf[i] = -1
		drop, err := d.decode(op, &ins[i], &outs[i])
		if err != nil {
			return nil, nil, err
		}
		if drop {
			continue
		}
		if err := d.checkRange(op, &ins[i]); err != nil {
			return nil, nil, err
		}
		k := d.keys.ID([]byte(op.Key))
		for int(k) >= len(counts) {
			counts = append(counts, 0)
		}
		counts[k]++
		keyOf[i] = k
		kept++
	}
	// Number the keys in sorted order, so partitions (and the timeline) come
	// in the same order every time.
	names := d.keys.Names()
	order := make([]int32, len(names))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(names[a], names[b]) })
	rank := make([]int32, len(names))
	next := make([]int, len(names)) // by key id: where its next operation goes
	at := 0
	for r, id := range order {
		rank[id] = int32(r)
		next[id] = at
		if int(id) < len(counts) {
			at += counts[id]
		}
	}
	pops := make([]porcupine.Operation, kept)
	for i := range ops {
		k := keyOf[i]
		if k < 0 {
			continue
		}
		ret := rets[i]
		if ops[i].Status != history.StatusOK {
			ret = end
		}
		ins[i].key = rank[k]
		pops[next[k]] = porcupine.Operation{
			ClientId: clients[ops[i].Process],
			Input:    &ins[i],
			Call:     calls[i],
			Output:   &outs[i],
			Return:   ret,
		}
		next[k]++
	}
	d.boxAll()
	sorted := make([]string, len(order))
	for r, id := range order {
		sorted[r] = names[id]
	}
	return pops, sorted, nil
}

// partition groups operations by key, in key order, keeping each group in
// history order. Keys with no operations get no group. Operations that come
// grouped so already, as build gives them, are sliced rather than copied.
func partition(pops []porcupine.Operation, nkeys int) [][]porcupine.Operation {
	if groups, ok := sliceGroups(pops); ok {
		return groups
	}
	counts := make([]int, nkeys)
	for i := range pops {
		counts[pops[i].Input.(*linInput).key]++
	}
	groups := make([][]porcupine.Operation, nkeys)
	for k, n := range counts {
		groups[k] = make([]porcupine.Operation, 0, n)
	}
	for i := range pops {
		k := pops[i].Input.(*linInput).key
		groups[k] = append(groups[k], pops[i])
	}
	return slices.DeleteFunc(groups, func(g []porcupine.Operation) bool { return len(g) == 0 })
}

// sliceGroups cuts pops into runs of one key each if its keys never
// decrease along it.
func sliceGroups(pops []porcupine.Operation) ([][]porcupine.Operation, bool) {
	var groups [][]porcupine.Operation
	start := 0
	for i := 1; i <= len(pops); i++ {
		if i < len(pops) {
			prev, k := pops[i-1].Input.(*linInput).key, pops[i].Input.(*linInput).key
			if k == prev {
				continue
			}
			if k < prev {
				return nil, false
			}
		}
		groups = append(groups, pops[start:i:i])
		start = i
	}
	return groups, true
}

// porcupineModel wraps the model for Porcupine, partitioned by key.
func (d *decoder) porcupineModel(nkeys int) porcupine.Model {
	m := d.m
	step := func(state, input, output any) (bool, any) {
		return m.step(d, state, input.(*linInput), output.(*linOutput))
	}
	if stop := d.interrupt; stop != nil {
		// Porcupine (v1.3.1) takes no context from its caller: its only
		// way out of a search is a timeout fixed at the start. A step that
		// fails sends the search back, and with every step failing it
		// unwinds in a pass over what it had placed and reports the key
		// illegal, which the caller then reads as interrupted.
		step = func(state, input, output any) (bool, any) {
			if stop.Load() {
				return false, state
			}
			return m.step(d, state, input.(*linInput), output.(*linOutput))
		}
	}
	return porcupine.Model{
		Partition: func(h []porcupine.Operation) [][]porcupine.Operation { return partition(h, nkeys) },
		Init:      func() any { return m.init(d) },
		Step:      step,
		Equal:     m.equal,
		Hash:      m.hash,
		DescribeOperation: func(input, output any) string {
			return d.describeOp(input.(*linInput), output.(*linOutput))
		},
		DescribeState: func(s any) string { return m.describeState(d, s) },
		DescribeOperationMetadata: func(info any) string {
			if op, ok := info.(*history.HistoryOp); ok && op != nil {
				s := fmt.Sprintf("id %d, process %d, %s", op.ID, op.Process, op.Status)
				if op.Line > 0 {
					s += ", line " + strconv.Itoa(op.Line)
				}
				return s
			}
			return ""
		},
	}
}

func checkLinearizable(m *linModel, ops []history.HistoryOp, opts Options, start time.Time) (*Report, error) {
	d := newDecoder(m)
	d.interrupt = opts.Interrupt
	if m.name == "kv" || m.name == "cas" {
		// A register's writes nearly all write values of their own: size
		// the interner for them at once rather than grow it (and collect
		// what growing leaves behind) while the decoded history is live.
		d.vals = jsonvalue.NewInternerSize(len(ops) / 2)
	}
	pops, keys, err := d.build(ops)
	if err != nil {
		return nil, err
	}
	model := d.porcupineModel(len(keys))
	r := &Report{Model: m.name, Class: ClassLinearizability, Operations: len(ops), Checked: len(pops)}
	limit := opts.Timeout
	if limit < 0 {
		limit = 0 // Porcupine's "no limit"
	}
	q := d.quickCheck(pops, len(keys))
	res := porcupine.Ok
	switch {
	case interrupted(d.interrupt):
	case len(q.illegal) > 0:
		res = porcupine.Illegal // no need to search the other keys
	case len(q.search) == 0:
	case opts.MaxSteps > 0:
		res = d.searchByKey(q.search, len(keys), opts.MaxSteps, limit, start)
	default:
		res = porcupine.CheckOperationsTimeout(model, q.search, limit)
	}
	if interrupted(d.interrupt) {
		return nil, ErrInterrupted
	}
	switch res {
	case porcupine.Ok:
		r.Verdict = Ok
		r.Summary = fmt.Sprintf("history of %s is linearizable (model %s)", textfmt.Plural(len(pops), "operation"), m.name)
		return r, nil
	case porcupine.Unknown:
		r.Verdict = Unknown
		r.Summary = fmt.Sprintf("gave up checking %d operations for linearizability", len(pops))
		return r, nil
	}
	r.Verdict = Illegal
	r.Summary = fmt.Sprintf("history of %s is not linearizable (model %s)", textfmt.Plural(len(pops), "operation"), m.name)
	var failing []failingKey
	if !opts.NoTimeline {
		failing, err = d.rerun(r, model, q, pops, len(keys), opts, limit, start)
		if err != nil {
			return nil, err
		}
	}
	d.nameFailing(r, q, failing, keys)
	return r, nil
}

// failingKey is a key that a verbose search found no linearization for:
// its operations and the longest partial linearizations it found.
type failingKey struct {
	key      int32
	group    []porcupine.Operation
	partials [][]int
}

// rerun searches again, verbosely, to learn which keys fail and to draw
// the timeline, within what is left of the time limit. It leaves out the
// keys the quick check proved linearizable, whose search may never end. The
// keys it proved illegal stay in, for the timeline, with a budget of steps
// so that drawing it does not take as long as the search it spared.
func (d *decoder) rerun(r *Report, model porcupine.Model, q *quickOutcome, pops []porcupine.Operation, nkeys int, opts Options, limit time.Duration, start time.Time) ([]failingKey, error) {
	var remaining time.Duration
	if limit > 0 {
		remaining = limit - time.Since(start)
		if remaining <= 0 {
			return nil, nil
		}
	}
	verbose := q.unproven(pops)
	for i := range verbose {
		verbose[i].Metadata = verbose[i].Input.(*linInput).op
	}
	var budget *stepBudget
	search := model
	steps := opts.MaxSteps
	if steps <= 0 && len(q.illegal) > 0 {
		steps = quickTimelineSteps
	}
	if len(q.illegal) > 0 && (remaining <= 0 || remaining > quickTimelineTime) {
		remaining = quickTimelineTime
	}
	if steps > 0 {
		budget = newStepBudget(nkeys, steps)
		search = d.budgetedModel(model, budget)
	}
	rerunStart := time.Now()
	res, info := porcupine.CheckOperationsVerbose(search, verbose, remaining)
	if interrupted(d.interrupt) {
		return nil, ErrInterrupted
	}
	timedOut := limit > 0 && time.Since(rerunStart) >= remaining
	if res == porcupine.Ok {
		// Cannot happen for a deterministic model; say so rather than guess.
		r.Summary += "; a verbose rerun found it linearizable, so the model is not deterministic"
		return nil, nil
	}
	r.timeline = func(w io.Writer) error { return porcupine.Visualize(model, info, w) }
	if res != porcupine.Illegal || timedOut {
		return nil, nil
	}
	groups := partition(verbose, nkeys)
	partials := info.PartialLinearizations()
	var failing []failingKey
	for p, g := range groups {
		k := g[0].Input.(*linInput).key
		if budget != nil && budget.out[k] {
			continue // its search stopped short: it proves nothing
		}
		longest := 0
		for _, l := range partials[p] {
			longest = max(longest, len(l))
		}
		if longest < len(g) {
			failing = append(failing, failingKey{key: k, group: g, partials: partials[p]})
		}
	}
	return failing, nil
}

// nameFailing names, in the report's summary, keys and example, the keys
// that the quick check proved illegal and those that the verbose search
// failed.
func (d *decoder) nameFailing(r *Report, q *quickOutcome, failing []failingKey, keys []string) {
	var ranks []int32
	for _, f := range q.illegal {
		ranks = append(ranks, f.key)
	}
	for _, f := range failing {
		if !q.isIllegal(f.key) {
			ranks = append(ranks, f.key)
		}
	}
	if len(ranks) == 0 {
		return
	}
	slices.Sort(ranks)
	quoted := make([]string, len(ranks))
	for i, k := range ranks {
		r.Keys = append(r.Keys, keys[k])
		quoted[i] = strconv.Quote(keys[k])
	}
	switch {
	case len(keys) == 1 && keys[0] == "":
		// A history without keys: nothing to name.
	case len(quoted) == 1:
		r.Summary += ": key " + quoted[0]
	default:
		r.Summary += ": keys " + strings.Join(quoted, ", ")
	}
	for _, f := range q.illegal {
		if f.key == ranks[0] {
			r.Anomalies = []Anomaly{explainQuick(f, len(ranks))}
			return
		}
	}
	for _, f := range failing {
		if f.key == ranks[0] {
			r.Anomalies = []Anomaly{d.explain(f.group, f.partials, len(ranks))}
			return
		}
	}
}

// stepBudget counts the model steps the search takes on each key. Each
// key's count is only touched by the goroutine Porcupine gives that key.
type stepBudget struct {
	max  int64
	used []int64 // by key rank
	out  []bool  // the key ran out of steps
}

func newStepBudget(nkeys int, max int64) *stepBudget {
	return &stepBudget{max: max, used: make([]int64, nkeys), out: make([]bool, nkeys)}
}

// budgetedModel wraps model so that a key past its budget fails every
// step: Porcupine then backtracks out of its search at once, and the
// caller, seeing the key out of steps, knows its "illegal" means "gave up".
func (d *decoder) budgetedModel(model porcupine.Model, b *stepBudget) porcupine.Model {
	step := model.Step
	model.Step = func(state, input, output any) (bool, any) {
		k := input.(*linInput).key
		if b.used[k] >= b.max {
			b.out[k] = true
			return false, state
		}
		b.used[k]++
		return step(state, input, output)
	}
	return model
}

// searchByKey checks each key's operations on its own, in key order, with
// at most maxSteps model steps per key and limit (if above 0) as a bound on
// the real time since start. Any key that is not linearizable makes the
// result Illegal; otherwise a key that ran out of steps or time makes it
// Unknown.
func (d *decoder) searchByKey(pops []porcupine.Operation, nkeys int, maxSteps int64, limit time.Duration, start time.Time) porcupine.CheckResult {
	b := newStepBudget(nkeys, maxSteps)
	model := d.budgetedModel(d.porcupineModel(nkeys), b)
	model.Partition = nil
	result := porcupine.Ok
	for _, group := range partition(pops, nkeys) {
		if interrupted(d.interrupt) {
			return porcupine.Unknown // the caller sees the flag too
		}
		var remaining time.Duration
		if limit > 0 {
			if remaining = limit - time.Since(start); remaining <= 0 {
				return porcupine.Unknown
			}
		}
		k := group[0].Input.(*linInput).key
		switch res := porcupine.CheckOperationsTimeout(model, group, remaining); {
		case b.out[k] || res == porcupine.Unknown:
			result = porcupine.Unknown
		case res == porcupine.Illegal:
			return porcupine.Illegal
		}
	}
	return result
}

// explain describes the first key whose operations have no linearization:
// how many of them the longest legal order covers, and the operations it
// could not place.
func (d *decoder) explain(group []porcupine.Operation, partials [][]int, count int) Anomaly {
	var longest []int
	for _, l := range partials {
		if len(l) > len(longest) {
			longest = l
		}
	}
	placed := make([]bool, len(group))
	for _, id := range longest {
		placed[id] = true
	}
	first := group[0].Input.(*linInput).op
	var b strings.Builder
	if first.Key != "" {
		fmt.Fprintf(&b, "key %q: ", first.Key)
	}
	fmt.Fprintf(&b, "no order of its %d operations is legal; the longest legal order places %d, not ", len(group), len(longest))
	const shown = 5
	var ids []int64
	n := 0
	for i, ok := range placed {
		if ok {
			continue
		}
		in := group[i].Input.(*linInput)
		if n < shown {
			if n > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s (id %d, process %d)", d.describeOp(in, group[i].Output.(*linOutput)), in.op.ID, in.op.Process)
			ids = append(ids, in.op.ID)
		}
		n++
	}
	if n > shown {
		fmt.Fprintf(&b, " and %d more", n-shown)
	}
	b.WriteString("; see the timeline")
	return Anomaly{Kind: "nonlinearizable", Count: count, Example: b.String(), Ops: ids}
}
