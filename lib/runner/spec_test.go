package runner

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/faults"
)

// elsewhere are the world-file fields that change runs somewhere other
// than the engine's spec, each with where. Any other field must change the
// spec: a field that reaches nothing is a setting users write in vain.
var elsewhere = map[string]string{
	"nodes": "node specs (Prepare)", "workload": "node specs", "workloads": "node specs", "finally": "node specs",
	"compat_overlay":          "refused by config: not supported",
	"faults.preset":           "expanded into the other fields by config",
	"faults.include_workload": "per-node fault flags (World.FaultsFor in Prepare)",
	"links":                   "checked below with a link of its own",
	"fork":                    "the runner's fork at the end of the setup (setup.go, TestSetupFork)",
}

// TestEveryWorldFieldReachesTheEngine changes each field of the world file
// in turn and checks that the engine's spec changes with it.
func TestEveryWorldFieldReachesTheEngine(t *testing.T) {
	var base config.World
	base.Checker.Model = "kv"
	want := func(w config.World) any {
		s, err := EngineSpec(&w)
		if err != nil {
			t.Fatal(err)
		}
		return *s
	}
	baseSpec := want(base)
	seen := 0
	var visit func(prefix string, v reflect.Value)
	visit = func(prefix string, v reflect.Value) {
		for i := range v.NumField() {
			f := v.Type().Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if tag == "" || tag == "-" {
				continue
			}
			path := prefix + tag
			if _, ok := elsewhere[path]; ok {
				continue
			}
			if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeOf(config.Range{}) {
				visit(path+".", v.Field(i))
				continue
			}
			w := base
			cmp := baseSpec
			if strings.HasPrefix(path, "preempt.") {
				// Preemption is on only in a world that sets a preempt
				// field, so the field must change a spec that has it on.
				w.Set = []string{path}
				cmp = want(w)
			}
			fv := reflect.ValueOf(&w).Elem().FieldByIndex(fieldPath(t, &base, path))
			if !change(fv, path) {
				t.Errorf("%s: the test cannot change a field of type %s", path, f.Type)
				continue
			}
			seen++
			if reflect.DeepEqual(want(w), cmp) {
				t.Errorf("world field %s reaches no engine behaviour: EngineSpec ignores it", path)
			}
		}
	}
	visit("", reflect.ValueOf(base))
	// The fault kinds' fields are no fields of the struct: each is changed
	// in the world's Kinds.
	base.Faults.Kinds = faults.Defaults()
	baseSpec = want(base)
	for _, fd := range faults.Fields() {
		w := base
		w.Faults.Kinds = base.Faults.Kinds.Clone()
		switch fd.Type {
		case faults.Rate, faults.Prob, faults.Factor:
			w.Faults.Kinds[fd.Name] = w.Faults.Kinds.Float(fd.Name) + 0.25
		case faults.Duration:
			w.Faults.Kinds[fd.Name] = w.Faults.Kinds.Duration(fd.Name) + 1_000_000
		case faults.Range:
			w.Faults.Kinds[fd.Name] = [2]int64{3_000_000, 7_000_000}
		case faults.Choices:
			w.Faults.Kinds[fd.Name] = fd.Choices[len(fd.Choices)-1:]
		case faults.Switch:
			w.Faults.Kinds[fd.Name] = !w.Faults.Kinds.Bool(fd.Name)
		}
		seen++
		if reflect.DeepEqual(want(w), baseSpec) {
			t.Errorf("world field faults.%s reaches no engine behaviour: EngineSpec ignores it", fd.Name)
		}
	}
	if seen < 40 {
		t.Fatalf("only %d fields checked: the walk over the world's fields is broken", seen)
	}
	w := base
	w.Links = []config.Link{{From: "a", To: "b", Latency: config.Range{1, 2}}}
	if reflect.DeepEqual(want(w), baseSpec) {
		t.Error("links reach no engine behaviour")
	}
}

// fieldPath finds the index path of a dotted json path in World.
func fieldPath(t *testing.T, w *config.World, path string) []int {
	var idx []int
	typ := reflect.TypeOf(*w)
	for _, part := range strings.Split(path, ".") {
		found := false
		for i := range typ.NumField() {
			tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if tag == part {
				idx = append(idx, i)
				typ = typ.Field(i).Type
				found = true
				break
			}
		}
		if !found {
			t.Fatalf("no field %s", path)
		}
	}
	return idx
}

// change sets v to a value other than its zero-based default.
func change(v reflect.Value, path string) bool {
	switch {
	case path == "faults.fs_model":
		v.SetString("page_independent")
	case v.Type() == reflect.TypeOf(config.Range{}):
		v.Set(reflect.ValueOf(config.Range{3_000_000, 7_000_000}))
	case v.Kind() == reflect.Bool:
		v.SetBool(!v.Bool())
	case v.Kind() == reflect.Float64:
		v.SetFloat(v.Float() + 0.25)
	case v.Kind() == reflect.Int64, v.Kind() == reflect.Int:
		v.SetInt(v.Int() + 1_000_000)
	case v.Kind() == reflect.String:
		v.SetString(v.String() + "x")
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.String:
		v.Set(reflect.Append(v, reflect.ValueOf("majority")))
	default:
		return false
	}
	return true
}

// TestFaultSettingsAreNoKindFields: a field of the Faults struct is a
// setting that belongs to no fault kind; a kind's field is declared in
// lib/faults' registry and nowhere else, so that the two never hold one
// name.
func TestFaultSettingsAreNoKindFields(t *testing.T) {
	settings := map[string]bool{"preset": true, "torn_writes": true, "torn_sector": true, "reorder_writes": true, "fs_model": true,
		"disk_bytes": true, "corrupt_on_crash": true, "strict_dirs": true, "disk_latency": true, "clock_skew": true,
		"include_workload": true, "swarm": true}
	typ := reflect.TypeOf(config.Faults{})
	for i := range typ.NumField() {
		tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		if _, ok := faults.LookupField(tag); ok {
			t.Errorf("faults.%s is both a field of config.Faults and a kind's field in lib/faults' registry", tag)
		}
		if !settings[tag] {
			t.Errorf("faults.%s is a new setting of config.Faults: say here that it belongs to no fault kind, or declare it with its kind in lib/faults", tag)
		}
	}
}
