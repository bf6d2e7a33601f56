package wasmrewrite

import (
	"bytes"
	"encoding/binary"
	"errors"
)

// goFunc is what Go's runtime knows of one function of the module, read
// from the pclntab in its data: the leaf checks (leaf.go) add a stack check
// only where the runtime itself would preempt a goroutine asynchronously.
type goFunc struct {
	name string
	// pcf is the function's PC_F, its index among the module's own
	// functions plus goFuncValueOffset.
	pcf  uint32
	flag byte
	args int32
	// unsafeAtEntry: the PCDATA_UnsafePoint table marks one of the first
	// two PCs unsafe, as the compiler does for every point of a
	// runtime or go:nosplit function (the first PC may be a nop of its
	// own, so the second counts too).
	unsafeAtEntry bool
	// maxSPDelta is the largest frame the function ever has, as the
	// runtime's funcMaxSPDelta computes it: 0 for a frameless function.
	maxSPDelta int32
	// argsMap and localsMap: the function has the pointer maps the
	// garbage collector needs to scan a frame stopped at its entry.
	argsMap, localsMap bool
}

// The pclntab layout of Go 1.20 and later (runtime/symtab.go pcHeader and
// _func, internal/abi/symtab.go), on wasm: PCs advance by one per block
// (minLC 1) and pointers are 8 bytes.
var pclntabMagic = []byte{0xf1, 0xff, 0xff, 0xff, 0, 0, 1, 8}

const (
	// goFuncValueOffset is the PC_F of a module's first own function
	// (cmd/link/internal/wasm funcValueOffset).
	goFuncValueOffset = 0x1000
	goFuncFlagAsm     = 1 << 2 // abi.FuncFlagAsm
	goUnsafePoint     = -2     // abi.UnsafePointUnsafe
	goFuncSize        = 44     // _func up to its pcdata array
)

var errNoPclntab = errors.New("no Go 1.20+ pclntab in the module's data")

// memoryImage lays a data section's active segments out as the module's
// memory starts: Go leaves zero runs out of its segments, and the pclntab
// spans many of them.
func memoryImage(data []byte) ([]byte, error) {
	segs, err := parseActiveSegments(data)
	if err != nil {
		return nil, err
	}
	end := uint64(0)
	for _, s := range segs {
		end = max(end, uint64(s.offset)+uint64(len(s.data)))
	}
	if end > 1<<30 {
		return nil, errNoPclntab
	}
	mem := make([]byte, end)
	for _, s := range segs {
		copy(mem[s.offset:], s.data)
	}
	return mem, nil
}

// readPclntab finds Go's pclntab in a memory image and returns its
// functions. defined is the number of functions the module defines: every
// function's PC_F must fall among them.
func readPclntab(mem []byte, defined uint32) ([]goFunc, error) {
	for at := 0; ; {
		i := bytes.Index(mem[at:], pclntabMagic)
		if i < 0 {
			return nil, errNoPclntab
		}
		if fns, ok := parsePclntab(mem[at+i:], defined); ok {
			return fns, nil
		}
		at += i + 1
	}
}

func parsePclntab(h []byte, defined uint32) ([]goFunc, bool) {
	le := binary.LittleEndian
	if len(h) < 72 {
		return nil, false
	}
	nfunc := le.Uint64(h[8:])
	off := func(at int) ([]byte, bool) {
		o := le.Uint64(h[at:])
		if o >= uint64(len(h)) {
			return nil, false
		}
		return h[o:], true
	}
	names, ok1 := off(32)
	pctab, ok2 := off(56)
	pcln, ok3 := off(64)
	if !ok1 || !ok2 || !ok3 || nfunc == 0 || nfunc > uint64(defined) || uint64(len(pcln)) < 8*(nfunc+1) {
		return nil, false
	}
	fns := make([]goFunc, 0, nfunc)
	prev := uint32(0)
	for i := uint64(0); i < nfunc; i++ {
		entry, foff := le.Uint32(pcln[8*i:]), le.Uint32(pcln[8*i+4:])
		if entry < goFuncValueOffset || entry-goFuncValueOffset >= defined || (i > 0 && entry <= prev) || uint64(foff)+goFuncSize > uint64(len(pcln)) {
			return nil, false
		}
		prev = entry
		f := pcln[foff:]
		npcdata, nfuncdata := le.Uint32(f[28:]), uint32(f[43])
		if le.Uint32(f) != entry || uint64(foff)+goFuncSize+4*uint64(npcdata+nfuncdata) > uint64(len(pcln)) {
			return nil, false
		}
		nameOff := le.Uint32(f[4:])
		if uint64(nameOff) >= uint64(len(names)) {
			return nil, false
		}
		name := names[nameOff:]
		if z := bytes.IndexByte(name, 0); z >= 0 {
			name = name[:z]
		}
		g := goFunc{name: string(name), pcf: entry, flag: f[41], args: int32(le.Uint32(f[8:]))}
		if pcsp := le.Uint32(f[16:]); pcsp != 0 {
			g.maxSPDelta = maxPCValue(pctab, pcsp)
		}
		if npcdata > 0 {
			if t := le.Uint32(f[goFuncSize:]); t != 0 {
				g.unsafeAtEntry = pcValueAt(pctab, t, 0) == goUnsafePoint || pcValueAt(pctab, t, 1) == goUnsafePoint
			}
		}
		funcdata := func(k uint32) bool {
			return k < nfuncdata && le.Uint32(f[goFuncSize+4*(npcdata+k):]) != ^uint32(0)
		}
		g.argsMap, g.localsMap = funcdata(0), funcdata(1) // FUNCDATA_ArgsPointerMaps, FUNCDATA_LocalsPointerMaps
		fns = append(fns, g)
	}
	return fns, true
}

// pcStep decodes one run of a pc-value table, as the runtime's step does.
func pcStep(p []byte, pc uint32, val int32, first bool) ([]byte, uint32, int32, bool) {
	uv, n, ok := uleb(p)
	if !ok || (uv == 0 && !first) {
		return nil, 0, 0, false
	}
	val += int32(-(uv & 1) ^ (uv >> 1))
	d, m, ok := uleb(p[n:])
	if !ok {
		return nil, 0, 0, false
	}
	return p[n+m:], pc + d, val, true
}

// pcValueAt returns the value a pc-value table holds at pc (counted from
// the function's entry), or -1 past its end, as the runtime reads it.
func pcValueAt(pctab []byte, off, pc uint32) int32 {
	if uint64(off) >= uint64(len(pctab)) {
		return -1
	}
	p, at, val := pctab[off:], uint32(0), int32(-1)
	for first := true; ; first = false {
		var ok bool
		if p, at, val, ok = pcStep(p, at, val, first); !ok {
			return -1
		}
		if pc < at {
			return val
		}
	}
}

// maxPCValue is the largest value of a pc-value table.
func maxPCValue(pctab []byte, off uint32) int32 {
	if uint64(off) >= uint64(len(pctab)) {
		return 0
	}
	p, at, val, most := pctab[off:], uint32(0), int32(-1), int32(0)
	for first := true; ; first = false {
		var ok bool
		if p, at, val, ok = pcStep(p, at, val, first); !ok {
			return most
		}
		most = max(most, val)
	}
}
