package check

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/anishathalye/porcupine"
	"github.com/sf-dst/sf/lib/check/jsonvalue"
	"github.com/sf-dst/sf/lib/history"
	"github.com/sf-dst/sf/lib/history/jsontext"
)

// The models decode every operation once, before Porcupine runs, into a
// linInput and a linOutput with values interned to small integers, so that
// Step compares integers and never parses JSON.

type opKind uint8

const (
	opPut opKind = iota + 1
	opGet
	opCas
	opAppend
	opRead
	opEnqueue
	opDequeue
	opAdd
)

var opKindNames = [...]string{opPut: "put", opGet: "get", opCas: "cas", opAppend: "append", opRead: "read", opEnqueue: "enqueue", opDequeue: "dequeue", opAdd: "add"}

// linInput is the Porcupine input of an operation.
type linInput struct {
	key  int32 // the key's rank among the history's keys
	kind opKind
	a, b int32 // interned values: put, append, enqueue and add values; cas old and new
	n    int64 // counter increments
	op   *history.HistoryOp
}

// linOutput is the Porcupine output of an operation.
type linOutput struct {
	unknown bool    // the outcome is unknown: any output is allowed
	v       int32   // get and dequeue results
	swapped bool    // cas result
	n       int64   // counter reads
	list    []int32 // append reads (in order) and set reads (sorted, unique)
}

// linModel is one of the linearizability models.
type linModel struct {
	name string
	// fs maps each accepted operation name to its kind. Jepsen's register
	// names (read, write) are accepted for kv and cas.
	fs map[string]opKind
	// init returns the state of an empty key.
	init func(d *decoder) any
	// step applies an operation; see porcupine.Model.Step.
	step  func(d *decoder, state any, in *linInput, out *linOutput) (bool, any)
	equal func(a, b any) bool
	hash  func(s any) uint64
	// describeState formats a state for the timeline.
	describeState func(d *decoder, s any) string
	// quick, when set, decides a key's operations without the search when
	// it can (see quick.go).
	quick func(d *decoder, g []porcupine.Operation) quickResult
}

func (m *linModel) opNames() string {
	names := make([]string, 0, len(m.fs))
	for f := range m.fs {
		names = append(names, f)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

var linModels = map[string]*linModel{
	"kv":      kvModel("kv", map[string]opKind{"put": opPut, "write": opPut, "get": opGet, "read": opGet}),
	"cas":     kvModel("cas", map[string]opKind{"put": opPut, "write": opPut, "get": opGet, "read": opGet, "cas": opCas}),
	"append":  appendModel(),
	"queue":   queueModel(),
	"set":     setModel(),
	"counter": counterModel(),
}

// decoder turns a history's operations into Porcupine operations for one model.
type decoder struct {
	m      *linModel
	vals   *jsonvalue.Interner
	ids    []int32 // ids[v] == v, for every interned value (see boxAll)
	keys   *jsonvalue.Interner
	vr     jsonvalue.Reader
	sorted []int32 // scratch for set reads
	// memos holds each key's last list read (append and set models).
	memos map[string]*jsonvalue.ListMemo
	// sums holds, per key of a counter history, the sum of its positive
	// adds and the sum of its negative adds so far (see checkRange).
	sums map[string]*[2]int64
	// interrupt, when set, makes every model step fail (see porcupineModel).
	interrupt *atomic.Bool
}

func newDecoder(m *linModel) *decoder {
	return &decoder{m: m, vals: jsonvalue.NewInterner(), keys: jsonvalue.NewInterner()}
}

// boxAll prepares box for every interned value, after decoding and before
// Porcupine runs: Porcupine steps partitions in parallel goroutines, so box
// must only read. A kv state is a pointer to its value's slot in ids, which
// an interface holds without allocating (an int32 in an interface is
// allocated on its own), and one value has one pointer, so states compare
// equal exactly when their values do.
func (d *decoder) boxAll() {
	d.ids = make([]int32, len(d.vals.Names()))
	for i := range d.ids {
		d.ids[i] = int32(i)
	}
}

func (d *decoder) box(id int32) any { return &d.ids[id] }

// checkRange refuses a counter history whose adds could take a key's value
// out of int64. Every state the search reaches is a sum of some of the
// key's adds, so it lies between the sum of the negative adds and the sum
// of the positive ones; if neither sum overflows, no state does, and the
// model never wraps.
func (d *decoder) checkRange(op *history.HistoryOp, in *linInput) error {
	if d.m.name != "counter" || in.kind != opAdd || in.n == 0 {
		return nil
	}
	if d.sums == nil {
		d.sums = map[string]*[2]int64{}
	}
	s := d.sums[op.Key]
	if s == nil {
		s = new([2]int64)
		d.sums[op.Key] = s
	}
	n := in.n
	switch {
	case n > 0 && s[0] > math.MaxInt64-n:
		return d.errorf(op, "operation %q (id %d) adds %d: the adds to key %q could sum to more than %d, which the counter model does not support", op.F, op.ID, n, op.Key, int64(math.MaxInt64))
	case n < 0 && s[1] < math.MinInt64-n:
		return d.errorf(op, "operation %q (id %d) adds %d: the adds to key %q could sum to less than %d, which the counter model does not support", op.F, op.ID, n, op.Key, int64(math.MinInt64))
	case n > 0:
		s[0] += n
	default:
		s[1] += n
	}
	return nil
}

func (d *decoder) errorf(op *history.HistoryOp, format string, args ...any) error {
	return &InputError{Model: d.m.name, Line: op.Line, ID: op.ID, Msg: fmt.Sprintf(format, args...)}
}

func (d *decoder) valueError(op *history.HistoryOp, what string, raw []byte, want string, err error) error {
	return d.errorf(op, "operation %q (id %d) has %s %s, want %s (%v)", op.F, op.ID, what, jsonvalue.Describe(raw), want, err)
}

func (d *decoder) str(op *history.HistoryOp, what string, raw []byte, nullOK bool) (int32, error) {
	b, err := d.vr.Str(raw, nullOK)
	if err != nil {
		want := "a string"
		if nullOK {
			want = "a string or null"
		}
		return 0, d.valueError(op, what, raw, want, err)
	}
	return d.vals.ID(b), nil
}

// decode decodes one operation; drop is true for operations the check leaves
// out (reads of unknown outcome).
func (d *decoder) decode(op *history.HistoryOp, in *linInput, out *linOutput) (drop bool, err error) {
	kind, ok := d.m.fs[op.F]
	if !ok {
		return false, d.errorf(op, "operation %q is not one of %s", op.F, d.m.opNames())
	}
	in.kind, in.op = kind, op
	status := op.Status
	out.unknown = status != history.StatusOK
	switch kind {
	case opPut, opAppend, opEnqueue:
		in.a, err = d.str(op, "value", op.Value, false)
	case opAdd:
		if d.m.name == "counter" {
			if in.n, err = d.vr.Integer(op.Value); err != nil {
				err = d.valueError(op, "value", op.Value, "an integer", err)
			}
		} else {
			in.a, err = d.str(op, "value", op.Value, false)
		}
	case opCas:
		pair, n, perr := d.casPair(op.Value)
		if perr == nil && n != 2 {
			perr = fmt.Errorf("found %d elements", n)
		}
		if perr != nil {
			return false, d.valueError(op, "value", op.Value, "[old, new]", perr)
		}
		in.a, in.b = pair[0], pair[1]
		if status == history.StatusOK {
			out.swapped, err = d.casOutput(op)
		}
	case opGet, opDequeue:
		if status == history.StatusOK {
			out.v, err = d.str(op, "output", op.Output, true)
		}
	case opRead:
		if status != history.StatusOK {
			break
		}
		switch d.m.name {
		case "counter":
			if out.n, err = d.vr.Integer(op.Output); err != nil {
				err = d.valueError(op, "output", op.Output, "an integer", err)
			}
		default:
			if d.memos == nil {
				d.memos = map[string]*jsonvalue.ListMemo{}
			}
			ids, lerr := d.vr.ReadList(d.memos, op.Key, op.Output, d.vals)
			if lerr != nil {
				err = d.valueError(op, "output", op.Output, "a list of strings", lerr)
				break
			}
			if d.m.name == "set" {
				d.sorted = append(d.sorted[:0], ids...)
				slices.Sort(d.sorted)
				ids = slices.Compact(d.sorted)
			}
			out.list = slices.Clone(ids)
		}
	}
	if err != nil {
		return false, err
	}
	// Unknown pure reads say nothing; failed operations did not happen.
	drop = status == history.StatusFailed || ((kind == opGet || kind == opRead) && status != history.StatusOK)
	return drop, nil
}

// casPair decodes [old, new] where either may be null (absent), and
// returns the first two elements and how many there are.
func (d *decoder) casPair(raw []byte) (pair [2]int32, n int, err error) {
	if a, b, ok := plainPair(raw); ok {
		return [2]int32{d.vals.ID(a), d.vals.ID(b)}, 2, nil
	}
	return d.casPairScan(raw)
}

// casPairScan is casPair without the quick path.
func (d *decoder) casPairScan(raw []byte) (pair [2]int32, n int, err error) {
	s := &d.vr.Scanner
	s.Reset(raw)
	if err := s.Expect('['); err != nil {
		return pair, 0, err
	}
	for ; !s.Next(']'); n++ {
		if n > 0 {
			if err := s.Expect(','); err != nil {
				return pair, 0, err
			}
		}
		b, _, err := d.vr.Scalar()
		if err != nil {
			return pair, 0, err
		}
		if n < 2 {
			pair[n] = d.vals.ID(b)
		}
	}
	if !s.AtEnd() {
		return pair, 0, fmt.Errorf("found trailing text")
	}
	return pair, n, nil
}

// plainPair is casPair's quick path for what nearly every pair is: two
// plain strings (no escapes, no control characters) or nulls, in brackets,
// nothing else. A null is absent, which the interner numbers as "".
// Anything else goes to the scanner.
func plainPair(raw []byte) (a, b []byte, ok bool) {
	if len(raw) < 2 || raw[0] != '[' || raw[len(raw)-1] != ']' {
		return nil, nil, false
	}
	a, rest, ok := plainElem(raw[1 : len(raw)-1])
	if !ok || len(rest) == 0 || rest[0] != ',' {
		return nil, nil, false
	}
	b, rest, ok = plainElem(rest[1:])
	if !ok || len(rest) != 0 {
		return nil, nil, false
	}
	return a, b, true
}

// plainElem takes null or a plain string from the start of raw.
func plainElem(raw []byte) (elem, rest []byte, ok bool) {
	if len(raw) >= 4 && string(raw[:4]) == "null" {
		return nil, raw[4:], true
	}
	if len(raw) < 2 || raw[0] != '"' {
		return nil, nil, false
	}
	for i := 1; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '"':
			return raw[1:i], raw[i+1:], true
		case c < 0x20 || c == '\\':
			return nil, nil, false
		}
	}
	return nil, nil, false
}

// casOutput decodes a cas result: true or false, or the [old, new] pair that
// Jepsen echoes on a successful cas.
func (d *decoder) casOutput(op *history.HistoryOp) (bool, error) {
	s := &d.vr.Scanner
	s.Reset(op.Output)
	kind := s.Peek()
	switch kind {
	case jsontext.Bool:
		if b, err := s.Bool(); err == nil && s.AtEnd() {
			return b, nil
		}
	case jsontext.Array:
		if _, err := s.Skip(); err == nil && s.AtEnd() {
			return true, nil
		}
	}
	return false, d.valueError(op, "output", op.Output, "true or false", fmt.Errorf("found %s", kind))
}

// describeOp formats an operation for the timeline, such as
// `x: get → "7"` or `q: dequeue → ? (unknown)`.
func (d *decoder) describeOp(in *linInput, out *linOutput) string {
	var b strings.Builder
	if in.op.Key != "" {
		b.WriteString(in.op.Key)
		b.WriteString(": ")
	}
	b.WriteString(opKindNames[in.kind])
	switch in.kind {
	case opPut, opAppend, opEnqueue:
		b.WriteString(" " + d.vals.Quote(in.a))
	case opAdd:
		if d.m.name == "counter" {
			b.WriteString(" " + strconv.FormatInt(in.n, 10))
		} else {
			b.WriteString(" " + d.vals.Quote(in.a))
		}
	case opCas:
		b.WriteString(" " + d.vals.Quote(in.a) + " → " + d.vals.Quote(in.b))
	}
	if out.unknown {
		if in.op.Status == history.StatusPending {
			b.WriteString(" (never returned)")
		} else {
			b.WriteString(" (unknown)")
		}
		return b.String()
	}
	switch in.kind {
	case opGet, opDequeue:
		b.WriteString(" → " + d.vals.Quote(out.v))
	case opCas:
		b.WriteString(" → " + strconv.FormatBool(out.swapped))
	case opRead:
		if d.m.name == "counter" {
			b.WriteString(" → " + strconv.FormatInt(out.n, 10))
		} else {
			b.WriteString(" → " + d.describeList(out.list))
		}
	}
	return b.String()
}

func (d *decoder) describeList(ids []int32) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(d.vals.Quote(id))
	}
	b.WriteByte(']')
	return b.String()
}

// kvModel is a register per key, with compare-and-set for cas. The state is
// the interned value, 0 for absent.
func kvModel(name string, fs map[string]opKind) *linModel {
	return &linModel{
		name: name,
		fs:   fs,
		init: func(d *decoder) any { return d.box(0) },
		step: func(d *decoder, state any, in *linInput, out *linOutput) (bool, any) {
			s := *state.(*int32)
			switch in.kind {
			case opPut:
				return true, d.box(in.a)
			case opGet:
				return out.v == s, state
			case opCas:
				switch {
				case out.unknown:
					if s == in.a {
						return true, d.box(in.b)
					}
					return true, state
				case out.swapped:
					return s == in.a, d.box(in.b)
				default:
					return s != in.a, state
				}
			}
			return false, state
		},
		equal: func(a, b any) bool { return *a.(*int32) == *b.(*int32) },
		hash:  func(s any) uint64 { return mix64(uint64(*s.(*int32))) },
		describeState: func(d *decoder, s any) string {
			if *s.(*int32) == 0 {
				return "absent"
			}
			return d.vals.Quote(*s.(*int32))
		},
	}
}

// listNode is an immutable append-only list: each state shares its prefix
// with the state it was appended to.
type listNode struct {
	prev *listNode
	v    int32
	n    int32
	h    uint64
}

func (l *listNode) len() int32 {
	if l == nil {
		return 0
	}
	return l.n
}

func (l *listNode) hash() uint64 {
	if l == nil {
		return 0
	}
	return l.h
}

func (l *listNode) equalSlice(s []int32) bool {
	if int(l.len()) != len(s) {
		return false
	}
	for i := len(s) - 1; i >= 0; i-- {
		if l.v != s[i] {
			return false
		}
		l = l.prev
	}
	return true
}

func (l *listNode) slice() []int32 {
	s := make([]int32, l.len())
	for i := len(s) - 1; i >= 0; i-- {
		s[i] = l.v
		l = l.prev
	}
	return s
}

func appendModel() *linModel {
	return &linModel{
		name:  "append",
		fs:    map[string]opKind{"append": opAppend, "read": opRead},
		quick: quickAppend,
		init:  func(*decoder) any { return (*listNode)(nil) },
		step: func(d *decoder, state any, in *linInput, out *linOutput) (bool, any) {
			l := state.(*listNode)
			switch in.kind {
			case opAppend:
				return true, &listNode{prev: l, v: in.a, n: l.len() + 1, h: (l.hash()+uint64(in.a)+1)*0x100000001b3 ^ uint64(l.len())}
			case opRead:
				return l.equalSlice(out.list), state
			}
			return false, state
		},
		equal: func(a, b any) bool {
			x, y := a.(*listNode), b.(*listNode)
			for x != y {
				if x == nil || y == nil || x.n != y.n || x.h != y.h || x.v != y.v {
					return false
				}
				x, y = x.prev, y.prev
			}
			return true
		},
		hash:          func(s any) uint64 { return s.(*listNode).hash() },
		describeState: func(d *decoder, s any) string { return d.describeList(s.(*listNode).slice()) },
	}
}

// seqState is an immutable sequence of values: a queue in FIFO order or a set
// sorted by id. Steps copy it; histories small enough to check
// for linearizability keep it short.
type seqState struct {
	items []int32
}

var emptySeq = &seqState{}

func equalSeq(a, b any) bool {
	x, y := a.(*seqState), b.(*seqState)
	return x == y || slices.Equal(x.items, y.items)
}

func hashSeq(s any) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range s.(*seqState).items {
		h = (h ^ uint64(v)) * 1099511628211
	}
	return h
}

func queueModel() *linModel {
	return &linModel{
		name: "queue",
		fs:   map[string]opKind{"enqueue": opEnqueue, "dequeue": opDequeue},
		init: func(*decoder) any { return emptySeq },
		step: func(d *decoder, state any, in *linInput, out *linOutput) (bool, any) {
			q := state.(*seqState)
			switch in.kind {
			case opEnqueue:
				items := make([]int32, len(q.items)+1)
				copy(items, q.items)
				items[len(q.items)] = in.a
				return true, &seqState{items}
			case opDequeue:
				if out.unknown {
					// It may have taken the head; linearized at the end of
					// the history, it may also have taken nothing.
					if len(q.items) == 0 {
						return true, state
					}
					return true, &seqState{q.items[1:]}
				}
				if len(q.items) == 0 {
					return out.v == 0, state
				}
				return out.v == q.items[0], &seqState{q.items[1:]}
			}
			return false, state
		},
		equal:         equalSeq,
		hash:          hashSeq,
		describeState: func(d *decoder, s any) string { return d.describeList(s.(*seqState).items) },
	}
}

func setModel() *linModel {
	return &linModel{
		name:  "set",
		fs:    map[string]opKind{"add": opAdd, "read": opRead},
		quick: quickSet,
		init:  func(*decoder) any { return emptySeq },
		step: func(d *decoder, state any, in *linInput, out *linOutput) (bool, any) {
			s := state.(*seqState)
			switch in.kind {
			case opAdd:
				i, found := slices.BinarySearch(s.items, in.a)
				if found {
					return true, state
				}
				items := make([]int32, len(s.items)+1)
				copy(items, s.items[:i])
				items[i] = in.a
				copy(items[i+1:], s.items[i:])
				return true, &seqState{items}
			case opRead:
				return slices.Equal(s.items, out.list), state
			}
			return false, state
		},
		equal: equalSeq,
		hash:  hashSeq,
		describeState: func(d *decoder, s any) string {
			items := s.(*seqState).items
			names := make([]string, len(items))
			for i, id := range items {
				names[i] = d.vals.Quote(id)
			}
			slices.Sort(names)
			return "{" + strings.Join(names, " ") + "}"
		},
	}
}

func counterModel() *linModel {
	return &linModel{
		name:  "counter",
		fs:    map[string]opKind{"add": opAdd, "read": opRead},
		quick: quickCounter,
		init:  func(*decoder) any { return int64(0) },
		step: func(d *decoder, state any, in *linInput, out *linOutput) (bool, any) {
			n := state.(int64)
			switch in.kind {
			case opAdd:
				return true, n + in.n
			case opRead:
				return out.n == n, state
			}
			return false, state
		},
		equal:         func(a, b any) bool { return a.(int64) == b.(int64) },
		hash:          func(s any) uint64 { return mix64(uint64(s.(int64))) },
		describeState: func(d *decoder, s any) string { return strconv.FormatInt(s.(int64), 10) },
	}
}

func mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}
