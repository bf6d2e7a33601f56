package wasmrewrite

import (
	"bytes"
	"errors"
	"fmt"
)

// loopTickEvery is how many loop iterations a guest runs between two calls
// to sched_yield that the instrumentation adds.
const loopTickEvery = 1 << 16

// InstrumentLoops adds a countdown at the head of every loop of a module:
// every loopTickEvery iterations the guest calls sched_yield, a host
// function. Compiled wasm that makes no host calls can be neither
// preempted by Go's scheduler nor stopped for its collector, so without
// these calls one busy-looping guest would hold a thread forever and hang
// the whole sweep at the next collection. In the host call the goroutine is
// ordinary Go again, and the host checks the watchdog there. Go's wasm
// backend turns every function into a loop with a dispatch table, so every
// backward jump of a Go program passes a loop head. The countdown is a few
// instructions per iteration, far cheaper than wazero's
// close-on-context-done instrumentation. Iteration counts are deterministic,
// so the added calls are too. A module that does not import sched_yield, or
// that the rewriter does not understand, is returned unchanged with ok false:
// the watchdog can then only abandon it.
func InstrumentLoops(bin []byte) (out []byte, ok bool) {
	res, err := Rewrite(bin, Mode{})
	if err != nil {
		return bin, false
	}
	return res, true
}

// Mode says what the rewriter counts besides the loop ticks.
type Mode struct {
	// preempt counts every function entry down on the preemption counter
	// (preempt.go), and loops counts every loop iteration on it too.
	Preempt, Loops bool
	// noLeafChecks leaves out the stack checks preempt adds to frameless
	// functions (leaf.go), so that a benchmark can measure what they cost.
	noLeafChecks bool
}

// Names under which a preempting module exports the preemption countdown
// and Go's g register, so that the host can reload the one and find the
// running goroutine through the other.
const (
	ExportPreemptCounter = "sf.preempt_countdown"
	ExportG              = "sf.g"
)

// Layout of Go's wasm runtime that preemption relies on. The wasm backend
// (cmd/internal/obj/wasm) keeps the g register in global 2, as an i64, and
// every function that may grow its stack compares SP with g.stackguard0,
// loaded as an i32 at offset 16 of g. runtime.morestack reads g.m at offset
// 48, and g0 is the first field of m. A module whose code does not contain
// both loads is refused rather than written to at the wrong place.
const (
	goGlobalG        = 2
	GoOffStackguard0 = 16
	GoOffM           = 48
	GoOffG0          = 0
	GoStackPreempt   = 0xfffffffffffffade // runtime/stack.go stackPreempt on a 64-bit uintptr
)

var (
	// global.get 2; i32.wrap_i64; i32.load align=2 offset=16
	patStackguard0 = []byte{0x23, goGlobalG, 0xa7, 0x28, 0x02, GoOffStackguard0}
	// global.get 2; i32.wrap_i64; i64.load align=3 offset=48
	patGM = []byte{0x23, goGlobalG, 0xa7, 0x29, 0x03, GoOffM}
)

var ErrUninstrumentable = errors.New("module cannot be instrumented")

type section struct {
	id   byte
	body []byte
}

func splitSections(bin []byte) ([]section, error) {
	if len(bin) < 8 || string(bin[:4]) != "\x00asm" {
		return nil, ErrUninstrumentable
	}
	var secs []section
	pos := 8
	for pos < len(bin) {
		id := bin[pos]
		size, n, ok := uleb(bin[pos+1:])
		if !ok {
			return nil, ErrUninstrumentable
		}
		start := pos + 1 + n
		end := start + int(size)
		if end > len(bin) {
			return nil, ErrUninstrumentable
		}
		secs = append(secs, section{id, bin[start:end]})
		pos = end
	}
	return secs, nil
}

func joinSections(header []byte, secs []section) []byte {
	out := append([]byte(nil), header...)
	for _, s := range secs {
		out = append(out, s.id)
		out = appendUleb(out, uint32(len(s.body)))
		out = append(out, s.body...)
	}
	return out
}

// Rewrite returns bin with the loop ticks added, and with mode.Preempt the
// call counting and its exports too. It refuses (ErrUninstrumentable, or an
// error that says which assumption failed) a module it does not understand.
func Rewrite(bin []byte, mode Mode) ([]byte, error) {
	secs, err := splitSections(bin)
	if err != nil {
		return nil, err
	}
	var imp imports
	globalsAt, codeAt, exportsAt := -1, -1, -1
	var definedGlobals uint32
	for i, s := range secs {
		switch s.id {
		case 2:
			if imp, err = parseImports(s.body); err != nil {
				return nil, err
			}
		case 6:
			globalsAt = i
			c, _, ok := uleb(s.body)
			if !ok {
				return nil, ErrUninstrumentable
			}
			definedGlobals = c
		case 7:
			exportsAt = i
		case 10:
			codeAt = i
		}
	}
	if globalsAt < 0 || codeAt < 0 || imp.schedYield < 0 {
		return nil, ErrUninstrumentable
	}
	counter := imp.globals + definedGlobals
	preemptCounter := counter + 1

	if mode.Preempt {
		if exportsAt < 0 || imp.globals != 0 {
			return nil, errors.New("preempt: the module is not laid out as Go's wasm backend lays it out (no exports, or imported globals)")
		}
		if t, err := globalType(secs[globalsAt].body, goGlobalG); err != nil || t != 0x7e {
			return nil, errors.New("preempt: global 2 of the module is not Go's g register (an i64)")
		}
		code := secs[codeAt].body
		if !bytes.Contains(code, patStackguard0) || !bytes.Contains(code, patGM) {
			return nil, fmt.Errorf("preempt: the module's code never loads g.stackguard0 at offset %d or g.m at offset %d: it was not built by a Go release whose runtime layout sf knows", GoOffStackguard0, GoOffM)
		}
	}

	// Globals: the loop countdown, a mutable i32, and with preempt the
	// preemption countdown, which starts at 1 so that the first counted call
	// asks the host for its real value.
	g := secs[globalsAt].body
	_, n, _ := uleb(g)
	added := uint32(1)
	if mode.Preempt {
		added = 2
	}
	ng := appendUleb(nil, definedGlobals+added)
	ng = append(ng, g[n:]...)
	ng = append(ng, 0x7f, 0x01, 0x41)
	ng = appendSleb32(ng, loopTickEvery)
	ng = append(ng, 0x0b)
	if mode.Preempt {
		ng = append(ng, 0x7f, 0x01, 0x41, 0x01, 0x0b)
	}
	secs[globalsAt].body = ng

	var check []byte
	check = append(check, 0x23)
	check = appendUleb(check, counter) // global.get
	check = append(check, 0x41, 0x01, 0x6b, 0x24)
	check = appendUleb(check, counter) // i32.const 1, i32.sub, global.set
	check = append(check, 0x23)
	check = appendUleb(check, counter)
	check = append(check, 0x45, 0x04, 0x40, 0x41) // i32.eqz, if, i32.const
	check = appendSleb32(check, loopTickEvery)
	check = append(check, 0x24)
	check = appendUleb(check, counter)
	check = append(check, 0x10)
	check = appendUleb(check, uint32(imp.schedYield))
	check = append(check, 0x1a, 0x0b) // drop, end

	var entry []byte
	if mode.Preempt && !mode.noLeafChecks {
		leaf, _, err := addLeafChecks(secs, imp)
		if err != nil {
			return nil, err
		}
		secs[codeAt].body = leaf
	}
	if mode.Preempt {
		// Count down; at zero call sched_yield with the counter left at 0,
		// which is how the host tells this call from a loop tick.
		entry = append(entry, 0x23)
		entry = appendUleb(entry, preemptCounter)
		entry = append(entry, 0x41, 0x01, 0x6b, 0x24)
		entry = appendUleb(entry, preemptCounter)
		entry = append(entry, 0x23)
		entry = appendUleb(entry, preemptCounter)
		entry = append(entry, 0x45, 0x04, 0x40, 0x10)
		entry = appendUleb(entry, uint32(imp.schedYield))
		entry = append(entry, 0x1a, 0x0b)
		if mode.Loops {
			check = append(check, entry...)
		}
		e, err := addExports(secs[exportsAt].body, preemptCounter)
		if err != nil {
			return nil, err
		}
		secs[exportsAt].body = e
	}
	code, err := instrumentCode(secs[codeAt].body, entry, check)
	if err != nil {
		return nil, err
	}
	secs[codeAt].body = code
	return joinSections(bin[:8], secs), nil
}

// globalType returns the value type of defined global idx.
func globalType(b []byte, idx uint32) (byte, error) {
	count, n, ok := uleb(b)
	if !ok || idx >= count {
		return 0, ErrUninstrumentable
	}
	b = b[n:]
	for i := uint32(0); ; i++ {
		if len(b) < 3 {
			return 0, ErrUninstrumentable
		}
		t := b[0]
		if i == idx {
			return t, nil
		}
		b = b[2:]
		// A constant expression: one instruction, then end.
		switch op := b[0]; op {
		case 0x41, 0x42, 0x23:
			_, n, ok := uleb(b[1:])
			if !ok {
				return 0, ErrUninstrumentable
			}
			b = b[1+n:]
		case 0x43:
			b = b[min(5, len(b)):]
		case 0x44:
			b = b[min(9, len(b)):]
		default:
			return 0, ErrUninstrumentable
		}
		if len(b) < 1 || b[0] != 0x0b {
			return 0, ErrUninstrumentable
		}
		b = b[1:]
	}
}

// addExports appends the exports of the preemption countdown and of Go's g
// register to an export section.
func addExports(b []byte, counter uint32) ([]byte, error) {
	count, n, ok := uleb(b)
	if !ok {
		return nil, ErrUninstrumentable
	}
	out := appendUleb(nil, count+2)
	out = append(out, b[n:]...)
	for _, e := range []struct {
		name string
		idx  uint32
	}{{ExportPreemptCounter, counter}, {ExportG, goGlobalG}} {
		out = appendUleb(out, uint32(len(e.name)))
		out = append(out, e.name...)
		out = append(out, 0x03) // global
		out = appendUleb(out, e.idx)
	}
	return out, nil
}

type imports struct {
	globals, memories uint32
	funcs             int64
	schedYield        int64 // function index of wasi_snapshot_preview1.sched_yield, or -1
	// clocks are the function indices of
	// wasi_snapshot_preview1.clock_time_get (a program may declare the
	// import besides Go's runtime), and clockTypes their type indices.
	clocks, clockTypes []uint32
	// names are the imported functions' module.name, by function index.
	names []string
}

func parseImports(b []byte) (imports, error) {
	imp := imports{schedYield: -1}
	count, n, ok := uleb(b)
	if !ok {
		return imp, ErrUninstrumentable
	}
	b = b[n:]
	var funcs int64
	for i := uint32(0); i < count; i++ {
		var names [2]string
		for j := 0; j < 2; j++ {
			l, n, ok := uleb(b)
			if !ok || len(b) < n+int(l) {
				return imp, ErrUninstrumentable
			}
			names[j] = string(b[n : n+int(l)])
			b = b[n+int(l):]
		}
		if len(b) < 1 {
			return imp, ErrUninstrumentable
		}
		kind := b[0]
		b = b[1:]
		switch kind {
		case 0: // function: type index
			t, n, ok := uleb(b)
			if !ok {
				return imp, ErrUninstrumentable
			}
			b = b[n:]
			if names[0] == "wasi_snapshot_preview1" && names[1] == "sched_yield" {
				imp.schedYield = funcs
			}
			if names[0] == "wasi_snapshot_preview1" && names[1] == "clock_time_get" {
				imp.clocks, imp.clockTypes = append(imp.clocks, uint32(funcs)), append(imp.clockTypes, t)
			}
			imp.names = append(imp.names, names[0]+"."+names[1])
			funcs++
		case 1: // table: reftype, limits
			if len(b) < 1 {
				return imp, ErrUninstrumentable
			}
			var err error
			if b, err = skipLimits(b[1:]); err != nil {
				return imp, err
			}
		case 2: // memory: limits
			var err error
			if b, err = skipLimits(b); err != nil {
				return imp, err
			}
			imp.memories++
		case 3: // global: valtype, mutability
			if len(b) < 2 {
				return imp, ErrUninstrumentable
			}
			b = b[2:]
			imp.globals++
		default:
			return imp, ErrUninstrumentable
		}
	}
	imp.funcs = funcs
	return imp, nil
}

func skipLimits(b []byte) ([]byte, error) {
	if len(b) < 1 {
		return nil, ErrUninstrumentable
	}
	flag := b[0]
	b = b[1:]
	nums := 1
	if flag&1 != 0 {
		nums = 2
	}
	for i := 0; i < nums; i++ {
		_, n, ok := uleb(b)
		if !ok {
			return nil, ErrUninstrumentable
		}
		b = b[n:]
	}
	return b, nil
}

func instrumentCode(b []byte, entry, check []byte) ([]byte, error) {
	count, n, ok := uleb(b)
	if !ok {
		return nil, ErrUninstrumentable
	}
	b = b[n:]
	out := appendUleb(make([]byte, 0, len(b)+len(b)/8), count)
	body := make([]byte, 0, 1<<16)
	for i := uint32(0); i < count; i++ {
		size, n, ok := uleb(b)
		if !ok || len(b) < n+int(size) {
			return nil, ErrUninstrumentable
		}
		fn := b[n : n+int(size)]
		b = b[n+int(size):]
		var err error
		body, err = instrumentBody(body[:0], fn, entry, check)
		if err != nil {
			return nil, err
		}
		out = appendUleb(out, uint32(len(body)))
		out = append(out, body...)
	}
	if len(b) != 0 {
		return nil, ErrUninstrumentable
	}
	return out, nil
}

// instrumentBody copies one function body, inserting entry after its locals
// and check after the block type of every loop instruction.
func instrumentBody(out, fn, entry, check []byte) ([]byte, error) {
	p, ok := skipLocals(fn)
	if !ok {
		return nil, ErrUninstrumentable
	}
	out = append(out, fn[:p]...)
	out = append(out, entry...)
	last := p
	for p < len(fn) {
		op := fn[p]
		if p, ok = instrEnd(fn, p); !ok {
			return nil, ErrUninstrumentable
		}
		if op == 0x03 {
			out = append(out, fn[last:p]...)
			out = append(out, check...)
			last = p
		}
	}
	return append(out, fn[last:]...), nil
}

// IsModule reports whether bin has the shape of a WebAssembly binary: the
// magic number, version 1 and well-formed sections.
func IsModule(bin []byte) bool {
	_, err := splitSections(bin)
	return err == nil
}
