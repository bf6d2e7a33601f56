package wasmrewrite

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
)

// buildLeafGuest builds the engine's leaf test guest for wasip1: frameless
// functions, a frameless closure, a go:nosplit one and a recursion with a
// frame.
func buildLeafGuest(t *testing.T) []byte {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain")
	}
	out := filepath.Join(t.TempDir(), "leaf.wasm")
	cmd := exec.Command(goCmd, "build", "-trimpath", "-o", out, "../engine/testdata/guests/leaf")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build leaf: %v\n%s", err, b)
	}
	bin, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// sectionBody returns the body of bin's section id.
func moduleSection(t *testing.T, bin []byte, id byte) []byte {
	t.Helper()
	secs, err := splitSections(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secs {
		if s.id == id {
			return s.body
		}
	}
	t.Fatalf("no section %d", id)
	return nil
}

// insertedChecks returns, by function name (from the module's pclntab),
// the function index that each inserted leaf check calls. The inserted
// checks read SP from its global, where Go's own read the SP cache.
func insertedChecks(t *testing.T, bin []byte) (map[string]uint32, map[string]uint32) {
	t.Helper()
	mem, err := memoryImage(moduleSection(t, bin, 11))
	if err != nil {
		t.Fatal(err)
	}
	code := moduleSection(t, bin, 10)
	count, n, _ := uleb(code)
	fns, err := readPclntab(mem, count)
	if err != nil {
		t.Fatal(err)
	}
	var imp imports
	if imp, err = parseImports(moduleSection(t, bin, 2)); err != nil {
		t.Fatal(err)
	}
	names := map[uint32]string{}
	index := map[string]uint32{}
	for _, f := range fns {
		names[f.pcf-goFuncValueOffset] = f.name
		index[f.name] = uint32(imp.funcs) + f.pcf - goFuncValueOffset
	}
	head := []byte{0x23, goGlobalSP, 0x23, goGlobalG, 0xa7, 0x28, 0x02, GoOffStackguard0, 0x4d, 0x04, 0x40, 0x23, goGlobalSP, 0x41, 0x08, 0x6b}
	got := map[string]uint32{}
	b := code[n:]
	for i := uint32(0); i < count; i++ {
		size, n, _ := uleb(b)
		fn := b[n : n+int(size)]
		b = b[n+int(size):]
		at := bytes.Index(fn, head)
		if at < 0 {
			continue
		}
		call := bytes.Index(fn[at:], []byte{0x37, 0x03, 0x00, 0x41, 0x00, 0x10})
		callee, _, _ := uleb(fn[at+call+6:])
		got[names[i]] = callee
	}
	return got, index
}

// TestLeafChecks: preemption adds the stack check to the frameless Go
// functions of a module, calling morestack_noctxt, or morestack for a
// closure, whose context must survive; it leaves alone go:nosplit
// functions, functions that have Go's own check, and the runtime; and the
// module stays valid.
func TestLeafChecks(t *testing.T) {
	bin := buildLeafGuest(t)
	out, err := Rewrite(bin, Mode{Preempt: true})
	if err != nil {
		t.Fatal(err)
	}
	got, index := insertedChecks(t, out)
	noctxt, ctxt := index["runtime.morestack_noctxt"], index["runtime.morestack"]
	for name, want := range map[string]uint32{"main.bump": noctxt, "main.load": noctxt, "main.main.func1": ctxt} {
		if callee, ok := got[name]; !ok || callee != want {
			t.Errorf("%s: check calls function %d (added: %v), want %d", name, callee, ok, want)
		}
	}
	for name := range got {
		if name == "main.pinned" || name == "main.deep" || strings.HasPrefix(name, "runtime.") || strings.HasPrefix(name, "internal/runtime/") {
			t.Errorf("%s got a leaf check: it is go:nosplit, already checked or the runtime's", name)
		}
	}
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer r.Close(ctx)
	if _, err := r.CompileModule(ctx, out); err != nil {
		t.Fatalf("the module with leaf checks does not validate: %v", err)
	}

	// Without preempt, or with the checks turned off, none is added.
	for _, mode := range []Mode{{}, {Preempt: true, noLeafChecks: true}} {
		plain, err := Rewrite(bin, mode)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := insertedChecks(t, plain); len(got) != 0 {
			t.Errorf("mode %+v added leaf checks to %v", mode, got)
		}
	}
}

// TestLeafChecksNeedGoLayout: a module without Go's pclntab gets no leaf
// checks and still counts calls; one whose own stack checks push another
// return address than the inserted ones would is refused, naming the
// function.
func TestLeafChecksNeedGoLayout(t *testing.T) {
	bin := buildLeafGuest(t)
	noTable := bytes.Replace(bin, pclntabMagic, []byte{0xf0, 0xff, 0xff, 0xff, 0, 0, 1, 8}, 1)
	out, err := Rewrite(noTable, Mode{Preempt: true})
	if err != nil {
		t.Fatalf("a module without a pclntab: %v, want it counted without leaf checks", err)
	}
	if got, _ := insertedChecks(t, bin); len(got) != 0 {
		t.Errorf("the original module has leaf checks: %v", got)
	}
	if !bytes.Contains(out, []byte(ExportPreemptCounter)) {
		t.Error("the module without a pclntab does not count calls")
	}

	// Go's check of main.deep pushes PC_F<<16 | PC_B of main.deep; make it
	// name the next function.
	code := moduleSection(t, bin, 10)
	at := bytes.Index(code, patCheckCached)
	push := bytes.Index(code[at:], patPushReturn)
	pc := at + push + len(patPushReturn)
	moved := bytes.Clone(bin)
	off := bytes.Index(moved, code) + pc
	v, n, ok := sleb64(moved[off:])
	if !ok {
		t.Fatal("no return address after the first stack check")
	}
	if len(appendSleb64(nil, v+1<<16)) != n {
		t.Skip("the moved return address would change length")
	}
	copy(moved[off:], appendSleb64(nil, v+1<<16))
	if _, err := Rewrite(moved, Mode{Preempt: true}); err == nil || !strings.Contains(err.Error(), "is not laid out as Go's wasm backend writes it") {
		t.Errorf("a stack check pushing another function's address: error %v, want a refusal", err)
	}
}

// TestPCValueTable decodes pc-value tables as the runtime does: the value
// starts at -1, each run adds a zigzag delta and lasts a number of PCs.
func TestPCValueTable(t *testing.T) {
	// -1 -> -2 for 3 PCs, then -> -1 for 2 PCs, then the end.
	unsafeFirst := []byte{0x01, 0x03, 0x02, 0x02, 0x00}
	// -1 -> 8 for 1 PC (uv 18), -> 24 for 4 (uv 32), -> 8 for 2 (uv 31).
	sp := []byte{18, 1, 32, 4, 31, 2, 0}
	tab := append(append([]byte{0}, unsafeFirst...), sp...)
	for _, c := range []struct {
		off, pc uint32
		want    int32
	}{{1, 0, -2}, {1, 2, -2}, {1, 3, -1}, {1, 4, -1}, {1, 5, -1}, {6, 0, 8}, {6, 1, 24}, {6, 5, 8}, {6, 7, -1}} {
		if got := pcValueAt(tab, c.off, c.pc); got != c.want {
			t.Errorf("table at %d, pc %d: %d, want %d", c.off, c.pc, got, c.want)
		}
	}
	if got := maxPCValue(tab, 6); got != 24 {
		t.Errorf("largest SP delta %d, want 24", got)
	}
	if got := maxPCValue(tab, 1); got != 0 {
		t.Errorf("largest value of a table below zero: %d, want 0", got)
	}
}

// TestWidenLargeCheck: the check Go's backend writes for a frame over
// StackSmall, SP <= stackguard0+(framesize-StackSmall) in i32, is rewritten
// to the same comparison in i64 after either way of loading SP; a small
// frame's check (SP <= stackguard0, no addition) and any other code are left
// as they are.
func TestWidenLargeCheck(t *testing.T) {
	body := func(head []byte, tail ...byte) []byte {
		fn := append([]byte{0x00, 0x01}, head...) // a prefix before the check
		return append(fn, tail...)
	}
	sg := []byte{0x23, goGlobalG, 0xa7, 0x28, 0x02, GoOffStackguard0} // stackguard0's low 32 bits
	// i32.const 32904 (0x8088, the frame above less StackSmall), i32.add, i32.le_u, if
	large := appendSleb64([]byte{0x41}, 0x8088-128)
	large = append(large, 0x6a, 0x4d, 0x04, 0x40)
	for _, sp := range [][]byte{{0x20, 0x01}, {0x23, goGlobalSP}} {
		in := body(append(append(append([]byte(nil), sp...), sg...), large...))
		got := widenLargeCheck(in, 2)
		want := append([]byte{0x00, 0x01}, sp...)
		want = append(want, 0xad)
		want = append(want, sg...)
		want = append(want, 0xad, 0x42)
		want = appendSleb64(want, 0x8088-128)
		want = append(want, 0x7c, 0x58, 0x04, 0x40)
		if !bytes.Equal(got, want) {
			t.Errorf("SP from % x:\n got % x\nwant % x", sp, got, want)
		}
	}
	small := body(append(append([]byte{0x20, 0x01}, sg...), 0x4d, 0x04, 0x40))
	if got := widenLargeCheck(small, 2); !bytes.Equal(got, small) {
		t.Errorf("a small frame's check changed:\n got % x\nwant % x", got, small)
	}
	other := body([]byte{0x41, 0x05, 0x1a})
	if got := widenLargeCheck(other, 2); !bytes.Equal(got, other) {
		t.Errorf("code without a check changed:\n got % x\nwant % x", got, other)
	}
}
