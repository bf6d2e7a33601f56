package core

import (
	"context"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// fakeModule is an instance for the pool's bookkeeping: only Close is
// called on it.
type fakeModule struct {
	api.Module
	closed *int
}

func (m fakeModule) Close(context.Context) error { *m.closed++; return nil }

type fakeMemory struct {
	reusableMemory
	full bool
}

func (m fakeMemory) atLimit() bool { return m.full }
func (m fakeMemory) trim()         {}

type fakeCompiled struct{ wazero.CompiledModule }

// TestInstancePoolBounds: a full pool closes the instance idle the longest
// to keep the new one, whatever its module; a memory at its largest, which
// a reuse could not shrink, is refused; nothing is pooled for a module whose
// fresh state is unknown; and Close closes what is idle.
func TestInstancePoolBounds(t *testing.T) {
	var p InstancePool
	a, b := &fakeCompiled{}, &fakeCompiled{}
	closed := 0
	if p.put(a, fakeModule{closed: &closed}, fakeMemory{}) {
		t.Fatal("an instance was pooled before its module's fresh state was known")
	}
	p.mods = map[wazero.CompiledModule]*modulePool{a: {fresh: &freshState{}}, b: {fresh: &freshState{}}}
	if p.put(a, fakeModule{closed: &closed}, fakeMemory{full: true}) {
		t.Error("a memory at its largest was pooled")
	}
	first := fakeModule{closed: new(int)}
	if !p.put(a, first, fakeMemory{}) {
		t.Fatal("an instance was refused by an empty pool")
	}
	for range instancePoolMax - 1 {
		p.put(b, fakeModule{closed: &closed}, fakeMemory{})
	}
	if !p.put(b, fakeModule{closed: &closed}, fakeMemory{}) {
		t.Fatal("a full pool refused an instance instead of closing its oldest")
	}
	if *first.closed != 1 || closed != 0 || p.idle != instancePoolMax || len(p.mods[a].idle) != 0 {
		t.Errorf("after one put too many: the oldest closed %d times, others %d, %d idle, %d of module a", *first.closed, closed, p.idle, len(p.mods[a].idle))
	}
	if mod, _, _ := p.take(a); mod != nil {
		t.Error("took an instance of a module with none idle")
	}
	if mod, _, _ := p.take(b); mod == nil || p.idle != instancePoolMax-1 {
		t.Errorf("take of module b: %v, %d idle", mod, p.idle)
	}
	p.Close()
	if closed != instancePoolMax-1 || p.put(b, fakeModule{closed: &closed}, fakeMemory{}) {
		t.Errorf("Close closed %d of the %d idle, and the pool took one more after it", closed, instancePoolMax-1)
	}
}
