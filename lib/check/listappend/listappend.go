// Package listappend checks a history of list-append transactions for
// serializability, the way Elle does, and reports each kind of anomaly it
// finds with one explained example. Its Check knows nothing of verdicts,
// reports or the other models: lib/check calls it for the model
// list-append and makes its Report from the anomalies.
//
// The checker is polynomial, and tuned: a million transactions take a few
// seconds (docs/checkers.md has the figures, RATIONALE.md how they came).
package listappend

import (
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/sf-dst/sf/lib/check/jsonvalue"
	"github.com/sf-dst/sf/lib/history"
	"github.com/sf-dst/sf/lib/history/jsontext"
)

// Model is the name of the model this package checks, as histories and
// errors give it.
const Model = "list-append"

// Anomaly is one kind of anomaly found in a history.
type Anomaly struct {
	// Kind is one of G0, G1a, G1b, G1c, G-single, G2, internal,
	// incompatible-order, duplicate-elements, duplicate-append,
	// garbage-read.
	Kind string
	// Count is how many instances were found: cycles are counted once per
	// strongly connected component, other anomalies once per read, key or
	// transaction they concern.
	Count int
	// Example explains one instance, for a cycle in the form
	// "T4 -rw z-> T0 -wr z-> T6 -ww y-> T4; T4 (client 4, ok) [...]; ...".
	Example string
	// Ops are the ids of the operations in the example.
	Ops []int64
}

// InputError is a history that is not one of list-append transactions: an
// operation other than txn, or a value that is not a list of [f, key,
// value] micro-ops. Line is the input line of the operation's invocation,
// when known.
type InputError struct {
	Line int
	ID   int64
	Msg  string
}

// Error returns the message in the form lib/check gives every model's,
// "history (model list-append): ...".
func (e *InputError) Error() string { return "history (model " + Model + "): " + e.Msg }

// Checking list-append transactions for serializability:
//
//  1. Parse every transaction once into flat arrays: micro-ops, read elements
//     and values all become int32 ids. A value is known by (key, string).
//  2. Per key, the version order is the longest read by a committed (ok)
//     transaction; every other read must be a prefix of it.
//  3. Check each read (duplicate elements, garbage, aborted and intermediate
//     reads, incompatible order) and each transaction's internal consistency.
//  4. Infer ww, wr and rw edges between transactions from the version orders
//     and each transaction's external reads (its first read of a key, before
//     it appends to that key).
//  5. Find strongly connected components with Tarjan's algorithm; inside each,
//     search breadth-first for one short cycle of each kind.
//
// Transactions that failed add no edges; their appends only show up as G1a.
// Transactions with an unknown outcome (info) or that never returned take
// part with their appends, which are used once someone reads them; their
// reads are ignored.

// Anomaly kinds, in the order of the spec's table.
var anomalyKinds = []string{
	"G0", "G1a", "G1b", "G1c", "G-single", "G2", "internal",
	"incompatible-order", "duplicate-elements", "duplicate-append", "garbage-read",
}

const (
	kG0 = iota
	kG1a
	kG1b
	kG1c
	kGSingle
	kG2
	kInternal
	kIncompatibleOrder
	kDuplicateElements
	kDuplicateAppend
	kGarbageRead
	kindCount
)

// searchBudgetMin is the least number of edges the cycle searches of one
// kind may examine in one history; the budget grows with the graph (see
// searchBudget). Reaching it only means a cycle of that kind may go
// unreported; every strongly connected component still yields one cycle.
const searchBudgetMin = 1 << 22

// txnShownMax is the most micro-ops and read elements an example shows of
// one transaction before eliding the rest.
const txnShownMax = 16

const unknownRead = -1

type laMop struct {
	key int32
	// For an append, the value's id; for a read whose elements are its
	// own (own), where they start: they are elems[val : val+n]. Other reads
	// are the key's seq[:n].
	val  int32
	n    int32 // read: length, or unknownRead
	read bool
	ext  bool // the transaction's first access to key, a read
	own  bool
}

// laVal is one value appended to or read from a key. Its text is in the
// checker's arena (see valText), so that the million of them in a big
// history hold no pointer for the collector to follow and cost no
// allocation each, and the 16 bytes that the checks look up in no
// particular order are all a record holds.
type laVal struct {
	key    int32
	writer int32 // the appending transaction, or -1
	mop    int32 // the append micro-op
	next   int32 // the writer's next append to the same key, or -1
}

// laTxn is a transaction's micro-ops, mops[mop0:mop1]. It holds no pointer
// to its operation (that is ops[t]), so that the collector has a million
// fewer pointers to follow while a big history is checked.
type laTxn struct {
	mop0, mop1 int32
}

// keyIndexMin is the number of values a key has before it gets a map from
// value to id; below it, a scan of the values' fingerprints is faster and
// allocates less.
const keyIndexMin = 64

type laKey struct {
	name string
	// vals is fingerprint<<32 | id of each of the key's values, in order
	// of appearance, until the key has an index: one slice to grow and
	// scan rather than two.
	vals []uint64
	// seen has bit fp%128 set for the fingerprint fp of each value in
	// vals: an appended value, nearly always new, mostly finds its bit
	// clear and skips the scan.
	seen    [2]uint64
	index   map[string]int32 // value -> id, once the key has keyIndexMin values
	longest int32            // the mop with the longest committed read, or -1
	bad     bool             // no version order can be trusted for this key
	// last is the key's last read list, whose text the next read mostly
	// repeats (see jsonvalue.ListMemo); its IDs are a view of the elements.
	last jsonvalue.ListMemo
	// seq is the list the key's reads agree on so far: every read that is
	// a prefix of it, or extends it, is stored as seq[:n] rather than in a
	// copy of its own, which would repeat most of the key's history for
	// every read. lastInSeq says whether last's ids are seq's.
	seq       []int32
	lastInSeq bool
}

// anomalyAcc collects the instances of one kind of anomaly. Examples are
// rendered only at the end, once every transaction is parsed.
type anomalyAcc struct {
	count  int
	size   int // the example's cycle length, to keep the shortest cycle
	txns   []int32
	render func() string
}

type listAppend struct {
	ops   []history.HistoryOp
	txns  []laTxn
	mops  []laMop
	elems []int32
	keys  []laKey
	keyID map[string]int32

	vals []laVal // per value id
	// text holds the values' texts, one after the other in the order of
	// their ids; value v's ends at textEnd[v].
	text    []byte
	textEnd []int64
	// status is each transaction's, packed: the checks ask it of writers in
	// no particular order, and a HistoryOp is too big to stay in cache.
	status []history.Status

	// keyCache holds recently seen key names by a hash of their text, in
	// front of keyID: a transaction names a few hot keys over and over.
	keyCache [keyCacheSize]int32

	vr      jsonvalue.Reader
	found   [kindCount]anomalyAcc
	keySeen []int32 // per key: transaction index + 1 of the last visit
	keyLast []int32 // per key: the last value the visiting transaction appended

	// readSpans holds where the value of each read starts and ends in the
	// result parseMops decoded last, two offsets a read.
	readSpans []int

	extReads int // how many reads checkInternal marked external

	stop stopper // polled as the passes and searches go (see interrupt.go)
}

// Check checks the transactions ops for serializability and returns every
// kind of anomaly found, in the order of the spec's table: none when the
// history is serializable. Its error is an *InputError for a history that
// is not one of list-append transactions, or ErrInterrupted once interrupt,
// when not nil, became true (see interrupt.go): there is then no verdict.
func Check(ops []history.HistoryOp, interrupt *atomic.Bool) ([]Anomaly, error) {
	// Size the arrays for a first sample of the transactions from their
	// raw JSON: an invoked micro-op takes about 16 bytes ( ["r","k1",null] ).
	// Reads mostly share their key's seq and need no room in elems. Once
	// the sample is parsed, the arrays are sized for the whole history at
	// the sample's rate per transaction (see reserve): a guess from the
	// bytes alone was 60% too large for micro-ops and values, and a fifth too small for
	// the values' text, and every byte of a big array is memory the kernel
	// or the runtime clears. Appending still grows them past a short guess.
	sample := min(len(ops), max(sampleTxnsMin, len(ops)/32))
	invoked := 0
	for i := range sample {
		invoked += len(ops[i].Value)
	}
	c := &listAppend{
		ops:     ops,
		txns:    make([]laTxn, len(ops)),
		mops:    make([]laMop, 0, invoked/16+16),
		elems:   make([]int32, 0, 1024),
		vals:    make([]laVal, 0, invoked/32+16),
		text:    make([]byte, 0, invoked/8+64), // four bytes a value; appending grows it
		textEnd: make([]int64, 0, invoked/32+16),
		keyID:   map[string]int32{},
		status:  make([]history.Status, len(ops)),
		stop:    stopper{flag: interrupt},
	}
	for i := range c.keyCache {
		c.keyCache[i] = -1
	}
	for i := range ops {
		c.status[i] = ops[i].Status
	}
	for i := range ops {
		if uint(i)%itemsPerPoll == 0 && c.stop.poll() {
			return nil, ErrInterrupted
		}
		if i == sample {
			c.reserve(sample)
		}
		if err := c.parse(int32(i)); err != nil {
			return nil, err
		}
	}
	// Each pass returns early once the stopper stops.
	c.checkReads()
	c.checkInternal()
	if g := c.edges(); g != nil {
		c.findCycles(g)
	}
	if c.stop.stopped {
		return nil, ErrInterrupted
	}

	var found []Anomaly
	for k := range kindCount {
		a := &c.found[k]
		if a.count == 0 {
			continue
		}
		ids := make([]int64, len(a.txns))
		for i, t := range a.txns {
			ids[i] = c.id(t)
		}
		found = append(found, Anomaly{Kind: anomalyKinds[k], Count: a.count, Example: a.render(), Ops: ids})
	}
	return found, nil
}

// sampleTxnsMin is the fewest transactions Check parses before
// it sizes its arrays for the rest; histories up to 32 times as long are
// sampled by their first 32nd.
const sampleTxnsMin = 4096

// reserve makes room in the arrays that grow with the history for all of
// its transactions, at the rate per transaction of the first done of them,
// plus a sixteenth (and a quarter for text).
func (c *listAppend) reserve(done int) {
	scale := float64(len(c.ops)) / float64(done) * 17 / 16
	c.mops = reserve(c.mops, scale)
	c.vals = reserve(c.vals, scale)
	// Values are often counters or ids whose texts get longer as the
	// history goes on: a quarter more room for text than the sample's rate.
	c.text = reserve(c.text, scale*5/4)
	c.textEnd = reserve(c.textEnd, scale)
	c.keys = reserve(c.keys, scale)
	c.keySeen = reserve(c.keySeen, scale)
	c.keyLast = reserve(c.keyLast, scale)
}

// reserve returns s with room for scale times its length, if it has not.
func reserve[S ~[]E, E any](s S, scale float64) S {
	if want := int(float64(len(s))*scale) + 16; want > cap(s) {
		return slices.Grow(s, want-len(s))
	}
	return s
}

func (c *listAppend) errorf(op *history.HistoryOp, format string, args ...any) error {
	return &InputError{Line: op.Line, ID: op.ID, Msg: fmt.Sprintf(format, args...)}
}

const keyCacheSize = 256

func (c *listAppend) key(b []byte) int32 {
	h := len(b)
	if len(b) > 0 {
		h = h*31 + int(b[0])*7 + int(b[len(b)-1])
		if len(b) > 2 {
			h = h*31 + int(b[len(b)-2])
		}
	}
	slot := &c.keyCache[h%keyCacheSize]
	if k := *slot; k >= 0 && c.keys[k].name == string(b) {
		return k
	}
	if k, ok := c.keyID[string(b)]; ok {
		*slot = k
		return k
	}
	k := int32(len(c.keys))
	name := string(b)
	c.keyID[name] = k
	c.keys = append(c.keys, laKey{name: name, longest: -1})
	*slot = k
	c.keySeen = append(c.keySeen, 0)
	c.keyLast = append(c.keyLast, -1)
	return k
}

func (c *listAppend) value(k int32, b []byte) int32 {
	kk := &c.keys[k]
	var fp uint32
	if kk.index != nil {
		if v, ok := kk.index[string(b)]; ok {
			return v
		}
	} else {
		// The fingerprints sit together, while each comparison of the text
		// itself loads a value from anywhere in c.vals. Newest first: a
		// read that goes past its key's known list mostly returns what was
		// appended last, and a key has each value once, so the order finds
		// the same id.
		fp = fingerprint(b)
		if kk.seen[fp>>6&1]&(1<<(fp&63)) != 0 {
			for i := len(kk.vals) - 1; i >= 0; i-- {
				e := kk.vals[i]
				if uint32(e>>32) == fp {
					if id := int32(uint32(e)); string(c.valText(id)) == string(b) {
						return id
					}
				}
			}
		}
	}
	v := int32(len(c.vals))
	c.vals = append(c.vals, laVal{key: k, writer: -1, mop: -1, next: -1})
	c.text = append(c.text, b...)
	c.textEnd = append(c.textEnd, int64(len(c.text)))
	switch {
	case kk.index != nil:
		kk.index[string(b)] = v
	case len(kk.vals)+1 >= keyIndexMin:
		kk.index = make(map[string]int32, 2*keyIndexMin)
		for _, e := range kk.vals {
			id := int32(uint32(e))
			kk.index[c.str(id)] = id
		}
		kk.index[string(b)] = v
		kk.vals = nil
	default:
		if kk.vals == nil {
			// Most keys get several values: start with room for as many as
			// the keys so far have on average, so that a key's slice is
			// mostly allocated once rather than grown and copied twice or
			// three times (17 MB allocated for 10 MB kept, for a million
			// transactions).
			kk.vals = make([]uint64, 0, c.keyValsCap())
		}
		kk.vals = append(kk.vals, uint64(fp)<<32|uint64(uint32(v)))
		kk.seen[fp>>6&1] |= 1 << (fp & 63)
	}
	return v
}

// keyValsCap is the room a key's vals starts with: the keys' average number
// of values so far, rounded up to a power of two, at least 8 and at most
// keyIndexMin (past which a key has a map instead).
func (c *listAppend) keyValsCap() int {
	avg := len(c.vals) / max(1, len(c.keys))
	n := 8
	for n < avg && n < keyIndexMin {
		n *= 2
	}
	return n
}

// valText is value v's text, which aliases the arena: compare it, do not
// keep it.
func (c *listAppend) valText(v int32) []byte {
	start := int64(0)
	if v > 0 {
		start = c.textEnd[v-1]
	}
	return c.text[start:c.textEnd[v]]
}

// str is value v's text as a string of its own.
func (c *listAppend) str(v int32) string { return string(c.valText(v)) }

// fingerprint is a 32-bit FNV-1a hash of b.
func fingerprint(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}

// parse reads transaction t: its completion's micro-ops when it is ok, with
// the values its reads returned, and its invocation's otherwise.
func (c *listAppend) parse(t int32) error {
	op := &c.ops[t]
	if op.F != "txn" {
		return c.errorf(op, "operation %q is not one of txn", op.F)
	}
	raw := op.Value
	withReads := op.Status == history.StatusOK
	what := "value"
	if withReads {
		raw, what = op.Output, "output"
	}
	txn := &c.txns[t]
	txn.mop0 = int32(len(c.mops))
	err := c.parseMops(t, raw, withReads)
	txn.mop1 = int32(len(c.mops))
	if err != nil {
		return c.errorf(op, "operation \"txn\" (id %d) has %s %s, want a list of [f, key, value] micro-ops: %v", op.ID, what, jsonvalue.Describe(raw), err)
	}
	// The invocation of an ok transaction adds nothing to the check, which
	// stands on the result alone, whatever micro-ops the invocation names;
	// but it must be valid JSON, and is mostly shown to be so by
	// invocationMatches.
	if withReads && !invocationMatches(op.Value, raw, c.readSpans) && !jsontext.Valid(op.Value) {
		return c.errorf(op, "operation \"txn\" (id %d) has value %s, want a list of [f, key, value] micro-ops: not valid JSON", op.ID, jsonvalue.Describe(op.Value))
	}
	return nil
}

// invocationMatches reports whether v, an ok transaction's invocation, is
// out, its result, with each read's value (where spans say) replaced by
// null, byte for byte: what a client that invokes [["r","k",null]] and gets
// [["r","k",[1,2]]] writes. Such a v is valid JSON: out is, since parseMops
// accepted it and accepts only valid JSON; each span is exactly one whole
// value that parseMops decoded (a list or null), in a place where the
// grammar wants a value; and putting one value in place of another leaves
// every other token where it was, so the text stays valid, and no deeper
// than out. A v that does not match is not necessarily invalid (a read may
// name another key, white space may differ) and is then validated in full.
func invocationMatches(v, out []byte, spans []int) bool {
	prev := 0
	for i := 0; i+1 < len(spans); i += 2 {
		head := out[prev:spans[i]]
		n := len(head)
		if len(v) < n+len("null") || string(v[:n]) != string(head) || string(v[n:n+len("null")]) != "null" {
			return false
		}
		v, prev = v[n+len("null"):], spans[i+1]
	}
	return string(v) == string(out[prev:])
}

// parseMops decodes one transaction's micro-ops from raw. It must accept
// only valid JSON: lib/check's ParseAndCheck has the reader leave the values of
// invocations and ok completions unchecked
// (history.ReadOptions.DeferValueCheck) and relies on this decoding, and on
// parse's check of ok transactions' invocations, to refuse any that is
// broken. With withReads it records where each read's value is in
// c.readSpans, for that check. Each path is as strict as the
// reader's validator: the scanner's calls (strings with their escapes,
// integers by JSON's grammar; neither checks UTF-8, nor does the validator);
// mopHead and Scalar's quick path, which take only strings with no escape
// or control character; ListMemo.Shared, whose elements are text that this
// function decoded before, byte for byte, each followed by a delimiter; null
// as a key, an appended value or a read element, which is an error (so
// whatever Scalar takes for null because it starts with n never passes);
// and the check for trailing text. Without withReads a read's value is
// skipped by the scanner, which counts nesting from that value rather than
// from raw: a list or object there has raw validated whole, so that depth
// is counted as the reader counts it. lib/check's FuzzParseAndCheck holds
// this to the validator.
func (c *listAppend) parseMops(t int32, raw []byte, withReads bool) error {
	s := &c.vr.Scanner
	s.Reset(raw)
	if withReads {
		c.readSpans = c.readSpans[:0]
	}
	nested := false
	if !at(s, '[') {
		if err := s.Expect('['); err != nil {
			return err
		}
	}
	for i := 0; !s.Next(']'); i++ {
		if i > 0 {
			if !at(s, ',') {
				if err := s.Expect(','); err != nil {
					return err
				}
			}
		}
		var (
			read bool
			k    int32
		)
		if r, kb, next, ok := mopHead(raw, s.Pos); ok {
			read, k, s.Pos = r, c.key(kb), next
		} else {
			if err := s.Expect('['); err != nil {
				return err
			}
			f, err := s.String()
			if err != nil {
				return fmt.Errorf("micro-op %d: %w", i, err)
			}
			switch string(f) {
			case "r", "read":
				read = true
			case "append":
			default:
				return fmt.Errorf("micro-op %d: %q is not one of r, append", i, f)
			}
			if err := s.Expect(','); err != nil {
				return err
			}
			kb, isNull, err := c.vr.Scalar()
			if err == nil && isNull {
				err = fmt.Errorf("found null")
			}
			if err != nil {
				return fmt.Errorf("micro-op %d: key: %w", i, err)
			}
			k = c.key(kb)
			if err := s.Expect(','); err != nil {
				return err
			}
		}
		m := laMop{key: k, read: read, n: unknownRead}
		mi := int32(len(c.mops))
		switch {
		case !read:
			vb, isNull, err := c.vr.Scalar()
			if err == nil && isNull {
				err = fmt.Errorf("found null")
			}
			if err != nil {
				return fmt.Errorf("micro-op %d: appended value: %w", i, err)
			}
			v := c.value(k, vb)
			m.val = v
			c.noteAppend(t, mi, k, v)
		case !withReads:
			v, err := s.Skip()
			if err != nil {
				return err
			}
			if v[0] == '[' || v[0] == '{' {
				nested = true
			}
		default:
			kk := &c.keys[k]
			e := elemsBuilder{c: c, kk: kk}
			s.SkipSpace()
			valStart := s.Pos
			if !s.Null() {
				start := s.Pos
				if !at(s, '[') {
					if err := s.Expect('['); err != nil {
						return fmt.Errorf("micro-op %d: read value: want a list or null: %w", i, err)
					}
				}
				// Take the elements this list shares with the key's last
				// read from that read, without scanning them again.
				last := &kk.last
				j := last.Shared(raw[start:])
				if j > 0 {
					if kk.lastInSeq {
						e.n = int32(j) // they are seq's already
					} else {
						for _, v := range last.IDs[:j] {
							e.push(v)
						}
					}
					s.Pos = start + int(last.Ends[j-1])
				}
				last.Ends = last.Ends[:j]
				for ; !s.Next(']'); j++ {
					if j > 0 {
						if !at(s, ',') {
							if err := s.Expect(','); err != nil {
								return err
							}
						}
					}
					vb, isNull, err := c.vr.Scalar()
					if err == nil && isNull {
						err = fmt.Errorf("found null")
					}
					if err != nil {
						return fmt.Errorf("micro-op %d: read element %d: %w", i, j, err)
					}
					// Reads of a key mostly repeat its seq: compare with
					// that before looking the value up.
					var v int32
					if int(e.n) < len(kk.seq) && string(c.valText(kk.seq[e.n])) == string(vb) {
						v = kk.seq[e.n]
					} else {
						v = c.value(k, vb)
					}
					e.push(v)
					last.Ends = append(last.Ends, int32(s.Pos-start))
				}
				last.Raw = raw[start:s.Pos]
				if e.own {
					last.IDs = c.elems[e.start:len(c.elems):len(c.elems)]
				} else {
					last.IDs = kk.seq[:e.n:e.n]
				}
				kk.lastInSeq = !e.own
			}
			c.readSpans = append(c.readSpans, valStart, s.Pos)
			m.n, m.own, m.val = e.n, e.own, e.start
			if kk.longest < 0 || m.n > c.mops[kk.longest].n {
				kk.longest = mi
			}
		}
		c.mops = append(c.mops, m)
		if !at(s, ']') {
			if err := s.Expect(']'); err != nil {
				return fmt.Errorf("micro-op %d: want 3 elements: %w", i, err)
			}
		}
	}
	if !s.AtEnd() {
		return fmt.Errorf("trailing text")
	}
	if nested && !jsontext.Valid(raw) {
		return fmt.Errorf("nested deeper than %d levels", jsontext.DepthMax)
	}
	return nil
}

// elemsBuilder stores the elements of one read: as a prefix of its key's
// seq while they agree with it (extending seq past its end), and as a copy
// of their own in elems from the first element that disagrees.
type elemsBuilder struct {
	c     *listAppend
	kk    *laKey
	n     int32 // elements so far
	own   bool
	start int32 // where they start in elems, once own
}

func (e *elemsBuilder) push(v int32) {
	if !e.own {
		seq := e.kk.seq
		switch {
		case int(e.n) == len(seq):
			e.kk.seq = append(seq, v)
			e.n++
			return
		case seq[e.n] == v:
			e.n++
			return
		}
		e.own, e.start = true, int32(len(e.c.elems))
		e.c.elems = append(e.c.elems, seq[:e.n]...)
	}
	e.c.elems = append(e.c.elems, v)
	e.n++
}

// at steps over c if it is right at s.Pos. Before s.Expect(c), it takes
// the case of the writer's compact text inline, on the five or so
// separators of every micro-op: the call and its skip of white space cost
// more than the test. When c is not right there, s.Expect gives its
// verdict as before.
func at(s *jsontext.Scanner, c byte) bool {
	if s.Pos < len(s.Data) && s.Data[s.Pos] == c {
		s.Pos++
		return true
	}
	return false
}

// mopHead reads the start of a micro-op at raw[i] when it is written the
// way writers write it: ["r"," or ["read"," or ["append"," then a key
// without escapes or control characters, its closing quote and a comma, no
// white space anywhere. It returns whether the micro-op reads, the key, and
// where its value starts; anything else is for the scanner, whose errors
// it then gives.
func mopHead(raw []byte, i int) (read bool, key []byte, next int, ok bool) {
	rest := raw[i:]
	switch {
	case len(rest) > 6 && string(rest[:6]) == `["r","`:
		read, i = true, i+6
	case len(rest) > 9 && string(rest[:9]) == `["read","`:
		read, i = true, i+9
	case len(rest) > 11 && string(rest[:11]) == `["append","`:
		i += 11
	default:
		return false, nil, 0, false
	}
	// Ranging over the rest, the compiler checks no bounds in the loop.
	rest = raw[i:]
	for j, c := range rest {
		switch {
		case c == '"':
			if j+1 < len(rest) && rest[j+1] == ',' {
				return read, rest[:j], i + j + 2, true
			}
			return false, nil, 0, false
		case c == '\\' || c < 0x20:
			return false, nil, 0, false
		}
	}
	return false, nil, 0, false
}

// note records an instance of an anomaly, keeping as its example the first
// one, or for cycles (size > 0) the shortest.
func (c *listAppend) note(kind, size int, txns []int32, render func() string) {
	a := &c.found[kind]
	a.count++
	if a.count == 1 || (size > 0 && size < a.size) {
		a.size, a.txns, a.render = size, txns, render
	}
}

// noteAppend records that transaction t appended v to key k in micro-op mi.
func (c *listAppend) noteAppend(t, mi, k, v int32) {
	if w := c.vals[v].writer; w >= 0 {
		c.keys[k].bad = true
		if w == t {
			c.note(kDuplicateAppend, 0, []int32{t}, func() string {
				return fmt.Sprintf("T%d appended %q to %s twice; %s", c.id(t), c.str(v), c.keys[k].name, c.describeTxn(t))
			})
		} else {
			c.note(kDuplicateAppend, 0, []int32{w, t}, func() string {
				return fmt.Sprintf("T%d and T%d both appended %q to %s; %s; %s",
					c.id(w), c.id(t), c.str(v), c.keys[k].name, c.describeTxn(w), c.describeTxn(t))
			})
		}
		return
	}
	c.vals[v].writer = t
	c.vals[v].mop = mi
	if c.keySeen[k] == t+1 {
		c.vals[c.keyLast[k]].next = v
	}
	c.keySeen[k] = t + 1
	c.keyLast[k] = v
}
