package runner

// This file loads a world, builds its packages and compiles them: what a
// sweep, a shrink or a schedule edit needs before its first run.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/sf-dst/sf/lib/build"
	"github.com/sf-dst/sf/lib/catalog"
	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/readfile"
	"github.com/sf-dst/sf/lib/wasmrewrite"
)

// Prepared is a world ready to run: loaded, built and compiled.
type Prepared struct {
	Catalog  *catalog.Catalog // properties and buggify sites found in the source; nil if the scan failed
	World    *config.World
	Manifest *build.Manifest
	Spec     *engine.Spec
	Engine   *engine.Engine

	// setups are the runs of the world's setup that its seeds share, with
	// "fork": "setup" (setup.go).
	setupMu    sync.Mutex
	setups     map[setupKey]*setupFork
	setupOrder []setupKey // oldest first, at most SetupsHeld
}

// Prepare loads, builds and compiles the world at path. Build progress goes
// to log.
func Prepare(path string, load config.LoadOptions, log io.Writer) (*Prepared, error) {
	w, err := config.LoadWith(path, load)
	if err != nil {
		return nil, err
	}
	man, err := build.Build(w, build.Options{Log: log, NetOverlay: w.NetOverlay, CompatOverlay: w.CompatOverlay})
	if err != nil {
		return nil, err
	}
	eng, err := engine.New(build.CacheDir(w))
	if err != nil {
		return nil, err
	}
	spec, err := EngineSpec(w)
	if err != nil {
		eng.Close()
		return nil, err
	}
	// Every module is prepared (build.Runnable: loop ticks, the world's
	// call counting, merged data segments) and compiled at once, ahead of
	// the loop below: loading a module, even from the compilation cache,
	// decodes and validates all of it, and the loop then takes each node's
	// outcome in the world's order, so that the error reported is the one
	// it was before.
	var mode wasmrewrite.Mode
	if p := spec.Preempt; p != nil {
		mode = wasmrewrite.Mode{Preempt: true, Loops: p.Loops}
	}
	type prepared struct {
		done chan struct{}
		path string // the prepared module
		err  error
	}
	compiled := map[string]*prepared{}
	prepare := func(wasm string) (string, error) {
		runnable, err := build.Runnable(wasm, mode)
		if err != nil {
			return "", err
		}
		_, err = eng.CompileFor(runnable, spec.Preempt)
		return runnable, err
	}
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, n := range w.AllNodes() {
		for _, wasm := range []string{man.UpgradeWasm(n.Name), man.Wasm(n.Name)} {
			if wasm == "" || compiled[wasm] != nil {
				continue
			}
			p := &prepared{done: make(chan struct{})}
			compiled[wasm] = p
			go func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				p.path, p.err = prepare(wasm)
				close(p.done)
			}()
		}
	}
	// runnable waits for wasm's preparation and returns the module the
	// engine runs for it.
	runnable := func(wasm string) (string, error) {
		p := compiled[wasm]
		if p == nil { // a node the manifest names no module for: preparing it says why
			return prepare(wasm)
		}
		<-p.done
		return p.path, p.err
	}
	// An early return waits for every compilation before it closes the
	// engine.
	closeEngine := func() {
		for _, p := range compiled {
			<-p.done
		}
		eng.Close()
	}
	f := w.Faults
	workloads := w.Workloads()
	for _, n := range w.AllNodes() {
		nodeFaults, netFaults := w.FaultsFor(n)
		ns := engine.NodeSpec{Name: n.Name, Args: n.Args, Env: n.Env,
			Workload: slices.Contains(workloads, n), Finally: n == w.Finally, Faults: nodeFaults, NetFaults: netFaults}
		if ns.Seed, err = seedFiles(n); err != nil {
			closeEngine()
			return nil, fmt.Errorf("%s: node %s: %w", w.File, n.Name, err)
		}
		if limit := f.DiskBytes; limit > 0 {
			var total int64
			for _, sf := range ns.Seed {
				total += int64(len(sf.Data))
			}
			if total > limit {
				closeEngine()
				return nil, fmt.Errorf("%s: node %s: its seeded disk holds %d bytes, more than faults.disk_bytes (%d)", w.File, n.Name, total, limit)
			}
		}
		if up := man.UpgradeWasm(n.Name); up != "" {
			if ns.UpgradeWasm, err = runnable(up); err != nil {
				closeEngine()
				return nil, fmt.Errorf("node %s (upgrade_to %s): %w", n.Name, n.UpgradeTo, err)
			}
		}
		if ns.Wasm, err = runnable(man.Wasm(n.Name)); err != nil {
			closeEngine()
			where := n.Wasm
			if where == "" {
				where = n.Pkg
			}
			return nil, fmt.Errorf("node %s (%s): %w", n.Name, where, err)
		}
		spec.Nodes = append(spec.Nodes, ns)
	}
	p := &Prepared{World: w, Manifest: man, Spec: spec, Engine: eng}
	var pkgs []string
	for _, n := range w.AllNodes() {
		if n.Pkg != "" {
			pkgs = append(pkgs, n.Pkg)
		}
	}
	if cat, err := catalog.ScanListed(w.Dir, pkgs, man.Listed); err == nil {
		p.Catalog = cat
	} else {
		fmt.Fprintf(log, "sf-run: could not catalog properties (never-reached ones will not be reported): %v\n", err)
	}
	return p, nil
}

// seedFiles reads the host directory and files a node's disk starts with,
// once per sweep, so each seed copies them from memory. Only directories
// and regular files may be there: a named pipe would block the read, a
// device never end it.
func seedFiles(n *config.Node) ([]engine.SeedFile, error) {
	var out []engine.SeedFile
	var total int64
	if n.Disk != "" {
		err := filepath.WalkDir(n.Disk, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				// Following it could copy any host file onto the disk.
				return fmt.Errorf("%s is a symbolic link: put the file itself in the disk folder", path)
			}
			data, err := readfile.Regular(path, config.SeedBytesMax-total)
			if err != nil {
				return err
			}
			total += int64(len(data))
			rel, _ := filepath.Rel(n.Disk, path)
			out = append(out, engine.SeedFile{Path: filepath.ToSlash(rel), Data: data})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("disk: %w", seedLimit(err, total))
		}
	}
	keys := make([]string, 0, len(n.Files))
	for k := range n.Files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		data, err := readfile.Regular(n.Files[k], config.SeedBytesMax-total)
		if err != nil {
			return nil, fmt.Errorf("files.%s: %w", k, seedLimit(err, total))
		}
		total += int64(len(data))
		out = append(out, engine.SeedFile{Path: k, Data: data})
	}
	return out, nil
}

// seedLimit says, when a file went over what was left of config.SeedBytesMax
// after the files read before it, that the limit is for all of them.
func seedLimit(err error, before int64) error {
	var big *readfile.TooLargeError
	if before > 0 && errors.As(err, &big) {
		return fmt.Errorf("%s: with the %d bytes before it, the node's disk would start with more than %s (the limit for its disk folder and files together)",
			big.Path, before, readfile.Size(config.SeedBytesMax))
	}
	return err
}

func (p *Prepared) nodeNames() []string {
	var out []string
	for _, n := range p.Spec.Nodes {
		out = append(out, n.Name)
	}
	return out
}
