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
// from globals the host sets whenever a host call returns. The host still
// counts every read in the determinism hash, in order and with the same
// words, at the guest's next host call: the guest notes how many reads it
// answered and of which clock.
//
// The reads go through a function the rewrite adds, with clock_time_get's
// own signature, to which every call of the import is redirected. It
// answers the realtime and monotonic clocks (ids 0 and 1, all Go asks for)
// while the host has switched it on, and calls the import for anything
// else: another clock, an address outside the memory, a 65th read since the
// last host call, or the switch off.

// Export names of the clock rewrite's globals. ExportClockOn is 1 while the
// host lets the guest answer; ExportClockWall and ExportClockMono are what
// the realtime and monotonic clocks read now; ExportClockReads counts the
// reads the guest answered since the host last took them, and bit k of
// ExportClockIDs is the id of the k-th.
const (
	ExportClockOn    = "sf.clock_on"
	ExportClockWall  = "sf.clock_wall"
	ExportClockMono  = "sf.clock_mono"
	ExportClockReads = "sf.clock_reads"
	ExportClockIDs   = "sf.clock_ids"
)

// ClockReadsMax is how many reads the guest answers between two host calls;
// the next one is a host call, which takes them.
const ClockReadsMax = 64

// addClock redirects bin's calls of clock_time_get to a function that
// answers them from the globals above. A module that does not import
// clock_time_get with WASI's signature is returned as it is.
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
	if len(imp.clocks) == 0 {
		return bin, nil
	}
	for _, id := range []byte{1, 3, 6, 7, 10} {
		if _, ok := at[id]; !ok {
			return bin, nil
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
	g := imp.globals + globals
	on, wall, mono, reads, ids := g, g+1, g+2, g+3, g+4

	gs := appendUleb(nil, globals+5)
	gs = append(gs, secs[at[6]].body[n:]...)
	for _, t := range []byte{0x7f, 0x7e, 0x7e, 0x7f, 0x7e} {
		zero := byte(0x41) // i32.const
		if t == 0x7e {
			zero = 0x42 // i64.const
		}
		gs = append(gs, t, 0x01, zero, 0x00, 0x0b) // mutable, starting at 0
	}
	secs[at[6]].body = gs

	exp := secs[at[7]].body
	for _, e := range []struct {
		name string
		idx  uint32
	}{{ExportClockOn, on}, {ExportClockWall, wall}, {ExportClockMono, mono}, {ExportClockReads, reads}, {ExportClockIDs, ids}} {
		exp = appendExport(exp, e.name, 3, e.idx)
	}
	secs[at[7]].body = exp

	secs[at[3]].body = appendVec(secs[at[3]].body, appendUleb(nil, imp.clockTypes[0]))
	code, err := redirectCalls(secs[at[10]].body, imp.clocks, clockFn)
	if err != nil {
		return nil, err
	}
	body := clockBody(imp.clocks[0], on, wall, mono, reads, ids)
	secs[at[10]].body = appendVec(code, append(appendUleb(nil, uint32(len(body))), body...))
	return joinSections(bin[:8], secs), nil
}

// clockBody is the code of the added function, (id i32, precision i64,
// result i32) -> errno i32.
func clockBody(importFn, on, wall, mono, reads, ids uint32) []byte {
	gget := func(b []byte, i uint32) []byte { return appendUleb(append(b, 0x23), i) }
	gset := func(b []byte, i uint32) []byte { return appendUleb(append(b, 0x24), i) }
	b := []byte{0x00}         // no locals
	b = append(b, 0x02, 0x40) // block: leaving it is the host call
	b = gget(b, on)
	b = append(b, 0x45, 0x0d, 0x00) // i32.eqz, br_if 0
	b = gget(b, reads)
	b = append(b, 0x41)
	b = appendSleb32(b, ClockReadsMax)
	b = append(b, 0x4f, 0x0d, 0x00)             // i32.ge_u, br_if 0
	b = append(b, 0x20, 0x00, 0x41, 0x01, 0x4b) // local.get 0, i32.const 1, i32.gt_u
	b = append(b, 0x0d, 0x00)                   // br_if 0
	// The eight bytes at the result address must lie inside the memory.
	b = append(b, 0x20, 0x02, 0xad, 0x42, 0x08, 0x7c) // u64(result) + 8
	b = append(b, 0x3f, 0x00, 0xad, 0x42, 0x10, 0x86) // u64(memory.size) << 16
	b = append(b, 0x56, 0x0d, 0x00)                   // i64.gt_u, br_if 0
	b = append(b, 0x20, 0x02)                         // local.get 2
	b = gget(b, mono)
	b = gget(b, wall)
	b = append(b, 0x20, 0x00, 0x1b) // local.get 0, select: mono when the id is 1
	b = append(b, 0x37, 0x03, 0x00) // i64.store align=3
	b = gget(b, ids)                // ids |= u64(id) << reads
	b = append(b, 0x20, 0x00, 0xad) // local.get 0, i64.extend_i32_u
	b = gget(b, reads)
	b = append(b, 0xad, 0x86, 0x84) // i64.extend_i32_u, i64.shl, i64.or
	b = gset(b, ids)
	b = gget(b, reads)
	b = append(b, 0x41, 0x01, 0x6a) // reads + 1
	b = gset(b, reads)
	b = append(b, 0x41, 0x00, 0x0f, 0x0b) // i32.const 0 (success), return, end
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
