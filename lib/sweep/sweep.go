// Package sweep runs a world over many seeds: it loads and builds the world,
// runs each seed on the engine (on parallel workers, with results in seed
// order whatever the number of workers), writes the artifacts of failing
// seeds, and reports in JSONL or for people. sf-run is a thin wrapper
// around it.
package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sf-dst/sf/lib/atomicfile"
	"github.com/sf-dst/sf/lib/build"
	"github.com/sf-dst/sf/lib/catalog"
	"github.com/sf-dst/sf/lib/check"
	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/exitcode"
	"github.com/sf-dst/sf/lib/history"
	"github.com/sf-dst/sf/lib/record"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/simnet"
)

// Version is the version the tools report.
const Version = "0.1.0"

// Exit statuses, kept as aliases of lib/exitcode so that older callers
// compile; new code uses lib/exitcode.
const (
	ExitPass        = exitcode.Pass
	ExitProblem     = exitcode.Problem
	ExitUsage       = exitcode.Usage
	ExitInterrupted = exitcode.Interrupted
)

// Options describe one invocation of sf-run.
type Options struct {
	Config    string   // the world file as the user named it
	Seeds     []uint64 // seeds to run, in order
	SeedsText string   // the seeds as the user wrote them, for records
	Replay    bool     // one seed given with -seed: print its trace
	Jobs      int      // parallel workers. Defaults to the number of CPUs
	Check     bool     // run every seed twice and compare
	JSON      bool     // JSONL on stdout, the human summary on stderr
	Faults    string   // a schedule file to apply instead of drawing faults
	Profile   string   // a profile of the world file to apply
	Inspect   bool     // with Replay: list each node's disk after the run
	Set       []string // path=value overrides of the world file, applied last
	// Interrupt, when set, stops the sweep as SIGINT does once it becomes
	// true. Defaults to a flag only the signals set.
	Interrupt *atomic.Bool
	// HistoryTimeout is the real-time limit of each history check. Defaults
	// to 30s.
	HistoryTimeout time.Duration
	Tool           string // how the user invoked the tool, for repro lines
	Stdin          io.Reader
	Stdout         io.Writer
	Stderr         io.Writer

	// budget and branches are those of the schedule replayed with -faults,
	// kept in the schedule a failing replay writes.
	budget   int
	branches []schedule.Branch

	// DivergeSecondRunAtCall makes the second run of each -check pair
	// perturb virtual time at that host call. Tests use it to prove the
	// determinism check can fail; no flag sets it.
	DivergeSecondRunAtCall uint64
}

// InputError is an error in what the user gave (exit status 2).
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Main runs the sweep and returns the exit status.
func Main(o Options) int {
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	code, err := run(o)
	if err != nil {
		fmt.Fprintf(o.Stderr, "sf-run: %v\n", err)
		return ExitUsage
	}
	return code
}

// Prepared is a world ready to run: loaded, built and compiled.
type Prepared struct {
	Catalog  *catalog.Catalog // properties and buggify sites found in the source; nil if the scan failed
	World    *config.World
	Manifest *build.Manifest
	Spec     *engine.Spec
	Engine   *engine.Engine
}

// Prepare loads, builds and compiles the world at path. Build progress goes
// to log.
func Prepare(path string, load config.LoadOptions, log io.Writer) (*Prepared, error) {
	w, err := config.LoadWith(path, load)
	if err != nil {
		return nil, err
	}
	man, err := build.Build(w, build.Options{Log: log, NetOverlay: w.NetOverlay})
	if err != nil {
		return nil, err
	}
	eng, err := engine.New(filepath.Join(build.Dir(w), "cache"))
	if err != nil {
		return nil, err
	}
	f := w.Faults
	spec := &engine.Spec{
		DurationNs:       int64(w.Duration),
		LatencyNs:        [2]int64{int64(w.Latency[0]), int64(w.Latency[1])},
		WatchdogNs:       int64(w.Watchdog),
		Supervise:        w.Supervise,
		CrashPerSec:      f.CrashPerSec,
		RestartAfter:     [2]int64{int64(f.RestartAfter[0]), int64(f.RestartAfter[1])},
		LivenessWithinNs: int64(w.Liveness.Within),
		ClockSkewNs:      int64(f.ClockSkew),
		ClockJumpPerSec:  f.ClockJumpPerSec,
		ClockJumpMaxNs:   int64(f.ClockJumpMax),
		Swarm:            f.Swarm,
		Buggify:          f.Buggify,
		FaultsAfterSetup: w.FaultsAfterSetup,
		CheckerModel:     w.Checker.Model,
		NetOverlay:       w.NetOverlay,
		Net: engine.NetFaults{
			PartitionPerSec: f.PartitionPerSec, PartitionForNs: rangeNs(f.PartitionFor),
			PartitionTopologies: f.PartitionTopologies,
			ClogPerSec:          f.ClogPerSec, ClogForNs: rangeNs(f.ClogFor), ClogModes: f.ClogModes,
			ClogDelayNs:   rangeNs(f.ClogDelay),
			SwizzlePerSec: f.SwizzlePerSec, ResetPerSec: f.ResetPerSec,
			SlowPerSec: f.SlowPerSec, SlowForNs: rangeNs(f.SlowFor), SlowFactor: f.SlowFactor,
			PausePerSec: f.PausePerSec, PauseForNs: rangeNs(f.PauseFor),
			UDPLoss: f.UDPLoss, UDPDup: f.UDPDup,
		},
		Disk: engine.DiskFaults{
			Torn: f.TornWrites, Reorder: f.ReorderWrites, StrictDirs: f.StrictDirs, CorruptOnCrash: f.CorruptOnCrash,
			CrashOnIO: f.CrashOnIO, FsyncEIO: f.FsyncEIO, WriteEIO: f.WriteEIO, WriteENOSPC: f.WriteENOSPC,
			ReadEIO: f.ReadEIO, ReadCorrupt: f.ReadCorrupt, LostWrite: f.LostWrite, Misdirected: f.MisdirectedWrite,
			BitrotPerSec: f.BitrotPerSec, CapacityBytes: f.DiskBytes,
			LatencyNs: [2]int64{int64(f.DiskLatency[0]), int64(f.DiskLatency[1])},
		},
	}
	for _, l := range w.Links {
		spec.Net.Links = append(spec.Net.Links, simnet.Link{From: l.From, To: l.To, LatencyNs: rangeNs(l.Latency)})
	}
	if f.FSModel != "" {
		m, err := disk.ParseFSModel(f.FSModel)
		if err != nil {
			return nil, fmt.Errorf("%s: faults.fs_model: %w", w.File, err)
		}
		spec.Disk.Model = m
	}
	workloads := w.Workloads()
	for _, n := range w.AllNodes() {
		nodeFaults, netFaults := w.FaultsFor(n)
		ns := engine.NodeSpec{Name: n.Name, Wasm: man.Wasm(n.Name), Args: n.Args, Env: n.Env,
			Workload: slices.Contains(workloads, n), Finally: n == w.Finally, Faults: nodeFaults, NetFaults: netFaults,
			UpgradeWasm: man.UpgradeWasm(n.Name)}
		if ns.Seed, err = seedFiles(n); err != nil {
			eng.Close()
			return nil, fmt.Errorf("%s: node %s: %w", w.File, n.Name, err)
		}
		if limit := f.DiskBytes; limit > 0 {
			var total int64
			for _, sf := range ns.Seed {
				total += int64(len(sf.Data))
			}
			if total > limit {
				eng.Close()
				return nil, fmt.Errorf("%s: node %s: its seeded disk holds %d bytes, more than faults.disk_bytes (%d)", w.File, n.Name, total, limit)
			}
		}
		if ns.UpgradeWasm != "" {
			if _, err := eng.Compile(ns.UpgradeWasm); err != nil {
				eng.Close()
				return nil, fmt.Errorf("node %s (upgrade_to %s): %w", n.Name, n.UpgradeTo, err)
			}
		}
		if _, err := eng.Compile(ns.Wasm); err != nil {
			eng.Close()
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
	if cat, err := catalog.ScanFrom(w.Dir, pkgs); err == nil {
		p.Catalog = cat
	} else {
		fmt.Fprintf(log, "sf-run: could not catalog properties (never-reached ones will not be reported): %v\n", err)
	}
	return p, nil
}

func rangeNs(r config.Range) [2]int64 { return [2]int64{int64(r[0]), int64(r[1])} }

// seedFiles reads the host directory and files a node's disk starts with,
// once per sweep, so each seed copies them from memory.
func seedFiles(n *config.Node) ([]engine.SeedFile, error) {
	var out []engine.SeedFile
	if n.Disk != "" {
		err := filepath.WalkDir(n.Disk, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.Type().IsRegular() {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(n.Disk, path)
			out = append(out, engine.SeedFile{Path: filepath.ToSlash(rel), Data: data})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("disk: %w", err)
		}
	}
	keys := make([]string, 0, len(n.Files))
	for k := range n.Files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		data, err := os.ReadFile(n.Files[k])
		if err != nil {
			return nil, fmt.Errorf("files.%s: %w", k, err)
		}
		out = append(out, engine.SeedFile{Path: k, Data: data})
	}
	return out, nil
}

func (p *Prepared) nodeNames() []string {
	var out []string
	for _, n := range p.Spec.Nodes {
		out = append(out, n.Name)
	}
	return out
}

func run(o Options) (int, error) {
	if len(o.Seeds) == 0 {
		return 0, errors.New("no seeds to run")
	}
	if o.Jobs <= 0 {
		o.Jobs = runtime.NumCPU()
	}
	if o.Jobs < runtime.GOMAXPROCS(0) {
		// Only one goroutine of each run executes at a time, so more Ps than
		// workers only add wake-ups of idle threads at every baton handoff.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(o.Jobs))
	}
	if o.Tool == "" {
		o.Tool = "sf-run"
	}
	human := o.Stdout
	if o.JSON {
		human = o.Stderr
	}
	start := time.Now()
	prep, err := Prepare(o.Config, config.LoadOptions{Profile: o.Profile, Set: o.Set, Stdin: o.Stdin}, o.Stderr)
	if err == nil && o.HistoryTimeout != 0 {
		prep.Spec.HistoryTimeoutNs = int64(o.HistoryTimeout)
	}
	if err != nil {
		return 0, err
	}
	defer prep.Engine.Close()

	var sched *schedule.Schedule
	if o.Faults != "" {
		if sched, err = prep.ReadSchedule(o.Faults, o.Stdin); err != nil {
			return 0, err
		}
		o.budget, o.branches = sched.Budget, sched.Branches
	}

	var jw *record.Writer
	if o.JSON {
		jw = record.NewWriter(o.Stdout)
		jw.Write(record.Start{Kind: record.KindStart, Tool: "sf-run", Version: Version, Schema: record.Schema,
			Config: o.Config, Profile: o.Profile, Set: o.Set, Seeds: o.SeedsText, Count: len(o.Seeds), Jobs: o.Jobs, Check: o.Check})
	}

	// SIGINT or SIGTERM stops the sweep: no seed starts after it, running
	// seeds end at their next step, and what finished is reported.
	interrupt := o.Interrupt
	if interrupt == nil {
		interrupt = new(atomic.Bool)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	stopWatch := make(chan struct{})
	defer close(stopWatch)
	go func() {
		select {
		case <-sigs:
			interrupt.Store(true)
		case <-stopWatch:
		}
	}()

	results := make([]chan *outcome, len(o.Seeds))
	for i := range results {
		results[i] = make(chan *outcome, 1)
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(o.Jobs, len(o.Seeds)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if interrupt.Load() {
					results[i] <- &outcome{interrupted: true}
					continue
				}
				results[i] <- runSeed(prep, o, o.Seeds[i], sched, interrupt)
			}
		}()
	}
	go func() {
		for i := range o.Seeds {
			work <- i
		}
		close(work)
	}()

	agg := newAggregate()
	agg.catalog(prep.Catalog)
	sum := record.Summary{Kind: record.KindSummary, Tool: "sf-run", Config: o.Config, FailedSeeds: []uint64{}}
	firstFailure := true
	for i, seed := range o.Seeds {
		out := <-results[i]
		if out.err != nil {
			wg.Wait()
			return 0, out.err
		}
		if out.interrupted || out.res.Status == engine.StatusInterrupted {
			sum.Interrupted = true
			continue
		}
		res := out.res
		sum.Seeds++
		agg.add(res.Properties)
		agg.addSites(res.Buggify)
		rec := seedRecord(o, res)
		switch res.Status {
		case engine.StatusPass:
			sum.Passed++
		case engine.StatusHorizon:
			sum.Passed++
			sum.Horizon++
		case engine.StatusNondeterministic:
			sum.Nondeterministic++
			sum.Failed++
			sum.FailedSeeds = append(sum.FailedSeeds, seed)
		default:
			sum.Failed++
			sum.FailedSeeds = append(sum.FailedSeeds, seed)
		}
		if res.Check != nil && res.Check.Verdict == check.Unknown {
			sum.GaveUp++
		}
		if res.Status == engine.StatusFail || res.Status == engine.StatusNondeterministic || (o.Replay && len(res.History) > 0) {
			arts, err := writeArtifacts(prep, o, res)
			if err != nil {
				fmt.Fprintf(o.Stderr, "sf-run: seed %d: %v\n", seed, err)
			}
			rec.Artifacts = arts
		}
		if jw != nil {
			jw.Write(rec)
		}
		if o.Replay {
			printReplay(human, o, res, rec.Artifacts)
		} else if res.Status == engine.StatusFail || res.Status == engine.StatusNondeterministic {
			switch {
			case firstFailure:
				printFailure(human, o, res)
				firstFailure = false
			case sum.Failed <= 1+failureLinesMax:
				fmt.Fprintf(human, "FAIL seed %d at t=%s: %s\n", seed, time.Duration(res.AtNs), res.Message)
			}
		}
	}
	wg.Wait()

	props := agg.rows()
	sum.Properties = props
	if p := prep.Spec; p.Buggify {
		sum.BuggifySites = agg.siteRows()
	}
	for _, p := range props {
		if p.Verdict != "" {
			sum.PropertyFailures++
		}
	}
	sum.RealNs = time.Since(start).Nanoseconds()
	sum.Status = "pass"
	if sum.Failed > 0 || (!o.Replay && sum.PropertyFailures > 0) {
		sum.Status = "fail"
	}
	if jw != nil {
		jw.Write(sum)
	}
	if !o.Replay || sum.Interrupted {
		printSummary(human, sum, time.Since(start))
	}
	switch {
	case sum.Interrupted:
		return ExitInterrupted, nil
	case sum.Status == "fail":
		return ExitProblem, nil
	}
	return ExitPass, nil
}

// failureLinesMax is how many failing seeds after the first get a line of
// their own in the human report; the rest are counted in the summary and
// listed in full in -json.
const failureLinesMax = 10

type outcome struct {
	res         *engine.Result
	err         error
	interrupted bool // never ran, or stopped before it ended
}

func runSeed(p *Prepared, o Options, seed uint64, sched *schedule.Schedule, interrupt *atomic.Bool) *outcome {
	opts := p.RunOptions(sched)
	opts.Inspect = o.Inspect
	opts.Interrupt = interrupt
	a, err := p.Engine.Run(p.Spec, seed, opts)
	if err != nil || !o.Check {
		return &outcome{res: a, err: err}
	}
	opts2 := opts
	opts2.DivergeAtCall = o.DivergeSecondRunAtCall
	b, err := p.Engine.Run(p.Spec, seed, opts2)
	if err != nil {
		return &outcome{err: err}
	}
	if a.Status == engine.StatusInterrupted || b.Status == engine.StatusInterrupted {
		return &outcome{interrupted: true}
	}
	if a.Hash == b.Hash && a.HostCalls == b.HostCalls && equalLines(a.Trace, b.Trace) {
		return &outcome{res: a}
	}
	a.Status = engine.StatusNondeterministic
	a.Class = engine.ClassNondet
	a.Message = "nondeterministic: " + diagnose(p, seed, opts, opts2, a, b)
	a.Node = ""
	a.Trace = append(a.Trace, fmt.Sprintf("%10s  FAIL  %s", "", a.Message))
	return &outcome{res: a}
}

// diagnose names the first host call where two runs of one seed differ: it
// finds the first window of checkpoints that disagrees and runs the seed
// twice more, recording that window.
func diagnose(p *Prepared, seed uint64, oa, ob engine.Options, a, b *engine.Result) string {
	if a.Hash == b.Hash && a.HostCalls == b.HostCalls {
		for i := 0; i < min(len(a.Trace), len(b.Trace)); i++ {
			if a.Trace[i] != b.Trace[i] {
				return fmt.Sprintf("host calls agree but trace line %d differs: %q vs %q", i+1, a.Trace[i], b.Trace[i])
			}
		}
		return fmt.Sprintf("host calls agree but the traces have %d and %d lines", len(a.Trace), len(b.Trace))
	}
	w := engine.FirstDivergence(a.Checkpoints, b.Checkpoints)
	if w < 0 {
		w = len(a.Checkpoints)
	}
	from := uint64(w) * engine.CheckpointEvery
	window := [2]uint64{from, from + engine.CheckpointEvery}
	oa.RecordCalls, ob.RecordCalls = window, window
	ra, err1 := p.Engine.Run(p.Spec, seed, oa)
	rb, err2 := p.Engine.Run(p.Spec, seed, ob)
	where := fmt.Sprintf("host calls %d-%d", window[0]+1, window[1])
	if err1 != nil || err2 != nil {
		return fmt.Sprintf("the runs differ in %s (the re-runs failed to start)", where)
	}
	if d := engine.DescribeDivergence(from+1, ra.Calls, rb.Calls); d != "" {
		return d + "; " + where
	}
	return fmt.Sprintf("the runs differ in %s, but the re-runs did not reproduce it", where)
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func historyVerdict(r *engine.Result) string {
	if r.Check == nil {
		return ""
	}
	return string(r.Check.Verdict)
}

// repro is the command that runs seed again exactly: the same world,
// profile, overrides and schedule.
func repro(o Options, seed uint64) string {
	args := []string{o.Tool, "-c", o.Config, "-seed", strconv.FormatUint(seed, 10)}
	if o.Profile != "" {
		args = append(args, "-profile", o.Profile)
	}
	for _, s := range o.Set {
		args = append(args, "-set", s)
	}
	if o.Faults != "" && o.Faults != "-" {
		args = append(args, "-faults", o.Faults)
	}
	return ShellJoin(args)
}

func seedRecord(o Options, r *engine.Result) record.Seed {
	return record.Seed{
		Kind: record.KindSeed, Seed: r.Seed, Config: o.Config, Profile: o.Profile, Set: o.Set, FaultsFile: o.Faults,
		Status: string(r.Status), Class: r.Class,
		Message: r.Message, Node: r.Node, AtNs: r.AtNs, Steps: r.Steps, HostCalls: r.HostCalls,
		RealNs: r.RealNs, DeterminismHash: fmt.Sprintf("%016x", r.Hash), Faults: len(r.Faults),
		Repro: repro(o, r.Seed), HistoryCheck: historyVerdict(r),
	}
}

// writeArtifacts writes a failing seed's trace and fault schedule next to
// the world file.
func writeArtifacts(p *Prepared, o Options, r *engine.Result) (*record.Artifacts, error) {
	dir := ArtifactDir(p.World)
	arts := &record.Artifacts{}
	if len(r.History) > 0 {
		path := filepath.Join(dir, fmt.Sprintf("seed-%d.history.jsonl", r.Seed))
		var b strings.Builder
		if err := history.WriteEvents(&b, r.History); err != nil {
			return nil, err
		}
		if err := atomicfile.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			return nil, err
		}
		arts.History = relPath(path)
		if r.Check != nil && r.Check.HasTimeline() {
			tl := filepath.Join(dir, fmt.Sprintf("seed-%d.history.html", r.Seed))
			var page bytes.Buffer
			if err := r.Check.WriteTimeline(&page); err != nil {
				return nil, err
			}
			if err := atomicfile.WriteFile(tl, page.Bytes(), 0o644); err != nil {
				return nil, err
			}
			arts.Timeline = relPath(tl)
		}
	}
	if r.Status != engine.StatusFail && r.Status != engine.StatusNondeterministic {
		return arts, nil // a passing replay keeps only its history
	}
	trace := filepath.Join(dir, fmt.Sprintf("seed-%d.trace.log", r.Seed))
	faults := filepath.Join(dir, fmt.Sprintf("seed-%d.faults.json", r.Seed))
	var b strings.Builder
	b.WriteString(failureBlock(o, r))
	b.WriteString("\ntrace:\n")
	for _, l := range r.Trace {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if err := atomicfile.WriteFile(trace, []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	arts.Trace = relPath(trace)
	if o.Faults != "" && o.Faults != "-" && sameFile(o.Faults, faults) {
		// A replay never overwrites the schedule it read.
		arts.Faults = relPath(faults)
		return arts, nil
	}
	sched := &schedule.Schedule{Seed: r.Seed, Config: o.Config, Profile: o.Profile, Set: o.Set, Duration: engine.Dur(r.AtNs),
		Budget: o.budget, Branches: o.branches, Faults: r.Faults}
	if err := sched.WriteFile(faults); err != nil {
		return nil, err
	}
	arts.Faults = relPath(faults)
	return arts, nil
}

func relPath(p string) string {
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return p
}

// failureBlock is the report of one failing seed: the header, what failed,
// the faults before it and how to replay it. It holds no real time, so a
// replay writes the same block.
func failureBlock(o Options, r *engine.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "FAIL seed %d at t=%s (%d scheduler steps)\n", r.Seed, time.Duration(r.AtNs), r.Steps)
	fmt.Fprintf(&b, "  %s\n", r.Message)
	if r.Class == engine.ClassPanic || r.Class == engine.ClassExit || r.Class == engine.ClassOOM || r.Class == engine.ClassDeadlock {
		if len(r.Tail) > 0 {
			fmt.Fprintf(&b, "\nlast lines of %s's stderr:\n", r.Node)
			for _, l := range r.Tail {
				fmt.Fprintf(&b, "    %s\n", l)
			}
		}
	}
	fmt.Fprintf(&b, "\nfaults before the failure (%d):\n", len(r.Faults))
	writeFaults(&b, r)
	fmt.Fprintf(&b, "\nreplay: %s\n", repro(o, r.Seed))
	return b.String()
}

// faultLinesMax is how many faults a report lists; the seed's schedule file
// and its trace hold them all.
const faultLinesMax = 20

func writeFaults(w io.Writer, r *engine.Result) {
	for i, f := range r.Faults {
		if i == faultLinesMax {
			fmt.Fprintf(w, "  ... and %d more: the seed's faults.json and trace.log hold them all\n", len(r.Faults)-faultLinesMax)
			break
		}
		fmt.Fprintf(w, "  %14s  %s\n", schedule.Time(int64(f.At)), f.Describe())
	}
}

func printFailure(w io.Writer, o Options, r *engine.Result) {
	block := failureBlock(o, r)
	// The header on screen also says how long the run took in real time.
	block = strings.Replace(block, " scheduler steps)", fmt.Sprintf(" scheduler steps, %dms real)", r.RealNs/1e6), 1)
	fmt.Fprint(w, block)
	fmt.Fprintln(w)
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

func printReplay(w io.Writer, o Options, r *engine.Result, arts *record.Artifacts) {
	if r.Status == engine.StatusFail || r.Status == engine.StatusNondeterministic {
		printFailure(w, o, r)
	} else {
		what := "passed"
		switch {
		case r.CutShort:
			what = "passed within the schedule's duration"
		case r.Status == engine.StatusHorizon:
			what = "passed (hit the time horizon)"
		}
		fmt.Fprintf(w, "ok  seed %d %s at t=%s (%d scheduler steps, %dms real)\n\n", r.Seed, what, time.Duration(r.AtNs), r.Steps, r.RealNs/1e6)
		fmt.Fprintf(w, "faults (%d):\n", len(r.Faults))
		writeFaults(w, r)
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "trace:")
	for _, l := range r.Trace {
		fmt.Fprintln(w, l)
	}
	if len(r.Disks) > 0 {
		fmt.Fprintln(w)
		printDisks(w, r.Disks)
	}
	if r.CutShort {
		fmt.Fprintf(w, "\nnote: this replay passed, but only ran for the schedule's duration (%s), when the run it was made\n"+
			"from failed. A pass within it shows that a fault it needs is missing, not that the bug is fixed; run\n"+
			"without -faults to test a fix.\n", schedule.RoundedDuration(r.AtNs))
	}
	fmt.Fprintf(w, "\ndeterminism hash %016x over %d host calls\n", r.Hash, r.HostCalls)
	if arts != nil {
		for _, a := range []struct{ what, path string }{{"trace", arts.Trace}, {"schedule", arts.Faults}, {"history", arts.History}, {"history timeline", arts.Timeline}} {
			if a.path != "" && !(a.what == "schedule" && o.Faults != "" && o.Faults != "-" && sameFile(o.Faults, a.path)) {
				fmt.Fprintf(w, "wrote %s %s\n", a.what, a.path)
			}
		}
	}
}

// printDisks is the -inspect view: each node's files with what is durable,
// what is pending and what is damaged, and how full the disk is.
func printDisks(w io.Writer, disks []engine.NodeDisk) {
	fmt.Fprintln(w, "disks at the end of the run:")
	for _, d := range disks {
		if d.CapacityBytes > 0 {
			fmt.Fprintf(w, "  %s: %d of %d bytes used (%.1f%%)\n", d.Node, d.UsageBytes, d.CapacityBytes, 100*float64(d.UsageBytes)/float64(d.CapacityBytes))
		} else {
			fmt.Fprintf(w, "  %s: %d bytes used\n", d.Node, d.UsageBytes)
		}
		if len(d.Files) == 0 {
			fmt.Fprintln(w, "    (empty)")
		}
		for _, f := range d.Files {
			switch f.Type {
			case disk.TypeDir:
				fmt.Fprintf(w, "    %s/\n", f.Path)
				continue
			case disk.TypeSymlink:
				fmt.Fprintf(w, "    %s (symlink)\n", f.Path)
				continue
			}
			fmt.Fprintf(w, "    %-32s %8d bytes  durable %8d  pending %d bytes in %d writes", f.Path, f.Size, f.DurableSize, f.PendingBytes, f.PendingOps)
			if len(f.Corrupted) > 0 {
				fmt.Fprint(w, "  corrupted ranges:")
				for _, c := range f.Corrupted {
					fmt.Fprintf(w, " [%d,%d)", c[0], c[1])
				}
			}
			fmt.Fprintln(w)
		}
	}
}

func printSummary(w io.Writer, s record.Summary, took time.Duration) {
	if more := s.Failed - 1 - failureLinesMax; more > 0 {
		fmt.Fprintf(w, "... and %d more failing seeds: %s\n", more, seedList(s.FailedSeeds[1+failureLinesMax:], 20))
	}
	if s.Failed > 1 {
		fmt.Fprintln(w)
	}
	if len(s.Properties) > 0 {
		fmt.Fprintln(w, "property               seeds reached  seeds true")
		for _, p := range s.Properties {
			line := fmt.Sprintf("  %-20s %12d %11d  %s", p.Kind, p.SeedsReached, p.SeedsTrue, p.Message)
			if p.Margin != nil {
				which := "smallest"
				if p.Kind == "sometimes" {
					which = "largest"
				}
				line += fmt.Sprintf("  (%s margin %s)", which, strconv.FormatFloat(*p.Margin, 'f', -1, 64))
			}
			if p.Verdict != "" {
				line += "  <- " + p.Verdict
				if p.Location != "" {
					line += " (" + p.Location + ")"
				}
			}
			fmt.Fprintln(w, line)
		}
		fmt.Fprintln(w)
	}
	if len(s.BuggifySites) > 0 {
		fmt.Fprintln(w, "buggify  seeds reached  seeds enabled  seeds fired  fired")
		for _, b := range s.BuggifySites {
			line := fmt.Sprintf("         %13d  %13d  %11d  %5d  %s", b.SeedsReached, b.SeedsEnabled, b.SeedsFired, b.Fired, b.Site)
			if b.Verdict != "" {
				line += "  <- " + b.Verdict
				if b.Location != "" {
					line += " (" + b.Location + ")"
				}
			}
			fmt.Fprintln(w, line)
		}
		fmt.Fprintln(w)
	}
	d := roundDuration(took)
	if s.Interrupted {
		fmt.Fprintf(w, "interrupted: the sweep was stopped; the counts below cover the %d seeds that finished\n", s.Seeds)
	}
	switch {
	case s.Failed > 0:
		fmt.Fprintf(w, "FAIL %d of %d seeds failed (%d passed, %d hit the time horizon", s.Failed, s.Seeds, s.Passed, s.Horizon)
		if s.Nondeterministic > 0 {
			fmt.Fprintf(w, ", %d nondeterministic", s.Nondeterministic)
		}
		fmt.Fprintf(w, ") in %s\n", d)
		if s.PropertyFailures > 0 {
			fmt.Fprintf(w, "FAIL %d properties were never reached or never true in %d seeds\n", s.PropertyFailures, s.Seeds)
		}
	case s.PropertyFailures > 0:
		fmt.Fprintf(w, "FAIL %d properties were never reached or never true in %d seeds\n", s.PropertyFailures, s.Seeds)
	default:
		fmt.Fprintf(w, "ok  %d seeds passed (%d hit the time horizon) in %s\n", s.Seeds, s.Horizon, d)
	}
}

func seedList(seeds []uint64, max int) string {
	var b strings.Builder
	for i, s := range seeds {
		if i == max {
			fmt.Fprintf(&b, " ... (%d in all; -json lists every seed)", len(seeds))
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d", s)
	}
	return b.String()
}

func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

// aggregate sums the properties seen in each seed into the sweep's table.
type aggregate struct {
	rows_ map[string]*record.Property
	sites map[string]*record.BuggifySite
}

func newAggregate() *aggregate {
	return &aggregate{rows_: map[string]*record.Property{}, sites: map[string]*record.BuggifySite{}}
}

func (a *aggregate) addSites(sites []engine.SiteResult) {
	for _, s := range sites {
		row := a.sites[s.Site]
		if row == nil {
			row = &record.BuggifySite{Site: s.Site}
			a.sites[s.Site] = row
		}
		if s.Reached {
			row.SeedsReached++
		}
		if s.Enabled {
			row.SeedsEnabled++
		}
		if s.Fired > 0 {
			row.SeedsFired++
		}
		row.Fired += s.Fired
	}
}

func (a *aggregate) siteRows() []record.BuggifySite {
	out := make([]record.BuggifySite, 0, len(a.sites))
	for _, r := range a.sites {
		switch {
		case r.SeedsReached == 0:
			r.Verdict = "never reached"
		case r.Fired == 0:
			r.Verdict = "never fired"
		}
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Site < out[j].Site })
	return out
}

func (a *aggregate) add(props []engine.Property) {
	for _, p := range props {
		key := p.Kind + "\x00" + p.Message
		row := a.rows_[key]
		if row == nil {
			row = &record.Property{Kind: p.Kind, Message: p.Message}
			a.rows_[key] = row
		}
		if p.Reached {
			row.SeedsReached++
		}
		if p.True {
			row.SeedsTrue++
		}
		if p.Margin != nil {
			switch {
			case row.Margin == nil:
				v := *p.Margin
				row.Margin = &v
			case p.Kind == "always" && *p.Margin < *row.Margin, p.Kind == "sometimes" && *p.Margin > *row.Margin:
				*row.Margin = *p.Margin
			}
		}
	}
}

var kindOrder = map[string]int{"always": 0, "alwaysOrUnreachable": 1, "sometimes": 2, "reachable": 3, "unreachable": 4, "eventually": 5}

// catalog adds every property and buggify site found in the source, so
// that those no seed reaches still get a row.
func (a *aggregate) catalog(c *catalog.Catalog) {
	if c == nil {
		return
	}
	for _, p := range c.Properties {
		key := p.Kind + "\x00" + p.Message
		if a.rows_[key] == nil {
			a.rows_[key] = &record.Property{Kind: p.Kind, Message: p.Message, Location: strings.Join(c.Locations(p.Kind, p.Message), ", ")}
		}
	}
	for _, s := range c.Sites {
		if a.sites[s.Name] == nil {
			a.sites[s.Name] = &record.BuggifySite{Site: s.Name, Location: strings.Join(c.SiteLocations(s.Name), ", ")}
		}
	}
}

// mustBeReached are the kinds a sweep fails on when no seed reached them.
var mustBeReached = map[string]bool{"always": true, "sometimes": true, "reachable": true, "eventually": true}

func (a *aggregate) rows() []record.Property {
	out := make([]record.Property, 0, len(a.rows_))
	for _, r := range a.rows_ {
		switch {
		case r.SeedsReached == 0 && mustBeReached[r.Kind]:
			r.Verdict = "never reached"
		case r.Kind == "sometimes" && r.SeedsTrue == 0:
			r.Verdict = "never true"
		}
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		if kindOrder[out[i].Kind] != kindOrder[out[j].Kind] {
			return kindOrder[out[i].Kind] < kindOrder[out[j].Kind]
		}
		return out[i].Message < out[j].Message
	})
	return out
}
