package config

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/faults"
)

// four is a world of three nodes and a workload, enough for every partition topology.
const four = `"nodes": [{"name": "a", "pkg": "./testdata/node"}, {"name": "b", "pkg": "./testdata/node"},
	{"name": "c", "pkg": "./testdata/node"}], ` + W

// TestPresetValues pins the fault values of each preset level.
func TestPresetValues(t *testing.T) {
	def := defaultWorld().Faults
	// level is f at the next preset level: named preset, with the kind fields of set.
	level := func(f Faults, preset string, set faults.Values) Faults {
		f.Preset = preset
		f.Kinds = f.Kinds.Clone()
		for k, v := range set {
			f.Kinds[k] = v
		}
		return f
	}
	durability := level(def, "durability", faults.Values{"crash_per_sec": 0.2, "crash_on_io": 0.005, "fsync_eio": 0.01})
	durability.TornWrites = true
	durability.ReorderWrites = true
	durability.FSModel = "ext4_ordered"
	durability.StrictDirs = true

	resilient := level(durability, "resilient", faults.Values{"partition_per_sec": 0.2, "reset_per_sec": 0.1, "pause_per_sec": 0.1})
	resilient.ClockSkew = Duration(100e6)

	ha := level(resilient, "high_availability", faults.Values{
		"partition_topologies": []string{"half", "one", "majority", "majorities_ring", "random_groups"},
		"clog_per_sec":         0.1, "swizzle_per_sec": 0.02, "slow_per_sec": 0.1, "clock_jump_per_sec": 0.05,
		"udp_loss": 0.01, "udp_dup": 0.01})

	everything := level(ha, "everything", faults.Values{"write_eio": 0.005, "write_enospc": 0.002, "read_eio": 0.005,
		"read_corrupt": 0.005, "lost_write": 0.001, "misdirected_write": 0.001, "bitrot_per_sec": 0.01, "buggify": true})
	everything.CorruptOnCrash = true
	everything.DiskLatency = Range{0, Duration(10e6)}
	everything.IncludeWorkload = true
	everything.Swarm = true

	none := def
	none.Preset = "none"

	tests := []struct {
		preset string
		want   Faults
	}{
		{"none", none}, {"durability", durability}, {"resilient", resilient}, {"high_availability", ha}, {"everything", everything},
	}
	for _, tt := range tests {
		t.Run(tt.preset, func(t *testing.T) {
			for _, form := range []string{`"%s"`, `{"preset": "%s"}`} {
				fv := fmt.Sprintf(form, tt.preset)
				w, err := parse(`{` + four + `, "faults": ` + fv + `}`)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(w.Faults, tt.want) {
					t.Errorf("faults %s\n got: %+v\nwant: %+v", fv, w.Faults, tt.want)
				}
			}
		})
	}
	if got := PresetNames(); !slices.Equal(got, []string{"none", "durability", "resilient", "high_availability", "everything"}) {
		t.Errorf("PresetNames = %v", got)
	}
}

// TestPresetLevelsAdd checks that each level only adds to the one before: it sets no field of an earlier
// level again.
func TestPresetLevelsAdd(t *testing.T) {
	seen := map[string]string{}
	for i, level := range presetLevels {
		for _, m := range level {
			if prev, ok := seen[m.key]; ok {
				t.Errorf("%s sets %s again after %s", presets[i].name, m.key, prev)
			}
			seen[m.key] = presets[i].name
		}
	}
}

func TestPresetOverride(t *testing.T) {
	tests := []struct {
		name, faults string
		check        func(f Faults) bool
	}{
		{"field after the preset", `{"preset": "durability", "crash_per_sec": 1}`,
			func(f Faults) bool { return f.Kinds.Float("crash_per_sec") == 1 && f.TornWrites }},
		{"field before the preset", `{"crash_per_sec": 1, "preset": "durability"}`,
			func(f Faults) bool { return f.Kinds.Float("crash_per_sec") == 1 && f.TornWrites }},
		{"field turned off", `{"preset": "durability", "reorder_writes": false}`,
			func(f Faults) bool { return !f.ReorderWrites && f.FSModel == "" && f.StrictDirs }},
		{"fs_model next to a preset's reorder_writes", `{"preset": "durability", "fs_model": "dir_reorder"}`,
			func(f Faults) bool { return f.FSModel == "dir_reorder" }},
		{"topologies next to the preset", `{"preset": "everything", "partition_topologies": ["one"]}`,
			func(f Faults) bool {
				return slices.Equal(f.Kinds.Choices("partition_topologies"), []string{"one"}) && f.Swarm
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := parse(`{` + W + `, "faults": ` + tt.faults + `}`)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(w.Faults) {
				t.Errorf("faults %s gave %+v", tt.faults, w.Faults)
			}
		})
	}
}

// TestPresetTopologies checks that a preset's partition topologies are cut to those the world has nodes
// for, while the same list written out is an error.
func TestPresetTopologies(t *testing.T) {
	tests := []struct {
		nodes int
		want  []string
	}{
		{0, []string{"half", "one", "random_groups"}},
		{1, []string{"half", "one", "random_groups"}},
		{2, []string{"half", "one", "majority", "random_groups"}},
		{3, []string{"half", "one", "majority", "majorities_ring", "random_groups"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.nodes, " nodes"), func(t *testing.T) {
			var nodes []string
			for i := range tt.nodes {
				nodes = append(nodes, fmt.Sprintf(`{"name": "n%d", "pkg": "./testdata/node"}`, i))
			}
			w, err := parse(`{"nodes": [` + strings.Join(nodes, ", ") + `], ` + W + `, "faults": "high_availability"}`)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(w.Faults.Kinds.Choices("partition_topologies"), tt.want) {
				t.Errorf("topologies = %v, want %v", w.Faults.Kinds.Choices("partition_topologies"), tt.want)
			}
		})
	}
	_, err := parse(`{` + W + `, "faults": {"preset": "high_availability",
		"partition_topologies": ["half", "one", "majority", "majorities_ring", "random_groups"]}}`)
	want := "seedfall.json: faults.partition_topologies[2]: topology majority needs at least 3 programs that take network faults, the world has 1 (workloads count; the finally check and programs with \"faults\": false do not)"
	if err == nil || err.Error() != want {
		t.Errorf("\n got: %v\nwant: %s", err, want)
	}
}

// TestPresetSet checks that a preset records the fields it sets, after faults.preset.
func TestPresetSet(t *testing.T) {
	w, err := parse(`{` + W + `, "faults": {"swarm": true, "preset": "durability"}}`)
	if err != nil {
		t.Fatal(err)
	}
	want := "workload workload.name workload.pkg faults.preset faults.crash_per_sec faults.torn_writes faults.reorder_writes " +
		"faults.strict_dirs faults.crash_on_io faults.fsync_eio faults.swarm"
	if got := strings.Join(w.Set, " "); got != want {
		t.Errorf("Set\n got: %s\nwant: %s", got, want)
	}
}

// presetTable renders the preset levels as the Markdown table in docs/world.md: one row per field, in
// the order the levels add them, and one column per level with the value it gives the field, or — for
// the default.
func presetTable() string {
	var b strings.Builder
	b.WriteString("| field |")
	for _, p := range presets[1:] {
		fmt.Fprintf(&b, " `%s` |", p.name)
	}
	b.WriteString("\n|---|")
	b.WriteString(strings.Repeat("---|", len(presets)-1))
	b.WriteString("\n")
	for i, level := range presetLevels {
		for _, m := range level {
			fmt.Fprintf(&b, "| `%s` |", m.key)
			for j := 1; j < len(presets); j++ {
				cell := "—"
				if j >= i {
					cell = "`" + compactJSON(m.value) + "`"
				}
				fmt.Fprintf(&b, " %s |", cell)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// compactJSON writes a tree value as compact JSON with a space after commas.
func compactJSON(v *jvalue) string {
	switch v.kind {
	case '"':
		b, _ := json.Marshal(v.str)
		return string(b)
	case '0':
		return v.str
	case 't':
		return "true"
	case 'f':
		return "false"
	case '[':
		var parts []string
		for _, e := range v.elems {
			parts = append(parts, compactJSON(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	panic("compactJSON: unexpected kind")
}

// TestPresetDocs checks that docs/world.md shows the preset table as the code defines it.
func TestPresetDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/world.md")
	if err != nil {
		t.Fatal(err)
	}
	if table := presetTable(); !strings.Contains(string(doc), table) {
		t.Errorf("docs/world.md does not hold the preset table; it should read:\n%s", table)
	}
}

// TestDocsNameEveryField checks that docs/world.md mentions every field of the world file.
func TestDocsNameEveryField(t *testing.T) {
	doc, err := os.ReadFile("../../docs/world.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range schemaPaths() {
		name := p[strings.LastIndexAny(p, ".]")+1:]
		if !strings.Contains(string(doc), "`"+name+"`") && !strings.Contains(string(doc), "`"+p+"`") {
			t.Errorf("docs/world.md does not mention `%s` (%s)", name, p)
		}
	}
}

// TestDocsListEveryField checks that the section of docs/world.md on what each field drives names every
// path a world can set, the fault kinds' fields included, so that the manual keeps up as fields and
// kinds are added.
func TestDocsListEveryField(t *testing.T) {
	doc, err := os.ReadFile("../../docs/world.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(doc), "## What each field drives")
	section, _, _ = strings.Cut(section, "\n## ")
	for _, p := range schemaPaths() {
		name := p
		if rest, ok := cutAny(p, "nodes[].", "workload.", "workloads[].", "finally."); ok {
			name = rest
		}
		if !strings.Contains(section, "`"+name+"`") {
			t.Errorf("docs/world.md, What each field drives: no mention of `%s` (%s)", name, p)
		}
	}
}

// TestPresetFieldsAreKnown: a preset names only fields of the faults object,
// the fault kinds' fields from lib/faults' registry among them.
func TestPresetFieldsAreKnown(t *testing.T) {
	for i, level := range presetLevels {
		for _, m := range level {
			_, kind := kindField(m.key)
			if !kind && !slices.Contains(fieldNames(faultsType), m.key) {
				t.Errorf("preset %s sets %s, which is no field of faults", presets[i].name, m.key)
			}
		}
	}
}
