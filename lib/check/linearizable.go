package check

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/sf-dst/sf/lib/history"
)

// build decodes the history into Porcupine operations, dropping failed
// operations and reads of unknown outcome, with unknown and pending
// operations returning after the end of the history. It also returns the
// history's keys, sorted; linInput.key is an index into them.
func (d *decoder) build(ops []history.HistoryOp) ([]porcupine.Operation, []string, error) {
	calls, rets, end := history.Order(ops)
	clients := history.ClientIDs(ops)
	ins := make([]linInput, len(ops))
	outs := make([]linOutput, len(ops))
	pops := make([]porcupine.Operation, 0, len(ops))
	keyOf := make([]int32, 0, len(ops))
	for i := range ops {
		op := &ops[i]
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
		ret := rets[i]
		if op.Status != history.StatusOK {
			ret = end
		}
		keyOf = append(keyOf, d.keys.id([]byte(op.Key)))
		pops = append(pops, porcupine.Operation{
			ClientId: clients[op.Process],
			Input:    &ins[i],
			Call:     calls[i],
			Output:   &outs[i],
			Return:   ret,
		})
	}
	// Number the keys in sorted order, so partitions (and the timeline) come
	// in the same order every time.
	names := d.keys.names
	order := make([]int32, len(names))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(names[a], names[b]) })
	rank := make([]int32, len(names))
	for r, id := range order {
		rank[id] = int32(r)
	}
	for i := range pops {
		pops[i].Input.(*linInput).key = rank[keyOf[i]]
	}
	d.boxAll()
	sorted := make([]string, len(order))
	for r, id := range order {
		sorted[r] = names[id]
	}
	return pops, sorted, nil
}

// partition groups operations by key, in key order, keeping each group in
// history order. Keys with no operations get no group.
func partition(pops []porcupine.Operation, nkeys int) [][]porcupine.Operation {
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

// porcupineModel wraps the model for Porcupine, partitioned by key.
func (d *decoder) porcupineModel(nkeys int) porcupine.Model {
	m := d.m
	return porcupine.Model{
		Partition: func(h []porcupine.Operation) [][]porcupine.Operation { return partition(h, nkeys) },
		Init:      func() any { return m.init(d) },
		Step: func(state, input, output any) (bool, any) {
			return m.step(d, state, input.(*linInput), output.(*linOutput))
		},
		Equal: m.equal,
		Hash:  m.hash,
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
	switch porcupine.CheckOperationsTimeout(model, pops, limit) {
	case porcupine.Ok:
		r.Verdict = Ok
		r.Summary = fmt.Sprintf("history of %s is linearizable (model %s)", plural(len(pops), "operation", "operations"), m.name)
		return r, nil
	case porcupine.Unknown:
		r.Verdict = Unknown
		r.Summary = fmt.Sprintf("gave up checking %d operations for linearizability", len(pops))
		return r, nil
	}
	r.Verdict = Illegal
	r.Summary = fmt.Sprintf("history of %s is not linearizable (model %s)", plural(len(pops), "operation", "operations"), m.name)
	if opts.NoTimeline {
		return r, nil
	}

	// Run again, verbosely, to learn which keys fail and to draw the
	// timeline, within what is left of the time limit.
	var remaining time.Duration
	if limit > 0 {
		remaining = limit - time.Since(start)
		if remaining <= 0 {
			return r, nil
		}
	}
	verbose := slices.Clone(pops)
	for i := range verbose {
		verbose[i].Metadata = verbose[i].Input.(*linInput).op
	}
	rerunStart := time.Now()
	res, info := porcupine.CheckOperationsVerbose(model, verbose, remaining)
	timedOut := limit > 0 && time.Since(rerunStart) >= remaining
	if res == porcupine.Ok {
		// Cannot happen for a deterministic model; say so rather than guess.
		r.Summary += "; a verbose rerun found it linearizable, so the model is not deterministic"
		return r, nil
	}
	r.timeline = func(w io.Writer) error { return porcupine.Visualize(model, info, w) }
	if res != porcupine.Illegal || timedOut {
		return r, nil
	}
	groups := partition(verbose, len(keys))
	partials := info.PartialLinearizations()
	var failing []int
	for p, g := range groups {
		longest := 0
		for _, l := range partials[p] {
			longest = max(longest, len(l))
		}
		if longest < len(g) {
			failing = append(failing, p)
		}
	}
	if len(failing) == 0 {
		return r, nil
	}
	quoted := make([]string, len(failing))
	for i, p := range failing {
		key := groups[p][0].Input.(*linInput).op.Key
		r.Keys = append(r.Keys, key)
		quoted[i] = strconv.Quote(key)
	}
	switch {
	case len(keys) == 1 && keys[0] == "":
		// A history without keys: nothing to name.
	case len(quoted) == 1:
		r.Summary += ": key " + quoted[0]
	default:
		r.Summary += ": keys " + strings.Join(quoted, ", ")
	}
	p := failing[0]
	r.Anomalies = []Anomaly{d.explain(groups[p], partials[p], len(failing))}
	return r, nil
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
