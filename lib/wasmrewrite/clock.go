package wasmrewrite

import (
	"bytes"
	"errors"
	"slices"
)

// Go's runtime reads the clock around nearly every scheduling decision, and
// each read was a host call: half of what the examples' guests call, each
// paying wazero's way out of compiled code and back for a body that writes
// eight bytes. Virtual time stands still while a guest runs between two
// host calls, so the clock rewrite answers those reads inside the guest,
// from values the host writes into its memory whenever a host call returns.
// The host still counts every read in the determinism hash, in order and
// with the same words, at the guest's next host call: the guest notes how
// many reads it answered and of which clock.
//
// The reads go through a function the rewrite adds, with clock_time_get's
// own signature, to which every call of the import is redirected. It
// answers the realtime and monotonic clocks (ids 0 and 1, all Go asks for)
// while the host has switched it on, and calls the import for anything
// else: another clock, an address outside the memory, a read past
// ClockReadsMax since the last host call, or the switch off.
//
// What the function and the host share lives in Go's reserved low memory:
// Go's linker starts a wasm module's data at 12288, keeping the 8192 bytes
// above the first page for wasm_exec.js, which only js/wasm uses. A wasip1
// program never touches them, and the rewrite checks that no data segment
// does either. The host reads the count from there as it reads any guest
// memory; a global would have cost it a walk through wazero's module
// instance, cold in the cache, at every host call.

// ClockArea is the address of the shared words, 32 bytes: at ClockOn an
// i32 that is 1 while the host lets the guest answer; at ClockWall and
// ClockMono the realtime and monotonic clocks' values now; at ClockState
// the reads answered since the host last took them, their count in the top
// 8 bits and the id of the k-th read in bit k.
const (
	ClockArea  = 8192
	ClockOn    = ClockArea
	ClockWall  = ClockArea + 8
	ClockMono  = ClockArea + 16
	ClockState = ClockArea + 24
)

// ExportClockArea names an i32 global that holds ClockArea, exported by a
// module with the clock rewrite and only by one.
const ExportClockArea = "sf.clock_area"

// ClockReadsMax is how many reads the guest answers between two host calls
// (the bits left below the count); the next one is a host call, which takes
// them.
const ClockReadsMax = 56

// goMinDataAddr is where Go's linker starts a wasm module's data
// (cmd/link/internal/ld: wasmMinDataAddr).
const goMinDataAddr = 12288

// addClock redirects bin's calls of clock_time_get to a function that
// answers them from ClockArea. A module that does not import
// clock_time_get with WASI's signature, imports its memory, or has data
// below goMinDataAddr is returned as it is.
func addClock(bin []byte) ([]byte, error) {
	secs, err := splitSections(bin)
	if err != nil {
		return nil, err
	}
	at := map[byte]int{}
	var imp imports
	for i, s := range secs {
		if s.id == 0 {
			continue // custom sections may repeat
		}
		at[s.id] = i
		if s.id == 2 {
			if imp, err = parseImports(s.body); err != nil {
				return nil, err
			}
		}
	}
	if len(imp.clocks) == 0 || imp.memories != 0 {
		return bin, nil
	}
	for _, id := range []byte{1, 3, 5, 6, 7, 10} {
		if _, ok := at[id]; !ok {
			return bin, nil
		}
	}
	if i, ok := at[11]; ok {
		segs, err := parseActiveSegments(secs[i].body)
		if err != nil {
			return bin, nil
		}
		for _, s := range segs {
			if s.offset < goMinDataAddr {
				return bin, nil
			}
		}
	}
	types, err := parseTypes(secs[at[1]].body)
	if err != nil {
		return nil, err
	}
	for _, ti := range imp.clockTypes {
		if ti >= uint32(len(types)) {
			return nil, errors.New("clock: clock_time_get's type index is out of range")
		}
		if t := types[ti]; !bytes.Equal(t.params, []byte{0x7f, 0x7e, 0x7f}) || !bytes.Equal(t.results, []byte{0x7f}) {
			return bin, nil
		}
	}
	defined, _, ok := uleb(secs[at[3]].body)
	if !ok {
		return nil, ErrUninstrumentable
	}
	globals, n, ok := uleb(secs[at[6]].body)
	if !ok {
		return nil, ErrUninstrumentable
	}
	clockFn := uint32(imp.funcs) + defined

	gs := appendUleb(nil, globals+1)
	gs = append(gs, secs[at[6]].body[n:]...)
	gs = append(gs, 0x7f, 0x00, 0x41) // an immutable i32
	gs = appendSleb32(gs, ClockArea)
	secs[at[6]].body = append(gs, 0x0b)
	secs[at[7]].body = appendExport(secs[at[7]].body, ExportClockArea, 3, imp.globals+globals)

	secs[at[3]].body = appendVec(secs[at[3]].body, appendUleb(nil, imp.clockTypes[0]))
	code, err := redirectCalls(secs[at[10]].body, imp.clocks, clockFn)
	if err != nil {
		return nil, err
	}
	body := clockBody(imp.clocks[0])
	secs[at[10]].body = appendVec(code, append(appendUleb(nil, uint32(len(body))), body...))
	return joinSections(bin[:8], secs), nil
}

// clockBody is the code of the added function, (id i32, precision i64,
// result i32) -> errno i32, with two locals: the state word and its count.
func clockBody(importFn uint32) []byte {
	load := func(b []byte, op, align byte, addr uint32) []byte { // i32.const 0, then a load at addr
		return appendUleb(append(b, 0x41, 0x00, op, align), addr)
	}
	b := []byte{0x01, 0x02, 0x7e} // locals: two i64
	b = append(b, 0x02, 0x40)     // block: leaving it is the host call
	b = load(b, 0x28, 0x02, ClockOn)
	b = append(b, 0x45, 0x0d, 0x00)                   // i32.eqz, br_if 0
	b = append(b, 0x20, 0x00, 0x41, 0x01, 0x4b)       // local.get 0, i32.const 1, i32.gt_u
	b = append(b, 0x0d, 0x00)                         // br_if 0
	b = load(b, 0x29, 0x03, ClockState)               // the state
	b = append(b, 0x22, 0x03, 0x42, 0x38, 0x88, 0x22) // local.tee 3, i64.const 56, i64.shr_u, local.tee
	b = append(b, 0x04, 0x42)                         // 4 (the count), i64.const
	b = appendSleb32(b, ClockReadsMax)
	b = append(b, 0x5a, 0x0d, 0x00) // i64.ge_u, br_if 0
	// The eight bytes at the result address must lie inside the memory.
	b = append(b, 0x20, 0x02, 0xad, 0x42, 0x08, 0x7c) // u64(result) + 8
	b = append(b, 0x3f, 0x00, 0xad, 0x42, 0x10, 0x86) // u64(memory.size) << 16
	b = append(b, 0x56, 0x0d, 0x00)                   // i64.gt_u, br_if 0
	b = append(b, 0x20, 0x02)                         // local.get 2
	b = load(b, 0x29, 0x03, ClockMono)
	b = load(b, 0x29, 0x03, ClockWall)
	b = append(b, 0x20, 0x00, 0x1b)                                                 // local.get 0, select: mono when the id is 1
	b = append(b, 0x37, 0x03, 0x00)                                                 // i64.store align=3
	b = append(b, 0x41, 0x00, 0x20, 0x03)                                           // i32.const 0, the state
	b = append(b, 0x20, 0x00, 0xad, 0x20, 0x04, 0x86, 0x84)                         // | u64(id) << count
	b = append(b, 0x42, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x7c) // + 1<<56
	b = appendUleb(append(b, 0x37, 0x03), ClockState)                               // i64.store
	b = append(b, 0x41, 0x00, 0x0f, 0x0b)                                           // i32.const 0 (success), return, end
	b = append(b, 0x20, 0x00, 0x20, 0x01, 0x20, 0x02, 0x10)
	b = appendUleb(b, importFn)
	return append(b, 0x0b)
}

// redirectCalls returns a code section whose calls of the functions from
// call function to instead.
func redirectCalls(b []byte, from []uint32, to uint32) ([]byte, error) {
	count, n, ok := uleb(b)
	if !ok {
		return nil, ErrUninstrumentable
	}
	b = b[n:]
	out := appendUleb(make([]byte, 0, len(b)+len(b)/64), count)
	var body []byte
	for range count {
		size, n, ok := uleb(b)
		if !ok || len(b) < n+int(size) {
			return nil, ErrUninstrumentable
		}
		fn := b[n : n+int(size)]
		b = b[n+int(size):]
		p, ok := skipLocals(fn)
		if !ok {
			return nil, ErrUninstrumentable
		}
		body = append(body[:0], fn[:p]...)
		last := p
		for p < len(fn) {
			start := p
			if p, ok = instrEnd(fn, p); !ok {
				return nil, ErrUninstrumentable
			}
			if fn[start] != 0x10 {
				continue
			}
			if callee, _, _ := uleb(fn[start+1:]); slices.Contains(from, callee) {
				body = append(body, fn[last:start]...)
				body = appendUleb(append(body, 0x10), to)
				last = p
			}
		}
		body = append(body, fn[last:]...)
		out = appendUleb(out, uint32(len(body)))
		out = append(out, body...)
	}
	if len(b) != 0 {
		return nil, ErrUninstrumentable
	}
	return out, nil
}
