// Package build compiles the Go packages of a world for GOOS=wasip1
// GOARCH=wasm into a content-addressed store, and describes the result in a
// manifest. sf-build and sf-run share it, so each tool works alone.
package build

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/sf-dst/sf/lib/atomicfile"
	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/readfile"
	"github.com/sf-dst/sf/lib/textfmt"
)

// StateDir is the folder, next to the world file, where sf keeps its builds
// and artifacts.
const StateDir = ".seedfall"

// Module is one node's built module.
type Module struct {
	Node string `json:"node"`
	// Upgrade marks the module a node runs from its first restart on
	// (upgrade_to).
	Upgrade bool   `json:"upgrade,omitempty"`
	Pkg     string `json:"pkg,omitempty"`
	Wasm    string `json:"wasm"`
	SHA256  string `json:"sha256"`
	Size    int64  `json:"size"`
	Cached  bool   `json:"cached"`
	// NetOverlay marks a module built with the net_overlay (overlay.go).
	NetOverlay bool `json:"net_overlay,omitempty"`
	// Compat lists the shims compat_overlay chose (compat.go), one
	// "what: shim" entry each, when the module was built with it.
	Compat []string `json:"compat,omitempty"`
}

// Manifest lists every node's module for one world.
type Manifest struct {
	Config    string   `json:"config"`
	GoVersion string   `json:"go_version,omitempty"`
	Modules   []Module `json:"modules"`
	// Listed holds, by absolute package directory, the output of the
	// `go list -deps -json` that the content key of a package built
	// without overlays read, so that sf-run's property catalog need not
	// list it again (catalog.ScanListed). It is not written to the file.
	Listed map[string][]byte `json:"-"`
}

// Wasm returns the module path of the named node.
func (m *Manifest) Wasm(node string) string {
	for _, mod := range m.Modules {
		if mod.Node == node && !mod.Upgrade {
			return mod.Wasm
		}
	}
	return ""
}

// UpgradeWasm returns the module the named node upgrades to, or "".
func (m *Manifest) UpgradeWasm(node string) string {
	for _, mod := range m.Modules {
		if mod.Node == node && mod.Upgrade {
			return mod.Wasm
		}
	}
	return ""
}

// Options tune a build.
type Options struct {
	// Go is the go command to run. Defaults to "go" on PATH.
	Go string
	// Log receives one line per package compiled. Defaults to nowhere.
	Log io.Writer
	// LogCached also logs packages whose module was already in the store.
	// Defaults to false.
	LogCached bool
	// NetOverlay builds every package with the overlay that routes plain
	// net.Listen and net.Dial to the simulated network (the world's
	// net_overlay). Prebuilt modules are copied unchanged. Defaults to false.
	NetOverlay bool
	// CompatOverlay builds every package with the mmap and flock shims
	// (the world's compat_overlay). Defaults to false.
	CompatOverlay bool
}

// ErrNoToolchain is returned when a world has packages to build and no Go
// toolchain can be found.
var ErrNoToolchain = errors.New("no Go toolchain found: install Go 1.26 or later and put `go` on PATH (needed to build the world's packages; nodes with a prebuilt \"wasm\" need none)")

// Dir returns the state folder of a world.
func Dir(w *config.World) string { return filepath.Join(w.Dir, StateDir) }

// CacheDirEnv names the environment variable that moves the compiled
// modules of every world into one folder, instead of each world's
// .seedfall/cache: worlds and checkouts that run the same modules then
// compile each once. Its build folder shares the built modules likewise
// (sharedStore).
const CacheDirEnv = "SF_CACHE_DIR"

// CacheDir returns the folder where the engine keeps a world's compiled
// modules: $SF_CACHE_DIR when it is set, and .seedfall/cache next to the
// world file otherwise.
func CacheDir(w *config.World) string {
	if d := os.Getenv(CacheDirEnv); d != "" {
		return d
	}
	return filepath.Join(Dir(w), "cache")
}

// Build compiles every package of w that is not already prebuilt, and writes
// the manifest to .seedfall/build/manifest.json next to the world file.
func Build(w *config.World, opts Options) (*Manifest, error) {
	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	store := filepath.Join(Dir(w), "build")
	if err := os.MkdirAll(store, 0o755); err != nil {
		return nil, fmt.Errorf("build store: %w", err)
	}
	man := &Manifest{Config: w.File}
	built := map[string]Module{} // by package dir, so a package shared by nodes builds once
	jobs := buildJobs(w)
	byPkg, goCmd := preparePackages(jobs, store, opts)
	for _, j := range jobs {
		if j.wasm != "" {
			mod, err := storePrebuilt(store, j.wasm)
			if err != nil {
				return nil, fmt.Errorf("%s: wasm: %w", j.where, err)
			}
			mod.Node, mod.Upgrade = j.node, j.upgrade
			man.Modules = append(man.Modules, mod)
			continue
		}
		if m, ok := built[j.pkg]; ok {
			m.Node, m.Upgrade = j.node, j.upgrade
			man.Modules = append(man.Modules, m)
			continue
		}
		pb := byPkg[j.pkg]
		start := time.Now()
		mod, err := buildPackage(pb, man, store, goCmd, opts)
		if err != nil {
			return nil, err
		}
		built[j.pkg] = mod
		man.Modules = append(man.Modules, mod)
		if mod.Cached && !opts.LogCached {
			continue
		}
		for _, c := range mod.Compat {
			fmt.Fprintf(logw, "compat  %s: %s\n", textfmt.RelPath(w.Dir, j.pkg), c)
		}
		state := "built"
		if mod.Cached {
			state = "cached"
		}
		fmt.Fprintf(logw, "%-7s %s -> %s (%s, %s)\n", state, textfmt.RelPath(w.Dir, j.pkg), textfmt.RelPath(w.Dir, mod.Wasm), sizeString(mod.Size), (pb.took + time.Since(start)).Round(time.Millisecond))
	}
	data, _ := json.MarshalIndent(man, "", "  ")
	if err := atomicfile.WriteFile(filepath.Join(store, "manifest.json"), append(data, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("write manifest: %w", err)
	}
	return man, nil
}

// buildJob is one module a world needs: a node's package (or its
// upgrade_to package), or a prebuilt wasm file.
type buildJob struct {
	where, node, pkg, wasm string
	upgrade                bool
}

// buildJobs are the modules of the world's nodes, in its order, each
// named as the world file places it (nodes[1] (server)).
func buildJobs(w *config.World) []buildJob {
	var jobs []buildJob
	for i, n := range w.AllNodes() {
		where := fmt.Sprintf("nodes[%d] (%s)", i, n.Name)
		switch {
		case n == w.Workload:
			where = fmt.Sprintf("workload (%s)", n.Name)
		case n == w.Finally:
			where = fmt.Sprintf("finally (%s)", n.Name)
		case i >= len(w.Nodes):
			where = fmt.Sprintf("workloads[%d] (%s)", i-len(w.Nodes)-btoi(w.Workload != nil), n.Name)
		}
		jobs = append(jobs, buildJob{where, n.Name, n.Pkg, n.Wasm, false})
		if n.UpgradeTo != "" {
			jobs = append(jobs, buildJob{where + " upgrade_to", n.Name, n.UpgradeTo, "", true})
		}
	}
	return jobs
}

// pkgBuild is a package to build, set up and keyed.
type pkgBuild struct {
	j        buildJob
	goErr    error // no toolchain, reported as it is
	setupErr error
	flags    []string
	env      []string
	overlay  string
	compat   *compatSetup
	key      keyed
	keyErr   error
	took     time.Duration // setting up and computing the key, for the log
}

// preparePackages sets up each package of jobs (its overlays) in order,
// then computes the content keys of all of them at once, since each is a
// `go list` of its own; Build then looks up or compiles each in order, so
// that the first failing node in the world's order is the one reported.
// It returns the packages by directory and the go command.
func preparePackages(jobs []buildJob, store string, opts Options) (map[string]*pkgBuild, string) {
	var goCmd string
	var pkgs []*pkgBuild
	seen := map[string]bool{}
	for _, j := range jobs {
		if j.wasm != "" || seen[j.pkg] {
			continue
		}
		seen[j.pkg] = true
		pb := &pkgBuild{j: j}
		pkgs = append(pkgs, pb)
		if goCmd == "" {
			var err error
			if goCmd, err = findGo(opts.Go); err != nil {
				pb.goErr = err
				break
			}
		}
		setupStart := time.Now()
		pb.overlay, pb.env, pb.compat, pb.setupErr = setupPackage(goCmd, store, opts, pb.j.pkg)
		pb.took = time.Since(setupStart)
		if pb.setupErr != nil {
			// Later packages would not be built: a setup error ends the
			// build when its package's turn comes.
			break
		}
		pb.flags = buildFlags(pb.overlay)
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, keyParallel)
	for _, pb := range pkgs {
		if pb.goErr != nil || pb.setupErr != nil {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			// A key that cannot be computed only costs the cache hit:
			// the build then reports whatever go list stumbled on.
			keyStart := time.Now()
			pb.key, pb.keyErr = contentKey(goCmd, store, pb.j.pkg, pb.flags, pb.env)
			pb.took += time.Since(keyStart)
		})
	}
	wg.Wait()
	byPkg := map[string]*pkgBuild{}
	for _, pb := range pkgs {
		byPkg[pb.j.pkg] = pb
	}
	return byPkg, goCmd
}

// buildPackage looks up the package pb in the store by its key, or
// compiles it and stores it, noting the toolchain's version and the
// package's listing in man.
func buildPackage(pb *pkgBuild, man *Manifest, store, goCmd string, opts Options) (Module, error) {
	j := pb.j
	if pb.goErr != nil {
		return Module{}, pb.goErr
	}
	if pb.setupErr != nil {
		return Module{}, fmt.Errorf("%s: %w", j.where, pb.setupErr)
	}
	if man.GoVersion == "" {
		if pb.keyErr == nil {
			man.GoVersion = pb.key.goVersion
		} else {
			man.GoVersion = goVersion(goCmd)
		}
	}
	mod, hit := Module{}, false
	if pb.keyErr == nil {
		mod, hit = lookupKey(store, pb.key.key)
	}
	// The catalog wants the listing without overlays: the key's, when
	// there are none, the compat_overlay's own, or one of its own, which
	// the listing cache keeps as it keeps the others.
	var plain []byte
	switch {
	case pb.keyErr != nil:
	case pb.overlay == "" && len(pb.env) == 0:
		plain = pb.key.list
	case pb.compat != nil && pb.compat.list != nil:
		plain = pb.compat.list
	default:
		plain, _ = goListCached(goCmd, store, j.pkg, nil, []string{"list", "-deps", "-json=" + keyListFields, "."}, nil)
	}
	if plain != nil {
		if abs, err := filepath.Abs(j.pkg); err == nil {
			if man.Listed == nil {
				man.Listed = map[string][]byte{}
			}
			man.Listed[abs] = plain
		}
	}
	shared := sharedStore()
	if !hit && pb.keyErr == nil && shared != "" {
		mod, hit = adoptShared(shared, store, pb.key.key)
	}
	if !hit {
		var err error
		if mod, err = compile(goCmd, store, j.pkg, pb.flags, pb.env, opts.NetOverlay, opts.CompatOverlay); err != nil {
			return Module{}, fmt.Errorf("%s: %w", j.where, err)
		}
		if pb.keyErr == nil {
			if err := recordKey(store, pb.key.key, mod); err != nil {
				return Module{}, fmt.Errorf("build store: %w", err)
			}
			if shared != "" {
				publishShared(shared, pb.key.key, mod)
			}
		}
	}
	mod.Node, mod.Pkg, mod.Upgrade, mod.NetOverlay = j.node, j.pkg, j.upgrade, opts.NetOverlay
	if pb.compat != nil {
		mod.Compat = pb.compat.chosen
	}
	return mod, nil
}

// keyParallel is how many content keys Build computes at once.
const keyParallel = 4

// setupPackage prepares the overlays of one package as opts ask: the
// overlay file to build with (empty for none), the extra environment, and
// the compat_overlay's choices (nil without it).
func setupPackage(goCmd, store string, opts Options, pkg string) (overlay string, env []string, compat *compatSetup, err error) {
	if opts.NetOverlay {
		if overlay, err = netOverlayFor(goCmd, store, pkg); err != nil {
			return "", nil, nil, err
		}
	}
	if opts.CompatOverlay {
		if compat, err = compatFor(goCmd, store, pkg); err != nil {
			return "", nil, nil, err
		}
		if overlay, err = mergeOverlay(store, overlay, compat.replace); err != nil {
			return "", nil, nil, err
		}
		if compat.gowork != "" {
			env = append(env, "GOWORK="+compat.gowork)
		}
	}
	return overlay, env, compat, nil
}

func findGo(explicit string) (string, error) {
	name := explicit
	if name == "" {
		name = "go"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", ErrNoToolchain
	}
	return p, nil
}

func goVersion(goCmd string) string {
	out, err := exec.Command(goCmd, "env", "GOVERSION").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// buildFlags returns the go build flags of a package: -trimpath keeps host
// paths out of the module, so two machines with the same toolchain and
// source build the same bytes and get the same determinism hashes. overlay,
// when not empty, is the overlay.json to build with. go list takes the same
// flags, so that the content key sees the program go build compiles.
func buildFlags(overlay string) []string {
	flags := []string{"-trimpath", "-buildvcs=false"}
	if overlay != "" {
		flags = append(flags, "-overlay", overlay)
	}
	return flags
}

// compile builds one package with the given flags. netOverlay and
// compatOverlay say whether they hold the overlays, which a build error's
// hint takes into account.
func compile(goCmd, store, pkg string, flags, env []string, netOverlay, compatOverlay bool) (Module, error) {
	tmp, err := os.CreateTemp(store, "build-*.wasm")
	if err != nil {
		return Module{}, err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	args := append(append([]string{"build"}, flags...), "-o", tmp.Name(), ".")
	cmd := exec.Command(goCmd, args...)
	cmd.Dir = pkg
	cmd.Env = buildEnv(env...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		text := strings.TrimRight(out.String(), "\n")
		if text == "" {
			text = err.Error()
		}
		if netOverlay && strings.Contains(text, NetOverlayFile) {
			text += "\n" + overlayBuildHint
		}
		text, hint := buildHint(text, pkg, compatOverlay)
		if hint != "" {
			return Module{}, fmt.Errorf("go build of %s failed:\n%s\n%s", pkg, indent(text), hint)
		}
		return Module{}, fmt.Errorf("go build of %s failed:\n%s", pkg, indent(text))
	}
	if isArchive(tmp.Name()) {
		// go build -o of a package that is not main writes its archive.
		return Module{}, fmt.Errorf("pkg %s is not a main package: a node runs a program, so its pkg is a package main with a func main", pkg)
	}
	return storeFile(store, tmp.Name(), true)
}

// isArchive says whether the file at path starts as a Go package archive
// (an ar file) does.
func isArchive(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 8)
	n, _ := io.ReadFull(f, head)
	return string(head[:n]) == "!<arch>\n"
}

// storePrebuilt copies a prebuilt module into the store under its hash,
// after checking that it is a wasip1 command: a module that would fail on the
// first seed is refused here, by sf-build as by sf-run, with the node's name.
// A module already in the store passed the check when it was stored.
func storePrebuilt(store, path string) (Module, error) {
	data, err := readfile.Regular(path, config.ModuleBytesMax)
	if err != nil {
		return Module{}, err
	}
	if len(data) < 8 || !bytes.Equal(data[:4], []byte("\x00asm")) {
		return Module{}, fmt.Errorf("%s is not a WebAssembly module", path)
	}
	sum := sha256.Sum256(data)
	if _, err := os.Stat(filepath.Join(store, hex.EncodeToString(sum[:])+".wasm")); err != nil {
		if err := checkCommand(path, data); err != nil {
			return Module{}, err
		}
	}
	return storeFile(store, path, false)
}

// checkCommand reports whether the module is valid WebAssembly that exports
// _start, as a wasip1 command does. It compiles with wazero's interpreter,
// which validates the module without generating machine code.
func checkCommand(path string, data []byte) error {
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	m, err := rt.CompileModule(ctx, data)
	if err != nil {
		return fmt.Errorf("%s is not a WebAssembly module: %v", path, err)
	}
	if _, ok := m.ExportedFunctions()["_start"]; !ok {
		return fmt.Errorf("%s is not a wasip1 command: it exports no _start function (build it with GOOS=wasip1 GOARCH=wasm)", path)
	}
	return nil
}

// storeFile copies (or moves) a module into the store under its hash.
func storeFile(store, path string, move bool) (Module, error) {
	data, err := readfile.Regular(path, config.ModuleBytesMax)
	if err != nil {
		return Module{}, err
	}
	if len(data) < 8 || !bytes.Equal(data[:4], []byte("\x00asm")) {
		return Module{}, fmt.Errorf("%s is not a WebAssembly module", path)
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	dst := filepath.Join(store, hash+".wasm")
	mod := Module{Wasm: dst, SHA256: hash, Size: int64(len(data))}
	if _, err := os.Stat(dst); err == nil {
		mod.Cached = true
		return mod, nil
	}
	if move {
		if err := os.Rename(path, dst); err == nil {
			return mod, nil
		}
	}
	// atomicfile's temporary file is the writer's own: processes storing
	// one module at once (the packages of make test) never share one.
	return mod, atomicfile.WriteFile(dst, data, 0o644)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func indent(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }

func sizeString(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
