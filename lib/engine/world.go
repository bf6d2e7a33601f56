package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/tetratelabs/wazero"
)

// GuestMemoryLimitPages caps each guest's linear memory: 16384 pages of 64
// KiB is 1 GiB. A guest that needs more fails with class oom.
const GuestMemoryLimitPages = 16384

// NodeSpec is one program of the world as the engine needs it: a name, its
// module and its command line.
type NodeSpec struct {
	Name     string
	Wasm     string // path of the built module
	Args     []string
	Env      map[string]string
	Workload bool
	// Finally marks the check that starts once every workload has exited 0.
	Finally bool
	// Seed lists files copied onto the node's disk before it first starts,
	// durable and synced (the world's disk and files fields).
	Seed []SeedFile
	// UpgradeWasm is the module the node runs from its first restart on.
	UpgradeWasm string
	// NetFaults says whether partitions, clogs and resets reach this
	// program.
	NetFaults bool
	// Faults says whether the per-node faults (crashes, clock skew and
	// jumps) reach this program: by default nodes take them and workloads
	// and the finally check do not.
	Faults bool
}

// SeedFile is one file of a seeded disk.
type SeedFile struct {
	Path string
	Data []byte
}

// Spec is what a run needs from the world file.
type Spec struct {
	Nodes        []NodeSpec // crashable nodes first, then workloads
	DurationNs   int64
	LatencyNs    [2]int64
	WatchdogNs   int64
	Supervise    bool
	CrashPerSec  float64
	RestartAfter [2]int64
	// LivenessWithinNs turns on liveness mode: at DurationNs the faults stop
	// and crashed nodes restart, and the workloads (and the finally check)
	// must then finish within this much virtual time. 0 is off.
	LivenessWithinNs int64
	// ClockSkewNs offsets each node's wall clock by a seeded amount in
	// [-skew, +skew].
	ClockSkewNs int64
	// ClockJumpPerSec and ClockJumpMaxNs plan jumps of a node's wall clock.
	ClockJumpPerSec float64
	ClockJumpMaxNs  int64
	// Swarm turns each fault type on or off per seed and rescales its rate.
	Swarm bool
	// Net holds the network fault settings.
	Net NetFaults
	// Disk holds the disk settings and fault rates.
	Disk DiskFaults
	// Buggify lets sim.Buggify sites fire.
	Buggify bool
	// CheckerModel is the model recorded histories are checked against.
	// Defaults to kv.
	CheckerModel string
	// HistoryTimeoutNs is the real-time limit of a linearizability check.
	// Defaults to 30s.
	HistoryTimeoutNs int64
	// FaultsAfterSetup holds every fault back until a node calls
	// sim.SetupComplete.
	FaultsAfterSetup bool
	// Limits bound the run's steps, trace and descriptors, and the
	// history check's work (limits.go). Defaults to the Default*Max
	// constants.
	Limits Limits
	// Preempt, when not nil, preempts goroutines inside every program
	// (preempt.go). Defaults to nil: no counting and no preemption, the
	// module runs as it did before preemption existed.
	Preempt *Preempt
	// NetOverlay puts /etc/hosts and /etc/nsswitch.conf on every node's disk
	// before it starts, so that guests built with the net_overlay resolve
	// node names (netoverlay.go).
	NetOverlay bool
}

// Engine holds what is shared by every run of one process: the wazero
// runtime, the host modules and the compiled guests. It is safe for
// concurrent runs.
type Engine struct {
	rt       wazero.Runtime
	mu       sync.Mutex
	compiled map[string]*compiling
}

// New returns an engine whose compiled modules are cached on disk in
// cacheDir (empty for no disk cache).
func New(cacheDir string) (*Engine, error) {
	ctx := context.Background()
	cfg, err := runtimeConfig(cacheDir)
	if err != nil {
		return nil, err
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	e := &Engine{rt: rt, compiled: map[string]*compiling{}}
	if err := instantiateHostModules(ctx, rt); err != nil {
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

// Close releases the runtime.
func (e *Engine) Close() error { return e.rt.Close(context.Background()) }

// Compile compiles the module at path once per engine and checks that it is
// a wasip1 command that sf can run.
func (e *Engine) Compile(path string) (wazero.CompiledModule, error) {
	return e.CompileFor(path, nil)
}

// CompileFor is Compile for a world with the preemption settings p (nil for
// none): a preempting world runs a module that also counts calls, compiled
// and cached apart from the plain one.
func (e *Engine) CompileFor(path string, p *Preempt) (wazero.CompiledModule, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	var mode instrumentMode
	key := abs
	if p != nil {
		mode = instrumentMode{preempt: true, loops: p.Loops}
		key += "\x00preempt"
		if p.Loops {
			key += "+loops"
		}
	}
	// The lock covers the table only, so that different modules compile at
	// once (sf-run's start compiles the world's modules in parallel); a
	// second caller of the same module waits for the first's outcome.
	e.mu.Lock()
	if c, ok := e.compiled[key]; ok {
		e.mu.Unlock()
		<-c.done
		if c.err == nil {
			return c.m, nil
		}
		return e.CompileFor(path, p) // the failed attempt was dropped: try again, as a first caller
	}
	c := &compiling{done: make(chan struct{})}
	e.compiled[key] = c
	e.mu.Unlock()
	c.m, c.err = compileModule(e.rt, path, abs, mode)
	if c.err != nil {
		// A failure is not kept: the next call tries again.
		e.mu.Lock()
		delete(e.compiled, key)
		e.mu.Unlock()
	}
	close(c.done)
	return c.m, c.err
}

// compiling is one module's compilation, done or under way.
type compiling struct {
	done chan struct{} // closed when m and err are set
	m    wazero.CompiledModule
	err  error
}

func compileModule(rt wazero.Runtime, path, abs string, mode instrumentMode) (wazero.CompiledModule, error) {
	bin, err := os.ReadFile(abs)
	if err != nil {
		return nil, err
	}
	if _, err := splitSections(bin); err != nil {
		return nil, fmt.Errorf("%s: not a WebAssembly module", path)
	}
	var instrumented []byte
	if mode.preempt {
		if instrumented, err = rewriteModule(bin, mode); err != nil {
			if errors.Is(err, errUninstrumentable) {
				err = errors.New("preempt: the module cannot be instrumented to count calls (preempt needs a module built by Go for wasip1)")
			}
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	} else {
		instrumented, _ = instrumentLoops(bin)
	}
	m, err := rt.CompileModule(context.Background(), mergeDataSegments(instrumented))
	if err != nil {
		return nil, fmt.Errorf("%s: not a WebAssembly module: %v", path, err)
	}
	if err := checkGuest(path, m); err != nil {
		return nil, err
	}
	return m, nil
}

// checkGuest rejects modules that are not wasip1 commands or that import
// something the engine does not provide, before any seed runs.
func checkGuest(path string, m wazero.CompiledModule) error {
	if _, ok := m.ExportedFunctions()["_start"]; !ok {
		return fmt.Errorf("%s: not a wasip1 command: it exports no _start function (build it with GOOS=wasip1 GOARCH=wasm)", path)
	}
	var missing []string
	for _, imp := range m.ImportedFunctions() {
		mod, name, _ := imp.Import()
		if !hostProvides(mod, name) {
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
