package build

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sf-dst/sf/lib/atomicfile"
	"github.com/sf-dst/sf/lib/wasmrewrite"
)

// Runnable returns the path of the module at wasm as the engine runs it:
// rewritten for mode (wasmrewrite.Prepare) into the folder of wasm, named
// by the SHA-256 of wasm's content, the rewrites' version and the mode. A
// module is rewritten once; every later call, in this process or another,
// finds the file and reads nothing but wasm to hash it. Errors name wasm.
func Runnable(wasm string, mode wasmrewrite.Mode) (string, error) {
	bin, err := os.ReadFile(wasm)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(bin)
	out := filepath.Join(filepath.Dir(wasm), fmt.Sprintf("%s.v%d-%s.wasm", hex.EncodeToString(sum[:]), wasmrewrite.Version, mode.Tag()))
	if st, err := os.Stat(out); err == nil && st.Mode().IsRegular() && st.Size() > 0 {
		return out, nil
	}
	prepared, err := wasmrewrite.Prepare(bin, mode)
	if err != nil {
		return "", fmt.Errorf("%s: %w", wasm, err)
	}
	if err := atomicfile.WriteFile(out, prepared, 0o644); err != nil {
		return "", fmt.Errorf("%s: writing its prepared module: %w", wasm, err)
	}
	return out, nil
}
