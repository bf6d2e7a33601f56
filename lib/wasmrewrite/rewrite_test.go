package wasmrewrite

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildSpin builds the engine's spinning test guest for wasip1.
func buildSpin(t *testing.T) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain")
	}
	out := filepath.Join(t.TempDir(), "spin.wasm")
	cmd := exec.Command(goCmd, "build", "-trimpath", "-o", out, "../engine/testdata/guests/spin")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build spin: %v\n%s", err, b)
	}
	return out
}

// TestPreemptGoRuntimeLayout pins what preemption assumes about Go's wasm
// runtime: g in global 2 as an i64, g.stackguard0 at offset 16 (every
// stack check loads it) and g.m at offset 48 (runtime.morestack loads it).
// If a Go release moves them, this fails here, and CompileFor refuses such
// modules instead of writing to the wrong place.
func TestPreemptGoRuntimeLayout(t *testing.T) {
	bin, err := os.ReadFile(buildSpin(t))
	if err != nil {
		t.Fatal(err)
	}
	secs, err := splitSections(bin)
	if err != nil {
		t.Fatal(err)
	}
	var code, globals []byte
	for _, s := range secs {
		switch s.id {
		case 6:
			globals = s.body
		case 10:
			code = s.body
		}
	}
	if typ, err := globalType(globals, goGlobalG); err != nil || typ != 0x7e {
		t.Errorf("global %d has type %#x (%v), want i64: Go's g register moved", goGlobalG, typ, err)
	}
	if n := bytes.Count(code, patStackguard0); n < 100 {
		t.Errorf("%d loads of g.stackguard0 at offset %d, want one per stack check: the g struct changed", n, GoOffStackguard0)
	}
	if !bytes.Contains(code, patGM) {
		t.Errorf("no load of g.m at offset %d: the g struct changed", GoOffM)
	}
	out, err := Rewrite(bin, Mode{Preempt: true})
	if err != nil {
		t.Fatalf("a Go module was not instrumented for preemption: %v", err)
	}
	if !bytes.Contains(out, []byte(ExportPreemptCounter)) || !bytes.Contains(out, []byte(ExportG)) {
		t.Error("the preempting module does not export its countdown and g")
	}

	// A module whose stack checks read another offset is refused.
	moved := bytes.ReplaceAll(bin, patStackguard0, []byte{0x23, goGlobalG, 0xa7, 0x28, 0x02, GoOffStackguard0 + 8})
	if _, err := Rewrite(moved, Mode{Preempt: true}); err == nil || !strings.Contains(err.Error(), "runtime layout") {
		t.Errorf("a module with the guard at another offset: error %v, want a refusal naming the runtime layout", err)
	}
}

// TestPreemptOffLeavesModulesAlone: a world without preempt runs the module
// exactly as loop ticks alone instrument it.
func TestPreemptOffLeavesModulesAlone(t *testing.T) {
	bin, err := os.ReadFile(buildSpin(t))
	if err != nil {
		t.Fatal(err)
	}
	plain, ok := InstrumentLoops(bin)
	if !ok {
		t.Fatal("not instrumented")
	}
	if bytes.Contains(plain, []byte(ExportPreemptCounter)) {
		t.Error("a module without preempt exports a preemption countdown")
	}
	counting, err := Rewrite(bin, Mode{Preempt: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(counting) <= len(plain) {
		t.Errorf("the counting module (%d bytes) is not larger than the plain one (%d)", len(counting), len(plain))
	}
}
