package wasmrewrite

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
)

// TestForkGoLayout pins what forking assumes about a module Go builds for
// wasip1: its eight globals, wasm_pc_f_loop as _start's last call with the
// runtime's exact code, a wrapper of Go's shape for every import, and the
// entry-point loop that re-entered functions pass. If a Go release changes
// any of them, this fails here, and such modules cannot fork.
func TestForkGoLayout(t *testing.T) {
	bin, err := os.ReadFile(buildSpin(t))
	if err != nil {
		t.Fatal(err)
	}
	p, err := planFork(bin)
	if err != nil {
		t.Fatalf("a Go module cannot fork: %v", err)
	}
	for _, imp := range []string{"wasi_snapshot_preview1.poll_oneoff", "wasi_snapshot_preview1.fd_write", "wasi_snapshot_preview1.sched_yield", "wasi_snapshot_preview1.proc_exit"} {
		if _, ok := p.wrappers[imp]; !ok {
			t.Errorf("no wrapper of %s among %v", imp, p.sortedWrappers())
		}
	}
	loops := 0
	for i := range p.defined {
		if p.reentry[i/8]&(1<<(i%8)) != 0 {
			loops++
		}
	}
	if loops < 100 || loops == int(p.defined) {
		t.Errorf("%d of %d functions pass a loop head when re-entered, want many but not all", loops, p.defined)
	}

	for _, mode := range []Mode{{}, {Preempt: true}, {Preempt: true, Loops: true}} {
		out, err := Prepare(bin, mode)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := ReadForkInfo(out)
		if err != nil {
			t.Fatalf("%s: %v", mode.Tag(), err)
		}
		if !fi.Loops || fi.Preempt != mode.Preempt || fi.PreemptLoops != mode.Loops {
			t.Errorf("%s: fork info %+v does not say what the module counts", mode.Tag(), fi)
		}
		want := []string{"sf.go.SP", "sf.go.CTXT", "sf.go.g", "sf.go.RET0", "sf.go.RET1", "sf.go.RET2", "sf.go.RET3", "sf.go.PAUSE", ExportLoopCountdown}
		if mode.Preempt {
			want = append(want, ExportPreemptCounter)
		}
		want = append(want, ExportDispatchSP)
		if got := fi.Globals(); !slices.Equal(got, want) {
			t.Errorf("%s: globals %v, want %v", mode.Tag(), got, want)
		}
		rt := wazero.NewRuntime(context.Background())
		m, err := rt.CompileModule(context.Background(), out)
		if err != nil {
			t.Fatalf("%s: the prepared module does not compile: %v", mode.Tag(), err)
		}
		fns := m.ExportedFunctions()
		for _, name := range []string{ExportPCFLoop, ExportReenter, ExportImportPrefix + "wasi_snapshot_preview1.poll_oneoff", "_start"} {
			if _, ok := fns[name]; !ok {
				t.Errorf("%s: no export %s", mode.Tag(), name)
			}
		}
		rt.Close(context.Background())
	}
}

// TestForkRefusesOtherLayouts: a module that differs from Go's layout in
// any way forking relies on still runs, and cannot fork, with a message
// that says what differs.
func TestForkRefusesOtherLayouts(t *testing.T) {
	bin, err := os.ReadFile(buildSpin(t))
	if err != nil {
		t.Fatal(err)
	}
	p, err := planFork(bin)
	if err != nil {
		t.Fatal(err)
	}
	// The wrapper of sched_yield, with SP popped by 16 instead of 8.
	wrapper := p.wrappers["wasi_snapshot_preview1.sched_yield"]
	tests := []struct {
		name, want string
		change     func(secs []section)
	}{
		{"a global of another type", "global 1 is not Go's CTXT", func(secs []section) {
			g := sectionBody(secs, 6)
			g[bytes.Index(g, []byte{0x7e, 0x01, 0x42})] = 0x7c // CTXT an f64
		}},
		{"a changed dispatch loop", "is not the loop of Go's runtime", func(secs []section) {
			c := sectionBody(secs, 10)
			at := bytes.Index(c, pcfLoopBody)
			c[at+2] = 0x06 // reads RET3 where PAUSE was
		}},
		{"a wrapper of another shape", "calls import wasi_snapshot_preview1.sched_yield but is not shaped like a go:wasmimport wrapper", func(secs []section) {
			bodies, _ := splitBodies(sectionBody(secs, 10))
			fn := bodies[wrapper-p.imports]
			at := bytes.LastIndex(fn, []byte{0x41, 0x08, 0x6a})
			fn[at+1] = 0x10
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			secs, err := splitSections(bytes.Clone(bin))
			if err != nil {
				t.Fatal(err)
			}
			tt.change(secs)
			changed := joinSections(bin[:8], secs)
			out, err := Prepare(changed, Mode{})
			if err != nil {
				t.Fatalf("the module no longer runs: %v", err)
			}
			_, err = ReadForkInfo(out)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "wasm layout sf knows") {
				t.Errorf("error %v, want one that says %q", err, tt.want)
			}
		})
	}
}

// sectionBody returns the body of the section with id, which tests change
// in place.
func sectionBody(secs []section, id byte) []byte {
	for _, s := range secs {
		if s.id == id {
			return s.body
		}
	}
	return nil
}

// TestForkInfoOfOtherModules: a module sf did not prepare, or prepared
// from a module that is not Go's, says why it cannot fork.
func TestForkInfoOfOtherModules(t *testing.T) {
	// A module with one function and nothing else: no globals, no _start.
	tiny := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
		0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type () -> ()
		0x03, 0x02, 0x01, 0x00, // one function of type 0
		0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b} // its body: end
	if _, err := ReadForkInfo(tiny); err == nil || !strings.Contains(err.Error(), "not prepared for forking") {
		t.Errorf("unprepared module: error %v", err)
	}
	out, err := Prepare(tiny, Mode{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadForkInfo(out); err == nil || !strings.Contains(err.Error(), "cannot fork: no globals or no code") {
		t.Errorf("prepared module that is not Go's: error %v", err)
	}
}
