package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/faults"
)

// workload is a valid workload, for tests that are about something else. Parse runs with the file name
// seedfall.json, so paths are relative to this package's directory.
const workload = `"workload": {"name": "client", "pkg": "./testdata/client"}`

// all loads a world whatever the engine implements, for tests of decoding and validation.
var all = LoadOptions{}

// parse parses a world as seedfall.json in this package's directory, whatever the engine implements.
func parse(data string) (*World, error) {
	return ParseWith("seedfall.json", []byte(data), all)
}

func abs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestParseErrors(t *testing.T) {
	long := strings.Repeat("a", 64)
	tests := []struct {
		name, json, want string
	}{
		// Malformed JSON.
		{"syntax error line and column", "{\n  \"nodes\": [\n  {\"name\": \"n1\",}\n  ]\n}",
			`seedfall.json:3:17: invalid character '}' looking for beginning of object key string`},
		{"syntax error column counts characters", `{"é": 1,}`,
			`seedfall.json:1:9: invalid character '}' looking for beginning of object key string`},
		{"empty file", ``, `seedfall.json:1:1: unexpected end of JSON input`},
		{"truncated", `{"nodes": [`, `seedfall.json:1:12: unexpected end of JSON input`},
		{"truncated after newline", "{\n", `seedfall.json:2:1: unexpected end of JSON input`},
		{"trailing data", `{} x`, `seedfall.json:1:4: invalid character 'x' after top-level value`},
		{"top level not an object", `[]`, `seedfall.json: expected an object`},
		{"top level null", `null`, `seedfall.json: expected an object`},

		// Unknown fields.
		{"unknown top-level field with hint", `{"duraton": "1s", ` + workload + `}`,
			`seedfall.json: duraton: unknown field (did you mean "duration"?)`},
		{"unknown top-level field", `{"colour": "red", ` + workload + `}`,
			`seedfall.json: colour: unknown field`},
		{"unknown node field with hint", `{"nodes": [{"name": "a", "pkg": "./testdata/node"}, {"name": "b", "pgk": "./testdata/node"}], ` + workload + `}`,
			`seedfall.json: nodes[1].pgk: unknown field (did you mean "pkg"?)`},
		{"unknown node field in another case", `{"nodes": [{"Name": "a"}], ` + workload + `}`,
			`seedfall.json: nodes[0].Name: unknown field (did you mean "name"?)`},
		{"unknown workload field with hint", `{"workload": {"name": "c", "pkg": "./testdata/client", "agrs": []}}`,
			`seedfall.json: workload.agrs: unknown field (did you mean "args"?)`},
		{"unknown faults field with hint", `{` + workload + `, "faults": {"crash_per_sex": 1}}`,
			`seedfall.json: faults.crash_per_sex: unknown field (did you mean "crash_per_sec"?)`},
		{"unknown faults field hints a field not supported yet", `{` + workload + `, "faults": {"partiton_per_sec": 1}}`,
			`seedfall.json: faults.partiton_per_sec: unknown field (did you mean "partition_per_sec"?)`},
		{"unknown field three edits away", `{` + workload + `, "faults": {"crash_per_second": 1}}`,
			`seedfall.json: faults.crash_per_second: unknown field`},
		{"unknown field with an odd key", `{"a b": 1, ` + workload + `}`,
			`seedfall.json: ["a b"]: unknown field`},
		{"unknown field with an empty key", `{"": 1, ` + workload + `}`,
			`seedfall.json: [""]: unknown field`},
		{"duplicate field", `{"duration": "1s", "duration": "2s", ` + workload + `}`,
			`seedfall.json: duration: duplicate key`},
		{"duplicate key deep inside", `{"nodes": [{"name": "a", "pkg": "./testdata/node", "env": {"A": "1", "A": "2"}}], ` + workload + `}`,
			`seedfall.json: nodes[0].env.A: duplicate key`},

		// Wrong JSON types.
		{"args not an array", `{"nodes": [{"name": "a", "pkg": "./testdata/node", "args": "-id a"}], ` + workload + `}`,
			`seedfall.json: nodes[0].args: expected an array of strings`},
		{"args element not a string", `{"nodes": [{"name": "a", "pkg": "./testdata/node", "args": ["-n", 3]}], ` + workload + `}`,
			`seedfall.json: nodes[0].args[1]: expected a string`},
		{"name not a string", `{"nodes": [{"name": 1, "pkg": "./testdata/node"}], ` + workload + `}`,
			`seedfall.json: nodes[0].name: expected a string`},
		{"nodes not an array", `{"nodes": {"name": "a"}, ` + workload + `}`,
			`seedfall.json: nodes: expected an array of objects`},
		{"node not an object", `{"nodes": ["a"], ` + workload + `}`,
			`seedfall.json: nodes[0]: expected an object`},
		{"workload not an object", `{"workload": "./client"}`,
			`seedfall.json: workload: expected an object`},
		{"workload null", `{"workload": null}`,
			`seedfall.json: workload: expected an object`},
		{"supervise not a boolean", `{` + workload + `, "supervise": "yes"}`,
			`seedfall.json: supervise: expected true or false`},
		{"env not an object", `{"nodes": [{"name": "a", "pkg": "./testdata/node", "env": ["A=1"]}], ` + workload + `}`,
			`seedfall.json: nodes[0].env: expected an object of strings`},
		{"env value not a string", `{"nodes": [{"name": "a", "pkg": "./testdata/node", "env": {"DEBUG": 1}}], ` + workload + `}`,
			`seedfall.json: nodes[0].env.DEBUG: expected a string`},
		{"faults not an object", `{` + workload + `, "faults": [1]}`,
			`seedfall.json: faults: expected an object`},
		{"crash_per_sec not a number", `{` + workload + `, "faults": {"crash_per_sec": "0.5"}}`,
			`seedfall.json: faults.crash_per_sec: expected a number`},
		{"crash_per_sec out of range", `{` + workload + `, "faults": {"crash_per_sec": 1e400}}`,
			`seedfall.json: faults.crash_per_sec: number 1e400 is out of range`},

		// Durations.
		{"invalid duration", `{` + workload + `, "duration": "3x"}`,
			`seedfall.json: duration: invalid duration "3x"`},
		{"duration not a string", `{` + workload + `, "duration": 30}`,
			`seedfall.json: duration: expected a duration string like "250ms"`},
		{"duration zero", `{` + workload + `, "duration": "0s"}`,
			`seedfall.json: duration: must be greater than 0, got 0s`},
		{"duration negative", `{` + workload + `, "duration": "-1s"}`,
			`seedfall.json: duration: must be greater than 0, got -1s`},
		{"watchdog zero", `{` + workload + `, "watchdog": "0"}`,
			`seedfall.json: watchdog: must be greater than 0, got 0s`},
		{"watchdog invalid", `{` + workload + `, "watchdog": "soon"}`,
			`seedfall.json: watchdog: invalid duration "soon"`},

		// Ranges.
		{"range not an array", `{` + workload + `, "latency": "1ms"}`,
			`seedfall.json: latency: expected a range of two durations like ["1ms", "10ms"]`},
		{"range of one", `{` + workload + `, "latency": ["1ms"]}`,
			`seedfall.json: latency: expected a range of two durations like ["1ms", "10ms"]`},
		{"range of three", `{` + workload + `, "latency": ["1ms", "2ms", "3ms"]}`,
			`seedfall.json: latency: expected a range of two durations like ["1ms", "10ms"]`},
		{"range of numbers", `{` + workload + `, "latency": [1, 10]}`,
			`seedfall.json: latency: expected a range of two durations like ["1ms", "10ms"]`},
		{"range with invalid duration", `{` + workload + `, "latency": ["1ms", "10"]}`,
			`seedfall.json: latency: invalid duration "10"`},
		{"range negative", `{` + workload + `, "latency": ["-1ms", "10ms"]}`,
			`seedfall.json: latency: negative duration "-1ms"`},
		{"range reversed", `{` + workload + `, "faults": {"restart_after": ["1s", "10ms"]}}`,
			`seedfall.json: faults.restart_after: range is reversed: 1s > 10ms`},
		{"crash_per_sec negative", `{` + workload + `, "faults": {"crash_per_sec": -1}}`,
			`seedfall.json: faults.crash_per_sec: must not be negative, got -1`},

		// Nodes.
		{"node without name", `{"nodes": [{"pkg": "./testdata/node"}], ` + workload + `}`,
			`seedfall.json: nodes[0].name: required`},
		{"node with empty name", `{"nodes": [{"name": "", "pkg": "./testdata/node"}], ` + workload + `}`,
			`seedfall.json: nodes[0].name: required`},
		{"node name with a space", `{"nodes": [{"name": "my node", "pkg": "./testdata/node"}], ` + workload + `}`,
			`seedfall.json: nodes[0].name: invalid node name "my node": use only letters, digits, '_' and '-'`},
		{"node name with a dot", `{"nodes": [{"name": "n.1", "pkg": "./testdata/node"}], ` + workload + `}`,
			`seedfall.json: nodes[0].name: invalid node name "n.1": use only letters, digits, '_' and '-'`},
		{"node name too long", `{"nodes": [{"name": "` + long + `", "pkg": "./testdata/node"}], ` + workload + `}`,
			`seedfall.json: nodes[0].name: node name "` + long + `" is longer than 63 characters`},
		{"node without pkg or wasm", `{"nodes": [{"name": "a"}], ` + workload + `}`,
			`seedfall.json: nodes[0]: needs pkg or wasm`},
		{"node with both pkg and wasm", `{"nodes": [{"name": "a", "pkg": "./testdata/node", "wasm": "./testdata/mod.wasm"}], ` + workload + `}`,
			`seedfall.json: nodes[0]: has both pkg and wasm`},
		{"workload without pkg or wasm", `{"workload": {"name": "c"}}`,
			`seedfall.json: workload: needs pkg or wasm`},
		{"duplicate node name", `{"nodes": [{"name": "server", "pkg": "./testdata/node"}, {"name": "b", "pkg": "./testdata/node"}, {"name": "server", "pkg": "./testdata/node"}], ` + workload + `}`,
			`seedfall.json: nodes[2].name: duplicate node name "server"`},
		{"workload named like a node", `{"nodes": [{"name": "client", "pkg": "./testdata/node"}], ` + workload + `}`,
			`seedfall.json: workload.name: duplicate node name "client"`},
		{"pkg does not exist", `{"nodes": [{"name": "a", "pkg": "./srv"}], ` + workload + `}`,
			`seedfall.json: nodes[0].pkg: package directory ./srv does not exist (resolved to $DIR/srv)`},
		{"pkg is a file", `{"nodes": [{"name": "a", "pkg": "testdata/mod.wasm"}], ` + workload + `}`,
			`seedfall.json: nodes[0].pkg: package directory testdata/mod.wasm is not a directory (resolved to $DIR/testdata/mod.wasm)`},
		{"wasm does not exist", `{"nodes": [{"name": "a", "wasm": "./a.wasm"}], ` + workload + `}`,
			`seedfall.json: nodes[0].wasm: module file ./a.wasm does not exist (resolved to $DIR/a.wasm)`},
		{"wasm is a directory", `{"nodes": [{"name": "a", "wasm": "./testdata/node"}], ` + workload + `}`,
			`seedfall.json: nodes[0].wasm: module file ./testdata/node is a directory (resolved to $DIR/testdata/node)`},
		{"workload pkg does not exist", `{"workload": {"name": "c", "pkg": "../nope"}}`,
			`seedfall.json: workload.pkg: package directory ../nope does not exist (resolved to $PARENT/nope)`},
		{"workload missing", `{"nodes": [{"name": "a", "pkg": "./testdata/node"}]}`,
			`seedfall.json: workload: required (or workloads)`},
		{"empty world", `{}`, `seedfall.json: workload: required (or workloads)`},

		// Environment.
		{"env empty name", `{"nodes": [{"name": "a", "pkg": "./testdata/node", "env": {"": "x"}}], ` + workload + `}`,
			`seedfall.json: nodes[0].env: empty variable name`},
		{"env name with equals", `{"nodes": [{"name": "a", "pkg": "./testdata/node", "env": {"A=B": "x"}}], ` + workload + `}`,
			`seedfall.json: nodes[0].env: variable name "A=B" contains '='`},

		// Order.
		{"first error in the file wins", `{"nodes": [{"name": "a"}], "duration": "3x"}`,
			`seedfall.json: nodes[0]: needs pkg or wasm`},
		{"field errors come before the object's own checks", `{"nodes": [{"name": "a b", "args": 1}], ` + workload + `}`,
			`seedfall.json: nodes[0].args: expected an array of strings`},
	}
	dir, parent := abs(t, "."), abs(t, "..")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := strings.NewReplacer("$DIR", dir, "$PARENT", parent).Replace(tt.want)
			w, err := parse(tt.json)
			if err == nil {
				t.Fatalf("Parse succeeded with %s, want error %q", w.Canonical(), want)
			}
			if err.Error() != want {
				t.Errorf("Parse error\n got: %s\nwant: %s", err, want)
			}
		})
	}
}

func TestParseDefaults(t *testing.T) {
	w, err := Parse("seedfall.json", []byte(`{`+workload+`}`))
	if err != nil {
		t.Fatal(err)
	}
	want := &World{
		File:     "seedfall.json",
		Dir:      abs(t, "."),
		Workload: &Node{Name: "client", Pkg: abs(t, "testdata/client")},
		Duration: Duration(30e9),
		Latency:  Range{Duration(1e6), Duration(10e6)},
		Watchdog: Duration(30e9),
		Preempt:  Preempt{Strategy: "none", Depth: 3, Steps: 1048576, Calls: 4096},
		Checker:  Checker{Model: "kv"},
		Limits:   Limits{Steps: 10_000_000, TraceBytes: 64 << 20, FDs: 1024, CheckSteps: 2_000_000},
		Faults:   Faults{Kinds: faults.Defaults()},
	}
	if got := strings.Join(w.Set, " "); got != "workload workload.name workload.pkg" {
		t.Errorf("Set = %s", got)
	}
	if !reflect.DeepEqual(withoutSet(w), want) {
		t.Errorf("Parse defaults\n got: %+v\nwant: %+v", w, want)
	}
	// An empty faults object keeps the fault defaults, and sets nothing.
	w2, err := Parse("seedfall.json", []byte(`{"faults": {}, "liveness": {}, "preempt": {}, "checker": {}, "limits": {}, `+workload+`}`))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(withoutSet(w2), want) {
		t.Errorf("Parse with empty objects\n got: %+v\nwant: %+v", w2, want)
	}
	if got := strings.Join(w2.Set, " "); got != "workload workload.name workload.pkg" {
		t.Errorf("Set with empty objects = %s", got)
	}
}

// withoutSet returns w without the record of the fields it set, for comparing worlds.
func withoutSet(w *World) *World {
	c := *w
	c.Set = nil
	return &c
}

func TestParseAccepts(t *testing.T) {
	tests := []struct{ name, json string }{
		{"workload only", `{` + workload + `}`},
		{"wasm workload", `{"workload": {"name": "c", "wasm": "testdata/mod.wasm"}}`},
		{"absolute pkg", `{"workload": {"name": "c", "pkg": "` + abs(t, "testdata/client") + `"}}`},
		{"name of 63 characters", `{"workload": {"name": "` + strings.Repeat("a", 63) + `", "pkg": "./testdata/client"}}`},
		{"name with dash and underscore", `{"workload": {"name": "a-B_9", "pkg": "./testdata/client"}}`},
		{"zero-width range", `{` + workload + `, "latency": ["0s", "0s"]}`},
		{"empty arrays and objects", `{"nodes": [], ` + workload + `, "faults": {}}`},
		{"env value with equals", `{"workload": {"name": "c", "pkg": "./testdata/client", "env": {"A": "b=c", "E": ""}}}`},
		{"workloads only", `{"workloads": [{"name": "w1", "pkg": "./testdata/client"}, {"name": "w2", "pkg": "./testdata/client"}]}`},
		{"workload and workloads", `{` + workload + `, "workloads": [{"name": "w2", "pkg": "./testdata/client", "faults": true}]}`},
		{"finally with faults false", `{` + workload + `, "finally": {"name": "check", "pkg": "./testdata/client", "faults": false}}`},
		{"link with only from", `{"nodes": [{"name": "n1", "pkg": "./testdata/node"}], ` + workload + `, "links": [{"from": "n1", "latency": ["20ms", "80ms"]}]}`},
		{"link to the workload", `{` + workload + `, "links": [{"to": "client", "latency": ["0s", "0s"]}]}`},
		{"link to the finally check", `{` + workload + `, "finally": {"name": "f", "pkg": "./testdata/client"}, "links": [{"from": "client", "to": "f", "latency": ["1ms", "2ms"]}]}`},
		{"probabilities at the bounds", `{` + workload + `, "faults": {"udp_loss": 0, "udp_dup": 1}}`},
		{"slow factor of 1", `{` + workload + `, "faults": {"slow_factor": 1}}`},
		{"majority with 3 nodes counting the workload", `{"nodes": [{"name": "a", "pkg": "./testdata/node"}, {"name": "b", "pkg": "./testdata/node"}], ` + workload + `, "faults": {"partition_topologies": ["majority"]}}`},
		{"majorities_ring with 4 nodes counting workloads", `{"nodes": [{"name": "a", "pkg": "./testdata/node"}, {"name": "b", "pkg": "./testdata/node"}], ` + workload + `, "workloads": [{"name": "w", "pkg": "./testdata/client"}], "faults": {"partition_topologies": ["majorities_ring"]}}`},
		{"fs_model with reorder_writes", `{` + workload + `, "faults": {"reorder_writes": true, "fs_model": "page_independent"}}`},
		{"dir_reorder with strict_dirs", `{` + workload + `, "faults": {"reorder_writes": true, "strict_dirs": true, "fs_model": "dir_reorder"}}`},
		{"mmap_early_writeback with compat_overlay", `{` + workload + `, "compat_overlay": true, "faults": {"mmap_early_writeback": 0.5}}`},
		{"interleave with strategy none", `{` + workload + `, "preempt": {"interleave": true, "strategy": "none"}}`},
		{"preempt calls at the limit", `{` + workload + `, "preempt": {"strategy": "calls", "calls": 4194304}}`},
		{"every checker model", `{` + workload + `, "checker": {"model": "list-append"}}`},
		{"files with absolute disk path", `{"workload": {"name": "c", "pkg": "./testdata/client", "files": {"/etc/seed": "testdata/mod.wasm"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := parse(tt.json); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// goodCanonical is the canonical form of testdata/good.json, with $DIR for the testdata directory.
const goodCanonical = `{"nodes":[` +
	`{"name":"n1","pkg":"$DIR/node","args":["-id","n1"],"env":{"ALPHA":"a=b","ZETA":"z"}},` +
	`{"name":"n2","pkg":"$DIR/node","args":["-id","n2"]},` +
	`{"name":"prebuilt","wasm":"$DIR/mod.wasm"}],` +
	`"workload":{"name":"client","pkg":"$DIR/client"},` +
	`"duration":"1m0s","latency":["1ms","5ms"],"watchdog":"30s","supervise":true,` +
	`"liveness":{"within":"0s"},"faults_after_setup":false,"net_overlay":false,"compat_overlay":false,` +
	`"preempt":{"strategy":"none","interleave":false,"depth":3,"steps":1048576,"calls":4096,"loops":false},` +
	`"checker":{"model":"kv"},"limits":{"steps":10000000,"trace_bytes":67108864,"fds":1024,"check_steps":2000000},` +
	`"faults":{"torn_writes":false,"reorder_writes":false,"disk_bytes":0,"corrupt_on_crash":false,"disk_latency":["0s","0s"],` +
	`"strict_dirs":false,"clock_skew":"0s","include_workload":false,"swarm":false,` +
	`"crash_per_sec":0.5,"restart_after":["10ms","1s"],"clock_jump_per_sec":0,"clock_jump_max":"10s","buggify":false,` +
	`"crash_on_io":0,"fsync_eio":0,"write_eio":0,"write_enospc":0,"read_eio":0,"read_corrupt":0,"lost_write":0,` +
	`"misdirected_write":0,"bitrot_per_sec":0,"partition_per_sec":0,"partition_for":["50ms","2s"],"partition_topologies":["half"],` +
	`"clog_per_sec":0,"clog_for":["100ms","2s"],"clog_modes":["stop","slow","jam"],"clog_delay":["10ms","200ms"],` +
	`"swizzle_per_sec":0,"reset_per_sec":0,"slow_per_sec":0,"slow_for":["500ms","5s"],"slow_factor":10,` +
	`"pause_per_sec":0,"pause_for":["100ms","3s"],"udp_loss":0,"udp_dup":0,"mmap_early_writeback":0,"short_read":0,"short_write":0}}`

func TestCanonicalRoundTrip(t *testing.T) {
	w, err := Load("testdata/good.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := abs(t, "testdata")
	if w.File != "testdata/good.json" || w.Dir != dir {
		t.Errorf("File, Dir = %q, %q, want testdata/good.json, %s", w.File, w.Dir, dir)
	}
	got := w.Canonical()
	if want := strings.ReplaceAll(goodCanonical, "$DIR", dir); string(got) != want {
		t.Errorf("Canonical\n got: %s\nwant: %s", got, want)
	}
	for _, file := range []string{"testdata/good.json", "testdata/full.json"} {
		t.Run(file, func(t *testing.T) {
			w, err := LoadWith(file, all)
			if err != nil {
				t.Fatal(err)
			}
			got := w.Canonical()
			// Parsed again from anywhere, the canonical form gives the same world and the same bytes.
			w2, err := ParseWith(filepath.Join(t.TempDir(), "seedfall.json"), got, all)
			if err != nil {
				t.Fatal(err)
			}
			if again := w2.Canonical(); !bytes.Equal(again, got) {
				t.Errorf("Canonical is not stable\nfirst: %s\nagain: %s", got, again)
			}
			w2.File, w2.Dir = w.File, w.Dir
			if !reflect.DeepEqual(withoutSet(w), withoutSet(w2)) {
				t.Errorf("round trip changed the world\nbefore: %+v\n after: %+v", w, w2)
			}
		})
	}
}

func TestAllNodes(t *testing.T) {
	w, err := Load("testdata/good.json")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range w.AllNodes() {
		names = append(names, n.Name)
	}
	if got, want := strings.Join(names, ","), "n1,n2,prebuilt,client"; got != want {
		t.Errorf("AllNodes names = %s, want %s", got, want)
	}
	if w.AllNodes()[0] != &w.Nodes[0] || w.AllNodes()[3] != w.Workload {
		t.Errorf("AllNodes does not point into the world")
	}

	w, err = LoadWith("testdata/full.json", all)
	if err != nil {
		t.Fatal(err)
	}
	names = nil
	for _, n := range w.AllNodes() {
		names = append(names, n.Name)
	}
	if got, want := strings.Join(names, ","), "n1,n2,n3,client,reader,writer,check"; got != want {
		t.Errorf("AllNodes names = %s, want %s", got, want)
	}
	ws := w.Workloads()
	if len(ws) != 3 || ws[0] != w.Workload || ws[1] != &w.MoreWorkloads[0] || ws[2] != &w.MoreWorkloads[1] {
		t.Errorf("Workloads = %v, want the workload, then reader and writer", ws)
	}
	if all := w.AllNodes(); all[len(all)-1] != w.Finally {
		t.Errorf("AllNodes does not end with the finally check")
	}
	// Without workload, Workloads starts with the workloads field.
	w, err = parse(`{"workloads": [{"name": "w1", "pkg": "./testdata/client"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if ws := w.Workloads(); len(ws) != 1 || ws[0] != &w.MoreWorkloads[0] || w.AllNodes()[0] != ws[0] {
		t.Errorf("Workloads without workload = %v", ws)
	}
}

func TestFaultsFor(t *testing.T) {
	tests := []struct {
		name, json  string
		node        string
		nodeF, netF bool
	}{
		{"node", `{"nodes": [{"name": "n", "pkg": "./testdata/node"}], ` + workload + `}`, "n", true, true},
		{"node with faults true", `{"nodes": [{"name": "n", "pkg": "./testdata/node", "faults": true}], ` + workload + `}`, "n", true, true},
		{"node with faults false", `{"nodes": [{"name": "n", "pkg": "./testdata/node", "faults": false}], ` + workload + `}`, "n", false, false},
		{"workload", `{` + workload + `}`, "client", false, true},
		{"workload with include_workload", `{` + workload + `, "faults": {"include_workload": true}}`, "client", true, true},
		{"workload with faults true", `{"workload": {"name": "client", "pkg": "./testdata/client", "faults": true}}`, "client", true, true},
		{"workload with faults false", `{"workload": {"name": "client", "pkg": "./testdata/client", "faults": false}, "faults": {"include_workload": true}}`, "client", false, false},
		{"one of several workloads", `{` + workload + `, "workloads": [{"name": "w", "pkg": "./testdata/client", "faults": true}]}`, "w", true, true},
		{"its sibling", `{` + workload + `, "workloads": [{"name": "w", "pkg": "./testdata/client", "faults": true}]}`, "client", false, true},
		{"finally", `{` + workload + `, "finally": {"name": "f", "pkg": "./testdata/client"}, "faults": {"include_workload": true}}`, "f", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := parse(tt.json)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range w.AllNodes() {
				if n.Name != tt.node {
					continue
				}
				if nodeF, netF := w.FaultsFor(n); nodeF != tt.nodeF || netF != tt.netF {
					t.Errorf("FaultsFor(%s) = %v, %v, want %v, %v", n.Name, nodeF, netF, tt.nodeF, tt.netF)
				}
				return
			}
			t.Fatalf("no node %s", tt.node)
		})
	}
}

func TestLoadErrors(t *testing.T) {
	_, err := Load("testdata/missing.json")
	abs, _ := filepath.Abs("testdata")
	// The folder it looked in and the flag that names another file (issue 29).
	if want := "testdata/missing.json: no such file or directory (looked in " + abs + "; -c FILE names the world file)"; err == nil || err.Error() != want {
		t.Errorf("Load missing file: got %v, want %s", err, want)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load missing file: %v is not fs.ErrNotExist", err)
	}
	_, err = Load("testdata")
	if want := "testdata: is a directory"; err == nil || err.Error() != want {
		t.Errorf("Load directory: got %v, want %s", err, want)
	}
	big := filepath.Join(t.TempDir(), "big.json")
	data := append([]byte(`{`+workload+`}`), bytes.Repeat([]byte{' '}, maxFileBytes)...)
	if err := os.WriteFile(big, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(big)
	if want := big + ": file is larger than the limit of 16777216 bytes"; err == nil || err.Error() != want {
		t.Errorf("Load big file: got %v, want %s", err, want)
	}
}

func TestDurationJSON(t *testing.T) {
	var d Duration
	if err := json.Unmarshal([]byte(`"1m30s"`), &d); err != nil || d != Duration(90e9) {
		t.Errorf("Unmarshal 1m30s = %v, %v", d, err)
	}
	if b, _ := json.Marshal(Duration(250e6)); string(b) != `"250ms"` {
		t.Errorf("Marshal 250ms = %s", b)
	}
	if err := json.Unmarshal([]byte(`"3x"`), &d); err == nil || err.Error() != `invalid duration "3x"` {
		t.Errorf("Unmarshal 3x: %v", err)
	}
	if err := json.Unmarshal([]byte(`5`), &d); err == nil || err.Error() != `expected a duration string like "250ms"` {
		t.Errorf("Unmarshal 5: %v", err)
	}
	var r Range
	if err := json.Unmarshal([]byte(`["1ms", "1s"]`), &r); err != nil || r != (Range{1e6, 1e9}) {
		t.Errorf("Unmarshal range = %v, %v", r, err)
	}
	if b, _ := json.Marshal(Range{0, 1e9}); string(b) != `["0s","1s"]` {
		t.Errorf("Marshal range = %s", b)
	}
	if err := json.Unmarshal([]byte(`["1s", "1ms"]`), &r); err == nil || err.Error() != "range is reversed: 1s > 1ms" {
		t.Errorf("Unmarshal reversed range: %v", err)
	}
	if err := json.Unmarshal([]byte(`["1s"]`), &r); err == nil || err.Error() != rangeShape {
		t.Errorf("Unmarshal short range: %v", err)
	}
}

// kinds has a field of each kind the decoder supports, for fields that later versions will add.
type kinds struct {
	I  int64             `json:"i"`
	U  uint32            `json:"u"`
	F  float64           `json:"f"`
	B  bool              `json:"b"`
	Ds []Duration        `json:"ds"`
	Rs []Range           `json:"rs"`
	M  map[string]bool   `json:"m"`
	P  *Faults           `json:"p"`
	S  []map[string]bool `json:"s"`
}

func TestDecodeKinds(t *testing.T) {
	decode := func(s string) (*kinds, error) {
		var k kinds
		tree, err := parseTree([]byte(s), &source{name: "k.json"}, "")
		if err != nil {
			return nil, err
		}
		d := newDecoder(tree.src, nil)
		return &k, d.decodeValue("", tree, reflect.ValueOf(&k).Elem())
	}
	k, err := decode(`{"i": -3, "u": 7, "f": 0.25, "b": true, "ds": ["1s"], "rs": [["0s", "1s"]], "m": {"x": false},
		"p": {"crash_per_sec": 2, "slow_factor": 1, "partition_topologies": ["half"], "clog_modes": ["jam"]}, "s": [{"y": true}]}`)
	if err != nil {
		t.Fatal(err)
	}
	want := &kinds{I: -3, U: 7, F: 0.25, B: true, Ds: []Duration{1e9}, Rs: []Range{{0, 1e9}},
		M: map[string]bool{"x": false}, P: &Faults{Kinds: faults.Values{"crash_per_sec": 2.0, "slow_factor": 1.0, "partition_topologies": []string{"half"}, "clog_modes": []string{"jam"}}},
		S: []map[string]bool{{"y": true}}}
	if !reflect.DeepEqual(k, want) {
		t.Errorf("decode\n got: %+v\nwant: %+v", k, want)
	}
	tests := []struct{ json, want string }{
		{`{"i": 1.5}`, "k.json: i: expected an integer"},
		{`{"i": "1"}`, "k.json: i: expected an integer"},
		{`{"i": 99999999999999999999}`, "k.json: i: number 99999999999999999999 is out of range"},
		{`{"u": -1}`, "k.json: u: expected an integer of 0 or more"},
		{`{"u": 5000000000}`, "k.json: u: number 5000000000 is out of range"},
		{`{"b": 1}`, "k.json: b: expected true or false"},
		{`{"ds": "1s"}`, "k.json: ds: expected an array of durations"},
		{`{"ds": ["1s", 2]}`, `k.json: ds[1]: expected a duration string like "250ms"`},
		{`{"rs": [["2s", "1s"]]}`, "k.json: rs[0]: range is reversed: 2s > 1s"},
		{`{"m": {"x": "yes"}}`, "k.json: m.x: expected true or false"},
		{`{"m": {"a.b": 1}}`, `k.json: m["a.b"]: expected true or false`},
		{`{"p": null}`, "k.json: p: expected an object"},
		{`{"p": {"crash_per_sec": -2}}`, "k.json: p.crash_per_sec: must not be negative, got -2"},
		{`{"p": {"slow_factor": 0.5, "partition_topologies": ["half"], "clog_modes": ["jam"]}}`, "k.json: p.slow_factor: must be at least 1, got 0.5"},
		{`{"s": [{}, 1]}`, "k.json: s[1]: expected an object of booleans"},
	}
	for _, tt := range tests {
		if _, err := decode(tt.json); err == nil || err.Error() != tt.want {
			t.Errorf("decode %s: got %v, want %s", tt.json, err, tt.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"pkg", "pkg", 0}, {"pgk", "pkg", 1}, {"pk", "pkg", 1}, {"pkgg", "pkg", 1}, {"wsam", "wasm", 1},
		{"", "env", 3}, {"duraton", "duration", 1}, {"abc", "cab", 2}, {"é", "e", 1},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b, 100); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	// With a limit, a distance over it is limit+1, whether the lengths or
	// the rows show it.
	for _, tt := range []struct {
		a, b        string
		limit, want int
	}{
		{"pkg", "pkg", 2, 0}, {"pgk", "pkg", 2, 1}, {"abcdef", "pkg", 2, 3}, {"xxxx", "pkgs", 2, 3},
		{strings.Repeat("a", 5<<20), "pkg", 2, 3}, {"duraton", "duration", 0, 1},
	} {
		if got := editDistance(tt.a, tt.b, tt.limit); got != tt.want {
			t.Errorf("editDistance(%.10q, %q, %d) = %d, want %d", tt.a, tt.b, tt.limit, got, tt.want)
		}
	}
}
