package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/sf-dst/sf/lib/engine/compat"
	"github.com/sf-dst/sf/lib/engine/core"
	"github.com/sf-dst/sf/lib/engine/netoverlay"
	"github.com/sf-dst/sf/lib/engine/simsdk"
	"github.com/sf-dst/sf/lib/engine/udp"
	"github.com/sf-dst/sf/lib/engine/wasi"
	"github.com/sf-dst/sf/lib/wasmrewrite"
	"github.com/tetratelabs/wazero"
)

// Engine holds what is shared by every run of one process: the wazero
// runtime, the host modules and the compiled guests. It is safe for
// concurrent runs.
type Engine struct {
	rt       wazero.Runtime
	host     *core.Host
	mu       sync.Mutex
	compiled map[string]*compiling
	// instances keeps ended guests' instances for the next guest of the
	// same module (core/reuse.go).
	instances core.InstancePool
}

// Adapters are the host interfaces every guest sees, in the order their
// functions are declared.
func Adapters() []core.Adapter {
	return []core.Adapter{wasi.Adapter{}, simsdk.Adapter{}, netoverlay.Adapter{}, udp.Adapter{}, compat.Adapter{}}
}

// host is the one host every engine instantiates: its declarations are
// checked once per process.
var host = sync.OnceValues(func() (*core.Host, error) { return core.NewHost(Adapters()...) })

// New returns an engine whose compiled modules are cached on disk in
// cacheDir (empty for no disk cache).
func New(cacheDir string) (*Engine, error) {
	ctx := context.Background()
	cfg, err := runtimeConfig(cacheDir)
	if err != nil {
		return nil, err
	}
	h, err := host()
	if err != nil {
		return nil, err
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	e := &Engine{rt: rt, host: h, compiled: map[string]*compiling{}}
	if err := h.Instantiate(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, err
	}
	return e, nil
}

// runtimeConfig is the wazero configuration of every engine: the optimizing
// compiler, the guests' memory limit, and the compilation cache in cacheDir
// (empty for none). BenchmarkGuestSpeed runs its program under the same one.
func runtimeConfig(cacheDir string) (wazero.RuntimeConfig, error) {
	cfg := wazero.NewRuntimeConfigCompiler().
		WithMemoryLimitPages(GuestMemoryLimitPages).
		WithCloseOnContextDone(false)
	if cacheDir != "" {
		if err := os.MkdirAll(cacheDir, 0o755); err != nil {
			return nil, fmt.Errorf("compilation cache: %w", err)
		}
		cache, err := wazero.NewCompilationCacheWithDir(cacheDir)
		if err != nil {
			return nil, fmt.Errorf("compilation cache: %w", err)
		}
		cfg = cfg.WithCompilationCache(cache)
	}
	return cfg, nil
}

// Runtime is the runtime the engine's guests are instantiated in.
func (e *Engine) Runtime() wazero.Runtime { return e.rt }

// Close releases the runtime.
func (e *Engine) Close() error {
	e.instances.Close()
	return e.rt.Close(context.Background())
}

// Instances is the engine's pool of ended guests' instances.
func (e *Engine) Instances() *core.InstancePool { return &e.instances }

// Compile compiles the module at path once per engine and checks that it is
// a wasip1 command that sf can run. The module is taken as it is: the build
// side prepares it (build.Runnable), with its loop ticks and, for a world
// that preempts, its call counting.
func (e *Engine) Compile(path string) (wazero.CompiledModule, error) {
	return e.CompileFor(path, nil)
}

// CompileFor is Compile for a world with the preemption settings p (nil for
// none): a preempting world needs a module prepared for it, and gets an
// error naming the module otherwise.
func (e *Engine) CompileFor(path string, p *Preempt) (wazero.CompiledModule, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	// The lock covers the table only, so that different modules compile at
	// once (sf-run's start compiles the world's modules in parallel); a
	// second caller of the same module waits for the first's outcome.
	e.mu.Lock()
	if c, ok := e.compiled[abs]; ok {
		e.mu.Unlock()
		<-c.done
		if c.err == nil {
			return c.m, e.checkPreempt(path, c.counts, p)
		}
		return e.CompileFor(path, p) // the failed attempt was dropped: try again, as a first caller
	}
	c := &compiling{done: make(chan struct{})}
	e.compiled[abs] = c
	e.mu.Unlock()
	c.m, c.counts, c.fork, c.forkErr, c.data, c.err = e.compileModule(path, abs)
	if c.err != nil {
		// A failure is not kept: the next call tries again.
		e.mu.Lock()
		delete(e.compiled, abs)
		e.mu.Unlock()
	}
	close(c.done)
	if c.err != nil {
		return nil, c.err
	}
	return c.m, e.checkPreempt(path, c.counts, p)
}

// compiling is one module's compilation, done or under way.
type compiling struct {
	done   chan struct{} // closed when the fields below are set
	m      wazero.CompiledModule
	counts bool // prepared for preemption (wasmrewrite.Counts)
	// fork is how to fork the module's guests, or forkErr why they
	// cannot be (wasmrewrite.ReadForkInfo).
	fork    *wasmrewrite.ForkInfo
	forkErr error
	// data is the run of memory its data segments write whole
	// (wasmrewrite.DataRange), empty when there is none to rely on.
	data [2]uint64
	err  error
}

func (e *Engine) compileModule(path, abs string) (m wazero.CompiledModule, counts bool, fork *wasmrewrite.ForkInfo, forkErr error, data [2]uint64, err error) {
	bin, err := os.ReadFile(abs)
	if err != nil {
		return nil, false, nil, nil, data, err
	}
	if !wasmrewrite.IsModule(bin) {
		return nil, false, nil, nil, data, fmt.Errorf("%s: not a WebAssembly module", path)
	}
	m, err = e.rt.CompileModule(context.Background(), bin)
	if err != nil {
		return nil, false, nil, nil, data, fmt.Errorf("%s: not a WebAssembly module: %v", path, err)
	}
	if err := e.checkGuest(path, m); err != nil {
		return nil, false, nil, nil, data, err
	}
	fork, forkErr = wasmrewrite.ReadForkInfo(bin)
	if lo, hi, ok := wasmrewrite.DataRange(bin); ok {
		data = [2]uint64{lo, hi}
	}
	return m, wasmrewrite.Counts(bin), fork, forkErr, data, nil
}

// DataRange is the run [lo, hi) of memory that instantiating the module at
// path, compiled before, writes whole from its data segments; lo == hi when
// there is none to rely on.
func (e *Engine) DataRange(path string) (lo, hi uint64) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return 0, 0
	}
	e.mu.Lock()
	c, ok := e.compiled[abs]
	e.mu.Unlock()
	if !ok {
		return 0, 0
	}
	<-c.done
	return c.data[0], c.data[1]
}

// ForkInfo says how to fork the guests of the module at path, which the
// engine compiled before, or why they cannot be forked.
func (e *Engine) ForkInfo(path string) (*wasmrewrite.ForkInfo, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	c, ok := e.compiled[abs]
	e.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%s: not compiled by this engine", path)
	}
	<-c.done
	switch {
	case c.err != nil:
		return nil, c.err
	case c.forkErr != nil:
		return nil, c.forkErr
	}
	return c.fork, nil
}

// checkPreempt refuses a module that does not count calls for a world that
// preempts.
func (e *Engine) checkPreempt(path string, counts bool, p *Preempt) error {
	if p != nil && !counts {
		return fmt.Errorf("%s: preempt: the module was not prepared to count calls (build.Runnable with preemption)", path)
	}
	return nil
}

// checkGuest rejects modules that are not wasip1 commands or that import
// something the engine does not provide, before any seed runs.
func (e *Engine) checkGuest(path string, m wazero.CompiledModule) error {
	if _, ok := m.ExportedFunctions()["_start"]; !ok {
		return fmt.Errorf("%s: not a wasip1 command: it exports no _start function (build it with GOOS=wasip1 GOARCH=wasm)", path)
	}
	var missing []string
	for _, imp := range m.ImportedFunctions() {
		mod, name, _ := imp.Import()
		if !e.host.Provides(mod, name) {
			missing = append(missing, mod+"."+name)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("%s: imports functions sf does not provide: %v (is it a Go wasip1 module?)", path, missing)
	}
	for _, imp := range m.ImportedMemories() {
		mod, name, _ := imp.Import()
		return fmt.Errorf("%s: imports memory %s.%s, which sf does not provide", path, mod, name)
	}
	return nil
}
