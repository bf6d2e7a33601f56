package build

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sf-dst/sf/lib/atomicfile"
	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/readfile"
	"github.com/sf-dst/sf/lib/wasmrewrite"
)

// Runnable returns the path of the module at wasm as the engine runs it:
// rewritten for mode (wasmrewrite.Prepare) into the folder of wasm, named
// by the SHA-256 of wasm's content, the rewrites' version and the mode. A
// module is rewritten once; every later call, in this process or another,
// finds the file and reads nothing but wasm to hash it. With SF_CACHE_DIR
// set, the rewritten module is also kept in the shared store, so that a
// copy of the world in another folder takes it from there instead of
// rewriting it again. Errors name wasm.
func Runnable(wasm string, mode wasmrewrite.Mode) (string, error) {
	bin, err := os.ReadFile(wasm)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(bin)
	name := fmt.Sprintf("%s.v%d-%s.wasm", hex.EncodeToString(sum[:]), wasmrewrite.Version, mode.Tag())
	out := filepath.Join(filepath.Dir(wasm), name)
	if st, err := os.Stat(out); err == nil && st.Mode().IsRegular() && st.Size() > 0 {
		return out, nil
	}
	shared := sharedStore()
	if shared != "" && adoptPrepared(shared, name, out) {
		return out, nil
	}
	prepared, err := wasmrewrite.Prepare(bin, mode)
	if err != nil {
		return "", fmt.Errorf("%s: %w", wasm, err)
	}
	if err := atomicfile.WriteFile(out, prepared, 0o644); err != nil {
		return "", fmt.Errorf("%s: writing its prepared module: %w", wasm, err)
	}
	if shared != "" {
		publishPrepared(shared, name, prepared)
	}
	return out, nil
}

// preparedPath is where the shared store keeps the rewritten module name,
// beside a file of the SHA-256 of its bytes.
func preparedPath(shared, name string) string { return filepath.Join(shared, "prepared", name) }

// adoptPrepared copies the rewritten module name from the shared store to
// out when the store holds it and its bytes match the hash kept beside
// it. Any failure is a miss, and the caller rewrites the module itself.
func adoptPrepared(shared, name, out string) bool {
	src := preparedPath(shared, name)
	want, err := readfile.Regular(src+".sha256", 128)
	if err != nil {
		return false
	}
	data, err := readfile.Regular(src, config.ModuleBytesMax)
	if err != nil || len(data) == 0 {
		return false
	}
	sum := sha256.Sum256(data)
	if !bytes.Equal(bytes.TrimSpace(want), []byte(hex.EncodeToString(sum[:]))) {
		return false
	}
	return atomicfile.WriteFile(out, data, 0o644) == nil
}

// publishPrepared puts a rewritten module into the shared store, its hash
// last, so that a reader never takes a half-written entry. A failure only
// costs a later rewrite, so it is not reported.
func publishPrepared(shared, name string, data []byte) {
	dst := preparedPath(shared, name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return
	}
	sum := sha256.Sum256(data)
	if atomicfile.WriteFile(dst, data, 0o644) != nil {
		return
	}
	_ = atomicfile.WriteFile(dst+".sha256", []byte(hex.EncodeToString(sum[:])+"\n"), 0o644)
}
