package core

import (
	"bytes"
	"context"
	"os"
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/sf-dst/sf/lib/memops"
)

// Reusing a guest's instance. wazero builds a new instance's function table
// one element at a time (evaluating a constant expression and allocating a
// function reference for each of a Go guest's tens of thousands of
// functions), which was most of a node start and most of the objects sf-run
// allocates. A Go guest never changes its table: what one run leaves in an
// instance is its memory, its size and its globals. So the instance of an
// ended guest goes back to a pool, and the next guest of the same compiled
// module gets it with those three set back to what a fresh instance has:
// the memory copied from a fresh instance's (zeros and data segments),
// shrunk to its initial size, and every global set to its initial value.
// The guest cannot tell the difference, and runs as it would in a fresh
// instance. Only modules prepared for forking qualify, since the fork
// rewrite exports every global the module has (and checks that it knows
// them all); others are instantiated afresh, as before.

// InstanceReuseEnv names the environment variable that, set to "off",
// makes every guest start in a fresh instance: a way to rule reuse out when
// a run looks wrong, or to time it.
const InstanceReuseEnv = "SF_INSTANCE_REUSE"

func instanceReuseOff() bool { return os.Getenv(InstanceReuseEnv) == "off" }

// InstancePool keeps ended guests' instances for reuse, per compiled
// module. The zero value is ready; Close empties it.
type InstancePool struct {
	mu     sync.Mutex
	mods   map[wazero.CompiledModule]*modulePool
	idle   int
	puts   uint64
	closed bool
	reused atomic.Int64
}

// Reused is how many guests started in a reused instance.
func (p *InstancePool) Reused() int64 { return p.reused.Load() }

type modulePool struct {
	fresh *freshState // nil until a fresh instance was seen
	idle  []pooledInstance
}

// oldest returns the module pool whose first idle instance went idle
// first, among those with any. The caller holds p.mu.
func (p *InstancePool) oldest() *modulePool {
	var o *modulePool
	for _, mp := range p.mods {
		if len(mp.idle) > 0 && (o == nil || mp.idle[0].seq < o.idle[0].seq) {
			o = mp
		}
	}
	return o
}

// freshState is what a fresh instance of a module holds before its guest
// runs.
type freshState struct {
	memory  *memoryImage
	globals []uint64 // the values of ForkInfo.Globals(), in its order
	names   []string
}

// memoryImage is what a fresh instance's memory holds, and which of its
// pages are all zeros. Most of the pages a guest writes in its image are
// zeros there (Go's bss and the start of its heap: about 135 of 140 in
// kvlog's and liveness's nodes), and a reuse clears those rather than copy
// them, which spares it reading the image's zeros.
type memoryImage struct {
	bytes []byte
	zero  []uint64 // bit p: the imagePage bytes at p*imagePage are zeros
}

// imagePage is the unit memoryImage.zero counts in: the smallest host page.
const imagePage = 4096

var zeroPage [imagePage]byte

func newMemoryImage(b []byte) *memoryImage {
	img := &memoryImage{bytes: b, zero: make([]uint64, (len(b)/imagePage+64)/64)}
	for p := 0; p*imagePage < len(b); p++ {
		page := b[p*imagePage : min((p+1)*imagePage, len(b))]
		if bytes.Equal(page, zeroPage[:len(page)]) {
			img.zero[p/64] |= 1 << (p % 64)
		}
	}
	return img
}

// zeroAt reports whether the image's page holding byte off is zeros.
func (img *memoryImage) zeroAt(off uint64) bool {
	p := off / imagePage
	return img.zero[p/64]&(1<<(p%64)) != 0
}

// restore makes dst[lo:hi] what the image holds there: page by page, a
// clear where the image is zeros, a copy elsewhere.
func (img *memoryImage) restore(dst []byte, lo, hi uint64) {
	for lo < hi {
		zero := img.zeroAt(lo)
		end := min((lo/imagePage+1)*imagePage, hi)
		for end < hi && img.zeroAt(end) == zero {
			end = min(end+imagePage, hi)
		}
		if zero {
			memops.ClearCold(dst[lo:end])
		} else {
			copy(dst[lo:end], img.bytes[lo:end])
		}
		lo = end
	}
}

type pooledInstance struct {
	mod api.Module
	mem reusableMemory
	seq uint64 // when it went idle, in puts
}

// instancePoolMax bounds the idle instances the pool keeps: each holds its
// memory's populated pages (up to memoryPoolClearMax) besides wazero's
// instance.
const instancePoolMax = 8

// reusableMemory is a guest memory that a reused instance can be set back
// on (memory_unix.go): its next Reallocate can be made to return a shorter
// memory, which is how wazero's memory is shrunk back to its initial size,
// and its bytes set to an image followed by zeros.
type reusableMemory interface {
	experimental.LinearMemory
	// shrinkNext makes the next Reallocate return the first n bytes,
	// whatever size it is asked for.
	shrinkNext(n uint64)
	// resetTo makes the memory image followed by zeros up to what any
	// guest used of it.
	resetTo(image *memoryImage)
	// trim gives back to the kernel the populated pages past what a reuse
	// would clear.
	trim()
	// atLimit reports whether the memory is as large as it may grow, so
	// that a reuse could not shrink it.
	atLimit() bool
	// zeroedAtEnd says that the ranges of the memory hold only zeros as
	// its guest ends, for the next resetTo to leave them unwritten.
	zeroedAtEnd(r []offsetRange)
}

// take removes an idle instance of compiled from the pool, with the state a
// fresh one has, or returns nils.
func (p *InstancePool) take(compiled wazero.CompiledModule) (api.Module, reusableMemory, *freshState) {
	if p == nil {
		return nil, nil, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	mp := p.mods[compiled]
	if mp == nil || mp.fresh == nil || len(mp.idle) == 0 {
		return nil, nil, nil
	}
	last := mp.idle[len(mp.idle)-1]
	mp.idle = mp.idle[:len(mp.idle)-1]
	p.idle--
	return last.mod, last.mem, mp.fresh
}

// noteFresh records, once per module, what a fresh instance of it holds:
// mod must not have run yet.
func (p *InstancePool) noteFresh(compiled wazero.CompiledModule, mod api.Module, names []string) {
	if p == nil || len(names) == 0 {
		return
	}
	p.mu.Lock()
	known := p.mods[compiled] != nil && p.mods[compiled].fresh != nil
	p.mu.Unlock()
	if known {
		return
	}
	f := &freshState{names: names}
	for _, name := range names {
		g := mod.ExportedGlobal(name)
		if g == nil {
			return // not a module prepared for forking after all
		}
		f.globals = append(f.globals, g.Get())
	}
	mem := mod.Memory()
	if mem == nil {
		return
	}
	b, ok := mem.Read(0, mem.Size())
	if !ok {
		return
	}
	f.memory = newMemoryImage(append([]byte(nil), b...))
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	if p.mods == nil {
		p.mods = map[wazero.CompiledModule]*modulePool{}
	}
	mp := p.mods[compiled]
	if mp == nil {
		mp = &modulePool{}
		p.mods[compiled] = mp
	}
	if mp.fresh == nil {
		mp.fresh = f
	}
}

// put keeps mod, whose guest ended, for the next guest of compiled, and
// reports whether it did; the caller closes an instance the pool refused.
// A full pool makes room by closing the instance idle the longest, which
// may be of a module no longer run.
func (p *InstancePool) put(compiled wazero.CompiledModule, mod api.Module, mem reusableMemory) bool {
	if p == nil || mem == nil || mem.atLimit() || instanceReuseOff() {
		return false
	}
	mem.trim()
	var evict api.Module
	p.mu.Lock()
	mp := p.mods[compiled]
	if p.closed || mp == nil || mp.fresh == nil {
		p.mu.Unlock()
		return false
	}
	if p.idle >= instancePoolMax {
		o := p.oldest()
		evict = o.idle[0].mod
		o.idle = o.idle[1:]
		p.idle--
	}
	p.puts++
	mp.idle = append(mp.idle, pooledInstance{mod, mem, p.puts})
	p.idle++
	p.mu.Unlock()
	if evict != nil {
		evict.Close(context.Background())
	}
	return true
}

// Close closes the idle instances (their memories go back to the memory
// pool) and keeps no more.
func (p *InstancePool) Close() {
	p.mu.Lock()
	var mods []api.Module
	for _, mp := range p.mods {
		for _, pi := range mp.idle {
			mods = append(mods, pi.mod)
		}
	}
	p.mods, p.idle, p.closed = nil, 0, true
	p.mu.Unlock()
	for _, m := range mods {
		m.Close(context.Background())
	}
}

// reset sets a pooled instance back to fresh's state, and reports whether
// it could; an instance it could not reset must be closed, not run. The
// memory is shrunk through a grow of one page whose Reallocate answers with
// the initial size (wazero takes the length of what Reallocate returns as
// the memory's size); a memory already at its largest cannot grow, and so
// is not reused.
func (f *freshState) reset(mod api.Module, mem reusableMemory) bool {
	n := uint64(len(f.memory.bytes))
	mem.shrinkNext(n)
	if _, ok := mod.Memory().Grow(1); !ok {
		mem.shrinkNext(0)
		return false
	}
	if uint64(mod.Memory().Size()) != n {
		return false
	}
	mem.resetTo(f.memory)
	for i, name := range f.names {
		g, ok := mod.ExportedGlobal(name).(api.MutableGlobal)
		if !ok {
			return false
		}
		g.Set(f.globals[i])
	}
	return true
}

// forkGlobals names every global of the module at path, when it was
// prepared for forking (nil otherwise).
func forkGlobals(mods Modules, path string) []string {
	info, err := mods.ForkInfo(path)
	if err != nil || info == nil {
		return nil
	}
	return info.Globals()
}
