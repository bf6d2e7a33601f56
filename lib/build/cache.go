package build

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sf-dst/sf/lib/atomicfile"
	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/readfile"
)

// The content cache. Go's build cache skips compiling packages that did not
// change, but `go build -o` still links the program every time, and for a
// large guest (nats-server, pebble) the link alone takes seconds. So before
// building, Build computes a key from everything the module is made of and
// looks it up in store/key/; a hit names the module already in the store and
// no `go build` runs at all. With SF_CACHE_DIR set, a miss there asks the
// shared store in $SF_CACHE_DIR/build too (sharedStore), since the key names
// no folder of the world's: copies of a world and sf's own tests then link
// each program once.
//
// The key covers:
//   - the toolchain: GOVERSION, and the go env settings that change what is
//     built (GOFLAGS, GOEXPERIMENT, GOWASM);
//   - the flags sf passes, and the content of every file an overlay maps;
//   - every package in the program's import graph, as `go list -deps` sees
//     it with the same flags: its import path, and then either nothing more
//     (a standard package, fixed by GOVERSION), the module path and version
//     (a package read from the module cache, which is immutable once
//     verified against go.sum), or the names and contents of its Go,
//     assembly and embedded files (anything else: the user's own modules,
//     directory replaces, vendored copies, and sf's own module copies);
//   - the go.mod of every module that is not in the module cache, and the
//     go.work and go.work.sum in use, since they fix the language version
//     and which versions are chosen.
//
// Anything go list cannot answer (a missing package, a syntax error) makes
// the key unavailable and the build runs, so that the compiler reports the
// problem as it would without the cache.

// keyVersion changes whenever what the key covers changes.
const keyVersion = "sf-build-key 2"

// listedPackage is what the key needs of one `go list -json` package.
type listedPackage struct {
	ImportPath string
	Dir        string
	Standard   bool
	GoFiles    []string
	SFiles     []string
	EmbedFiles []string
	Module     *listedModule
}

type listedModule struct {
	Path    string
	Version string
	Dir     string
	GoMod   string
	Replace *listedModule
}

// goEnv is what the key needs of `go env`.
type goEnv struct {
	GOVERSION, GOFLAGS, GOEXPERIMENT, GOWASM, GOWORK, GOMODCACHE string
}

// buildEnv is the environment of every go command the build runs, with
// extra (KEY=VALUE) last so that it wins.
func buildEnv(extra ...string) []string {
	return append(append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0"), extra...)
}

// keyed is a content key and what was read to compute it.
type keyed struct {
	key       string
	goVersion string // GOVERSION in the package's directory
	list      []byte // the output of go list -deps -json, with at least keyListFields
}

// keyListFields are the fields of the key's `go list`: what the key needs,
// and what the property catalog needs (catalog.ListFields: DepOnly), so
// that sf-run lists each package once.
const keyListFields = "ImportPath,Dir,Standard,DepOnly,GoFiles,SFiles,EmbedFiles,Module"

// contentKey returns the cache key of building the package in dir with the
// given go build flags (everything between "build" and the output options)
// and extra environment, or an error when it cannot be computed. The
// listing comes from the store's listing cache when it still holds.
func contentKey(goCmd, store, dir string, flags, env []string) (keyed, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", keyVersion)
	// One go env serves the key and the listing cache (listEnvVars
	// holds every setting goEnv names).
	goenv, err := listGoEnv(goCmd, dir, env)
	if err != nil {
		return keyed{}, err
	}
	var genv goEnv
	if err := json.Unmarshal(goenv, &genv); err != nil {
		return keyed{}, fmt.Errorf("go env: %w", err)
	}
	if genv.GOVERSION == "" || genv.GOMODCACHE == "" {
		return keyed{}, errors.New("go env did not name the Go version and the module cache")
	}
	fmt.Fprintf(h, "go %q flags %q experiment %q wasm %q\n", genv.GOVERSION, genv.GOFLAGS, genv.GOEXPERIMENT, genv.GOWASM)
	// The overlay file's path names the world's store, so it would make
	// every copy of a world a key of its own; what it maps is hashed below,
	// which is all of it that reaches the build.
	fmt.Fprintf(h, "build flags %q\n", keyFlags(flags))
	for i, f := range flags {
		if f == "-overlay" && i+1 < len(flags) {
			if err := hashOverlay(h, flags[i+1]); err != nil {
				return keyed{}, err
			}
		}
	}
	if genv.GOWORK != "" && genv.GOWORK != "off" {
		for _, f := range []string{genv.GOWORK, genv.GOWORK + ".sum"} {
			if err := hashFile(h, "workspace", f); err != nil && !errors.Is(err, os.ErrNotExist) {
				return keyed{}, err
			}
		}
	}
	args := append([]string{"list", "-deps", "-json=" + keyListFields}, flags...)
	out, err := goListCached(goCmd, store, dir, env, append(args, "."), goenv)
	if err != nil {
		return keyed{}, err
	}
	cache := filepath.Clean(genv.GOMODCACHE) + string(filepath.Separator)
	inCache := func(p string) bool { return strings.HasPrefix(filepath.Clean(p)+string(filepath.Separator), cache) }
	modFiles := map[string]bool{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return keyed{}, fmt.Errorf("go list: %w", err)
		}
		fmt.Fprintf(h, "package %q\n", p.ImportPath)
		switch {
		case p.Standard:
		case p.Module != nil && p.Module.Version != "" && inCache(p.Dir):
			m := p.Module
			if m.Replace != nil {
				m = m.Replace
			}
			fmt.Fprintf(h, "module %q %q\n", m.Path, m.Version)
		default:
			files := slices.Concat(p.GoFiles, p.SFiles, p.EmbedFiles)
			slices.Sort(files)
			for _, f := range files {
				if err := hashFile(h, f, filepath.Join(p.Dir, f)); err != nil {
					return keyed{}, err
				}
			}
			if p.Module != nil {
				m := p.Module
				if m.Replace != nil {
					m = m.Replace
				}
				if m.GoMod != "" && !inCache(m.GoMod) {
					modFiles[m.GoMod] = true
				}
			}
		}
	}
	for _, f := range slices.Sorted(maps.Keys(modFiles)) {
		if err := hashFile(h, "go.mod", f); err != nil {
			return keyed{}, err
		}
	}
	return keyed{key: hex.EncodeToString(h.Sum(nil)), goVersion: genv.GOVERSION, list: out}, nil
}

// keyFlags returns the build flags with the overlay file's path left out.
func keyFlags(flags []string) []string {
	out := slices.Clone(flags)
	for i, f := range out {
		if f == "-overlay" && i+1 < len(out) {
			out[i+1] = "(hashed)"
		}
	}
	return out
}

// hashOverlay adds an overlay.json and every file it maps to the key.
func hashOverlay(h io.Writer, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var ov struct{ Replace map[string]string }
	if err := json.Unmarshal(data, &ov); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, k := range slices.Sorted(maps.Keys(ov.Replace)) {
		fmt.Fprintf(h, "overlay %q\n", k)
		if v := ov.Replace[k]; v != "" {
			if err := hashFile(h, k, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// hashFile adds a file's name (as given) and its content to the key.
func hashFile(h io.Writer, name, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "file %q %d\n", name, fi.Size())
	// The size read is bounded by the size stated, so a file that grows
	// while it is hashed cannot make the key ambiguous.
	_, err = io.CopyN(h, f, fi.Size())
	return err
}

// goOutputEnv runs the go command in dir with the build's environment and
// extra env, and returns its standard output; an error carries its
// standard error.
func goOutputEnv(goCmd, dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.Command(goCmd, args...)
	cmd.Dir = dir
	cmd.Env = buildEnv(env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

func goJSON(goCmd, dir string, v any, args ...string) error {
	return goJSONEnv(goCmd, dir, nil, v, args...)
}

func goJSONEnv(goCmd, dir string, env []string, v any, args ...string) error {
	out, err := goOutputEnv(goCmd, dir, env, args...)
	if err != nil {
		return err
	}
	return json.Unmarshal(out, v)
}

// keyPath is where the store records which module a key built.
func keyPath(store, key string) string { return filepath.Join(store, "key", key) }

// lookupKey returns the module a key built, when it is still in the store.
func lookupKey(store, key string) (Module, bool) {
	data, err := os.ReadFile(keyPath(store, key))
	if err != nil {
		return Module{}, false
	}
	hash := strings.TrimSpace(string(data))
	if len(hash) != 64 {
		return Module{}, false
	}
	if _, err := hex.DecodeString(hash); err != nil {
		return Module{}, false
	}
	wasm := filepath.Join(store, hash+".wasm")
	fi, err := os.Stat(wasm)
	if err != nil {
		return Module{}, false
	}
	return Module{Wasm: wasm, SHA256: hash, Size: fi.Size(), Cached: true}, true
}

// recordKey notes that key built mod.
func recordKey(store, key string, mod Module) error {
	if err := os.MkdirAll(filepath.Join(store, "key"), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(keyPath(store, key), []byte(mod.SHA256+"\n"), 0o644)
}

// sharedStore is the store that every world's builds share when
// SF_CACHE_DIR is set (its build folder), and "" otherwise. A key found
// there is the same program built in another folder: copies of a world,
// sf's own tests, and checkouts of one service then run go build once.
func sharedStore() string {
	if d := os.Getenv(CacheDirEnv); d != "" {
		return filepath.Join(d, "build")
	}
	return ""
}

// adoptShared copies the module that key built from the shared store into
// the world's store and records the key there. Any failure is a miss: the
// shared store only saves time. The module's bytes are checked against
// their hash, so a damaged or edited entry is never used.
func adoptShared(shared, store, key string) (Module, bool) {
	src, ok := lookupKey(shared, key)
	if !ok {
		return Module{}, false
	}
	data, err := readfile.Regular(src.Wasm, config.ModuleBytesMax)
	if err != nil {
		return Module{}, false
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != src.SHA256 {
		// Removed, so that the build's publishShared puts the module back.
		os.Remove(src.Wasm)
		return Module{}, false
	}
	mod := Module{Wasm: filepath.Join(store, src.SHA256+".wasm"), SHA256: src.SHA256, Size: int64(len(data)), Cached: true}
	if _, err := os.Stat(mod.Wasm); err != nil {
		if err := atomicfile.WriteFile(mod.Wasm, data, 0o644); err != nil {
			return Module{}, false
		}
	}
	if err := recordKey(store, key, mod); err != nil {
		return Module{}, false
	}
	return mod, true
}

// publishShared puts a module the world's store just built into the
// shared store under its key. A failure only costs a later build, so it
// is not reported.
func publishShared(shared, key string, mod Module) {
	dst := filepath.Join(shared, mod.SHA256+".wasm")
	if _, err := os.Stat(dst); err != nil {
		data, err := readfile.Regular(mod.Wasm, config.ModuleBytesMax)
		if err != nil {
			return
		}
		if err := atomicfile.WriteFile(dst, data, 0o644); err != nil {
			return
		}
	}
	_ = recordKey(shared, key, Module{SHA256: mod.SHA256})
}
