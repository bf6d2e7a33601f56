package wasmrewrite

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
)

// forkPlan is what the fork rewrite found in a module built by Go: its
// dispatch loop, its import wrappers and which functions pass a loop head
// when re-entered at a resume point.
type forkPlan struct {
	imports  uint32            // imported functions
	defined  uint32            // functions the module defines
	pcfLoop  uint32            // function index of wasm_pc_f_loop
	wrappers map[string]uint32 // module.name of an import -> the function index of its wrapper
	reentry  []byte            // a bit per defined function (ForkInfo.reentryLoop)
}

// goLayout wraps every reason a module cannot fork: what sf found differs
// from what Go's linker and wasm backend emit.
func goLayout(format string, args ...any) error {
	return fmt.Errorf("cannot fork: %s: the module was not built by a Go toolchain whose wasm layout sf knows", fmt.Sprintf(format, args...))
}

type funcType struct{ params, results []byte }

// planFork checks that bin, as Go built it, has the layout forking relies
// on, and finds what the rewrite exports.
func planFork(bin []byte) (*forkPlan, error) {
	secs, err := splitSections(bin)
	if err != nil {
		return nil, errors.New("cannot fork: not a WebAssembly module")
	}
	var (
		types             []funcType
		imp               imports
		funcTypes         []uint32
		globals, exports  []byte
		code              []byte
		haveGlobals, have bool
	)
	for _, s := range secs {
		switch s.id {
		case 1:
			if types, err = parseTypes(s.body); err != nil {
				return nil, goLayout("its type section")
			}
		case 2:
			if imp, err = parseImports(s.body); err != nil {
				return nil, goLayout("its import section")
			}
		case 3:
			if funcTypes, err = parseFuncTypes(s.body); err != nil {
				return nil, goLayout("its function section")
			}
		case 6:
			globals, haveGlobals = s.body, true
		case 7:
			exports = s.body
		case 10:
			code, have = s.body, true
		}
	}
	if !haveGlobals || !have {
		return nil, goLayout("no globals or no code")
	}
	if err := checkGoGlobals(imp, globals); err != nil {
		return nil, err
	}
	if len(types) == 0 || !bytes.Equal(types[0].params, []byte{0x7f}) || !bytes.Equal(types[0].results, []byte{0x7f}) {
		return nil, goLayout("type 0 is not Go's function type (PC_B i32) -> i32")
	}
	start, err := exportedIndex(exports, "_start", 0)
	if err != nil || start < uint32(imp.funcs) {
		return nil, goLayout("no _start function")
	}
	bodies, err := splitBodies(code)
	if err != nil || len(bodies) != len(funcTypes) {
		return nil, goLayout("its code section")
	}
	p := &forkPlan{imports: uint32(imp.funcs), defined: uint32(len(bodies)), wrappers: map[string]uint32{}}
	p.reentry = make([]byte, (len(bodies)+7)/8)
	normal := map[string][]byte{} // each import's wrapper, its call's target left out
	for i, fn := range bodies {
		idx := p.imports + uint32(i)
		sc, err := scanBody(fn, p.imports)
		if err != nil {
			return nil, goLayout("function %d: %v", idx, err)
		}
		if sc.reentryLoop {
			p.reentry[i/8] |= 1 << (i % 8)
		}
		if idx == start {
			p.pcfLoop = sc.lastCall
		}
		if !sc.callsImport {
			continue
		}
		target, norm, err := wrapperShape(fn, p.imports)
		if err != nil || funcTypes[i] != 0 {
			return nil, goLayout("function %d calls import %s but is not shaped like a go:wasmimport wrapper", idx, imp.names[sc.firstImport])
		}
		name := imp.names[target]
		if prev, ok := normal[name]; ok {
			if !bytes.Equal(prev, norm) {
				return nil, goLayout("two wrappers of import %s read their arguments differently", name)
			}
			continue
		}
		normal[name], p.wrappers[name] = norm, idx
	}
	if err := p.checkPCFLoop(types, funcTypes, bodies); err != nil {
		return nil, err
	}
	return p, nil
}

// checkGoGlobals checks the eight globals of Go's linker: no imported
// globals, and SP, CTXT, g, RET0-RET3 and PAUSE, mutable, zero at first.
func checkGoGlobals(imp imports, b []byte) error {
	count, n, ok := uleb(b)
	if imp.globals != 0 || !ok || count != uint32(len(goGlobalTypes)) {
		return goLayout("it has %d imported and %d defined globals, Go's linker defines 8", imp.globals, count)
	}
	b = b[n:]
	for i, t := range goGlobalTypes {
		// type, mutable, {i32,i64}.const 0, end
		want := []byte{t, 0x01, 0x41, 0x00, 0x0b}
		if t == 0x7e {
			want[2] = 0x42 // i64.const
		}
		if !bytes.HasPrefix(b, want) {
			return goLayout("global %d is not Go's %s", i, GoGlobals[i])
		}
		b = b[len(want):]
	}
	return nil
}

// checkPCFLoop checks wasm_pc_f_loop: the last call of _start, of type
// () -> (), with exactly the code of Go's runtime.
func (p *forkPlan) checkPCFLoop(types []funcType, funcTypes []uint32, bodies [][]byte) error {
	i := p.pcfLoop - p.imports
	if p.pcfLoop < p.imports || i >= p.defined {
		return goLayout("_start does not end by calling wasm_pc_f_loop")
	}
	if t := funcTypes[i]; int(t) >= len(types) || len(types[t].params) != 0 || len(types[t].results) != 0 {
		return goLayout("wasm_pc_f_loop (function %d) is not of type () -> ()", p.pcfLoop)
	}
	if !bytes.Equal(bodies[i], pcfLoopBody) {
		return goLayout("wasm_pc_f_loop (function %d) is not the loop of Go's runtime", p.pcfLoop)
	}
	return nil
}

// bodyScan is what scanBody found in a function body.
type bodyScan struct {
	reentryLoop bool   // the entry-point loop comes before any resume point
	callsImport bool   // a call of an imported function
	firstImport uint32 // the first imported function called
	lastCall    uint32 // the target of the last call
}

// scanBody reads a function body: whether it starts with Go's entry-point
// loop, what it calls, and that it never changes the table, which a guest's
// image does not hold. Go's wasm backend puts the dispatch of a function's
// resume points first (cmd/internal/obj/wasm: preprocess): an unwind
// block, the entry-point loop when the function jumps, a block per resume
// point and a br_table on PC_B, with only the copy of SP into a local
// before them; re-entered at a resume point, a function passes that loop's
// head once and no other.
func scanBody(fn []byte, imports uint32) (bodyScan, error) {
	var sc bodyScan
	p, ok := skipLocals(fn)
	if !ok {
		return sc, errors.New("its locals")
	}
	sc.reentryLoop = entryLoop(fn, p)
	for p < len(fn) {
		at := p
		if p, ok = instrEnd(fn, p); !ok {
			return sc, errors.New("an instruction sf does not know")
		}
		switch op := fn[at]; {
		case op == 0x10:
			t, _, _ := uleb(fn[at+1:])
			sc.lastCall = t
			if t < imports && !sc.callsImport {
				sc.callsImport, sc.firstImport = true, t
			}
		case op == 0x26:
			return sc, errors.New("it writes to a table")
		case op == 0xfc:
			if sub, _, _ := uleb(fn[at+1:]); sub == 12 || (sub >= 14 && sub <= 17) {
				return sc, errors.New("it changes a table")
			}
		}
	}
	return sc, nil
}

// entryLoop reports whether the instructions of fn from p reach a loop
// before anything but blocks and the copying of locals and globals.
func entryLoop(fn []byte, p int) bool {
	for p < len(fn) {
		switch fn[p] {
		case 0x03:
			return true
		case 0x02, 0x20, 0x21, 0x23:
		default:
			return false
		}
		next, ok := instrEnd(fn, p)
		if !ok {
			return false
		}
		p = next
	}
	return false
}

// wrapperShape checks that fn is a wrapper of a go:wasmimport function as
// Go's wasm backend writes it (cmd/internal/obj/wasm: genWasmImportWrapper):
// it keeps SP in a local, loads each argument from the Go stack above the
// return address, calls the import, stores its result there, pops the
// return address and returns 0. It returns the import called and the body
// without the call's target, to compare two wrappers of one import.
func wrapperShape(fn []byte, imports uint32) (target uint32, normal []byte, err error) {
	bad := errors.New("not a wrapper")
	p, ok := skipLocals(fn)
	if !ok {
		return 0, nil, bad
	}
	var toks []token
	for p < len(fn) {
		t, next, ok := readToken(fn, p)
		if !ok {
			return 0, nil, bad
		}
		toks = append(toks, t)
		p = next
	}
	m := matcher{toks: toks, ok: true}
	m.want(0x23, 0)
	sp := m.any(0x21)
	for m.peek(0x20, sp) {
		m.want(0x20, sp)
		m.oneOf(0x28, 0x29, 0x2a, 0x2b, 0x2d) // i32, i64, f32, f64, u8 loads
	}
	call := m.i
	target = m.any(0x10)
	m.want(0x23, 0)
	m.want(0x21, sp)
	if !m.peek(0x20, sp) { // a result to store
		m.maybe(0xad) // i64.extend_i32_u
		r := m.any(0x21)
		m.want(0x20, sp)
		m.want(0x20, r)
		m.oneOf(0x37, 0x38, 0x39, 0x3c, 0x3e) // i64, f32, f64, i64 as u8, i64 as u32
	}
	for _, w := range []token{{op: 0x20, imm: sp}, {op: 0x41, imm: 8}, {op: 0x6a}, {op: 0x22, imm: sp}, {op: 0x24}, {op: 0x41}, {op: 0x0f}} {
		m.want(w.op, w.imm)
	}
	m.maybe(0x00)
	m.want(0x0b, 0)
	if !m.ok || m.i != len(toks) || sp == 0 || target >= imports {
		return 0, nil, bad
	}
	normal = bytes.Clone(fn[:toks[call].at+1])
	normal = append(normal, fn[toks[call+1].at:]...)
	return target, normal, nil
}

// token is one instruction: its opcode, its first immediate (a local,
// global or function index, a constant, a load's alignment) and where it
// starts.
type token struct {
	op  byte
	imm uint32
	at  int
}

func readToken(fn []byte, p int) (token, int, bool) {
	next, ok := instrEnd(fn, p)
	if !ok {
		return token{}, 0, false
	}
	t := token{op: fn[p], at: p}
	if next > p+1 {
		if t.op == 0x41 {
			v, _, _ := sleb32(fn[p+1:])
			t.imm = uint32(v)
		} else {
			t.imm, _, _ = uleb(fn[p+1:])
		}
	}
	return t, next, true
}

// matcher walks a token list; the first mismatch clears ok for good.
type matcher struct {
	toks []token
	i    int
	ok   bool
}

func (m *matcher) peek(op byte, imm uint32) bool {
	return m.i < len(m.toks) && m.toks[m.i].op == op && m.toks[m.i].imm == imm
}

func (m *matcher) want(op byte, imm uint32) {
	if !m.peek(op, imm) {
		m.ok = false
		return
	}
	m.i++
}

// any matches op with any immediate, and returns the immediate.
func (m *matcher) any(op byte) uint32 {
	if m.i >= len(m.toks) || m.toks[m.i].op != op {
		m.ok = false
		return 0
	}
	m.i++
	return m.toks[m.i-1].imm
}

func (m *matcher) oneOf(ops ...byte) {
	if m.i < len(m.toks) && bytes.IndexByte(ops, m.toks[m.i].op) >= 0 {
		m.i++
		return
	}
	m.ok = false
}

func (m *matcher) maybe(op byte) {
	if m.i < len(m.toks) && m.toks[m.i].op == op {
		m.i++
	}
}

func parseTypes(b []byte) ([]funcType, error) {
	count, n, ok := uleb(b)
	if !ok {
		return nil, ErrUninstrumentable
	}
	b = b[n:]
	out := make([]funcType, 0, count)
	for range count {
		if len(b) < 1 || b[0] != 0x60 {
			return nil, ErrUninstrumentable
		}
		b = b[1:]
		var vecs [2][]byte
		for j := range vecs {
			l, n, ok := uleb(b)
			if !ok || uint64(n)+uint64(l) > uint64(len(b)) {
				return nil, ErrUninstrumentable
			}
			vecs[j] = b[n : n+int(l)]
			b = b[n+int(l):]
		}
		out = append(out, funcType{vecs[0], vecs[1]})
	}
	return out, nil
}

func parseFuncTypes(b []byte) ([]uint32, error) {
	count, n, ok := uleb(b)
	if !ok {
		return nil, ErrUninstrumentable
	}
	b = b[n:]
	out := make([]uint32, 0, count)
	for range count {
		t, n, ok := uleb(b)
		if !ok {
			return nil, ErrUninstrumentable
		}
		out = append(out, t)
		b = b[n:]
	}
	return out, nil
}

func splitBodies(b []byte) ([][]byte, error) {
	count, n, ok := uleb(b)
	if !ok {
		return nil, ErrUninstrumentable
	}
	b = b[n:]
	out := make([][]byte, 0, count)
	for range count {
		size, n, ok := uleb(b)
		if !ok || uint64(n)+uint64(size) > uint64(len(b)) {
			return nil, ErrUninstrumentable
		}
		out = append(out, b[n:n+int(size)])
		b = b[n+int(size):]
	}
	if len(b) != 0 {
		return nil, ErrUninstrumentable
	}
	return out, nil
}

// sortedWrappers lists the imports with a wrapper, sorted.
func (p *forkPlan) sortedWrappers() []string {
	names := make([]string, 0, len(p.wrappers))
	for name := range p.wrappers {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
