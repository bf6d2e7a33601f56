package build

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/sf-dst/sf/lib/wasmrewrite"
)

// TestRunnableShared: with SF_CACHE_DIR set, a module rewritten in one folder
// is kept in the shared store, and another folder's Runnable takes it from
// there (shown by an entry the test put there, which Prepare would never
// make) instead of rewriting it; an entry whose bytes do not match their
// hash is not taken. Without the variable nothing is shared.
func TestRunnableShared(t *testing.T) {
	shared := t.TempDir()
	t.Setenv(CacheDirEnv, shared)
	empty := []byte("\x00asm\x01\x00\x00\x00")
	module := func() string {
		p := filepath.Join(t.TempDir(), "m.wasm")
		if err := os.WriteFile(p, empty, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	read := func(p string) []byte {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	first, err := Runnable(module(), wasmrewrite.Mode{})
	if err != nil {
		t.Fatal(err)
	}
	rewritten := read(first)
	entry := filepath.Join(shared, "build", "prepared", filepath.Base(first))
	if got := read(entry); !bytes.Equal(got, rewritten) {
		t.Fatalf("the shared store's entry is %d bytes, the folder's module %d", len(got), len(rewritten))
	}
	put := func(data []byte, sum string) {
		t.Helper()
		if err := os.WriteFile(entry, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(entry+".sha256", []byte(sum+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	marker := append(bytes.Clone(rewritten), "taken from the store"...)
	h := sha256.Sum256(marker)
	put(marker, hex.EncodeToString(h[:]))
	second, err := Runnable(module(), wasmrewrite.Mode{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(read(second), marker) {
		t.Errorf("a second folder rewrote the module instead of taking the shared store's")
	}
	put(marker, hex.EncodeToString(make([]byte, 32)))
	third, err := Runnable(module(), wasmrewrite.Mode{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(read(third), rewritten) {
		t.Errorf("a third folder took an entry whose bytes do not match their hash")
	}

	t.Setenv(CacheDirEnv, "")
	p := filepath.Join(t.TempDir(), "m.wasm")
	if err := os.WriteFile(p, append(bytes.Clone(empty), "\x00\x03\x02hi"...), 0o644); err != nil { // a custom section
		t.Fatal(err)
	}
	alone, err := Runnable(p, wasmrewrite.Mode{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(shared, "build", "prepared", filepath.Base(alone))); err == nil {
		t.Errorf("without %s, the rewritten module went to the shared store", CacheDirEnv)
	}
}
