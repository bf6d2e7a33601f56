package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/faults"
)

// W is a valid workload, for building worlds around the field under test.
const W = workload

// field is one field of the spec with a world that sets it to a valid value and one that sets it to an
// invalid value, and the error the invalid one gives.
type field struct {
	path      string // as in World.Set
	where     string // as in messages, with indices
	good, bad string
	want      string
}

// onTop puts a member at the top level of a world with a workload.
func onTop(key, good, bad, want string) field {
	return field{path: key, where: key,
		good: fmt.Sprintf(`{%s, %q: %s}`, W, key, good),
		bad:  fmt.Sprintf(`{%s, %q: %s}`, W, key, bad), want: want}
}

// inGroup puts a member in a group object (faults, liveness, preempt, checker) of a world.
func inGroup(group, key, good, bad, want string) field {
	p := group + "." + key
	return field{path: p, where: p,
		good: fmt.Sprintf(`{%s, %q: {%q: %s}}`, W, group, key, good),
		bad:  fmt.Sprintf(`{%s, %q: {%q: %s}}`, W, group, key, bad), want: want}
}

// onNode sets node fields (the object's members without braces) on the only node of a world.
func onNode(key, good, bad, want string) field {
	wrap := func(members string) string { return fmt.Sprintf(`{"nodes": [{%s}], %s}`, members, W) }
	return field{path: "nodes[]." + key, where: "nodes[0]." + key, good: wrap(good), bad: wrap(bad), want: want}
}

const node = `"name": "a", "pkg": "./testdata/node"`

// specFields lists every field of the world file, as the spec defines it.
func specFields() []field {
	fs := []field{
		{path: "nodes", where: "nodes",
			good: `{"nodes": [{"name": "a", "pkg": "./testdata/node"}], ` + W + `}`,
			bad:  `{"nodes": 1, ` + W + `}`, want: "nodes: expected an array of objects"},
		{path: "workload", where: "workload",
			good: `{` + W + `}`, bad: `{"workload": []}`, want: "workload: expected an object"},
		{path: "workloads", where: "workloads",
			good: `{"workloads": [{"name": "w", "pkg": "./testdata/client"}]}`,
			bad:  `{"workloads": [{"name": "w"}]}`, want: "workloads[0]: needs pkg or wasm"},
		{path: "finally", where: "finally",
			good: `{` + W + `, "finally": {"name": "f", "pkg": "./testdata/client"}}`,
			bad:  `{` + W + `, "finally": {"name": "f", "pkg": "./testdata/client", "faults": true}}`,
			want: "finally.faults: the finally check never takes faults"},
		inGroup("liveness", "within", `"10s"`, `"-1s"`, "liveness.within: must not be negative, got -1s"),
		onTop("duration", `"10s"`, `"0s"`, "duration: must be greater than 0, got 0s"),
		onTop("latency", `["1ms", "2ms"]`, `["2ms", "1ms"]`, "latency: range is reversed: 2ms > 1ms"),
		onTop("links", `[{"to": "client", "latency": ["1ms", "2ms"]}]`, `[{"latency": ["1ms", "2ms"]}]`,
			"links[0]: needs from or to"),
		{path: "links[].from", where: "links[0].from",
			good: `{` + W + `, "links": [{"from": "client", "latency": ["1ms", "2ms"]}]}`,
			bad:  `{` + W + `, "links": [{"from": "x", "latency": ["1ms", "2ms"]}]}`,
			want: `links[0].from: unknown node "x" (the world has client)`},
		{path: "links[].to", where: "links[0].to",
			good: `{` + W + `, "links": [{"to": "client", "latency": ["1ms", "2ms"]}]}`,
			bad:  `{` + W + `, "links": [{"to": 7, "latency": ["1ms", "2ms"]}]}`,
			want: `links[0].to: expected a string`},
		{path: "links[].latency", where: "links[0].latency",
			good: `{` + W + `, "links": [{"to": "client", "latency": ["1ms", "2ms"]}]}`,
			bad:  `{` + W + `, "links": [{"to": "client"}]}`,
			want: `links[0].latency: required`},
		onTop("faults_after_setup", `true`, `"yes"`, "faults_after_setup: expected true or false"),
		{path: "fork", where: "fork",
			good: `{` + W + `, "faults_after_setup": true, "fork": "setup"}`,
			bad:  `{` + W + `, "faults_after_setup": true, "fork": "later"}`,
			want: `fork: unknown value "later" (valid: none, setup)`},
		onTop("supervise", `true`, `1`, "supervise: expected true or false"),
		onTop("net_overlay", `true`, `"on"`, "net_overlay: expected true or false"),
		onTop("compat_overlay", `true`, `null`, "compat_overlay: expected true or false"),
		onTop("watchdog", `"1s"`, `"0s"`, "watchdog: must be greater than 0, got 0s"),
		inGroup("preempt", "strategy", `"pct"`, `"fair"`, `preempt.strategy: unknown strategy "fair" (valid: none, random, pct, calls)`),
		inGroup("preempt", "interleave", `true`, `"yes"`, "preempt.interleave: expected true or false"),
		inGroup("preempt", "depth", `5`, `0`, "preempt.depth: must be at least 1, got 0"),
		inGroup("preempt", "steps", `100`, `0`, "preempt.steps: must be at least 1, got 0"),
		inGroup("preempt", "calls", `100`, `4194305`, "preempt.calls: must be from 1 to 4194304, got 4194305"),
		inGroup("preempt", "loops", `true`, `1`, "preempt.loops: expected true or false"),
		inGroup("limits", "steps", `1000`, `0`, "limits.steps: must be at least 1, got 0"),
		inGroup("limits", "trace_bytes", `1000`, `-1`, "limits.trace_bytes: must be at least 1, got -1"),
		inGroup("limits", "fds", `64`, `3`, "limits.fds: must be at least 4, got 3"),
		inGroup("limits", "check_steps", `1000`, `0`, "limits.check_steps: must be at least 1, got 0"),
		inGroup("checker", "model", `"cas"`, `"kvv"`, `checker.model: unknown model "kvv" (valid: kv, cas, append, queue, set, counter, list-append)`),
		{path: "extends", where: "extends",
			good: `{"extends": "testdata/good.json"}`, bad: `{"extends": 1, ` + W + `}`, want: "extends: expected a string"},
		onTop("profiles", `{"ci": {"duration": "1s"}}`, `{"ci": {"duration": "1"}}`, `profiles.ci.duration: invalid duration "1"`),

		onNode("name", node, `"name": "a b", "pkg": "./testdata/node"`,
			`nodes[0].name: invalid node name "a b": use only letters, digits, '_' and '-'`),
		onNode("pkg", node, `"name": "a", "pkg": "./testdata/nope"`,
			"nodes[0].pkg: package directory ./testdata/nope does not exist (resolved to $DIR/testdata/nope)"),
		onNode("wasm", `"name": "a", "wasm": "./testdata/mod.wasm"`, `"name": "a", "wasm": "./testdata/node"`,
			"nodes[0].wasm: module file ./testdata/node is a directory (resolved to $DIR/testdata/node)"),
		onNode("args", node+`, "args": ["-x"]`, node+`, "args": "-x"`, "nodes[0].args: expected an array of strings"),
		onNode("env", node+`, "env": {"A": "1"}`, node+`, "env": {"A=B": "1"}`, `nodes[0].env: variable name "A=B" contains '='`),
		onNode("faults", node+`, "faults": false`, node+`, "faults": "no"`, "nodes[0].faults: expected true or false"),
		onNode("disk", node+`, "disk": "./testdata/node"`, node+`, "disk": "./testdata/nope"`,
			"nodes[0].disk: disk directory ./testdata/nope does not exist (resolved to $DIR/testdata/nope)"),
		onNode("files", node+`, "files": {"data/seed": "./testdata/mod.wasm"}`, node+`, "files": {"data/seed": "./testdata/nope"}`,
			`nodes[0].files["data/seed"]: host file ./testdata/nope does not exist (resolved to $DIR/testdata/nope)`),
		onNode("upgrade_to", node+`, "upgrade_to": "./testdata/client"`, node+`, "upgrade_to": "./testdata/mod.wasm"`,
			"nodes[0].upgrade_to: package directory ./testdata/mod.wasm is not a directory (resolved to $DIR/testdata/mod.wasm)"),

		inGroup("faults", "preset", `"durability"`, `"durable"`,
			`faults.preset: unknown preset "durable" (valid: none, durability, resilient, high_availability, everything)`),
		inGroup("faults", "partition_topologies", `["half", "one"]`, `["halves"]`,
			`faults.partition_topologies[0]: unknown topology "halves" (valid: half, one, majority, majorities_ring, random_groups)`),
		inGroup("faults", "clog_modes", `["stop"]`, `["drop"]`, `faults.clog_modes[0]: unknown clog mode "drop" (valid: stop, slow, jam)`),
		inGroup("faults", "slow_factor", `2`, `0.5`, "faults.slow_factor: must be at least 1, got 0.5"),
		{path: "faults.fs_model", where: "faults.fs_model",
			good: `{` + W + `, "faults": {"reorder_writes": true, "fs_model": "page_independent"}}`,
			bad:  `{` + W + `, "faults": {"fs_model": "page_independent"}}`,
			want: "faults.fs_model: needs reorder_writes: the model only says which states out-of-order writeback may leave"},
		inGroup("faults", "disk_bytes", `1048576`, `-1`, "faults.disk_bytes: must not be negative, got -1"),
		{path: "faults.torn_sector", where: "faults.torn_sector",
			good: `{` + W + `, "faults": {"torn_writes": true, "torn_sector": 512}}`,
			bad:  `{` + W + `, "faults": {"torn_writes": true, "torn_sector": -512}}`,
			want: "faults.torn_sector: must not be negative, got -512"},
		{path: "faults.mmap_early_writeback", where: "faults.mmap_early_writeback",
			good: `{` + W + `, "compat_overlay": true, "faults": {"mmap_early_writeback": 0.5}}`,
			bad:  `{` + W + `, "compat_overlay": true, "faults": {"mmap_early_writeback": 1.5}}`,
			want: "faults.mmap_early_writeback: must be between 0 and 1, got 1.5"},
		inGroup("faults", "clock_skew", `"200ms"`, `"-1s"`, "faults.clock_skew: must not be negative, got -1s"),
		inGroup("faults", "clock_jump_max", `"5s"`, `"-1s"`, "faults.clock_jump_max: must not be negative, got -1s"),
	}
	// The fault kinds' fields of the plain types, from the registry; the
	// choices, factors and durations above have messages of their own.
	for _, kf := range faults.Fields() {
		switch kf.Type {
		case faults.Rate:
			fs = append(fs, inGroup("faults", kf.Name, `0.5`, `-1`, "faults."+kf.Name+": must not be negative, got -1"))
		case faults.Prob:
			if kf.Needs == "" {
				fs = append(fs, inGroup("faults", kf.Name, `0.5`, `1.5`, "faults."+kf.Name+": must be between 0 and 1, got 1.5"))
			}
		case faults.Range:
			fs = append(fs, inGroup("faults", kf.Name, `["1ms", "2ms"]`, `["2ms", "1ms"]`, "faults."+kf.Name+": range is reversed: 2ms > 1ms"))
		case faults.Switch:
			fs = append(fs, inGroup("faults", kf.Name, `true`, `"true"`, "faults."+kf.Name+": expected true or false"))
		}
	}
	for _, k := range []string{"disk_latency"} {
		fs = append(fs, inGroup("faults", k, `["1ms", "2ms"]`, `["2ms", "1ms"]`, "faults."+k+": range is reversed: 2ms > 1ms"))
	}
	for _, k := range []string{"torn_writes", "reorder_writes", "corrupt_on_crash", "strict_dirs", "include_workload", "swarm"} {
		fs = append(fs, inGroup("faults", k, `true`, `"true"`, "faults."+k+": expected true or false"))
	}
	return fs
}

// TestEveryField sets every field of the spec: a valid value is accepted and recorded in Set, and an
// invalid value is an error that names its path.
func TestEveryField(t *testing.T) {
	dir := abs(t, ".")
	for _, f := range specFields() {
		t.Run(f.path, func(t *testing.T) {
			w, err := parse(f.good)
			if err != nil {
				t.Fatalf("valid value rejected: %v", err)
			}
			if !slices.Contains(w.Set, f.path) {
				t.Errorf("Set = %v, want it to hold %s", w.Set, f.path)
			}
			_, err = parse(f.bad)
			want := "seedfall.json: " + strings.ReplaceAll(f.want, "$DIR", dir)
			if err == nil || err.Error() != want {
				t.Errorf("invalid value\n got: %v\nwant: %s", err, want)
			}
		})
	}
}

// schemaPaths lists every path that World.Set can hold, from the types of a world and the fields of
// the fault kinds.
func schemaPaths() []string {
	var out []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for _, f := range jsonFields(t) {
			p := concatPath(prefix, f.name)
			ft := t.Field(f.index).Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if !groupTypes[ft] {
				out = append(out, p)
			}
			if ft == faultsType {
				for _, kf := range faults.Fields() {
					out = append(out, p+"."+kf.Name)
				}
			}
			switch {
			case ft.Kind() == reflect.Struct && ft != durationType && ft != rangeType:
				walk(ft, p)
			case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
				walk(ft.Elem(), p+"[]")
			}
		}
	}
	walk(worldType, "")
	return append(out, "extends", "profiles")
}

// TestEveryFieldIsListed checks that specFields covers every field of the types, and that the spec
// defines every field the types have: the 42 fault fields (and the fields of fault kinds sf adds), 9 node
// fields, and the rest.
func TestEveryFieldIsListed(t *testing.T) {
	listed := map[string]bool{}
	for _, f := range specFields() {
		if listed[f.path] {
			t.Errorf("%s is listed twice", f.path)
		}
		listed[f.path] = true
	}
	var nodeFields, faultFields int
	paths := schemaPaths()
	for _, p := range paths {
		switch {
		case strings.HasPrefix(p, "nodes[]."):
			nodeFields++
		case strings.HasPrefix(p, "faults."):
			faultFields++
		}
		// The fields of workload, workloads[] and finally are a node's.
		if rest, ok := cutAny(p, "workload.", "workloads[].", "finally."); ok {
			if !listed["nodes[]."+rest] {
				t.Errorf("%s: no test for nodes[].%s", p, rest)
			}
			continue
		}
		if !listed[p] {
			t.Errorf("%s has no entry in specFields", p)
		}
	}
	for _, f := range specFields() {
		if !slices.Contains(paths, f.path) {
			t.Errorf("specFields lists %s, which is not a field", f.path)
		}
	}
	if nodeFields != 9 || faultFields < 42 {
		t.Errorf("%d node fields and %d fault fields, want 9 and the spec's 42 or more (sf adds fault kinds)", nodeFields, faultFields)
	}
}

func cutAny(s string, prefixes ...string) (string, bool) {
	for _, p := range prefixes {
		if rest, ok := strings.CutPrefix(s, p); ok {
			return rest, true
		}
	}
	return "", false
}

// TestRules pins the error of every rule that involves more than one value, and of the remaining
// shapes of bad input.
func TestRules(t *testing.T) {
	two := `"nodes": [{"name": "a", "pkg": "./testdata/node"}], ` + W
	three := `"nodes": [{"name": "a", "pkg": "./testdata/node"}, {"name": "b", "pkg": "./testdata/node"}], ` + W
	tests := []struct{ name, json, want string }{
		// Workloads and finally.
		{"no workload at all", `{"workloads": []}`, `workload: required (or workloads)`},
		{"workloads not an array", `{"workloads": {"name": "w"}}`, `workloads: expected an array of objects`},
		{"workloads named alike", `{"workloads": [{"name": "w", "pkg": "./testdata/client"}, {"name": "w", "pkg": "./testdata/client"}]}`,
			`workloads[1].name: duplicate node name "w"`},
		{"workloads named like the workload", `{` + W + `, "workloads": [{"name": "client", "pkg": "./testdata/client"}]}`,
			`workloads[0].name: duplicate node name "client"`},
		{"finally named like a node", `{` + two + `, "finally": {"name": "a", "pkg": "./testdata/client"}}`,
			`finally.name: duplicate node name "a"`},
		{"finally upgraded", `{` + W + `, "finally": {"name": "f", "pkg": "./testdata/client", "upgrade_to": "./testdata/client"}}`,
			`finally.upgrade_to: the finally check never restarts, so it cannot be upgraded`},
		{"finally without a program", `{` + W + `, "finally": {"name": "f"}}`, `finally: needs pkg or wasm`},
		{"workload faults null", `{"workload": {"name": "c", "pkg": "./testdata/client", "faults": null}}`,
			`workload.faults: expected true or false`},

		// Liveness.
		{"liveness not an object", `{` + W + `, "liveness": "10s"}`, `liveness: expected an object`},
		{"liveness unknown field", `{` + W + `, "liveness": {"withn": "10s"}}`, `liveness.withn: unknown field (did you mean "within"?)`},

		// Links.
		{"link from an unknown node", `{` + two + `, "links": [{"from": "a", "to": "b", "latency": ["1ms", "2ms"]}]}`,
			`links[0].to: unknown node "b" (the world has a, client)`},
		{"link unknown field", `{` + W + `, "links": [{"to": "client", "latnecy": ["1ms", "2ms"]}]}`,
			`links[0].latnecy: unknown field (did you mean "latency"?)`},
		{"second link without latency", `{` + W + `, "links": [{"to": "client", "latency": ["1ms", "2ms"]}, {"from": "client"}]}`,
			`links[1].latency: required`},

		// Preemption and the checker.
		{"interleave with pct", `{` + W + `, "preempt": {"interleave": true, "strategy": "pct"}}`,
			`preempt.strategy: strategy pct conflicts with interleave, which allows only random or none; set interleave to false`},
		{"interleave with calls", `{` + W + `, "preempt": {"strategy": "calls", "interleave": true}}`,
			`preempt.strategy: strategy calls conflicts with interleave, which allows only random or none; set interleave to false`},
		{"preempt calls zero", `{` + W + `, "preempt": {"calls": 0}}`, `preempt.calls: must be from 1 to 4194304, got 0`},
		{"preempt depth not an integer", `{` + W + `, "preempt": {"depth": 2.5}}`, `preempt.depth: expected an integer`},
		{"checker model not a string", `{` + W + `, "checker": {"model": 1}}`, `checker.model: expected a string`},

		// Node fields.
		{"disk is a file", `{"nodes": [{` + node + `, "disk": "./testdata/mod.wasm"}], ` + W + `}`,
			`nodes[0].disk: disk directory ./testdata/mod.wasm is not a directory (resolved to $DIR/testdata/mod.wasm)`},
		{"files host file is a directory", `{"nodes": [{` + node + `, "files": {"a": "./testdata/node"}}], ` + W + `}`,
			`nodes[0].files.a: host file ./testdata/node is a directory (resolved to $DIR/testdata/node)`},
		{"files path leaves the disk", `{"nodes": [{` + node + `, "files": {"../etc/x": "./testdata/mod.wasm"}}], ` + W + `}`,
			`nodes[0].files["../etc/x"]: disk path "../etc/x" is outside the node's disk`},
		{"files path is the root", `{"nodes": [{` + node + `, "files": {"/": "./testdata/mod.wasm"}}], ` + W + `}`,
			`nodes[0].files["/"]: disk path "/" is outside the node's disk`},
		{"files empty path", `{"nodes": [{` + node + `, "files": {"": "./testdata/mod.wasm"}}], ` + W + `}`,
			`nodes[0].files: empty disk path`},
		{"files same path twice", `{"nodes": [{` + node + `, "files": {"a/b": "./testdata/mod.wasm", "/a/b": "./testdata/mod.wasm"}}], ` + W + `}`,
			`nodes[0].files["a/b"]: disk path "a/b" names the same file as another entry`},
		{"files not an object", `{"nodes": [{` + node + `, "files": ["a"]}], ` + W + `}`,
			`nodes[0].files: expected an object of strings`},
		{"upgrade_to missing on a workload", `{"workload": {"name": "c", "pkg": "./testdata/client", "upgrade_to": "./v2"}}`,
			`workload.upgrade_to: package directory ./v2 does not exist (resolved to $DIR/v2)`},
		{"disk of one of the workloads", `{"workloads": [{"name": "w", "pkg": "./testdata/client", "disk": "./nope"}]}`,
			`workloads[0].disk: disk directory ./nope does not exist (resolved to $DIR/nope)`},

		// Faults.
		{"preset not a string", `{` + W + `, "faults": {"preset": 1}}`, `faults.preset: expected a string`},
		{"preset shorthand unknown", `{` + W + `, "faults": "resilent"}`,
			`faults: unknown preset "resilent" (valid: none, durability, resilient, high_availability, everything)`},
		{"faults a number", `{` + W + `, "faults": 1}`, `faults: expected an object`},
		{"no topology", `{` + W + `, "faults": {"partition_topologies": []}}`,
			`faults.partition_topologies: must name at least one topology (valid: half, one, majority, majorities_ring, random_groups)`},
		{"topology twice", `{` + W + `, "faults": {"partition_topologies": ["one", "half", "one"]}}`,
			`faults.partition_topologies[2]: duplicate topology "one"`},
		{"majority with 2 nodes", `{` + two + `, "faults": {"partition_topologies": ["half", "majority"]}}`,
			`faults.partition_topologies[1]: topology majority needs at least 3 programs that take network faults, the world has 2 (workloads count; the finally check and programs with "faults": false do not)`},
		{"majorities_ring with 3 nodes", `{` + three + `, "faults": {"partition_topologies": ["majorities_ring"]}}`,
			`faults.partition_topologies[0]: topology majorities_ring needs at least 4 programs that take network faults, the world has 3 (workloads count; the finally check and programs with "faults": false do not)`},
		{"finally does not count for topologies", `{` + three + `, "finally": {"name": "f", "pkg": "./testdata/client"}, "faults": {"partition_topologies": ["majorities_ring"]}}`,
			`faults.partition_topologies[0]: topology majorities_ring needs at least 4 programs that take network faults, the world has 3 (workloads count; the finally check and programs with "faults": false do not)`},
		{"a node without faults does not count for topologies", `{"nodes": [{"name": "a", "pkg": "./testdata/node"}, {"name": "b", "pkg": "./testdata/node"}, {"name": "c", "pkg": "./testdata/node", "faults": false}], ` + W + `, "faults": {"partition_topologies": ["majorities_ring"]}}`,
			`faults.partition_topologies[0]: topology majorities_ring needs at least 4 programs that take network faults, the world has 3 (workloads count; the finally check and programs with "faults": false do not)`},
		{"a workload without faults does not count for topologies", `{` + two + `, "workloads": [{"name": "w", "pkg": "./testdata/client", "faults": false}], "faults": {"partition_topologies": ["majority"]}}`,
			`faults.partition_topologies[0]: topology majority needs at least 3 programs that take network faults, the world has 2 (workloads count; the finally check and programs with "faults": false do not)`},
		{"no clog mode", `{` + W + `, "faults": {"clog_modes": []}}`, `faults.clog_modes: must name at least one clog mode (valid: stop, slow, jam)`},
		{"clog mode twice", `{` + W + `, "faults": {"clog_modes": ["jam", "jam"]}}`, `faults.clog_modes[1]: duplicate clog mode "jam"`},
		{"clog mode not a string", `{` + W + `, "faults": {"clog_modes": [1]}}`, `faults.clog_modes[0]: expected a string`},
		{"unknown fs_model", `{` + W + `, "faults": {"reorder_writes": true, "fs_model": "ext3"}}`,
			`faults.fs_model: unknown model "ext3" (valid: ext4_ordered, page_independent, dir_reorder)`},
		{"unknown fs_model without reorder_writes", `{` + W + `, "faults": {"fs_model": "ext3"}}`,
			`faults.fs_model: unknown model "ext3" (valid: ext4_ordered, page_independent, dir_reorder)`},
		{"default fs_model without reorder_writes", `{` + W + `, "faults": {"fs_model": "ext4_ordered"}}`,
			`faults.fs_model: needs reorder_writes: the model only says which states out-of-order writeback may leave`},
		{"dir_reorder without strict_dirs", `{` + W + `, "faults": {"reorder_writes": true, "fs_model": "dir_reorder"}}`,
			`faults.fs_model: dir_reorder needs strict_dirs`},
		{"torn_sector without torn_writes", `{` + W + `, "faults": {"torn_sector": 512}}`,
			`faults.torn_sector: needs torn_writes: it only says where a torn write may be cut`},
		{"torn_sector not an integer", `{` + W + `, "faults": {"torn_writes": true, "torn_sector": 0.5}}`, `faults.torn_sector: expected an integer`},
		{"disk_bytes not an integer", `{` + W + `, "faults": {"disk_bytes": 1.5}}`, `faults.disk_bytes: expected an integer`},
		{"probability below 0", `{` + W + `, "faults": {"udp_loss": -0.1}}`, `faults.udp_loss: must be between 0 and 1, got -0.1`},
		{"mmap_early_writeback without compat_overlay", `{` + W + `, "faults": {"mmap_early_writeback": 0.1}}`,
			`faults.mmap_early_writeback: needs compat_overlay: only a shared mapping made through its shims can be written back early`},
		{"first bad rate in declaration order", `{` + W + `, "faults": {"pause_per_sec": -1, "crash_per_sec": -2}}`,
			`faults.crash_per_sec: must not be negative, got -2`},
	}
	dir := abs(t, ".")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := "seedfall.json: " + strings.ReplaceAll(tt.want, "$DIR", dir)
			w, err := parse(tt.json)
			if err == nil {
				t.Fatalf("accepted %s, want error %q", w.Canonical(), want)
			}
			if err.Error() != want {
				t.Errorf("\n got: %s\nwant: %s", err, want)
			}
		})
	}
}

// TestNormalized checks the values that loading fills in or rewrites.
func TestNormalized(t *testing.T) {
	w, err := parse(`{"nodes": [{` + node + `, "disk": "testdata/node", "upgrade_to": "testdata/client",
		"files": {"/etc//seed": "testdata/mod.wasm", "b/./c": "testdata/mod.wasm"}}], ` + W + `,
		"preempt": {"interleave": true}, "faults": {"reorder_writes": true}}`)
	if err != nil {
		t.Fatal(err)
	}
	n := w.Nodes[0]
	if n.Disk != abs(t, "testdata/node") || n.UpgradeTo != abs(t, "testdata/client") {
		t.Errorf("disk, upgrade_to = %s, %s, want absolute", n.Disk, n.UpgradeTo)
	}
	wantFiles := map[string]string{"etc/seed": abs(t, "testdata/mod.wasm"), "b/c": abs(t, "testdata/mod.wasm")}
	if !reflect.DeepEqual(n.Files, wantFiles) {
		t.Errorf("files = %v, want %v", n.Files, wantFiles)
	}
	if w.Preempt.Strategy != "random" {
		t.Errorf("interleave leaves strategy %s, want random", w.Preempt.Strategy)
	}
	if w.Faults.FSModel != "ext4_ordered" {
		t.Errorf("reorder_writes without fs_model gives %q, want ext4_ordered", w.Faults.FSModel)
	}
	w, err = parse(`{` + W + `}`)
	if err != nil {
		t.Fatal(err)
	}
	if w.Faults.FSModel != "" {
		t.Errorf("without reorder_writes fs_model is %q, want empty", w.Faults.FSModel)
	}
}
