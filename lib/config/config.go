package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/sf-dst/sf/lib/atomicfile"
	"github.com/sf-dst/sf/lib/check"
	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/echo"
	"github.com/sf-dst/sf/lib/faults"
	"github.com/sf-dst/sf/lib/readfile"
)

// Limits on a world file. Each is reported by name when it is reached.
const (
	// maxFileBytes bounds the size of a world file that Load reads, and of each file it extends. A world
	// file is a few hundred bytes; 16 MiB is far beyond any real one and still cheap to hold in memory.
	maxFileBytes = 16 << 20
	// ModuleBytesMax bounds a module file, prebuilt (a node's wasm) or built: a Go service compiled for
	// wasip1 is some 3 to 40 MB, and a module is held in memory while it is hashed and compiled, so 256 MiB
	// is about a wrong file (a device, a disk image), not a real module.
	ModuleBytesMax = 256 << 20
	// SeedBytesMax bounds a node's seeded disk: each file of its disk folder and files, and all of them
	// together. It is the largest file the simulated disk holds (disk.FileBytesMax, 1 GiB): a sweep holds
	// them in memory and every seed copies them.
	SeedBytesMax = disk.FileBytesMax
	// maxNameLen bounds a node or profile name. Names appear in host names, trace lines and file names;
	// 63 is the longest label a DNS name may have.
	maxNameLen = 63
	// maxExtendsDepth bounds the number of extends in a chain of world files. Real chains are one or two
	// long; a longer one is almost certainly a mistake, and the bound keeps loading cheap.
	maxExtendsDepth = 16
	// maxNodes bounds the nodes of a world, workloads and the finally check included. Each node is
	// a guest with its own linear memory and disk, about 2.5 MB of host memory, and a goroutine, in
	// every seed that runs at once; 64 nodes under 16 workers is already some 2.5 GB. Real worlds
	// have a handful.
	maxNodes = 64
	// maxPreemptCalls bounds preempt.calls: the length of the time slice that ends a node's turn under
	// every strategy, so a longer interval could never be reached.
	maxPreemptCalls = 4_194_304
)

// Defaults for the fields of a world file.
const (
	defaultDuration     = Duration(30e9)
	defaultWatchdog     = Duration(30e9)
	defaultPreemptDepth = 3
	defaultPreemptSteps = 1 << 20
	defaultPreemptCalls = 4096
	defaultFSModel      = "ext4_ordered"
	defaultCheckerModel = "kv"
	defaultPreemptStrat = "none"
	// The limits of a run, as lib/engine's Default*Max constants; RATIONALE.md says why each.
	defaultLimitSteps      = 10_000_000
	defaultLimitTraceBytes = 64 << 20
	defaultLimitFDs        = 1024
	defaultLimitCheckSteps = 2_000_000
)

var defaultLatency = Range{Duration(1e6), Duration(10e6)}

// The closed vocabularies of a world file, in the order messages list them. The fault kinds' own (the
// partition topologies, the clog modes) are lib/faults'.
var (
	// FSModels are the file system models that reorder_writes can follow.
	FSModels = []string{"ext4_ordered", "page_independent", "dir_reorder"}
	// Strategies are the preemption strategies.
	Strategies = []string{"none", "random", "pct", "calls"}
)

// Node is one program of the world: a crashable node, a workload that drives and checks the nodes, or
// the finally check.
type Node struct {
	// Name identifies the node in traces, fault schedules and the simulated network. It is 1 to 63
	// letters, digits, '_' or '-', and unique in the world. Required.
	Name string `json:"name"`
	// Pkg is the directory of a Go package to build for wasip1. The file gives it relative to its own
	// directory; loading makes it absolute and checks that the directory exists. Exactly one of Pkg and
	// Wasm is set.
	Pkg string `json:"pkg,omitempty"`
	// Wasm is the path of a prebuilt WebAssembly module, made absolute and checked like Pkg.
	Wasm string `json:"wasm,omitempty"`
	// Args are the program's command-line arguments, without the program name. Defaults to none.
	Args []string `json:"args,omitempty"`
	// Env holds environment variables for the program. Names are non-empty and contain no '='. Defaults
	// to none.
	Env map[string]string `json:"env,omitempty"`
	// Faults overrides whether faults reach this program; see [World.FaultsFor]. False keeps every fault
	// away from a node or workload, network faults included; true gives a workload the per-node faults
	// too. The finally check never takes faults, so true is an error there. Defaults to nil, the role's
	// default.
	Faults *bool `json:"faults,omitempty"`
	// Disk is a host directory copied onto the node's disk, durable and synced, before the node first
	// starts. It must exist; loading makes it absolute. Defaults to none.
	Disk string `json:"disk,omitempty"`
	// Files maps paths on the node's disk to host files copied there, durable and synced, before the
	// node first starts, after Disk. Disk paths are relative to the disk's root, cleaned, and may not
	// leave it; host files must exist and are made absolute. Defaults to none.
	Files map[string]string `json:"files,omitempty"`
	// UpgradeTo is a package directory the node runs from its first restart on. It must exist; loading
	// makes it absolute. Not allowed on the finally check, which never restarts. Defaults to none.
	UpgradeTo string `json:"upgrade_to,omitempty"`
}

// Liveness configures liveness mode.
type Liveness struct {
	// Within is how long, from the end of the fault period at Duration, every workload and the finally
	// check have to finish, with all faults stopped, or the run fails with class liveness. At least 0;
	// 0 turns liveness mode off. Defaults to 0.
	Within Duration `json:"within"`
}

// Link overrides the latency of the network link from one node to another. Links are one-way.
type Link struct {
	// From is the sending node; empty matches any node. At least one of From and To is set, and each
	// names a node of the world.
	From string `json:"from,omitempty"`
	// To is the receiving node; empty matches any node.
	To string `json:"to,omitempty"`
	// Latency is the range each chunk's delay on the link is drawn from. Required.
	Latency Range `json:"latency"`
}

// Preempt configures where the running goroutine of a node is preempted.
type Preempt struct {
	// Strategy is one of none (only at the end of a 4,194,304-call time slice), random (after a seeded 1
	// to 4,096 counted calls), pct (Depth-1 seeded change points per node) and calls (every Calls counted
	// calls). With Interleave it is random or none, and loading sets it to random. Defaults to none.
	Strategy string `json:"strategy"`
	// Interleave is shorthand for strategy random. Defaults to false.
	Interleave bool `json:"interleave"`
	// Depth is the bug depth that pct looks for. At least 1. Defaults to 3.
	Depth int `json:"depth"`
	// Steps is the number of counted calls of each node over which pct draws its change points. At least
	// 1. Defaults to 1048576.
	Steps int64 `json:"steps"`
	// Calls is the number of counted calls between preemptions under strategy calls. From 1 to 4194304.
	// Defaults to 4096.
	Calls int64 `json:"calls"`
	// Loops counts loop iterations as well as function calls, so that a loop without calls is preempted
	// too. Defaults to false.
	Loops bool `json:"loops"`
}

// Checker configures the check of the recorded history.
type Checker struct {
	// Model is the data type the history is checked against: one of [Models]. Defaults to kv.
	Model string `json:"model"`
}

// Limits bound each run, so that no program can hang a sweep: a run that reaches one fails with class
// limit, and the message names the field to raise.
type Limits struct {
	// Steps is the most scheduler steps a run may take: a program that never lets virtual time pass, such
	// as two nodes that answer each other at zero latency, reaches it. At least 1. Defaults to 10000000.
	Steps int64 `json:"steps"`
	// TraceBytes is the most bytes a run's trace may hold, the programs' stdout and stderr lines
	// included. At least 1. Defaults to 67108864 (64 MiB).
	TraceBytes int64 `json:"trace_bytes"`
	// FDs is the most descriptors one node may have open at once, stdin, stdout, stderr and its disk's
	// root included. At least 4. Defaults to 1024.
	FDs int64 `json:"fds"`
	// CheckSteps is the most model steps the history check may take on one key before it gives up. Unlike
	// sf-run's -history-timeout it does not depend on the host's speed. At least 1. Defaults to 2000000.
	CheckSteps int64 `json:"check_steps"`
}

// Faults configures the faults injected into a run: the fields of the fault kinds, which lib/faults
// declares with their types and defaults, and the settings that belong to no kind (what a crash does to
// a disk, clock skew, which nodes take faults, swarm testing).
type Faults struct {
	// Preset is the fault level the other fields start from: one of none, durability, resilient,
	// high_availability and everything, each adding to the one before. Fields set next to it override
	// it. Defaults to none.
	Preset string `json:"preset,omitempty"`
	// TornWrites makes a crash keep an in-order prefix of the unsynced writes. Defaults to false.
	TornWrites bool `json:"torn_writes"`
	// TornSector is the size in bytes of the disk's atomic write unit under TornWrites: a torn write
	// keeps whole sectors, cut only at a multiple of TornSector of the file. 0 tears anywhere. At least
	// 0; more than 0 needs TornWrites. Defaults to 0.
	TornSector int64 `json:"torn_sector,omitempty"`
	// ReorderWrites makes a crash write dirty pages back out of order, within FSModel. Defaults to false.
	ReorderWrites bool `json:"reorder_writes"`
	// FSModel is the file system model that ReorderWrites follows: one of [FSModels]. Setting it
	// without ReorderWrites is an error, and dir_reorder needs StrictDirs. Defaults to ext4_ordered when
	// ReorderWrites is on, and to "" otherwise.
	FSModel string `json:"fs_model,omitempty"`
	// DiskBytes is the size of each node's disk in bytes; 0 means unlimited. At least 0. Defaults to 0.
	DiskBytes int64 `json:"disk_bytes"`
	// CorruptOnCrash flips a bit in the bytes each crash left half written. Defaults to false.
	CorruptOnCrash bool `json:"corrupt_on_crash"`
	// DiskLatency is the extra time each fsync takes. Defaults to ["0s", "0s"].
	DiskLatency Range `json:"disk_latency"`
	// StrictDirs keeps directory entries across a crash only once their directory is fsynced. Defaults
	// to false.
	StrictDirs bool `json:"strict_dirs"`
	// ClockSkew is the largest offset of a node's wall clock, in either direction. At least 0. Defaults
	// to 0.
	ClockSkew Duration `json:"clock_skew"`
	// IncludeWorkload gives the workloads the per-node faults too. Defaults to false.
	IncludeWorkload bool `json:"include_workload"`
	// Swarm turns each fault type on or off per seed and rescales its rate. Defaults to false.
	Swarm bool `json:"swarm"`
	// Kinds holds the field of every fault kind (crash_per_sec, restart_after, udp_loss...), each at
	// its default unless a layer of the world sets it. The world file writes them in the faults object
	// next to the fields above; faults.Fields lists them with their types, checks and defaults.
	Kinds faults.Values `json:"-"`
}

// World is a loaded and validated world file: the programs to simulate and the conditions they run in.
// Loading fills in every default, applies extends, the profile and -set overrides, and makes every path
// absolute.
type World struct {
	// File is the path of the world file as the user gave it. Error messages start with it.
	File string `json:"-"`
	// Dir is the absolute directory of the world file. Relative paths in the file are resolved against it.
	Dir string `json:"-"`
	// Extends lists the absolute paths of the world files this one extends, nearest first. Defaults to
	// none.
	Extends []string `json:"-"`
	// Profile is the profile that was applied, if any.
	Profile string `json:"-"`
	// Overrides are the -set arguments that were applied, in order. Defaults to none.
	Overrides []string `json:"-"`
	// Set lists the fields that the file, the files it extends, the profile or -set overrides set, as
	// JSON paths without indices (faults.partition_per_sec, nodes[].disk), in the order of the file,
	// each once. A preset counts as setting the fields it sets.
	Set []string `json:"-"`

	// Nodes are the crashable nodes, in the order of the file. Defaults to none.
	Nodes []Node `json:"nodes,omitempty"`
	// Workload is a program that drives and checks the nodes; the run passes when every workload exits
	// 0. It takes network faults but none of the per-node faults, unless Faults.IncludeWorkload or its
	// own Faults says so. At least one of Workload and MoreWorkloads is set.
	Workload *Node `json:"workload,omitempty"`
	// MoreWorkloads are the workloads of the workloads field, next to or instead of Workload. (Go does
	// not allow a field and a method of the same name; see the Workloads method for all of them.)
	// Defaults to none.
	MoreWorkloads []Node `json:"workloads,omitempty"`
	// Finally is a check that starts once every workload has exited 0, with the faults stopped and the
	// network healed. It never takes faults. Defaults to none.
	Finally *Node `json:"finally,omitempty"`
	// Duration is the virtual-time horizon of a run, and with liveness the end of the fault period. It
	// is greater than 0. Defaults to 30s.
	Duration Duration `json:"duration"`
	// Latency is the range of the network delay per chunk of data. Defaults to ["1ms", "10ms"].
	Latency Range `json:"latency"`
	// Links override Latency per one-way link; the first matching entry wins. Defaults to none.
	Links []Link `json:"links,omitempty"`
	// Watchdog is the real time one node may run without yielding before the run fails. It is greater
	// than 0. Defaults to 30s.
	Watchdog Duration `json:"watchdog"`
	// Supervise restarts a node that exits with an error after faults.restart_after. Defaults to false.
	Supervise bool `json:"supervise"`
	// Liveness configures liveness mode. Defaults to off.
	Liveness Liveness `json:"liveness"`
	// FaultsAfterSetup holds every fault back until a node calls sim.SetupComplete. Defaults to false.
	FaultsAfterSetup bool `json:"faults_after_setup"`
	// Fork "setup" runs the world up to sim.SetupComplete once, from seed 0, and every seed goes on from
	// a fork of that run with streams of its own; it needs FaultsAfterSetup. Loading turns "none" into
	// "", which the canonical form leaves out, so a world without it encodes as it did before the field
	// existed. Defaults to "", none: every seed runs its own setup.
	Fork string `json:"fork,omitempty"`
	// NetOverlay routes plain net.Listen and net.Dial through the simulated network. Defaults to false.
	NetOverlay bool `json:"net_overlay"`
	// CompatOverlay builds dependencies that need mmap or flock with wasip1 shims. Defaults to false.
	CompatOverlay bool `json:"compat_overlay"`
	// Preempt configures preemption inside a node. Defaults to strategy none.
	Preempt Preempt `json:"preempt"`
	// Checker configures the history check. Defaults to model kv.
	Checker Checker `json:"checker"`
	// Limits bound each run's steps, trace, descriptors and history check. Defaults to the defaults of
	// [Limits].
	Limits Limits `json:"limits"`
	// Faults configures fault injection. Defaults to no faults.
	Faults Faults `json:"faults"`
}

// defaultWorld returns a world with every default filled in, for a file to override.
func defaultWorld() *World {
	return &World{
		Duration: defaultDuration,
		Latency:  defaultLatency,
		Watchdog: defaultWatchdog,
		Preempt: Preempt{
			Strategy: defaultPreemptStrat,
			Depth:    defaultPreemptDepth,
			Steps:    defaultPreemptSteps,
			Calls:    defaultPreemptCalls,
		},
		Checker: Checker{Model: defaultCheckerModel},
		Limits: Limits{
			Steps:      defaultLimitSteps,
			TraceBytes: defaultLimitTraceBytes,
			FDs:        defaultLimitFDs,
			CheckSteps: defaultLimitCheckSteps,
		},
		Faults: Faults{Kinds: faults.Defaults()},
	}
}

// Load reads the world file at path and validates it like Parse. It is LoadWith with no options.
func Load(path string) (*World, error) {
	return LoadWith(path, LoadOptions{})
}

// Parse decodes and validates a world file from data. It is ParseWith with no options.
func Parse(file string, data []byte) (*World, error) {
	return ParseWith(file, data, LoadOptions{})
}

// AllNodes returns pointers to every program of the world: the nodes in order, then the workloads as
// the Workloads method lists them, then the finally check.
func (w *World) AllNodes() []*Node {
	all := make([]*Node, 0, len(w.Nodes)+len(w.MoreWorkloads)+2)
	for i := range w.Nodes {
		all = append(all, &w.Nodes[i])
	}
	all = append(all, w.Workloads()...)
	if w.Finally != nil {
		all = append(all, w.Finally)
	}
	return all
}

// Workloads returns pointers to the workloads: Workload first if it is set, then MoreWorkloads in order.
func (w *World) Workloads() []*Node {
	var ws []*Node
	if w.Workload != nil {
		ws = append(ws, w.Workload)
	}
	for i := range w.MoreWorkloads {
		ws = append(ws, &w.MoreWorkloads[i])
	}
	return ws
}

// FaultsFor says which faults reach n, one of the programs AllNodes returns. node is the per-node faults
// (crashes, pauses, slowdowns, clock skew and jumps, connection resets, disk faults); network is
// partitions and clogs. A node takes both unless its Faults is false. A workload takes network faults,
// and node faults only with Faults.IncludeWorkload or its own Faults true; its Faults false keeps both
// away. The finally check takes neither.
func (w *World) FaultsFor(n *Node) (node, network bool) {
	if n == w.Finally {
		return false, false
	}
	if n.Faults != nil && !*n.Faults {
		return false, false
	}
	if slices.Contains(w.Workloads(), n) {
		return w.Faults.IncludeWorkload || n.Faults != nil, true
	}
	return true, true
}

// Canonical returns a deterministic JSON encoding of w for hashing and recording: one line, every default
// filled in, presets, profiles, extends and overrides applied, keys in a fixed order, maps sorted by key,
// and paths absolute. It leaves out File, Dir, Extends, Profile and Set, so the same world reached
// through another path encodes the same. ParseWith accepts the result and gives back an equal world;
// Parse does too once the engine implements every field, since the canonical form sets them all.
func (w *World) Canonical() []byte {
	b, err := json.Marshal(w)
	if err != nil {
		panic("config: encoding a world: " + err.Error()) // every field type encodes without error
	}
	return b
}

// nodePaths returns the JSON path of each program that AllNodes returns, in the same order.
func (w *World) nodePaths(p string) []string {
	var ps []string
	for i := range w.Nodes {
		ps = append(ps, fmt.Sprintf("%s[%d]", joinPath(p, "nodes"), i))
	}
	if w.Workload != nil {
		ps = append(ps, joinPath(p, "workload"))
	}
	for i := range w.MoreWorkloads {
		ps = append(ps, fmt.Sprintf("%s[%d]", joinPath(p, "workloads"), i))
	}
	if w.Finally != nil {
		ps = append(ps, joinPath(p, "finally"))
	}
	return ps
}

func (w *World) validate(d *decoder, p string) error {
	if w.Workload == nil && len(w.MoreWorkloads) == 0 {
		return d.errorf(joinPath(p, "workload"), "required (or workloads)")
	}
	all, paths := w.AllNodes(), w.nodePaths(p)
	if len(all) > maxNodes {
		return d.errorf(joinPath(p, "nodes"), "the world has %d nodes (workloads and finally included), more than the limit of %d",
			len(all), maxNodes)
	}
	seen := make(map[string]bool)
	for i, n := range all {
		if seen[n.Name] {
			return d.errorf(joinPath(paths[i], "name"), "duplicate node name %s", echo.Quote(n.Name))
		}
		seen[n.Name] = true
	}
	if f := w.Finally; f != nil {
		fp := joinPath(p, "finally")
		if f.Faults != nil && *f.Faults {
			return d.errorf(joinPath(fp, "faults"), "the finally check never takes faults")
		}
		if f.UpgradeTo != "" {
			return d.errorf(joinPath(fp, "upgrade_to"), "the finally check never restarts, so it cannot be upgraded")
		}
	}
	if w.Duration <= 0 {
		return d.errorf(joinPath(p, "duration"), "must be greater than 0, got %s", w.Duration)
	}
	if w.Watchdog <= 0 {
		return d.errorf(joinPath(p, "watchdog"), "must be greater than 0, got %s", w.Watchdog)
	}
	for i, l := range w.Links {
		lp := fmt.Sprintf("%s[%d]", joinPath(p, "links"), i)
		for _, end := range []struct{ key, name string }{{"from", l.From}, {"to", l.To}} {
			if end.name != "" && !seen[end.name] {
				return d.errorf(joinPath(lp, end.key), "unknown node %s (the world has %s)", echo.Quote(end.name), nameList(all))
			}
		}
	}
	if err := w.validateFork(d, p); err != nil {
		return err
	}
	return w.checkKindsInWorld(d, joinPath(p, "faults"))
}

// The values of the world's fork field.
const (
	ForkNone  = "none"
	ForkSetup = "setup"
)

// ForkModes lists the values of the fork field.
var ForkModes = []string{ForkNone, ForkSetup}

// validateFork checks the fork field. A world forked at its setup gives every seed the setup seed's run
// up to sim.SetupComplete, so what a seed draws at its very start cannot be its own: the faults must wait
// for the setup, and swarm testing and seeded preemption, whose choices are drawn before the first step,
// would be the setup seed's in every seed, so they are refused rather than quietly shared.
func (w *World) validateFork(d *decoder, p string) error {
	fp := joinPath(p, "fork")
	switch w.Fork {
	case "", ForkNone:
		w.Fork = ""
		return nil
	case ForkSetup:
	default:
		return d.errorf(fp, "unknown value %s (valid: %s)", echo.Quote(w.Fork), strings.Join(ForkModes, ", "))
	}
	switch {
	case !w.FaultsAfterSetup:
		return d.errorf(fp, `"setup" needs faults_after_setup: the setup that every seed shares must run without faults`)
	case w.Faults.Swarm:
		return d.errorf(fp, `"setup" cannot go with faults.swarm: a run draws its swarm choices before its first step, so every seed would have the setup seed's`)
	case w.Preempt.Strategy == "random" || w.Preempt.Strategy == "pct":
		return d.errorf(fp, `"setup" cannot go with preempt.strategy %s: a run draws its preemption points before its first step, so every seed would have the setup seed's`, w.Preempt.Strategy)
	}
	return nil
}

// nameList lists the names of nodes for messages.
func nameList(ns []*Node) string {
	names := make([]string, len(ns))
	for i, n := range ns {
		names[i] = n.Name
	}
	return strings.Join(names, ", ")
}

func (n *Node) validate(d *decoder, p string) error {
	namePath := joinPath(p, "name")
	switch {
	case n.Name == "":
		return d.errorf(namePath, "required")
	case len(n.Name) > maxNameLen:
		return d.errorf(namePath, "node name %s is longer than %d characters", echo.Quote(n.Name), maxNameLen)
	case !validName(n.Name):
		return d.errorf(namePath, "invalid node name %s: use only letters, digits, '_' and '-'", echo.Quote(n.Name))
	}
	switch {
	case n.Pkg == "" && n.Wasm == "":
		return d.errorf(p, "needs pkg or wasm")
	case n.Pkg != "" && n.Wasm != "":
		return d.errorf(p, "has both pkg and wasm")
	}
	keys := make([]string, 0, len(n.Env))
	for k := range n.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch {
		case k == "":
			return d.errorf(joinPath(p, "env"), "empty variable name")
		case strings.Contains(k, "="):
			return d.errorf(joinPath(p, "env"), "variable name %s contains '='", echo.Quote(k))
		case strings.ContainsRune(k, 0):
			return d.errorf(joinPath(p, "env"), "variable name %s holds a NUL byte", echo.Quote(k))
		case strings.ContainsRune(n.Env[k], 0):
			// The guest's environment is a list of NUL-terminated strings:
			// the value would end at the NUL.
			return d.errorf(joinPath(joinPath(p, "env"), k), "the value holds a NUL byte, which cannot be passed in an environment")
		}
	}
	for i, a := range n.Args {
		if strings.ContainsRune(a, 0) {
			return d.errorf(fmt.Sprintf("%s[%d]", joinPath(p, "args"), i), "the argument holds a NUL byte, which cannot be passed to a program")
		}
	}
	var err error
	if n.Pkg, err = d.hostPath(joinPath(p, "pkg"), n.Pkg, "package directory", true, 0); err != nil {
		return err
	}
	if n.Wasm, err = d.hostPath(joinPath(p, "wasm"), n.Wasm, "module file", false, ModuleBytesMax); err != nil {
		return err
	}
	if n.Disk, err = d.hostPath(joinPath(p, "disk"), n.Disk, "disk directory", true, 0); err != nil {
		return err
	}
	if n.Files, err = d.nodeFiles(joinPath(p, "files"), n.Files); err != nil {
		return err
	}
	if n.UpgradeTo, err = d.hostPath(joinPath(p, "upgrade_to"), n.UpgradeTo, "package directory", true, 0); err != nil {
		return err
	}
	return nil
}

// hostPath checks that the host path h, written at the JSON path where, exists and is a directory (or,
// without dir, a regular file of at most limit bytes), and returns it absolute. An empty h stays empty.
// what names it in messages. The file is read later, by the build or the sweep, with the same limit.
func (d *decoder) hostPath(where, h, what string, dir bool, limit int64) (string, error) {
	if h == "" {
		return "", nil
	}
	abs := d.resolve(where, h)
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", d.errorf(where, "%s %s does not exist (resolved to %s)", what, echo.Cut(h), echo.Cut(abs))
	case err != nil:
		return "", d.errorf(where, "%s %s: %v", what, echo.Cut(h), unwrapPath(err))
	case dir && !fi.IsDir():
		return "", d.errorf(where, "%s %s is not a directory (resolved to %s)", what, echo.Cut(h), echo.Cut(abs))
	case !dir && fi.IsDir():
		return "", d.errorf(where, "%s %s is a directory (resolved to %s)", what, echo.Cut(h), echo.Cut(abs))
	case !dir:
		if why := readfile.Refusal(fi, limit); why != "" {
			return "", d.errorf(where, "%s %s %s (resolved to %s)", what, echo.Cut(h), why, echo.Cut(abs))
		}
	}
	return abs, nil
}

// nodeFiles checks a node's files: each key a path inside the node's disk, cleaned, each value an
// existing host file, made absolute.
func (d *decoder) nodeFiles(where string, files map[string]string) (map[string]string, error) {
	keys := make([]string, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]string, len(files))
	for _, k := range keys {
		kp := joinPath(where, k)
		clean := path.Clean(strings.TrimLeft(k, "/"))
		switch {
		case k == "":
			return nil, d.errorf(where, "empty disk path")
		case clean == "." || clean == ".." || strings.HasPrefix(clean, "../"):
			return nil, d.errorf(kp, "disk path %s is outside the node's disk", echo.Quote(k))
		}
		if _, dup := out[clean]; dup {
			return nil, d.errorf(kp, "disk path %s names the same file as another entry", echo.Quote(k))
		}
		abs, err := d.hostPath(kp, files[k], "host file", false, SeedBytesMax)
		if err != nil {
			return nil, err
		}
		out[clean] = abs
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

func (l *Liveness) validate(d *decoder, p string) error {
	if l.Within < 0 {
		return d.errorf(joinPath(p, "within"), "must not be negative, got %s", l.Within)
	}
	return nil
}

func (l *Link) validate(d *decoder, p string) error {
	if l.From == "" && l.To == "" {
		return d.errorf(p, "needs from or to")
	}
	if !d.wasSet(joinPath(p, "latency")) {
		return d.errorf(joinPath(p, "latency"), "required")
	}
	return nil
}

func (pr *Preempt) validate(d *decoder, p string) error {
	sp := joinPath(p, "strategy")
	switch {
	case !slices.Contains(Strategies, pr.Strategy):
		return d.errorf(sp, "unknown strategy %s (valid: %s)", echo.Quote(pr.Strategy), strings.Join(Strategies, ", "))
	case pr.Interleave && pr.Strategy != "random" && pr.Strategy != "none":
		return d.errorf(sp, "strategy %s conflicts with interleave, which allows only random or none; set interleave to false", pr.Strategy)
	case pr.Depth < 1:
		return d.errorf(joinPath(p, "depth"), "must be at least 1, got %d", pr.Depth)
	case pr.Steps < 1:
		return d.errorf(joinPath(p, "steps"), "must be at least 1, got %d", pr.Steps)
	case pr.Calls < 1 || pr.Calls > maxPreemptCalls:
		return d.errorf(joinPath(p, "calls"), "must be from 1 to %d, got %d", maxPreemptCalls, pr.Calls)
	}
	if pr.Interleave {
		pr.Strategy = "random"
	}
	return nil
}

func (c *Checker) validate(d *decoder, p string) error {
	if !check.IsModel(c.Model) {
		var names []string
		for _, m := range check.ModelInfos() {
			names = append(names, m.Name)
		}
		return d.errorf(joinPath(p, "model"), "unknown model %s (valid: %s)", echo.Quote(c.Model), strings.Join(names, ", "))
	}
	return nil
}

func (l *Limits) validate(d *decoder, p string) error {
	for _, f := range []struct {
		key      string
		got, min int64
	}{{"steps", l.Steps, 1}, {"trace_bytes", l.TraceBytes, 1}, {"fds", l.FDs, 4}, {"check_steps", l.CheckSteps, 1}} {
		if f.got < f.min {
			return d.errorf(joinPath(p, f.key), "must be at least %d, got %d", f.min, f.got)
		}
	}
	return nil
}

func (f *Faults) validate(d *decoder, p string) error {
	if err := checkKinds(d, p, f.Kinds); err != nil {
		return err
	}
	if f.DiskBytes < 0 {
		return d.errorf(joinPath(p, "disk_bytes"), "must not be negative, got %d", f.DiskBytes)
	}
	if f.ClockSkew < 0 {
		return d.errorf(joinPath(p, "clock_skew"), "must not be negative, got %s", f.ClockSkew)
	}
	switch sp := joinPath(p, "torn_sector"); {
	case f.TornSector < 0:
		return d.errorf(sp, "must not be negative, got %d", f.TornSector)
	case f.TornSector > 0 && !f.TornWrites:
		return d.errorf(sp, "needs torn_writes: it only says where a torn write may be cut")
	}
	mp := joinPath(p, "fs_model")
	switch {
	case d.wasSet(mp) && !slices.Contains(FSModels, f.FSModel):
		return d.errorf(mp, "unknown model %s (valid: %s)", echo.Quote(f.FSModel), strings.Join(FSModels, ", "))
	case d.wasSet(mp) && !f.ReorderWrites:
		return d.errorf(mp, "needs reorder_writes: the model only says which states out-of-order writeback may leave")
	case f.FSModel == "dir_reorder" && !f.StrictDirs:
		return d.errorf(mp, "dir_reorder needs strict_dirs")
	}
	if f.ReorderWrites && f.FSModel == "" {
		f.FSModel = defaultFSModel
	}
	return nil
}

// checkChoices checks a list of names from a closed vocabulary: at least one, each known, none twice.
func checkChoices(d *decoder, p string, got, valid []string, what string) error {
	if len(got) == 0 {
		return d.errorf(p, "must name at least one %s (valid: %s)", what, strings.Join(valid, ", "))
	}
	for i, g := range got {
		ep := fmt.Sprintf("%s[%d]", p, i)
		switch {
		case !slices.Contains(valid, g):
			return d.errorf(ep, "unknown %s %s (valid: %s)", what, echo.Quote(g), strings.Join(valid, ", "))
		case slices.Contains(got[:i], g):
			return d.errorf(ep, "duplicate %s %s", what, echo.Quote(g))
		}
	}
	return nil
}

// unwrapPath drops the operation and path from a file system error, which the message already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// validName reports whether s uses only letters, digits, '_' and '-'.
func validName(s string) bool {
	for _, c := range s {
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// Name is the name of the world's folders under .seedfall/ (its artifacts,
// its pins): the world file's name without its extension ("stdin" for
// standard input), then ".<profile>" when a profile is applied, then
// ".set-<hash>" when -set overrides are, <hash> being the first 8 hex digits
// of the SHA-256 of the overrides in their order. So every distinct world
// has folders of its own, and a sweep with overrides never writes over the
// schedules of the plain world. OverridesFile in such a folder lists them.
func (w *World) Name() string {
	name := strings.TrimSuffix(filepath.Base(w.File), filepath.Ext(w.File))
	if w.File == "-" || name == "" {
		name = "stdin"
	}
	if w.Profile != "" {
		name += "." + w.Profile
	}
	if len(w.Overrides) > 0 {
		sum := sha256.Sum256([]byte(strings.Join(w.Overrides, "\x00")))
		name += ".set-" + hex.EncodeToString(sum[:4])
	}
	return name
}

// OverridesFile is the file in a world's folder with -set overrides that
// says which world it belongs to: {"config", "profile", "set"}.
const OverridesFile = "overrides.json"

// WriteOverrides writes OverridesFile into dir, a folder named by w.Name,
// when w has overrides and the file is not there yet: whoever opens the
// folder can tell which -set values made its files.
func (w *World) WriteOverrides(dir string) error {
	data := w.overridesJSON()
	if data == nil {
		return nil
	}
	path := filepath.Join(dir, OverridesFile)
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	return atomicfile.WriteFile(path, data, 0o644)
}

// overridesJSON is the content of OverridesFile for w, or nil when w has no
// overrides (its folder's name says all).
func (w *World) overridesJSON() []byte {
	if len(w.Overrides) == 0 {
		return nil
	}
	b, _ := json.MarshalIndent(struct {
		Config  string   `json:"config"`
		Profile string   `json:"profile,omitempty"`
		Set     []string `json:"set"`
	}{w.File, w.Profile, w.Overrides}, "", "  ")
	return append(b, '\n')
}
