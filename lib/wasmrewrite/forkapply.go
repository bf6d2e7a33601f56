package wasmrewrite

import (
	"bytes"
	"errors"
	"fmt"
)

// forkFlags say what the other rewrites added to the module the fork
// rewrite is applied to.
type forkFlags struct {
	loops, preempt, preemptLoops bool
}

// apply adds the fork exports to bin, the module planFork planned from
// after the loop ticks and call counting were added (which add globals and
// code but renumber no function): a global that wasm_pc_f_loop sets to SP
// before each dispatch, the function sf.reenter, the exports, and the
// sf.fork section.
func (p *forkPlan) apply(bin []byte, f forkFlags) ([]byte, error) {
	secs, err := splitSections(bin)
	if err != nil {
		return nil, err
	}
	at := map[byte]int{}
	for i, s := range secs {
		at[s.id] = i
	}
	for _, id := range []byte{1, 3, 6, 7, 10} {
		if _, ok := at[id]; !ok {
			return nil, fmt.Errorf("cannot fork: the prepared module lost section %d", id)
		}
	}
	globals := uint32(len(GoGlobals))
	if f.loops {
		globals++
	}
	if f.preempt {
		globals++
	}
	count, n, _ := uleb(secs[at[6]].body)
	if count != globals {
		return nil, fmt.Errorf("cannot fork: the prepared module has %d globals, want %d", count, globals)
	}
	dispatchSP := count
	g := appendUleb(nil, count+1)
	g = append(g, secs[at[6]].body[n:]...)
	secs[at[6]].body = append(g, 0x7f, 0x01, 0x41, 0x00, 0x0b)

	types, err := parseTypes(secs[at[1]].body)
	if err != nil {
		return nil, err
	}
	thunkType := uint32(len(types))
	for i, t := range types {
		if len(t.params) == 0 && bytes.Equal(t.results, []byte{0x7f}) {
			thunkType = uint32(i)
		}
	}
	if thunkType == uint32(len(types)) {
		secs[at[1]].body = appendVec(secs[at[1]].body, []byte{0x60, 0x00, 0x01, 0x7f})
	}
	secs[at[3]].body = appendVec(secs[at[3]].body, appendUleb(nil, thunkType))
	reenter := p.imports + p.defined

	code, err := p.recordDispatch(secs[at[10]].body, dispatchSP)
	if err != nil {
		return nil, err
	}
	thunk := append([]byte{0x00}, pcfDispatch...)
	thunk = append(thunk, 0x0b)
	secs[at[10]].body = appendVec(code, append(appendUleb(nil, uint32(len(thunk))), thunk...))

	exp := secs[at[7]].body
	if f.preempt {
		if _, err := exportedIndex(exp, ExportPreemptCounter, 3); err != nil {
			return nil, errors.New("cannot fork: the preempting module does not export its countdown")
		}
	}
	for i, name := range GoGlobals {
		exp = appendExport(exp, ExportGoPrefix+name, 3, uint32(i))
	}
	if f.loops {
		exp = appendExport(exp, ExportLoopCountdown, 3, uint32(len(GoGlobals)))
	}
	exp = appendExport(exp, ExportDispatchSP, 3, dispatchSP)
	exp = appendExport(exp, ExportPCFLoop, 0, p.pcfLoop)
	exp = appendExport(exp, ExportReenter, 0, reenter)
	for _, name := range p.sortedWrappers() {
		exp = appendExport(exp, ExportImportPrefix+name, 0, p.wrappers[name])
	}
	secs[at[7]].body = exp

	info := []byte{forkVersion, flagBits(f)}
	info = appendUleb(info, p.defined)
	info = append(info, p.reentry...)
	return appendCustom(joinSections(bin[:8], secs), forkSection, info), nil
}

func flagBits(f forkFlags) byte {
	var b byte
	if f.loops {
		b |= 1
	}
	if f.preempt {
		b |= 2
	}
	if f.preemptLoops {
		b |= 4
	}
	return b
}

// recordDispatch returns the code section with wasm_pc_f_loop setting the
// global sp to SP before every dispatch.
func (p *forkPlan) recordDispatch(code []byte, sp uint32) ([]byte, error) {
	bodies, err := splitBodies(code)
	if err != nil || uint32(len(bodies)) != p.defined {
		return nil, errors.New("cannot fork: the prepared module's code section changed its functions")
	}
	i := p.pcfLoop - p.imports
	body := bodies[i]
	if bytes.Count(body, pcfDispatch) != 1 {
		return nil, errors.New("cannot fork: wasm_pc_f_loop's dispatch is not where it was")
	}
	at := bytes.Index(body, pcfDispatch)
	rec := append([]byte{0x23, 0x00, 0x24}, appendUleb(nil, sp)...) // global.get SP; global.set sp
	bodies[i] = concat(body[:at], rec, body[at:])
	out := appendUleb(nil, uint32(len(bodies)))
	for _, b := range bodies {
		out = appendUleb(out, uint32(len(b)))
		out = append(out, b...)
	}
	return out, nil
}

// appendVec adds one encoded element to a section that is a vector.
func appendVec(b, elem []byte) []byte {
	count, n, _ := uleb(b)
	out := appendUleb(nil, count+1)
	out = append(out, b[n:]...)
	return append(out, elem...)
}

func appendExport(b []byte, name string, kind byte, idx uint32) []byte {
	e := appendUleb(nil, uint32(len(name)))
	e = append(e, name...)
	e = append(e, kind)
	return appendVec(b, appendUleb(e, idx))
}

// exportedIndex returns the index exported as name with kind.
func exportedIndex(b []byte, name string, kind byte) (uint32, error) {
	count, n, ok := uleb(b)
	if !ok {
		return 0, ErrUninstrumentable
	}
	b = b[n:]
	for range count {
		l, n, ok := uleb(b)
		if !ok || uint64(n)+uint64(l)+1 > uint64(len(b)) {
			return 0, ErrUninstrumentable
		}
		got, k := string(b[n:n+int(l)]), b[n+int(l)]
		b = b[n+int(l)+1:]
		idx, n, ok := uleb(b)
		if !ok {
			return 0, ErrUninstrumentable
		}
		b = b[n:]
		if got == name && k == kind {
			return idx, nil
		}
	}
	return 0, fmt.Errorf("no export %s", name)
}
