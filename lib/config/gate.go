package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sf-dst/sf/lib/echo"
)

// ErrNotSupported is the error that [World.Unimplemented] wraps: the world sets a field that this version
// of the engine does not implement yet.
var ErrNotSupported = errors.New("not supported yet by this version of sf")

// Implemented lists the fields, as paths of [World.Set], that this version implements: the engine runs
// them, or the loader resolves them entirely (extends, profiles, faults.preset). Load and Parse reject a
// world that sets any other field, so that a setting is never silently ignored. The engine adds a path
// here when it implements the field.
var Implemented = map[string]bool{
	// Resolved by the loader.
	"extends":       true,
	"profiles":      true,
	"faults.preset": true,

	"nodes":                true,
	"nodes[].name":         true,
	"nodes[].pkg":          true,
	"nodes[].wasm":         true,
	"nodes[].args":         true,
	"nodes[].env":          true,
	"workload":             true,
	"workload.name":        true,
	"workload.pkg":         true,
	"workload.wasm":        true,
	"workload.args":        true,
	"workload.env":         true,
	"duration":             true,
	"latency":              true,
	"watchdog":             true,
	"supervise":            true,
	"faults.crash_per_sec": true,
	"faults.restart_after": true,

	// Workloads, the finally check, liveness and the history checker.
	"workload.faults":           true,
	"workloads[].name":          true,
	"workloads[].pkg":           true,
	"workloads[].wasm":          true,
	"workloads[].args":          true,
	"workloads[].env":           true,
	"workloads[].faults":        true,
	"finally.name":              true,
	"finally.pkg":               true,
	"finally.wasm":              true,
	"finally.args":              true,
	"finally.env":               true,
	"nodes[].faults":            true,
	"workloads":                 true,
	"finally":                   true,
	"liveness.within":           true,
	"faults_after_setup":        true,
	"checker.model":             true,
	"faults.buggify":            true,
	"faults.include_workload":   true,
	"faults.swarm":              true,
	"faults.clock_skew":         true,
	"faults.clock_jump_per_sec": true,
	"faults.clock_jump_max":     true,

	// The disk: crash rules, disk faults and seeded disks.
	"faults.torn_writes":       true,
	"faults.reorder_writes":    true,
	"faults.fs_model":          true,
	"faults.strict_dirs":       true,
	"faults.corrupt_on_crash":  true,
	"faults.crash_on_io":       true,
	"faults.fsync_eio":         true,
	"faults.disk_bytes":        true,
	"faults.write_eio":         true,
	"faults.write_enospc":      true,
	"faults.read_eio":          true,
	"faults.read_corrupt":      true,
	"faults.lost_write":        true,
	"faults.misdirected_write": true,
	"faults.bitrot_per_sec":    true,
	"faults.disk_latency":      true,
	"nodes[].disk":             true,
	"nodes[].files":            true,
	"nodes[].upgrade_to":       true,
	"workload.disk":            true,
	"workload.files":           true,
	"workload.upgrade_to":      true,
	"workloads[].disk":         true,
	"workloads[].files":        true,
	"workloads[].upgrade_to":   true,

	// The limits of a run.
	"limits.steps":       true,
	"limits.trace_bytes": true,
	"limits.fds":         true,
	"limits.check_steps": true,

	// The network: plain net and net/http over TCP (the build overlay).
	"net_overlay": true,

	// Storage libraries that need mmap and flock (the build's compat_overlay).
	"compat_overlay":              true,
	"faults.mmap_early_writeback": true,

	// The network faults.
	"faults.udp_loss":             true,
	"faults.udp_dup":              true,
	"links":                       true,
	"links[].from":                true,
	"links[].to":                  true,
	"links[].latency":             true,
	"faults.partition_per_sec":    true,
	"faults.partition_for":        true,
	"faults.partition_topologies": true,
	"faults.clog_per_sec":         true,
	"faults.clog_for":             true,
	"faults.clog_modes":           true,
	"faults.clog_delay":           true,
	"faults.swizzle_per_sec":      true,
	"faults.reset_per_sec":        true,
	"faults.slow_per_sec":         true,
	"faults.slow_for":             true,
	"faults.slow_factor":          true,
	"faults.pause_per_sec":        true,
	"faults.pause_for":            true,

	// Goroutine preemption inside a node.
	"preempt.strategy":   true,
	"preempt.interleave": true,
	"preempt.depth":      true,
	"preempt.steps":      true,
	"preempt.calls":      true,
	"preempt.loops":      true,
}

// setPlace is where an entry of World.Set was written, for messages.
type setPlace struct {
	place
	// preset is the preset that set the field, if it was not written out; field is then its name.
	preset, field string
}

// setList collects the fields a world sets, each once, in the order they are met.
type setList struct {
	paths  []string
	places []setPlace
	index  map[string]int
}

// add records that the field at the JSON path p was set by src.
func (l *setList) add(p string, src *source) {
	n := normPath(p)
	pl := setPlace{place: src.locate(p)}
	if src.preset != "" {
		pl.preset, pl.field = src.preset, p[strings.LastIndexByte(p, '.')+1:]
	}
	if l.index == nil {
		l.index = make(map[string]int)
	}
	if i, ok := l.index[n]; ok {
		// A field written out names itself rather than the preset it overrides.
		if l.places[i].preset != "" && pl.preset == "" {
			l.places[i] = pl
		}
		return
	}
	l.index[n] = len(l.paths)
	l.paths = append(l.paths, n)
	l.places = append(l.places, pl)
}

func (p setPlace) notSupported() error {
	if p.preset != "" {
		return &pathError{file: p.name, path: p.path, err: ErrNotSupported,
			msg: fmt.Sprintf("preset %s sets %s, which is %v", echo.Quote(p.preset), p.field, ErrNotSupported)}
	}
	return &pathError{file: p.name, path: p.path, msg: ErrNotSupported.Error(), err: ErrNotSupported}
}

// Unimplemented returns an error for the first entry of Set that implemented says the engine does not
// implement, or nil. The error wraps ErrNotSupported and names the place where the field was written,
// with its index, such as "seedfall.json: nodes[1].disk: not supported yet by this version of sf", or
// the -set argument, or the preset that set it.
func (w *World) Unimplemented(implemented func(path string) bool) error {
	for i, p := range w.Set {
		if implemented(p) {
			continue
		}
		if i < len(w.setAt) {
			return w.setAt[i].notSupported()
		}
		return &pathError{file: w.File, path: p, msg: ErrNotSupported.Error(), err: ErrNotSupported}
	}
	return nil
}
