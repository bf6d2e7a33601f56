package wasmrewrite

import (
	"bytes"
	"errors"
)

// A Go wasip1 guest can be copied while it waits inside a host call and
// resumed in a fresh instance of the same module: its whole state is its
// linear memory and eight globals, and Go's runtime keeps every frame's
// return address on the Go stack in memory, so that its dispatch loop,
// wasm_pc_f_loop, can go on without the wasm stack. The fork rewrite exports
// what that needs: Go's globals, wasm_pc_f_loop, the wrapper of every
// imported function that Go declares with a wasmimport directive (calling
// it again re-reads the arguments from the Go stack and repeats the host
// call), and a function that re-enters the
// frame whose return address is on top of the Go stack. It also records, in
// a global of its own, the Go stack pointer at which wasm_pc_f_loop last
// dispatched, which tells a resumed guest which frames it returns into were
// on the wasm stack when it was copied (the engine counts those re-entries
// out of the loop ticks, which would otherwise see loop heads the
// uninterrupted guest never passed). The layout it relies on is Go's own
// and is checked against every module: a module that differs keeps running
// as before and cannot fork (ReadForkInfo says why).

// Export names of a module prepared for forking.
const (
	// ExportGoPrefix names Go's globals (ExportGoPrefix+"SP", ...) and
	// ExportPCFLoop its dispatch loop.
	ExportGoPrefix = "sf.go."
	ExportPCFLoop  = ExportGoPrefix + "wasm_pc_f_loop"
	// ExportImportPrefix + module + "." + name is the wrapper through which
	// Go calls the import module.name.
	ExportImportPrefix = "sf.import."
	// ExportReenter calls the function whose return address is at -8(SP)
	// at its resume point, once, as wasm_pc_f_loop's body does, and
	// returns what it returned (1 when it unwound the wasm stack).
	ExportReenter = "sf.reenter"
	// ExportLoopCountdown is the loop ticks' countdown, and
	// ExportDispatchSP the Go stack pointer of wasm_pc_f_loop's last
	// dispatch.
	ExportLoopCountdown = "sf.loop_countdown"
	ExportDispatchSP    = "sf.dispatch_sp"
)

// GoGlobals are the globals Go's wasm linker defines, in its order
// (cmd/link/internal/wasm: writeGlobalSec): the stack pointer, the closure
// context, the g register, four return registers and the pause flag.
var GoGlobals = []string{"SP", "CTXT", "g", "RET0", "RET1", "RET2", "RET3", "PAUSE"}

// goGlobalTypes are their value types, and GoFuncValueOffset what Go adds
// to a function's index to make its PC_F (the table index a return address
// holds in its upper bits).
var goGlobalTypes = []byte{0x7f, 0x7e, 0x7e, 0x7e, 0x7e, 0x7e, 0x7e, 0x7f}

const GoFuncValueOffset = 0x1000

// pcfLoopBody is wasm_pc_f_loop's code (runtime/asm_wasm.s), after its
// empty locals: while PAUSE is 0, call the function at PC_F -8(SP) with
// PC_B -6(SP). pcfDispatch is the part that reads and calls.
var (
	pcfDispatch = []byte{
		0x23, 0x00, 0x41, 0x08, 0x6b, 0x2f, 0x01, 0x00, // SP-8, i32.load16_u: PC_B
		0x23, 0x00, 0x41, 0x08, 0x6b, 0x28, 0x02, 0x02, // SP-8, i32.load offset 2: PC_F
		0x11, 0x00, 0x00, // call_indirect type 0, table 0
	}
	pcfLoopBody = concat([]byte{0x00, 0x23, 0x07, 0x45, 0x04, 0x40, 0x03, 0x40}, pcfDispatch,
		[]byte{0x1a, 0x23, 0x07, 0x45, 0x0d, 0x00, 0x0b, 0x0b, 0x41, 0x00, 0x24, 0x07, 0x0f, 0x00, 0x0b})
)

// Custom sections: forkSection holds ForkInfo; noForkSection the reason a
// module cannot fork.
const (
	forkSection   = "sf.fork"
	noForkSection = "sf.nofork"
	forkVersion   = 1
)

// ForkInfo is what the engine needs to copy and resume a guest of a module
// prepared for forking.
type ForkInfo struct {
	// Loops says the module has the loop ticks, Preempt that it counts
	// function entries for preemption, and PreemptLoops loop heads too.
	Loops, Preempt, PreemptLoops bool
	// reentryLoop has a bit per defined function: re-entered at a resume
	// point, the function passes one loop head (its entry-point loop)
	// before it gets there.
	reentryLoop []byte
	defined     uint32
}

// Globals are the exports of every global a guest's image saves, in the
// order it saves them.
func (f *ForkInfo) Globals() []string {
	out := make([]string, 0, len(GoGlobals)+3)
	for _, g := range GoGlobals {
		out = append(out, ExportGoPrefix+g)
	}
	if f.Loops {
		out = append(out, ExportLoopCountdown)
	}
	if f.Preempt {
		out = append(out, ExportPreemptCounter)
	}
	return append(out, ExportDispatchSP)
}

// ReentryLoop reports whether the function with table index pcf (a PC_F)
// passes a loop head when re-entered at a resume point, and false with ok
// false for an index that names no function of the module.
func (f *ForkInfo) ReentryLoop(pcf uint32) (loop, ok bool) {
	i := pcf - GoFuncValueOffset
	if pcf < GoFuncValueOffset || i >= f.defined {
		return false, false
	}
	return f.reentryLoop[i/8]&(1<<(i%8)) != 0, true
}

// ReadForkInfo returns the ForkInfo of a prepared module, or the error that
// says why it cannot fork.
func ReadForkInfo(bin []byte) (*ForkInfo, error) {
	secs, err := splitSections(bin)
	if err != nil {
		return nil, errors.New("not a WebAssembly module")
	}
	for _, s := range secs {
		if s.id != 0 {
			continue
		}
		name, body, ok := customSection(s.body)
		switch {
		case !ok:
		case name == noForkSection:
			return nil, errors.New(string(body))
		case name == forkSection:
			return decodeForkInfo(body)
		}
	}
	return nil, errors.New("the module was not prepared for forking (prepare it with this version of sf)")
}

func decodeForkInfo(b []byte) (*ForkInfo, error) {
	bad := errors.New("its fork section is damaged")
	if len(b) < 2 || b[0] != forkVersion {
		return nil, bad
	}
	f := &ForkInfo{Loops: b[1]&1 != 0, Preempt: b[1]&2 != 0, PreemptLoops: b[1]&4 != 0}
	n, k, ok := uleb(b[2:])
	if !ok || len(b[2+k:]) != int((n+7)/8) {
		return nil, bad
	}
	f.defined, f.reentryLoop = n, b[2+k:]
	return f, nil
}

func customSection(b []byte) (name string, body []byte, ok bool) {
	l, n, ok := uleb(b)
	if !ok || uint64(n)+uint64(l) > uint64(len(b)) {
		return "", nil, false
	}
	return string(b[n : n+int(l)]), b[n+int(l):], true
}

func appendCustom(bin []byte, name string, body []byte) []byte {
	payload := appendUleb(nil, uint32(len(name)))
	payload = append(payload, name...)
	payload = append(payload, body...)
	out := append(bytes.Clone(bin), 0)
	out = appendUleb(out, uint32(len(payload)))
	return append(out, payload...)
}

func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
