package config

import (
	"reflect"
	"slices"
	"strings"

	"github.com/sf-dst/sf/lib/echo"
)

// presets are the fault levels, mildest first, as JSON objects of fault fields. Each level adds its
// fields to those of the levels before it; fields set next to a preset override it. docs/world.md shows
// this table, and a test checks that the two agree.
//
//   - durability: crashes at random moments and during disk operations, with every crash state a real
//     file system can leave (torn and reordered writes, strict directories) and failed fsyncs.
//   - resilient: the node and network failures a replicated system must ride out: partitions, connection
//     resets, process pauses and skewed clocks.
//   - high_availability: the gray failures that break leases and leader election: every partition shape
//     the world has nodes for, one-way clogs and swizzles, slow nodes, clock jumps, lost and repeated
//     datagrams.
//   - everything: the misbehaving disk as well (failed and corrupted reads and writes, lost and
//     misdirected writes, bit rot, slow fsyncs), BUGGIFY sites, faults on the workloads, and swarm
//     testing so that the many fault types do not hide each other.
//
// Rates are per second of virtual time: at the default duration of 30s, 0.2 is about six events per node
// per run. Ranges, modes and limits keep their defaults.
var presets = []struct {
	name, fields string
}{
	{"none", `{}`},
	{"durability", `{
		"crash_per_sec": 0.2, "torn_writes": true, "reorder_writes": true, "strict_dirs": true,
		"crash_on_io": 0.005, "fsync_eio": 0.01}`},
	{"resilient", `{
		"partition_per_sec": 0.2, "reset_per_sec": 0.1, "pause_per_sec": 0.1, "clock_skew": "100ms"}`},
	{"high_availability", `{
		"partition_topologies": ["half", "one", "majority", "majorities_ring", "random_groups"],
		"clog_per_sec": 0.1, "swizzle_per_sec": 0.02, "slow_per_sec": 0.1, "clock_jump_per_sec": 0.05,
		"udp_loss": 0.01, "udp_dup": 0.01}`},
	{"everything", `{
		"write_eio": 0.005, "write_enospc": 0.002, "read_eio": 0.005, "read_corrupt": 0.005,
		"lost_write": 0.001, "misdirected_write": 0.001, "corrupt_on_crash": true, "bitrot_per_sec": 0.01,
		"disk_latency": ["0s", "10ms"], "buggify": true, "include_workload": true, "swarm": true}`},
}

// presetLevels holds the members of each preset, parsed once.
var presetLevels = func() [][]member {
	levels := make([][]member, len(presets))
	for i, p := range presets {
		v, err := parseTree([]byte(p.fields), &source{}, "")
		if err != nil || v.kind != '{' {
			panic("config: preset " + p.name + " is not a JSON object")
		}
		levels[i] = v.members
	}
	return levels
}()

// PresetNames lists the fault presets, mildest first.
func PresetNames() []string {
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.name
	}
	return names
}

// applyPreset applies the preset named by pv, the value of faults.preset (or of faults itself, written
// as the shorthand "faults": "name"), to f. faultsPath is the JSON path of the faults object. Every field
// the preset sets is recorded as set, at the place where the preset was chosen.
func (d *decoder) applyPreset(faultsPath string, pv *jvalue, f *Faults) error {
	pp := joinPath(faultsPath, "preset")
	d.srcs[pp] = pv.src
	where := pp
	if pv.shorthand {
		where = faultsPath
	}
	if pv.kind != '"' {
		return d.errorf(where, "expected a string")
	}
	lvl := slices.IndexFunc(presets, func(p struct{ name, fields string }) bool { return p.name == pv.str })
	if lvl < 0 {
		return d.errorf(where, "unknown preset %s (valid: %s)", echo.Quote(pv.str), strings.Join(PresetNames(), ", "))
	}
	d.note(pp)
	f.Preset = pv.str
	at := pv.src.locate(where)
	src := &source{name: at.name, dir: pv.src.dir, preset: pv.str, place: &at}
	v := reflect.ValueOf(f).Elem()
	fields := jsonFields(faultsType)
	for _, level := range presetLevels[:lvl+1] {
		for _, m := range level {
			mp := joinPath(faultsPath, m.key)
			d.note(mp)
			val := resource(m.value, func(*source) *source { return src })
			if fd, ok := kindField(m.key); ok {
				if err := d.decodeKindField(mp, val, fd, f); err != nil {
					return err
				}
				continue
			}
			i := slices.IndexFunc(fields, func(f jsonField) bool { return f.name == m.key })
			if err := d.decodeValue(mp, val, v.Field(fields[i].index)); err != nil {
				return err
			}
		}
	}
	return nil
}
