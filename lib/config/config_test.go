package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// workload is a valid workload, for tests that are about something else. Parse runs with the file name
// seedfall.json, so paths are relative to this package's directory.
const workload = `"workload": {"name": "client", "pkg": "./testdata/client"}`

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
			`seedfall.json: duration: duplicate field`},

		// Fields the spec defines but this version does not implement.
		{"faults preset shorthand", `{` + workload + `, "faults": "resilient"}`,
			`seedfall.json: faults: preset "resilient" is not supported yet by this version of sf`},
		{"fault not supported yet", `{` + workload + `, "faults": {"partition_per_sec": 0.2}}`,
			`seedfall.json: faults.partition_per_sec: not supported yet by this version of sf`},
		{"node field not supported yet", `{"nodes": [{"name": "a", "pkg": "./testdata/node", "faults": false}], ` + workload + `}`,
			`seedfall.json: nodes[0].faults: not supported yet by this version of sf`},
		{"top-level field not supported yet", `{"liveness": {"within": "10s"}, ` + workload + `}`,
			`seedfall.json: liveness: not supported yet by this version of sf`},

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
		{"env duplicate key", `{"nodes": [{"name": "a", "pkg": "./testdata/node", "env": {"A": "1", "A": "2"}}], ` + workload + `}`,
			`seedfall.json: nodes[0].env.A: duplicate key`},
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
			`seedfall.json: workload: required`},
		{"empty world", `{}`, `seedfall.json: workload: required`},

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
			w, err := Parse("seedfall.json", []byte(tt.json))
			if err == nil {
				t.Fatalf("Parse succeeded with %s, want error %q", w.Canonical(), want)
			}
			if err.Error() != want {
				t.Errorf("Parse error\n got: %s\nwant: %s", err, want)
			}
		})
	}
}

// TestNotSupported sets every field of the table of fields that are not supported yet, where it belongs.
func TestNotSupported(t *testing.T) {
	wrap := map[reflect.Type]func(field string) (json, path string){
		reflect.TypeFor[World](): func(f string) (string, string) {
			return fmt.Sprintf(`{%q: 1, %s}`, f, workload), f
		},
		reflect.TypeFor[Node](): func(f string) (string, string) {
			return fmt.Sprintf(`{"nodes": [{"name": "a", "pkg": "./testdata/node", %q: 1}], %s}`, f, workload), "nodes[0]." + f
		},
		reflect.TypeFor[Faults](): func(f string) (string, string) {
			return fmt.Sprintf(`{%s, "faults": {%q: 1}}`, workload, f), "faults." + f
		},
	}
	n := 0
	for typ, fields := range notSupported {
		for _, f := range fields {
			n++
			data, path := wrap[typ](f)
			_, err := Parse("seedfall.json", []byte(data))
			want := "seedfall.json: " + path + ": not supported yet by this version of sf"
			if err == nil || err.Error() != want {
				t.Errorf("%s: got %v, want %s", f, err, want)
			}
		}
	}
	if n != 11+4+40 {
		t.Errorf("%d fields not supported yet, want 55 as in the spec", n)
	}
	// A field on a node also fails on the workload.
	_, err := Parse("seedfall.json", []byte(`{"workload": {"name": "c", "pkg": "./testdata/client", "upgrade_to": "./v2"}}`))
	if want := "seedfall.json: workload.upgrade_to: not supported yet by this version of sf"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// TestNotSupportedDisjoint checks that a field moved into a struct was also taken out of the table.
func TestNotSupportedDisjoint(t *testing.T) {
	for typ, fields := range notSupported {
		seen := map[string]bool{}
		for _, f := range jsonFields(typ) {
			seen[f.name] = true
		}
		for _, f := range fields {
			if seen[f] {
				t.Errorf("%s.%s is both a field and not supported yet", typ.Name(), f)
			}
			seen[f] = true
		}
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
		Faults:   Faults{RestartAfter: Range{Duration(10e6), Duration(1e9)}},
	}
	if !reflect.DeepEqual(w, want) {
		t.Errorf("Parse defaults\n got: %+v\nwant: %+v", w, want)
	}
	// An empty faults object keeps the fault defaults.
	w2, err := Parse("seedfall.json", []byte(`{"faults": {}, `+workload+`}`))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(w2, want) {
		t.Errorf("Parse with empty faults\n got: %+v\nwant: %+v", w2, want)
	}
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Parse("seedfall.json", []byte(tt.json)); err != nil {
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
	`"faults":{"crash_per_sec":0.5,"restart_after":["10ms","1s"]}}`

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
	// Parsed again from anywhere, the canonical form gives the same world and the same bytes.
	w2, err := Parse(filepath.Join(t.TempDir(), "seedfall.json"), got)
	if err != nil {
		t.Fatal(err)
	}
	if again := w2.Canonical(); !bytes.Equal(again, got) {
		t.Errorf("Canonical is not stable\nfirst: %s\nagain: %s", got, again)
	}
	w2.File, w2.Dir = w.File, w.Dir
	if !reflect.DeepEqual(w, w2) {
		t.Errorf("round trip changed the world\nbefore: %+v\n after: %+v", w, w2)
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
}

func TestLoadErrors(t *testing.T) {
	_, err := Load("testdata/missing.json")
	if want := "testdata/missing.json: no such file or directory"; err == nil || err.Error() != want {
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
	d := &decoder{file: "k.json"}
	decode := func(s string) (*kinds, error) {
		var k kinds
		return &k, d.decodeValue("", []byte(s), reflect.ValueOf(&k).Elem())
	}
	k, err := decode(`{"i": -3, "u": 7, "f": 0.25, "b": true, "ds": ["1s"], "rs": [["0s", "1s"]], "m": {"x": false},
		"p": {"crash_per_sec": 2}, "s": [{"y": true}]}`)
	if err != nil {
		t.Fatal(err)
	}
	want := &kinds{I: -3, U: 7, F: 0.25, B: true, Ds: []Duration{1e9}, Rs: []Range{{0, 1e9}},
		M: map[string]bool{"x": false}, P: &Faults{CrashPerSec: 2}, S: []map[string]bool{{"y": true}}}
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
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
