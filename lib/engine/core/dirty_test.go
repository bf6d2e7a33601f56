package core

import (
	"bytes"
	"slices"
	"testing"

	"github.com/tetratelabs/wazero/api"

	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/rng"
)

// testMemory is the part of a guest's memory the tracker reads: a buffer
// from the engine's own allocator, so that the kernel can watch it.
type testMemory struct {
	api.Memory
	buf []byte
}

func (m testMemory) Read(off, n uint32) ([]byte, bool) {
	if uint64(off)+uint64(n) > uint64(len(m.buf)) {
		return nil, false
	}
	return m.buf[off : off+n], true
}

// bruteDirty is the definition: the pages that differ from the shadow.
func bruteDirty(data []byte, g Mapping) []uint32 {
	var out []uint32
	for a := uint32(0); a < g.N; a += disk.PageBytes {
		e := min(a+disk.PageBytes, g.N)
		if !bytes.Equal(data[g.Data+a:g.Data+e], g.Shadow.Bytes()[a:e]) {
			out = append(out, a/disk.PageBytes)
		}
	}
	return out
}

// TestDirtyPages: the tracker finds exactly the pages that differ from the
// shadow, with the kernel's write watch and without it, through stores that
// change bytes, stores of the bytes already there, shadow updates (what a
// write-back or a write to the file does), two mappings that share a host
// page, and a mapping forgotten and made again at the same address.
func TestDirtyPages(t *testing.T) {
	lm := newLinearMemory(8<<20, 1<<30)
	defer lm.Free()
	buf := lm.Reallocate(8 << 20)
	mem := testMemory{buf: buf}
	// The first mapping ends mid-page and the second starts right after
	// it, so one host page holds both.
	maps := []Mapping{
		{Data: 3*4096 + 100, N: 40*4096 + 1000},
		{Data: 3*4096 + 100 + 40*4096 + 1000, N: 9 * 4096},
	}
	for i := range maps {
		g := &maps[i]
		copy(buf[g.Data:g.Data+g.N], bytes.Repeat([]byte{byte(i + 1)}, int(g.N)))
		// Every third page of the first mapping is zeros, which its
		// shadow holds no page for.
		for a := uint32(0); i == 0 && a < g.N; a += 3 * disk.PageBytes {
			clear(buf[g.Data+a : g.Data+min(a+disk.PageBytes, g.N)])
		}
		g.Shadow = ShadowOf(buf[g.Data : g.Data+g.N])
	}
	var watched dirtyTracker
	compared := dirtyTracker{compare: true}
	s := rng.New(1, "dirty-test")
	check := func(round int) {
		t.Helper()
		for i, g := range maps {
			want := bruteDirty(buf, g)
			got, ok := watched.pages(mem, g, nil)
			got2, ok2 := compared.pages(mem, g, nil)
			if !ok || !ok2 || !slices.Equal(got, want) || !slices.Equal(got2, want) {
				t.Fatalf("round %d, mapping %d: dirty pages %v (watched), %v (compared), want %v", round, i, got, got2, want)
			}
		}
	}
	rounds := 300
	if raceEnabled {
		rounds = 60 // one goroutine: little for the detector to watch
	}
	for round := 0; round < rounds; round++ {
		g := &maps[s.Intn(len(maps))]
		switch s.Intn(5) {
		case 0, 1: // a store that changes bytes
			at := g.Data + uint32(s.Intn(int(g.N)))
			n := min(uint32(1+s.Intn(6000)), g.Data+g.N-at)
			for i := range n {
				buf[at+i]++
			}
		case 2: // a store of the bytes already there
			at := g.Data + uint32(s.Intn(int(g.N)))
			copy(buf[at:at+1], []byte{buf[at]})
		case 3: // a write-back of a dirty page, or a write to the file
			if d := bruteDirty(buf, *g); len(d) > 0 {
				p := d[s.Intn(len(d))] * disk.PageBytes
				e := min(p+disk.PageBytes, g.N)
				g.Shadow.Set(p, buf[g.Data+p:g.Data+e])
			}
		case 4: // unmapped and mapped again: a new shadow, registered
			// with one tracker and found by the other at its next answer
			watched.forget(g.Data)
			compared.forget(g.Data)
			g.Shadow = ShadowOf(buf[g.Data : g.Data+g.N])
			if s.Intn(2) == 0 {
				watched.registered(mem, *g)
			} else {
				compared.registered(mem, *g)
			}
		}
		check(round)
	}
	if m := watched.find(maps[0].Data); m != nil {
		t.Logf("kernel write watch in use: %v", m.watched)
	}
}

// TestZeroPages: what the tracker says holds zeros as a guest ends does,
// through stores that make zero pages data, data pages zeros, zeros over
// zeros, write-backs and answers between them; and it says so of the
// zero pages nothing wrote, which is what it is for.
func TestZeroPages(t *testing.T) {
	lm := newLinearMemory(8<<20, 1<<30)
	defer lm.Free()
	buf := lm.Reallocate(8 << 20)
	mem := testMemory{buf: buf}
	g := Mapping{Data: 16 * 4096, N: 300*4096 + 100}
	// Every fourth page holds data; the rest are zeros, the file's holes.
	for p := uint32(0); p < numPages(g.N); p += 4 {
		buf[g.Data+p*4096+p%4096] = 1
	}
	g.Shadow = ShadowOf(buf[g.Data : g.Data+g.N])
	var tr dirtyTracker
	tr.registered(mem, g)
	if m := tr.find(g.Data); m == nil || !m.watched {
		if z := tr.zeroPages(mem, []Mapping{g}); z != nil {
			t.Fatalf("without the kernel's watch the tracker claimed zeros: %v", z)
		}
		t.Skip("no kernel write watch here")
	}
	written := map[uint32]bool{}
	s := rng.New(1, "zero-pages-test")
	for round := 0; round < 200; round++ {
		p := uint32(s.Intn(int(numPages(g.N))))
		a := g.Data + p*4096
		switch s.Intn(5) {
		case 0: // data into any page
			buf[a+uint32(s.Intn(100))] = byte(1 + s.Intn(200))
		case 1: // a page made zeros
			clear(buf[a : a+min(4096, g.Data+g.N-a)])
		case 2: // zeros over zeros, or over data
			buf[a+7] = 0
		case 3: // a write-back of the page
			e := min(p*4096+4096, g.N)
			g.Shadow.Set(p*4096, buf[g.Data+p*4096:g.Data+e])
		case 4: // an answer, as at a write-back
			tr.pages(mem, g, nil)
		}
		written[p] = true
	}
	zero := tr.zeroPages(mem, []Mapping{g})
	claimed := 0
	for _, r := range zero {
		if r.lo%4096 != 0 || r.hi%4096 != 0 || r.lo < uint64(g.Data) || r.hi > uint64(g.Data+g.N) {
			t.Fatalf("range %v is not whole pages of the mapping", r)
		}
		if !disk.IsZero(buf[r.lo:r.hi]) {
			t.Fatalf("range %v holds data", r)
		}
		claimed += int(r.hi-r.lo) / 4096
	}
	// The zero pages nothing touched after the mapping was registered.
	untouched := 0
	for p := uint32(0); p < g.N/4096; p++ {
		if p%4 != 0 && !written[p] {
			untouched++
		}
	}
	if claimed < untouched {
		t.Fatalf("the tracker said %d pages hold zeros; %d zero pages were never written", claimed, untouched)
	}
}
