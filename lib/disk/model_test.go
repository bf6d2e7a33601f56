package disk

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/rng"
)

// This file checks the crash-state generator of CrashWith against a small
// reference model, ALICE-style: for short random sequences of operations it
// enumerates every crash state the spec's rules allow, and checks both that
// every state CrashWith produces is allowed and that every allowed state is
// produced by some stream.

// seqOp is one operation of a test sequence.
type seqOp struct {
	kind string // write, trunc, fsync, create, rename, fsyncdir
	name string
	to   string // rename target
	off  int64  // write offset, or truncate size
	data []byte
}

func (o seqOp) String() string {
	switch o.kind {
	case "write":
		return fmt.Sprintf("write(%s,%d,%q)", o.name, o.off, o.data)
	case "trunc":
		return fmt.Sprintf("trunc(%s,%d)", o.name, o.off)
	case "rename":
		return fmt.Sprintf("rename(%s,%s)", o.name, o.to)
	case "fsyncdir":
		return "fsync(.)"
	}
	return fmt.Sprintf("%s(%s)", o.kind, o.name)
}

// The reference model: one directory, files by id, pending operations kept
// as plain lists.

type refOp struct {
	seq   int
	trunc bool
	off   int64
	data  []byte
}

type refFile struct {
	durable, cur []byte
	pending      []refOp
}

type refDirOp struct {
	seq   int
	names []string // entry names the operation sets, in order
	ids   []int    // the id each gets, 0 to remove it
}

type refFS struct {
	strict     bool
	seq        int
	files      []*refFile // by id - 1
	names      map[string]int
	dnames     map[string]int
	dirPending []refDirOp
}

// seedContent is the durable content of "a" before each sequence: a page
// of 'p' and two bytes of 'q'.
func seedContent() []byte {
	b := make([]byte, PageBytes+2)
	for i := range b {
		b[i] = 'p' + byte(i/PageBytes)
	}
	return b
}

func newRef(strict bool) *refFS {
	r := &refFS{strict: strict, names: map[string]int{}, dnames: map[string]int{}}
	r.files = append(r.files, &refFile{durable: seedContent(), cur: seedContent()})
	r.names["a"], r.dnames["a"] = 1, 1
	return r
}

func (r *refFS) dirOp(names []string, ids []int) {
	r.seq++
	for i, n := range names {
		if ids[i] == 0 {
			delete(r.names, n)
		} else {
			r.names[n] = ids[i]
		}
	}
	if !r.strict {
		applyDirOp(r.dnames, refDirOp{names: names, ids: ids})
		return
	}
	r.dirPending = append(r.dirPending, refDirOp{seq: r.seq, names: names, ids: ids})
}

func applyDirOp(names map[string]int, op refDirOp) {
	for i, n := range op.names {
		if op.ids[i] == 0 {
			delete(names, n)
		} else {
			names[n] = op.ids[i]
		}
	}
}

// replay applies a write or truncate to b, zero-filling any gap.
func replay(b []byte, op refOp) []byte {
	if op.trunc {
		return resizeRef(b, op.off)
	}
	end := op.off + int64(len(op.data))
	if end > int64(len(b)) {
		b = resizeRef(b, end)
	}
	copy(b[op.off:], op.data)
	return b
}

func resizeRef(b []byte, n int64) []byte {
	out := make([]byte, n)
	copy(out, b)
	return out
}

func (r *refFS) do(op seqOp) {
	switch op.kind {
	case "write", "trunc":
		f := r.files[r.names[op.name]-1]
		r.seq++
		o := refOp{seq: r.seq, trunc: op.kind == "trunc", off: op.off, data: op.data}
		f.cur = replay(f.cur, o)
		f.pending = append(f.pending, o)
	case "fsync":
		f := r.files[r.names[op.name]-1]
		for _, o := range f.pending {
			f.durable = replay(f.durable, o)
		}
		f.pending = nil
	case "create":
		r.files = append(r.files, &refFile{})
		r.dirOp([]string{op.name}, []int{len(r.files)})
	case "rename":
		r.dirOp([]string{op.name, op.to}, []int{0, r.names[op.name]})
	case "fsyncdir":
		for _, o := range r.dirPending {
			applyDirOp(r.dnames, o)
		}
		r.dirPending = nil
	}
}

// render shows a crash state: each name with its content, run-length coded.
func render(names map[string]int, content func(id int) []byte) string {
	var b strings.Builder
	for _, n := range slices.Sorted(maps.Keys(names)) {
		fmt.Fprintf(&b, "%s=%s\n", n, rle(content(names[n])))
	}
	return b.String()
}

func rle(p []byte) string {
	var b strings.Builder
	for i := 0; i < len(p); {
		j := i
		for j < len(p) && p[j] == p[i] {
			j++
		}
		if j-i > 3 {
			fmt.Fprintf(&b, "%q*%d ", p[i], j-i)
		} else {
			fmt.Fprintf(&b, "%q ", p[i:j])
		}
		i = j
	}
	return b.String()
}

// contentSets returns, for file f, every content a crash may leave under
// the rules, Reorder set.
func (f *refFile) contentSets(rules CrashRules) map[string][]byte {
	if rules.Model == ModelExt4Ordered {
		return f.ext4States(rules.Torn)
	}
	return f.pageStates(rules.Torn)
}

type piece struct {
	op   int
	a, b int64
}

// splitPages cuts [a, b) at page boundaries.
func splitPages(op int, a, b int64) []piece {
	var out []piece
	for a < b {
		e := min(b, (a/PageBytes+1)*PageBytes)
		out = append(out, piece{op, a, e})
		a = e
	}
	return out
}

// ext4States follows the spec's ext4_ordered row: appends and truncates
// persist as an in-order prefix split at page boundaries (any byte with
// torn writes); overwrites of bytes inside the size the file had persist
// per page in order (the last one kept in each page torn, with torn
// writes), independently of the appends; bytes past the surviving size are
// not kept.
func (f *refFile) ext4States(torn bool) map[string][]byte {
	type link struct {
		op     int
		trunc  bool
		s, e   int64 // growth from s to e
		dataAt int64 // where the write's bytes start
	}
	var chain []link
	pages := map[int64][]piece{}
	size := int64(len(f.durable))
	for i, o := range f.pending {
		if o.trunc {
			chain = append(chain, link{op: i, trunc: true, e: o.off})
			size = o.off
			continue
		}
		end := o.off + int64(len(o.data))
		for _, p := range splitPages(i, o.off, min(end, size)) {
			pages[p.a/PageBytes] = append(pages[p.a/PageBytes], p)
		}
		if end > size {
			chain = append(chain, link{op: i, s: size, e: end, dataAt: o.off})
		}
		size = max(size, end)
	}
	type cut struct {
		k int   // chain links kept whole
		c int64 // size the next link reaches, 0 for none
	}
	var cuts []cut
	for k := 0; k <= len(chain); k++ {
		cuts = append(cuts, cut{k, 0})
		if k == len(chain) || chain[k].trunc {
			continue
		}
		for c := chain[k].s + 1; c < chain[k].e; c++ {
			// A torn append keeps at least one byte of its data.
			if (torn && c > chain[k].dataAt) || c%PageBytes == 0 {
				cuts = append(cuts, cut{k, c})
			}
		}
	}
	// per page: keep m pieces, and j bytes of the next one
	type keep struct{ m, j int }
	pageKeys := slices.Sorted(maps.Keys(pages))
	choices := make([][]keep, len(pageKeys))
	for i, pg := range pageKeys {
		list := pages[pg]
		for m := 0; m <= len(list); m++ {
			choices[i] = append(choices[i], keep{m, 0})
			if torn && m < len(list) {
				for j := 1; j < int(list[m].b-list[m].a); j++ {
					choices[i] = append(choices[i], keep{m, j})
				}
			}
		}
	}
	out := map[string][]byte{}
	product(choices, func(pick []keep) {
		for _, ct := range cuts {
			land := make([][][2]int64, len(f.pending))
			for i, pg := range pageKeys {
				for n, p := range pages[pg] {
					switch {
					case n < pick[i].m:
						land[p.op] = append(land[p.op], [2]int64{p.a, p.b})
					case n == pick[i].m && pick[i].j > 0:
						land[p.op] = append(land[p.op], [2]int64{p.a, p.a + int64(pick[i].j)})
					}
				}
			}
			keptTrunc := map[int]bool{}
			s := int64(len(f.durable))
			for n, l := range chain {
				var reach int64
				switch {
				case n < ct.k:
					reach = l.e
				case n == ct.k && ct.c > 0:
					reach = ct.c
				default:
					continue
				}
				s = reach
				if l.trunc {
					keptTrunc[l.op] = true
				} else if a := max(l.s, l.dataAt); a < reach {
					land[l.op] = append(land[l.op], [2]int64{a, reach})
				}
			}
			b := f.build(keptTrunc, land)
			b = resizeRef(b, s)
			out[rle(b)] = b
		}
	})
	return out
}

// pageStates follows the spec's page_independent row: any subset of the
// dirty pages, in order within each page (the last write kept in a page
// torn, with torn writes), zeros in the gaps. A truncate belongs to every
// page between the old and the new size.
func (f *refFile) pageStates(torn bool) map[string][]byte {
	type unit struct {
		piece
		trunc bool
		pages []int64
	}
	var units []unit
	size := int64(len(f.durable))
	for i, o := range f.pending {
		if o.trunc {
			u := unit{piece: piece{op: i}, trunc: true}
			for p := min(size, o.off); p < max(size, o.off); p++ {
				if len(u.pages) == 0 || u.pages[len(u.pages)-1] != p/PageBytes {
					u.pages = append(u.pages, p/PageBytes)
				}
			}
			units = append(units, u)
			size = o.off
			continue
		}
		end := o.off + int64(len(o.data))
		for _, p := range splitPages(i, o.off, end) {
			units = append(units, unit{piece: p, pages: []int64{p.a / PageBytes}})
		}
		size = max(size, end)
	}
	if len(units) > 16 {
		panic("too many units to enumerate")
	}
	out := map[string][]byte{}
	for mask := 0; mask < 1<<len(units); mask++ {
		kept := func(i int) bool { return mask&(1<<i) != 0 }
		// In order within each page: nothing kept after a unit dropped.
		ok := true
		firstDropped := map[int64]int{}
		for i, u := range units {
			for _, p := range u.pages {
				if d, seen := firstDropped[p]; seen && kept(i) {
					ok = false
					_ = d
				}
				if !kept(i) {
					if _, seen := firstDropped[p]; !seen {
						firstDropped[p] = i
					}
				}
			}
		}
		if !ok {
			continue
		}
		// Torn candidates: writes that are the first unit dropped in their page.
		var cands []int
		var choices [][]int
		for i, u := range units {
			if !u.trunc && !kept(i) && firstDropped[u.pages[0]] == i && torn && u.b-u.a >= 2 {
				cands = append(cands, i)
				var js []int
				for j := 0; j < int(u.b-u.a); j++ {
					js = append(js, j)
				}
				choices = append(choices, js)
			}
		}
		product(choices, func(js []int) {
			keptTrunc := map[int]bool{}
			land := make([][][2]int64, len(f.pending))
			for i, u := range units {
				switch {
				case u.trunc && kept(i):
					keptTrunc[u.op] = true
				case kept(i):
					land[u.op] = append(land[u.op], [2]int64{u.a, u.b})
				}
			}
			for n, i := range cands {
				if js[n] > 0 {
					u := units[i]
					land[u.op] = append(land[u.op], [2]int64{u.a, u.a + int64(js[n])})
				}
			}
			b := f.build(keptTrunc, land)
			out[rle(b)] = b
		})
	}
	return out
}

// build replays the kept truncates and the landed bytes of writes onto the
// durable content, in the order they were made.
func (f *refFile) build(keptTrunc map[int]bool, land [][][2]int64) []byte {
	b := slices.Clone(f.durable)
	for i, o := range f.pending {
		if o.trunc {
			if keptTrunc[i] {
				b = resizeRef(b, o.off)
			}
			continue
		}
		for _, rg := range land[i] {
			b = replay(b, refOp{off: rg[0], data: o.data[rg[0]-o.off : rg[1]-o.off]})
		}
	}
	return b
}

// product calls fn with every combination of one element from each list.
func product[T any](lists [][]T, fn func([]T)) {
	pick := make([]T, len(lists))
	var rec func(i int)
	rec = func(i int) {
		if i == len(lists) {
			fn(pick)
			return
		}
		for _, x := range lists[i] {
			pick[i] = x
			rec(i + 1)
		}
	}
	rec(0)
}

// allowed enumerates every crash state the rules allow.
func (r *refFS) allowed(rules CrashRules) map[string]bool {
	out := map[string]bool{}
	switch {
	case rules.Reorder:
		var dirSets [][]bool
		n := len(r.dirPending)
		switch {
		case rules.Model == ModelDirReorder:
			for mask := 0; mask < 1<<n; mask++ {
				keep := make([]bool, n)
				ok := true
				for i := range n {
					keep[i] = mask&(1<<i) != 0
				}
				// A kept operation needs every earlier one on the same name.
				for i := range n {
					for j := range i {
						if keep[i] && !keep[j] && shareName(r.dirPending[i], r.dirPending[j]) {
							ok = false
						}
					}
				}
				if ok {
					dirSets = append(dirSets, keep)
				}
			}
		case rules.Torn:
			for k := 0; k <= n; k++ {
				keep := make([]bool, n)
				for i := range k {
					keep[i] = true
				}
				dirSets = append(dirSets, keep)
			}
		default:
			dirSets = [][]bool{make([]bool, n)}
		}
		contents := make([][][]byte, len(r.files))
		for i, f := range r.files {
			for _, b := range f.contentSets(rules) {
				contents[i] = append(contents[i], b)
			}
		}
		for _, keep := range dirSets {
			names := maps.Clone(r.dnames)
			for i, op := range r.dirPending {
				if keep[i] {
					applyDirOp(names, op)
				}
			}
			ids := slices.Sorted(maps.Values(names))
			ids = slices.Compact(ids)
			lists := make([][][]byte, len(ids))
			for i, id := range ids {
				lists[i] = contents[id-1]
			}
			product(lists, func(pick [][]byte) {
				out[render(names, func(id int) []byte { return pick[slices.Index(ids, id)] })] = true
			})
		}
	case rules.Torn:
		// One in-order prefix of everything pending, by sequence number.
		type item struct {
			seq, file, op int // file 0 for a directory operation
		}
		var items []item
		for fi, f := range r.files {
			for i, o := range f.pending {
				items = append(items, item{o.seq, fi + 1, i})
			}
		}
		for i, o := range r.dirPending {
			items = append(items, item{o.seq, 0, i})
		}
		slices.SortFunc(items, func(a, b item) int { return a.seq - b.seq })
		for k := 0; k <= len(items); k++ {
			tears := []int{0}
			if k < len(items) && items[k].file != 0 {
				if o := r.files[items[k].file-1].pending[items[k].op]; !o.trunc {
					for j := 1; j < len(o.data); j++ {
						tears = append(tears, j)
					}
				}
			}
			for _, j := range tears {
				names := maps.Clone(r.dnames)
				content := map[int][]byte{}
				for fi, f := range r.files {
					content[fi+1] = slices.Clone(f.durable)
				}
				for n, it := range items[:min(k+1, len(items))] {
					switch {
					case it.file == 0 && n < k:
						applyDirOp(names, r.dirPending[it.op])
					case it.file == 0:
					case n < k:
						content[it.file] = replay(content[it.file], r.files[it.file-1].pending[it.op])
					case j > 0:
						o := r.files[it.file-1].pending[it.op]
						content[it.file] = replay(content[it.file], refOp{off: o.off, data: o.data[:j]})
					}
				}
				out[render(names, func(id int) []byte { return content[id] })] = true
			}
		}
	default:
		out[render(r.dnames, func(id int) []byte { return r.files[id-1].durable })] = true
	}
	return out
}

func shareName(a, b refDirOp) bool {
	for _, x := range a.names {
		if slices.Contains(b.names, x) {
			return true
		}
	}
	return false
}

// genSeq draws a sequence of up to steps operations that are valid in
// order, and returns it with the reference model after it.
func genSeq(r *xorshift, strict bool, steps int) []seqOp {
	ref := newRef(strict)
	var ops []seqOp
	for len(ops) < steps {
		names := slices.Sorted(maps.Keys(ref.names))
		pick := func() string { return names[r.intn(len(names))] }
		var op seqOp
		switch k := r.intn(100); {
		case k < 35 && len(names) > 0:
			name := pick()
			size := int64(len(ref.files[ref.names[name]-1].cur))
			offs := []int64{0, PageBytes - 2, PageBytes, size, 2*PageBytes - 1}
			data := strings.Repeat(string(rune('A'+len(ops))), 1+r.intn(3))
			op = seqOp{kind: "write", name: name, off: offs[r.intn(len(offs))], data: []byte(data)}
		case k < 50 && len(names) > 0:
			sizes := []int64{0, 1, PageBytes - 1, PageBytes + 1, 2*PageBytes + 1}
			op = seqOp{kind: "trunc", name: pick(), off: sizes[r.intn(len(sizes))]}
		case k < 65 && len(names) > 0:
			op = seqOp{kind: "fsync", name: pick()}
		case k < 78:
			free := slices.DeleteFunc([]string{"a", "b", "c"}, func(n string) bool { return ref.names[n] != 0 })
			if len(free) == 0 {
				continue
			}
			op = seqOp{kind: "create", name: free[r.intn(len(free))]}
		case k < 90 && len(names) > 0:
			to := []string{"a", "b", "c"}[r.intn(3)]
			from := pick()
			if from == to {
				continue
			}
			op = seqOp{kind: "rename", name: from, to: to}
		case k >= 90:
			op = seqOp{kind: "fsyncdir"}
		default:
			continue
		}
		ref.do(op)
		ops = append(ops, op)
	}
	return ops
}

// buildFS returns an FS after the seed state and ops.
func buildFS(t testing.TB, strict bool, ops []seqOp) *FS {
	fs := newTestFS()
	if err := fs.AddFile("a", seedContent()); err != nil {
		t.Fatal(err)
	}
	fs.StrictDirs = strict
	for _, op := range ops {
		var err error
		switch op.kind {
		case "write":
			_, err = fs.WriteAt(lookupOr(fs, op.name), op.data, op.off)
		case "trunc":
			err = fs.Truncate(lookupOr(fs, op.name), op.off)
		case "fsync":
			err = fs.Sync(lookupOr(fs, op.name))
		case "create":
			_, err = fs.Open(fs.Root(), op.name, OCreate|OExcl, false)
		case "rename":
			err = fs.Rename(fs.Root(), op.name, fs.Root(), op.to)
		case "fsyncdir":
			err = fs.Sync(fs.Root())
		}
		if err != nil {
			t.Fatalf("%v: %v", op, err)
		}
	}
	return fs
}

func lookupOr(fs *FS, name string) Ino {
	ino, _ := fs.Lookup(fs.Root(), name, false)
	return ino
}

// crashState renders the view after a crash as render does.
func crashState(fs *FS) string {
	names := map[string]int{}
	byID := map[int][]byte{}
	for _, f := range fs.Files() {
		names[f.Path] = int(f.Ino)
		byID[int(f.Ino)] = fs.inodes[f.Ino].data.bytes()
	}
	return render(names, func(id int) []byte { return byID[id] })
}

// crashConfigs are the rule sets the model test covers.
func crashConfigs() []CrashRules {
	out := []CrashRules{{}, {Torn: true}}
	for _, m := range []FSModel{ModelExt4Ordered, ModelPageIndependent, ModelDirReorder} {
		out = append(out, CrashRules{Reorder: true, Model: m}, CrashRules{Reorder: true, Model: m, Torn: true})
	}
	return out
}

func rulesName(r CrashRules) string {
	switch {
	case r.Reorder && r.Torn:
		return r.Model.String() + "+torn"
	case r.Reorder:
		return r.Model.String()
	case r.Torn:
		return "torn"
	}
	return "plain"
}

// compareStates draws states from gen, stream by stream, until it has seen
// every state in want or streamsMax streams. It returns the first state
// that want does not hold, or else the allowed states never drawn.
func compareStates(want map[string]bool, streamsMax int, gen func(i int) string) (extra string, missing []string) {
	got := map[string]bool{}
	for i := 0; i < streamsMax && len(got) < len(want); i++ {
		state := gen(i)
		if !want[state] {
			return state, nil
		}
		got[state] = true
	}
	for s := range want {
		if !got[s] {
			missing = append(missing, s)
		}
	}
	slices.Sort(missing)
	return "", missing
}

func TestCrashStatesMatchModel(t *testing.T) {
	seqs, streamsMax := 300, 40000
	if testing.Short() {
		seqs = 80
	}
	for _, rules := range crashConfigs() {
		t.Run(rulesName(rules), func(t *testing.T) {
			t.Parallel()
			r := xorshift(0x5eed + uint64(rules.Model)*7 + 1)
			if rules.Torn {
				r += 100
			}
			if rules.Reorder {
				r += 1000
			}
			states, streams, maxStates := 0, 0, 0
			defer func() {
				t.Logf("%d sequences, %d allowed states (at most %d for one), %d streams", seqs, states, maxStates, streams)
			}()
			for s := range seqs {
				strict := s%4 != 3
				ops := genSeq(&r, strict, 1+r.intn(5))
				ref := newRef(strict)
				for _, op := range ops {
					ref.do(op)
				}
				want := ref.allowed(rules)
				states += len(want)
				maxStates = max(maxStates, len(want))
				extra, missing := compareStates(want, streamsMax, func(i int) string {
					streams++
					fs := buildFS(t, strict, ops)
					fs.CrashWith(rules, rng.New(uint64(i), "crash-model-test"))
					if i < 20 {
						checkCrashed(t, fs)
					}
					return crashState(fs)
				})
				if extra != "" {
					t.Fatalf("strict=%v %v: a stream produced a state the model does not allow:\n%s\nallowed:\n%s",
						strict, ops, extra, strings.Join(slices.Sorted(maps.Keys(want)), "--\n"))
				}
				if len(missing) > 0 {
					t.Fatalf("strict=%v %v: %d of %d allowed states never produced in %d streams, such as:\n%s",
						strict, ops, len(missing), len(want), streamsMax, missing[0])
				}
			}
		})
	}
}

// TestCrashModelCanFail is the canary: the comparison must catch a
// generator that is too strong (plain crashes, under a model that allows
// more) and one that is too weak (page_independent states checked against
// ext4_ordered, which keeps appends in order).
func TestCrashModelCanFail(t *testing.T) {
	ops := []seqOp{
		{kind: "write", name: "a", off: PageBytes + 2, data: []byte("BB")},
		{kind: "write", name: "a", off: 2*PageBytes - 1, data: []byte("CC")},
		{kind: "write", name: "a", off: 0, data: []byte("D")},
	}
	ref := newRef(true)
	for _, op := range ops {
		ref.do(op)
	}
	ext4 := CrashRules{Reorder: true, Model: ModelExt4Ordered}
	want := ref.allowed(ext4)
	extra, missing := compareStates(want, 2000, func(int) string {
		fs := buildFS(t, true, ops)
		fs.Crash()
		return crashState(fs)
	})
	if extra != "" || len(missing) == 0 {
		t.Errorf("plain crashes under ext4_ordered: extra %q, %d missing; want some missing", extra, len(missing))
	}
	pi := CrashRules{Reorder: true, Model: ModelPageIndependent}
	extra, _ = compareStates(want, 2000, func(i int) string {
		fs := buildFS(t, true, ops)
		fs.CrashWith(pi, rng.New(uint64(i), "canary"))
		return crashState(fs)
	})
	if extra == "" {
		t.Error("page_independent crashes passed as ext4_ordered states")
	}
}
