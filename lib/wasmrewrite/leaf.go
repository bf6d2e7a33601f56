package wasmrewrite

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// Go's wasm backend gives a function the stack check that preemption
// relies on (wasmobj.go: SP <= g.stackguard0 calls runtime.morestack) only
// when it has a frame; a frameless function, which is what a small leaf
// compiles to, has none, so a window made only of calls to such functions
// could not be split. The leaf checks add to each of them the check the
// backend would have written, at the same place and with the same
// conventions, where Go itself would preempt asynchronously.

// Registers of Go's wasm ABI (cmd/internal/obj/wasm: SP is global 0, CTXT
// global 1, g global 2; a function's parameter 0 is PC_B).
const (
	goGlobalSP   = 0
	goGlobalCtxt = 1
)

var (
	// The start of every stack check the backend writes: local.get 1 (the
	// SP cache) or global.get SP; global.get g; i32.wrap_i64; i32.load
	// offset=16.
	patCheckCached = []byte{0x20, 0x01, 0x23, goGlobalG, 0xa7, 0x28, 0x02, GoOffStackguard0}
	patCheckSP     = []byte{0x23, goGlobalSP, 0x23, goGlobalG, 0xa7, 0x28, 0x02, GoOffStackguard0}
	// What the check does when it fires: SP -= 8, and the return address
	// written at SP, before the i64.const of the address.
	patPushReturn = []byte{0x04, 0x40, 0x20, 0x01, 0x41, 0x08, 0x6b, 0x22, 0x01, 0x24, goGlobalSP, 0x20, 0x01, 0x42}
	// global.get SP; local.set 1: the SP cache Go loads on entry.
	patSPCache = []byte{0x23, goGlobalSP, 0x21, 0x01}
)

// leafRuntime are the prefixes of the functions Go never preempts
// asynchronously whatever their tables say (runtime/preempt.go
// isAsyncSafePoint).
var leafRuntime = []string{"runtime.", "internal/runtime/", "reflect."}

// leafModule is what the leaf checks need to know about a module.
type leafModule struct {
	imported  uint32            // imported functions: the first function indices
	goABI     []bool            // by defined function: its type is Go's (i32) -> i32
	funcs     map[uint32]goFunc // by PC_F
	morestack [2]uint32         // function indices of runtime.morestack and morestack_noctxt
}

// addLeafChecks returns the code section with a stack check added at the
// entry of every function that qualifies (leafEligible), and how many got
// one. A module without a pclntab Go 1.20 or later wrote comes back
// unchanged; one whose stack checks are not laid out as leaf.go expects is
// an error.
func addLeafChecks(secs []section, imp imports) ([]byte, int, error) {
	var typeSec, funcSec, code, data []byte
	for _, s := range secs {
		switch s.id {
		case 1:
			typeSec = s.body
		case 3:
			funcSec = s.body
		case 10:
			code = s.body
		case 11:
			data = s.body
		}
	}
	m := &leafModule{imported: uint32(imp.funcs)}
	var err error
	if m.goABI, err = goABIFuncs(typeSec, funcSec); err != nil {
		return nil, 0, err
	}
	mem, err := memoryImage(data)
	if err != nil {
		return code, 0, nil
	}
	fns, err := readPclntab(mem, uint32(len(m.goABI)))
	if err != nil {
		return code, 0, nil
	}
	m.funcs = make(map[uint32]goFunc, len(fns))
	found := 0
	for _, f := range fns {
		m.funcs[f.pcf] = f
		for i, name := range []string{"runtime.morestack", "runtime.morestack_noctxt"} {
			if f.name == name {
				m.morestack[i] = m.imported + f.pcf - goFuncValueOffset
				found++
			}
		}
	}
	if found != 2 {
		return nil, 0, errors.New("preempt: the module's pclntab names no runtime.morestack and runtime.morestack_noctxt")
	}

	count, n, ok := uleb(code)
	if !ok || count != uint32(len(m.goABI)) {
		return nil, 0, ErrUninstrumentable
	}
	b := code[n:]
	out := appendUleb(make([]byte, 0, len(code)+len(code)/64), count)
	added, verified := 0, 0
	for i := uint32(0); i < count; i++ {
		size, n, ok := uleb(b)
		if !ok || len(b) < n+int(size) {
			return nil, 0, ErrUninstrumentable
		}
		fn := b[n : n+int(size)]
		b = b[n+int(size):]
		at, check, checked, err := m.leafCheck(i, fn)
		if err != nil {
			return nil, 0, err
		}
		if checked {
			verified++
		}
		if check == nil && at > 0 {
			fn = widenLargeCheck(fn, at)
		}
		if check != nil {
			added++
			fn = append(append(append([]byte(nil), fn[:at]...), check...), fn[at:]...)
		}
		out = appendUleb(out, uint32(len(fn)))
		out = append(out, fn...)
	}
	if verified == 0 {
		return nil, 0, errors.New("preempt: no function of the module has a stack check laid out as Go's wasm backend writes it")
	}
	return out, added, nil
}

// leafCheck returns, for defined function i, where its code for resume
// point 0 starts and the check to insert there, or nil. checked says that
// the function has Go's own check, whose return address and call were
// found to be what the inserted checks write.
func (m *leafModule) leafCheck(i uint32, fn []byte) (at int, check []byte, checked bool, err error) {
	pcf := goFuncValueOffset + i
	f, ok := m.funcs[pcf]
	if !ok || !m.goABI[i] {
		return 0, nil, false, nil
	}
	if at, ok = resumePointZero(fn); !ok {
		return 0, nil, false, nil
	}
	switch region := fn[at:]; {
	case bytes.HasPrefix(region, patCheckCached):
		return at, nil, true, m.verifyCheck(f, region)
	case bytes.HasPrefix(region, patCheckSP):
		return at, nil, false, nil
	}
	if !leafEligible(f) {
		return 0, nil, false, nil
	}
	ctxt, ok := readsGlobal(fn, goGlobalCtxt)
	if !ok {
		return 0, nil, false, nil
	}
	// A closure keeps its context (CTXT) across the preemption; any other
	// function must not leave a stale one in g.sched.ctxt for the
	// collector to scan, which is why Go has morestack_noctxt.
	target := m.morestack[1]
	if ctxt {
		target = m.morestack[0]
	}
	return at, leafCheckCode(pcf, target), false, nil
}

// leafEligible says whether Go would preempt f asynchronously at its
// entry and the backend gave it no stack check: a frameless Go function
// (not assembly) with the pointer maps a stopped frame is scanned with,
// not marked unsafe there, and not part of the runtime.
func leafEligible(f goFunc) bool {
	if f.maxSPDelta != 0 || f.flag&goFuncFlagAsm != 0 || f.unsafeAtEntry || !f.localsMap || (f.args > 0 && !f.argsMap) {
		return false
	}
	for _, p := range leafRuntime {
		if strings.HasPrefix(f.name, p) {
			return false
		}
	}
	return true
}

// verifyCheck checks that a stack check the backend wrote pushes the
// return address (PC_F<<16 | PC_B) of its own function and calls
// runtime.morestack or morestack_noctxt, as the inserted checks do.
func (m *leafModule) verifyCheck(f goFunc, region []byte) error {
	bad := fmt.Errorf("preempt: the stack check of %s is not laid out as Go's wasm backend writes it", f.name)
	p := len(patCheckCached)
	if bytes.HasPrefix(region[p:], []byte{0x41}) { // a large frame: i32.const; i32.add
		_, n, ok := sleb32(region[p+1:])
		if !ok || len(region) <= p+1+n || region[p+1+n] != 0x6a {
			return bad
		}
		p += 1 + n + 1
	}
	if !bytes.HasPrefix(region[p:], []byte{0x4d}) || !bytes.HasPrefix(region[p+1:], patPushReturn) {
		return bad
	}
	p += 1 + len(patPushReturn)
	pc, n, ok := sleb64(region[p:])
	if !ok || uint64(pc)>>16 != uint64(f.pcf) {
		return bad
	}
	p += n
	if !bytes.HasPrefix(region[p:], []byte{0x37, 0x03, 0x00, 0x41, 0x00, 0x10}) {
		return bad
	}
	callee, _, ok := uleb(region[p+6:])
	if !ok || (callee != m.morestack[0] && callee != m.morestack[1]) {
		return bad
	}
	return nil
}

// leafCheckCode is the stack check of function pcf, as the backend writes
// it for a frameless function: if SP <= g.stackguard0, push the return
// address of the function's entry (PC_B 0, so that the function starts
// over when the goroutine resumes) and call morestack, which never returns
// but unwinds the wasm stack (the call returns 1, and so does the
// function).
func leafCheckCode(pcf, morestack uint32) []byte {
	c := []byte{0x23, goGlobalSP, 0x23, goGlobalG, 0xa7, 0x28, 0x02, GoOffStackguard0, 0x4d, 0x04, 0x40}
	c = append(c, 0x23, goGlobalSP, 0x41, 0x08, 0x6b, 0x24, goGlobalSP) // SP -= 8
	c = append(c, 0x23, goGlobalSP, 0x42)
	c = appendSleb64(c, int64(pcf)<<16)
	c = append(c, 0x37, 0x03, 0x00) // i64.store align=3 offset=0
	c = append(c, 0x41, 0x00, 0x10) // PC_B 0; call
	c = appendUleb(c, morestack)
	c = append(c, 0x04, 0x40, 0x41, 0x01, 0x0f, 0x0b) // if: return 1 (unwind)
	return append(c, 0x00, 0x0b)                      // unreachable: morestack never returns 0
}

// resumePointZero returns where a Go function's code for PC_B 0 starts:
// after the SP cache, the blocks the backend opens (the unwind block, the
// entry loop, one per resume point) and the br_table on PC_B that closes
// the first of them. A body of any other shape returns false.
func resumePointZero(fn []byte) (int, bool) {
	p, ok := skipLocals(fn)
	if !ok {
		return 0, false
	}
	if bytes.HasPrefix(fn[p:], patSPCache) {
		p += len(patSPCache)
	}
	blocks := 0
	for p+1 < len(fn) && (fn[p] == 0x02 || fn[p] == 0x03) && fn[p+1] == 0x40 {
		p += 2
		blocks++
	}
	if blocks < 2 || !bytes.HasPrefix(fn[p:], []byte{0x20, 0x00, 0x0e}) {
		return 0, false
	}
	// PC_B 0 must branch to the innermost block, whose end is where the
	// code for resume point 0 starts.
	if labels, n, ok := uleb(fn[p+3:]); !ok || labels == 0 || p+3+n >= len(fn) || fn[p+3+n] != 0x00 {
		return 0, false
	}
	if p, ok = instrEnd(fn, p+2); !ok || p >= len(fn) || fn[p] != 0x0b {
		return 0, false
	}
	return p + 1, true
}

// readsGlobal reports whether a function body contains global.get idx; the
// second result is false for a body the decoder does not understand.
func readsGlobal(fn []byte, idx uint32) (bool, bool) {
	p, ok := skipLocals(fn)
	if !ok {
		return false, false
	}
	for p < len(fn) {
		op := fn[p]
		end, ok := instrEnd(fn, p)
		if !ok {
			return false, false
		}
		if op == 0x23 {
			if g, _, ok := uleb(fn[p+1:]); ok && g == idx {
				return true, true
			}
		}
		p = end
	}
	return false, true
}

// goABIFuncs reports, for every function the module defines, whether its
// type is the one Go gives its own functions: one i32 parameter (PC_B),
// one i32 result (whether the wasm stack unwinds).
func goABIFuncs(typeSec, funcSec []byte) ([]bool, error) {
	count, n, ok := uleb(typeSec)
	if !ok {
		return nil, ErrUninstrumentable
	}
	b := typeSec[n:]
	goType := make([]bool, count)
	for i := range goType {
		if len(b) < 1 || b[0] != 0x60 {
			return nil, ErrUninstrumentable
		}
		var vecs [2][]byte
		b = b[1:]
		for j := range vecs {
			c, n, ok := uleb(b)
			if !ok || len(b) < n+int(c) {
				return nil, ErrUninstrumentable
			}
			vecs[j] = b[n : n+int(c)]
			b = b[n+int(c):]
		}
		goType[i] = string(vecs[0]) == "\x7f" && string(vecs[1]) == "\x7f"
	}
	count, n, ok = uleb(funcSec)
	if !ok {
		return nil, ErrUninstrumentable
	}
	b = funcSec[n:]
	out := make([]bool, count)
	for i := range out {
		t, n, ok := uleb(b)
		if !ok || t >= uint32(len(goType)) {
			return nil, ErrUninstrumentable
		}
		out[i] = goType[t]
		b = b[n:]
	}
	return out, nil
}

func sleb64(b []byte) (int64, int, bool) {
	var v int64
	for i := 0; i < len(b) && i < 10; i++ {
		v |= int64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			if b[i]&0x40 != 0 && i < 9 {
				v |= -1 << (7 * (i + 1))
			}
			return v, i + 1, true
		}
	}
	return 0, 0, false
}

func appendSleb64(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// widenLargeCheck rewrites the stack check of a function with a large
// frame, which the backend writes as SP <= stackguard0+(framesize-StackSmall)
// in i32 (wasmobj.go: "TODO(neelance): handle wraparound case"). With
// stackguard0 = stackPreempt (0xfffffade in its low 32 bits) that sum wraps
// for any frame over about 1.4KB, the check passes, and the function takes
// its frame below the end of its stack without growing it. The rewritten
// check computes the same comparison in i64, where it cannot wrap. Any
// other body comes back unchanged.
func widenLargeCheck(fn []byte, at int) []byte {
	region := fn[at:]
	var sp []byte
	switch {
	case bytes.HasPrefix(region, patCheckCached):
		sp = patCheckCached[:2]
	case bytes.HasPrefix(region, patCheckSP):
		sp = patCheckSP[:2]
	default:
		return fn
	}
	p := len(patCheckCached)
	if len(region) <= p || region[p] != 0x41 {
		return fn // a small frame: SP <= stackguard0 cannot wrap
	}
	delta, n, ok := sleb32(region[p+1:])
	if !ok || len(region) <= p+1+n+1 || region[p+1+n] != 0x6a || region[p+1+n+1] != 0x4d {
		return fn
	}
	end := at + p + 1 + n + 2 // through i32.add; i32.le_u
	c := append([]byte(nil), sp...)
	c = append(c, 0xad)                                                      // i64.extend_i32_u
	c = append(c, 0x23, goGlobalG, 0xa7, 0x28, 0x02, GoOffStackguard0, 0xad) // stackguard0, as i64
	c = append(c, 0x42)
	c = appendSleb64(c, int64(uint32(delta))) // i64.const framesize-StackSmall
	c = append(c, 0x7c, 0x58)                 // i64.add; i64.le_u
	out := make([]byte, 0, len(fn)+len(c))
	out = append(out, fn[:at]...)
	out = append(out, c...)
	return append(out, fn[end:]...)
}
