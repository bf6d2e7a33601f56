package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// inTempDir changes to a new directory holding the given files (a name ending in / is a directory) and
// returns the directory's absolute path.
func inTempDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	for name, text := range files {
		p := filepath.Join(dir, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// layered is the set of files the extends and profile tests load.
var layered = map[string]string{
	"node/":          "",
	"client/":        "",
	"base/node/":     "",
	"base/client2/":  "",
	"base/seed.txt":  "seed",
	"other/client3/": "",
	"base/base.json": `{
		"nodes": [{"name": "n1", "pkg": "node", "files": {"seed": "seed.txt"}}, {"name": "n2", "pkg": "node"}],
		"workload": {"name": "client", "pkg": "client2", "env": {"A": "1", "B": "2"}},
		"duration": "10s",
		"faults": {"crash_per_sec": 0.5, "restart_after": ["1ms", "2ms"]},
		"profiles": {"quick": {"duration": "1s"}}
	}`,
	"child.json": `{
		"extends": "base/base.json",
		"workload": {"env": {"B": "3"}, "args": ["-x"]},
		"faults": {"restart_after": ["5ms", "6ms"]},
		"latency": ["2ms", "3ms"],
		"profiles": {
			"ci": {"duration": "20s", "faults": {"crash_per_sec": 2}, "nodes": [{"name": "solo", "pkg": "node"}]},
			"calm": {"faults": "none"}
		}
	}`,
	"grandchild.json":  `{"extends": "./child.json", "duration": "5s"}`,
	"other/moved.json": `{"extends": "../base/base.json", "workload": {"pkg": "client3"}}`,
	"a.json":           `{"extends": "b.json"}`,
	"b.json":           `{"extends": "a.json"}`,
	"self.json":        `{"extends": "self.json"}`,
	"badbase.json":     `{"extends": "base/bad.json", "workload": {"name": "c", "pkg": "client"}}`,
	"base/bad.json":    `{"duration": "3x"}`,
	"unknownbase.json": `{"extends": "base/unknown.json", "workload": {"name": "c", "pkg": "client"}}`,
	"base/unknown.json": `{
		"faults": {"crash_per_sex": 1}}`,
	"syntaxbase.json":  `{"extends": "base/syntax.json"}`,
	"base/syntax.json": "{\n  \"duration\": \"1s\",\n}",
	"missing.json":     `{"extends": "nope.json"}`,
	"dirbase.json":     `{"extends": "base"}`,
	"extnum.json":      `{"extends": 7}`,
	"extempty.json":    `{"extends": ""}`,
	"preset.json":      `{"workload": {"name": "c", "pkg": "client"}, "faults": "durability"}`,
	"overpreset.json":  `{"extends": "preset.json", "faults": {"crash_per_sec": 1}}`,
	"replpreset.json":  `{"extends": "preset.json", "faults": "none"}`,
}

func TestExtends(t *testing.T) {
	dir := inTempDir(t, layered)
	w, err := LoadWith("child.json", all)
	if err != nil {
		t.Fatal(err)
	}
	// Scalars and arrays replace, objects merge recursively, env included.
	if w.Duration != Duration(10e9) || w.Latency != (Range{2e6, 3e6}) {
		t.Errorf("duration, latency = %s, %v", w.Duration, w.Latency)
	}
	if w.Faults.Kinds.Float("crash_per_sec") != 0.5 || w.Faults.Kinds.Range("restart_after") != [2]int64{5e6, 6e6} {
		t.Errorf("faults = %v, %v, want 0.5 from the base and [5ms 6ms] from the child", w.Faults.Kinds.Float("crash_per_sec"), w.Faults.Kinds.Range("restart_after"))
	}
	if wl := w.Workload; wl.Name != "client" || !reflect.DeepEqual(wl.Env, map[string]string{"A": "1", "B": "3"}) ||
		!reflect.DeepEqual(wl.Args, []string{"-x"}) {
		t.Errorf("workload = %+v", wl)
	}
	// Relative paths are relative to the file that wrote them.
	if w.Nodes[0].Pkg != filepath.Join(dir, "base/node") || w.Workload.Pkg != filepath.Join(dir, "base/client2") ||
		w.Nodes[0].Files["seed"] != filepath.Join(dir, "base/seed.txt") {
		t.Errorf("paths = %s, %s, %v", w.Nodes[0].Pkg, w.Workload.Pkg, w.Nodes[0].Files)
	}
	if want := []string{filepath.Join(dir, "base/base.json")}; !reflect.DeepEqual(w.Extends, want) {
		t.Errorf("Extends = %v, want %v", w.Extends, want)
	}
	if w.File != "child.json" || w.Dir != dir {
		t.Errorf("File, Dir = %s, %s", w.File, w.Dir)
	}
	// A chain of two, nearest first.
	w, err = LoadWith("grandchild.json", all)
	if err != nil {
		t.Fatal(err)
	}
	if w.Duration != Duration(5e9) || w.Latency != (Range{2e6, 3e6}) || w.Faults.Kinds.Float("crash_per_sec") != 0.5 {
		t.Errorf("grandchild = %s %v %v", w.Duration, w.Latency, w.Faults.Kinds.Float("crash_per_sec"))
	}
	if want := []string{filepath.Join(dir, "child.json"), filepath.Join(dir, "base/base.json")}; !reflect.DeepEqual(w.Extends, want) {
		t.Errorf("Extends = %v, want %v", w.Extends, want)
	}
	// A base reached from another directory.
	w, err = LoadWith("other/moved.json", all)
	if err != nil {
		t.Fatal(err)
	}
	if w.Workload.Pkg != filepath.Join(dir, "other/client3") || w.Nodes[1].Pkg != filepath.Join(dir, "base/node") {
		t.Errorf("paths = %s, %s", w.Workload.Pkg, w.Nodes[1].Pkg)
	}
	// A preset written as shorthand in the base merges with a faults object over it, and is replaced by
	// a shorthand over it.
	w, err = LoadWith("overpreset.json", all)
	if err != nil {
		t.Fatal(err)
	}
	if f := w.Faults; f.Preset != "durability" || !f.TornWrites || f.Kinds.Float("crash_per_sec") != 1 {
		t.Errorf("faults over a preset = %+v", f)
	}
	w, err = LoadWith("replpreset.json", all)
	if err != nil {
		t.Fatal(err)
	}
	if f := w.Faults; f.Preset != "none" || f.TornWrites || f.Kinds.Float("crash_per_sec") != 0 {
		t.Errorf("preset over a preset = %+v", f)
	}
}

func TestExtendsErrors(t *testing.T) {
	dir := inTempDir(t, layered)
	tests := []struct{ file, want string }{
		{"a.json", "b.json: extends: cycle: a.json -> b.json -> a.json"},
		{"self.json", "self.json: extends: cycle: self.json -> self.json"},
		{"badbase.json", `base/bad.json: duration: invalid duration "3x"`},
		{"unknownbase.json", `base/unknown.json: faults.crash_per_sex: unknown field (did you mean "crash_per_sec"?)`},
		{"syntaxbase.json", `base/syntax.json:3:1: invalid character '}' looking for beginning of object key string`},
		{"missing.json", "missing.json: extends: world file nope.json does not exist (resolved to $DIR/nope.json)"},
		{"dirbase.json", "dirbase.json: extends: world file base: is a directory"},
		{"extnum.json", "extnum.json: extends: expected a string"},
		{"extempty.json", "extempty.json: extends: must name a world file"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := LoadWith(tt.file, all)
			if want := strings.ReplaceAll(tt.want, "$DIR", dir); err == nil || err.Error() != want {
				t.Errorf("\n got: %v\nwant: %s", err, want)
			}
		})
	}
}

func TestExtendsDepth(t *testing.T) {
	files := map[string]string{"client/": "", "w0.json": `{"workload": {"name": "c", "pkg": "client"}}`}
	for i := 1; i <= maxExtendsDepth+1; i++ {
		files["w"+strconv.Itoa(i)+".json"] = `{"extends": "w` + strconv.Itoa(i-1) + `.json"}`
	}
	inTempDir(t, files)
	if _, err := LoadWith("w"+strconv.Itoa(maxExtendsDepth)+".json", all); err != nil {
		t.Errorf("a chain of %d extends: %v", maxExtendsDepth, err)
	}
	_, err := LoadWith("w"+strconv.Itoa(maxExtendsDepth+1)+".json", all)
	if want := "w1.json: extends: more than 16 extends in a row"; err == nil || err.Error() != want {
		t.Errorf("\n got: %v\nwant: %s", err, want)
	}
}

func TestProfiles(t *testing.T) {
	dir := inTempDir(t, layered)
	w, err := LoadWith("child.json", LoadOptions{Profile: "ci"})
	if err != nil {
		t.Fatal(err)
	}
	if w.Profile != "ci" || w.Duration != Duration(20e9) || w.Faults.Kinds.Float("crash_per_sec") != 2 ||
		w.Faults.Kinds.Range("restart_after") != [2]int64{5e6, 6e6} || len(w.Nodes) != 1 || w.Nodes[0].Pkg != filepath.Join(dir, "node") {
		t.Errorf("profile ci: %s", w.Canonical())
	}
	// A profile defined in the base.
	w, err = LoadWith("child.json", LoadOptions{Profile: "quick"})
	if err != nil {
		t.Fatal(err)
	}
	if w.Duration != Duration(1e9) || w.Faults.Kinds.Float("crash_per_sec") != 0.5 {
		t.Errorf("profile quick: %s", w.Canonical())
	}
	// A preset shorthand in a profile replaces the file's faults.
	w, err = LoadWith("child.json", LoadOptions{Profile: "calm"})
	if err != nil {
		t.Fatal(err)
	}
	if f := w.Faults; f.Preset != "none" || f.Kinds.Float("crash_per_sec") != 0 || f.Kinds.Range("restart_after") != [2]int64{10e6, 1e9} {
		t.Errorf("profile calm: %+v", f)
	}
	// Without -profile, no profile applies.
	w, err = LoadWith("child.json", all)
	if err != nil {
		t.Fatal(err)
	}
	if w.Profile != "" || w.Duration != Duration(10e9) {
		t.Errorf("no profile: %s", w.Canonical())
	}
}

func TestProfileErrors(t *testing.T) {
	inTempDir(t, layered)
	tests := []struct {
		name, file, json, profile, want string
	}{
		{"unknown profile", "child.json", "", "nightyl", "child.json: -profile nightyl: unknown profile (known: quick, ci, calm)"},
		{"no profiles", "preset.json", "", "ci", "preset.json: -profile ci: unknown profile: the world defines no profiles"},
		{"error in the selected profile", "w.json", `{"workload": {"name": "c", "pkg": "client"}, "profiles": {"ci": {"duration": "1"}}}`, "ci",
			`w.json: profiles.ci.duration: invalid duration "1"`},
		{"error in a profile not selected", "w.json", `{"workload": {"name": "c", "pkg": "client"}, "profiles": {"ok": {}, "slow": {"faults": {"crash_per_sex": 1}}}}`, "ok",
			`w.json: profiles.slow.faults.crash_per_sex: unknown field (did you mean "crash_per_sec"?)`},
		{"error in a profile without -profile", "w.json", `{"workload": {"name": "c", "pkg": "client"}, "profiles": {"slow": {"workload": {"pkg": "nope"}}}}`, "",
			`w.json: profiles.slow.workload.pkg: package directory nope does not exist (resolved to $DIR/nope)`},
		{"profile merged with the base's", "w.json", `{"extends": "base/base.json", "profiles": {"quick": {"duration": "x"}}}`, "quick",
			`w.json: profiles.quick.duration: invalid duration "x"`},
		{"profiles not an object", "w.json", `{"workload": {"name": "c", "pkg": "client"}, "profiles": ["ci"]}`, "",
			`w.json: profiles: expected an object of profiles`},
		{"profile not an object", "w.json", `{"workload": {"name": "c", "pkg": "client"}, "profiles": {"ci": "fast"}}`, "",
			`w.json: profiles.ci: expected an object`},
		{"bad profile name", "w.json", `{"workload": {"name": "c", "pkg": "client"}, "profiles": {"c i": {}}}`, "",
			`w.json: profiles["c i"]: invalid profile name "c i": use 1 to 63 letters, digits, '_' and '-'`},
		{"extends in a profile", "w.json", `{"workload": {"name": "c", "pkg": "client"}, "profiles": {"ci": {"extends": "x.json"}}}`, "",
			`w.json: profiles.ci.extends: not allowed in a profile`},
		{"profiles in a profile", "w.json", `{"workload": {"name": "c", "pkg": "client"}, "profiles": {"ci": {"profiles": {}}}}`, "",
			`w.json: profiles.ci.profiles: not allowed in a profile`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.json != "" {
				_, err = ParseWith(tt.file, []byte(tt.json), LoadOptions{Profile: tt.profile})
			} else {
				_, err = LoadWith(tt.file, LoadOptions{Profile: tt.profile})
			}
			dir, _ := os.Getwd()
			if want := strings.ReplaceAll(tt.want, "$DIR", dir); err == nil || err.Error() != want {
				t.Errorf("\n got: %v\nwant: %s", err, want)
			}
		})
	}
}

func TestSet(t *testing.T) {
	dir := inTempDir(t, layered)
	load := func(t *testing.T, sets ...string) *World {
		t.Helper()
		w, err := LoadWith("child.json", LoadOptions{Set: sets})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	tests := []struct {
		name  string
		sets  []string
		check func(w *World) bool
	}{
		{"number", []string{"faults.crash_per_sec=0.25"}, func(w *World) bool { return w.Faults.Kinds.Float("crash_per_sec") == 0.25 }},
		{"integer", []string{"faults.disk_bytes=4096"}, func(w *World) bool { return w.Faults.DiskBytes == 4096 }},
		{"bool", []string{"supervise=true"}, func(w *World) bool { return w.Supervise }},
		{"string without quotes", []string{"checker.model=cas"}, func(w *World) bool { return w.Checker.Model == "cas" }},
		{"string with quotes", []string{`checker.model="queue"`}, func(w *World) bool { return w.Checker.Model == "queue" }},
		{"string that looks like a number", []string{"workload.env.PORT=8080"}, func(w *World) bool {
			return w.Workload.Env["PORT"] == "8080" && w.Workload.Env["A"] == "1"
		}},
		{"duration", []string{"duration=10m"}, func(w *World) bool { return w.Duration == Duration(600e9) }},
		{"range", []string{`latency=["5ms","6ms"]`}, func(w *World) bool { return w.Latency == Range{5e6, 6e6} }},
		{"array", []string{`nodes[0].args=["-x","1"]`}, func(w *World) bool { return reflect.DeepEqual(w.Nodes[0].Args, []string{"-x", "1"}) }},
		{"array element", []string{`workload.args[0]=-y`}, func(w *World) bool { return reflect.DeepEqual(w.Workload.Args, []string{"-y"}) }},
		{"object replaces", []string{`workload={"name":"w","pkg":"client"}`}, func(w *World) bool {
			return w.Workload.Name == "w" && w.Workload.Env == nil && w.Workload.Pkg == filepath.Join(dir, "client")
		}},
		{"missing objects are created", []string{"liveness.within=5s", "preempt.strategy=calls"}, func(w *World) bool {
			return w.Liveness.Within == Duration(5e9) && w.Preempt.Strategy == "calls"
		}},
		{"node field", []string{"nodes[1].faults=false"}, func(w *World) bool { return w.Nodes[1].Faults != nil && !*w.Nodes[1].Faults }},
		{"preset shorthand replaces the faults", []string{"faults=durability"}, func(w *World) bool {
			return w.Faults.TornWrites && w.Faults.Kinds.Float("crash_per_sec") == 0.2 && w.Faults.Kinds.Range("restart_after") == [2]int64{10e6, 1e9}
		}},
		{"preset field merges", []string{"faults.preset=durability"}, func(w *World) bool {
			return w.Faults.TornWrites && w.Faults.Kinds.Float("crash_per_sec") == 0.5
		}},
		{"later wins", []string{"duration=1s", "duration=2s"}, func(w *World) bool { return w.Duration == Duration(2e9) }},
		{"relative to the world file", []string{"workload.pkg=node"}, func(w *World) bool { return w.Workload.Pkg == filepath.Join(dir, "node") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if w := load(t, tt.sets...); !tt.check(w) {
				t.Errorf("-set %v gave %s", tt.sets, w.Canonical())
			}
		})
	}
	// -set applies after the profile.
	w, err := LoadWith("child.json", LoadOptions{Profile: "ci", Set: []string{"duration=3s"}})
	if err != nil || w.Duration != Duration(3e9) || w.Faults.Kinds.Float("crash_per_sec") != 2 {
		t.Errorf("profile then -set: %v %v", w, err)
	}
	// -set over a preset written as shorthand keeps the preset.
	w, err = LoadWith("preset.json", LoadOptions{Set: []string{"faults.crash_per_sec=3"}})
	if err != nil || !w.Faults.TornWrites || w.Faults.Kinds.Float("crash_per_sec") != 3 {
		t.Errorf("-set over a shorthand: %v %v", w, err)
	}
}

func TestSetErrors(t *testing.T) {
	inTempDir(t, layered)
	tests := []struct{ set, want string }{
		{"faults.crash_per_sek=1", `-set faults.crash_per_sek=1: unknown field (did you mean "crash_per_sec"?)`},
		{"fautls.crash_per_sec=1", `-set fautls.crash_per_sec=1: unknown field fautls (did you mean "faults"?)`},
		{"colour=red", `-set colour=red: unknown field`},
		{"nodes[0].pgk=x", `-set nodes[0].pgk=x: unknown field (did you mean "pkg"?)`},
		{"supervise=yes", `-set supervise=yes: expected true or false`},
		{"faults.crash_per_sec=fast", `-set faults.crash_per_sec=fast: expected a number`},
		{"faults.crash_per_sec=-1", `-set faults.crash_per_sec=-1: must not be negative, got -1`},
		{"faults.disk_bytes=1.5", `-set faults.disk_bytes=1.5: expected an integer`},
		{"duration=10", `-set duration=10: invalid duration "10"`},
		{"latency=1ms", `-set latency=1ms: expected a range of two durations like ["1ms", "10ms"]`},
		{`latency=["2ms","1ms"]`, `-set latency=["2ms","1ms"]: range is reversed: 2ms > 1ms`},
		{"nodes[0].args=-x", `-set nodes[0].args=-x: expected an array of strings`},
		{`nodes[0].args=["-x",1]`, `-set nodes[0].args=["-x",1]: nodes[0].args[1]: expected a string`},
		{`faults={"crash_per_sec":-1}`, `-set faults={"crash_per_sec":-1}: faults.crash_per_sec: must not be negative, got -1`},
		{`faults={"a":1,"a":2}`, `-set faults={"a":1,"a":2}: faults.a: duplicate key`},
		{"faults=hard", `-set faults=hard: unknown preset "hard" (valid: none, durability, resilient, high_availability, everything)`},
		{"nodes[5].args=[]", `-set nodes[5].args=[]: index 5 is out of range: nodes has 2 elements`},
		{"workloads[0].name=x", `-set workloads[0].name=x: index 0 is out of range: workloads has 0 elements`},
		{"nodes.args=[]", `-set nodes.args=[]: nodes is an array: give an index, like nodes[0]`},
		{"faults[0]=1", `-set faults[0]=1: faults is an object, not an array`},
		{"latency[0]=1ms", `-set latency[0]=1ms: latency has no fields or elements: set it whole`},
		{"duration.x=1", `-set duration.x=1: duration has no fields or elements: set it whole`},
		{"extends=x.json", `-set extends=x.json: extends cannot be changed with -set`},
		{"profiles.ci={}", `-set profiles.ci={}: profiles cannot be changed with -set; choose one with -profile`},
		{"duration", `-set duration: expected path=value, like faults.crash_per_sec=0.5`},
		{"=1", `-set =1: expected path=value, like faults.crash_per_sec=0.5`},
		{"a..b=1", `-set a..b=1: invalid path: expected a field name at offset 2`},
		{"nodes[x]=1", `-set nodes[x]=1: invalid path: index "x" is not a number of 0 or more`},
		{"nodes[-1]=1", `-set nodes[-1]=1: invalid path: index "-1" is not a number of 0 or more`},
		{"nodes[0=1", `-set nodes[0=1: invalid path: missing ]`},
		{"duration.=1", `-set duration.=1: invalid path: ends with a dot`},
		{"nodes[0]x=1", `-set nodes[0]x=1: invalid path: unexpected 'x' at offset 8`},
		{"workload.name=a b", `-set workload.name=a b: invalid node name "a b": use only letters, digits, '_' and '-'`},
		{"workload.pkg=nope", `-set workload.pkg=nope: package directory nope does not exist (resolved to $DIR/nope)`},
	}
	for _, tt := range tests {
		t.Run(tt.set, func(t *testing.T) {
			_, err := LoadWith("child.json", LoadOptions{Set: []string{tt.set}})
			dir, _ := os.Getwd()
			if want := strings.ReplaceAll(tt.want, "$DIR", dir); err == nil || err.Error() != want {
				t.Errorf("\n got: %v\nwant: %s", err, want)
			}
		})
	}
}

// TestSetRecordsFields checks what World.Set records, and in which order.
func TestSetRecordsFields(t *testing.T) {
	inTempDir(t, layered)
	w, err := LoadWith("child.json", LoadOptions{Profile: "ci", Set: []string{"faults.partition_per_sec=1", "nodes[0].disk=node"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "extends profiles nodes nodes[].name nodes[].pkg nodes[].disk workload workload.name workload.pkg workload.env " +
		"workload.args duration faults.crash_per_sec faults.restart_after faults.partition_per_sec latency"
	if got := strings.Join(w.Set, " "); got != want {
		t.Errorf("Set\n got: %s\nwant: %s", got, want)
	}
	w, err = LoadWith("preset.json", LoadOptions{Set: []string{"faults.torn_writes=false"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(w.Set, "faults.torn_writes") || !slices.Contains(w.Set, "faults.fsync_eio") {
		t.Errorf("Set = %v, want it to hold the preset's fields", w.Set)
	}
}

// TestLoadsEveryKindOfField checks that Load and Parse take a world that sets any field of the spec.
func TestLoadsEveryKindOfField(t *testing.T) {
	tests := []struct{ name, json, want string }{
		{"implemented fields", `{"nodes": [{"name": "a", "pkg": "./testdata/node", "args": [], "env": {"A": "1"}}], ` + W +
			`, "duration": "1s", "latency": ["1ms", "2ms"], "watchdog": "1s", "supervise": true,
			"faults": {"crash_per_sec": 1, "restart_after": ["1ms", "2ms"]}}`, ""},
		{"mmap_early_writeback", `{"compat_overlay": true, ` + W + `, "faults": {"mmap_early_writeback": 0.5}}`, ""},
		{"a node field", `{"nodes": [{"name": "a", "pkg": "./testdata/node", "disk": "./testdata"}], ` + W + `}`, ""},
		{"a workload field", `{"workload": {"name": "c", "pkg": "./testdata/client", "upgrade_to": "./testdata/client"}}`, ""},
		{"preemption", `{"preempt": {"strategy": "random", "loops": true}, ` + W + `}`, ""},
		{"links", `{"links": [{"to": "client", "latency": ["1ms", "2ms"]}], ` + W + `}`, ""},
		{"several workloads", `{` + W + `, "workloads": [{"name": "w", "pkg": "./testdata/client"}]}`, ""},
		{"liveness", `{"liveness": {"within": "10s"}, ` + W + `}`, ""},
		{"preemption and compat_overlay", `{"preempt": {"strategy": "random"}, "compat_overlay": true, ` + W + `, "faults": {"mmap_early_writeback": 0}}`, ""},
		{"compat_overlay", `{"compat_overlay": true, "net_overlay": true, ` + W + `}`, ""},
		{"preset none", `{` + W + `, "faults": "none"}`, ""},
		{"preset shorthand", `{` + W + `, "faults": "everything"}`, ""},
		{"preset field", `{` + W + `, "faults": {"preset": "durability"}}`,
			""},
		{"every preset field runs", `{` + W + `, "faults": {"preset": "high_availability"}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("seedfall.json", []byte(tt.json))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("rejected: %v", err)
			case tt.want != "" && (err == nil || err.Error() != tt.want):
				t.Errorf("\n got: %v\nwant: %s", err, tt.want)
			}
		})
	}
	// The world files of the examples stay loadable.
	for _, f := range []string{"../../examples/kvlog/seedfall.json", "../../examples/kvlog/seedfall.fixed.json"} {
		if _, err := Load(f); err != nil {
			t.Errorf("Load %s: %v", f, err)
		}
	}
}
