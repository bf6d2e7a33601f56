package engine

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tetratelabs/wazero"
)

// TestCompileForConcurrent: callers compiling at once get one compiled
// module per module and mode, two modules compile side by side, and a
// failure is not kept, so a module that appears later compiles.
func TestCompileForConcurrent(t *testing.T) {
	noop, clock := buildGuest(t, "noop"), buildGuest(t, "clock")
	// The compilation cache on disk, shared with the other tests, does not
	// change what this tests: the engine's own table of compiled modules.
	e, err := New(testCache())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	const callers = 4
	paths := []string{noop, clock}
	got := make([][callers]wazero.CompiledModule, len(paths))
	var wg sync.WaitGroup
	for i, p := range paths {
		for c := range callers {
			wg.Go(func() {
				m, err := e.Compile(p)
				if err != nil {
					t.Errorf("Compile(%s): %v", filepath.Base(p), err)
				}
				got[i][c] = m
			})
		}
	}
	wg.Wait()
	for i, ms := range got {
		for c, m := range ms {
			if m == nil || m != ms[0] {
				t.Errorf("%s: caller %d got a different compiled module", filepath.Base(paths[i]), c)
			}
		}
	}
	if got[0][0] == got[1][0] {
		t.Errorf("two modules share one compiled module")
	}

	late := filepath.Join(t.TempDir(), "late.wasm")
	if _, err := e.Compile(late); err == nil {
		t.Fatalf("Compile of a missing file succeeded")
	}
	data, err := os.ReadFile(noop)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(late, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if m, err := e.Compile(late); err != nil || m == nil {
		t.Errorf("Compile after the file appeared: %v (the failure was kept)", err)
	}
}
