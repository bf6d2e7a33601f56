package faults

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// undrawn are the kinds no world-file field draws, with what does.
var undrawn = map[string]string{KindPreempt: "preempt.strategy pct draws its change points"}

// TestEveryKindHasItsParts fails when a kind of the registry lacks a part
// of what makes a kind: its fields, how a seed draws it (Draw, or the
// Counter of the event it fires at), how a run applies it, how it is
// described, and how a schedule entry of it is checked.
func TestEveryKindHasItsParts(t *testing.T) {
	names := map[string]bool{}
	fields := map[string]string{}
	for _, k := range registry {
		for _, f := range k.Fields {
			if prev, ok := fields[f.Name]; ok {
				t.Errorf("field %s is declared by %s and by %s: a field has one kind, and the others name it in Uses", f.Name, prev, k.Name)
			}
			fields[f.Name] = k.Name
		}
	}
	for _, k := range registry {
		t.Run(k.Name, func(t *testing.T) {
			if k.Name == "" || names[k.Name] {
				t.Fatalf("a kind without a name, or registered twice")
			}
			names[k.Name] = true
			timed, counted := k.Draw != nil, k.Counter != 0
			switch {
			case timed == counted:
				t.Errorf("Draw %v, Counter %v: a kind is planned in time (Draw) or fires at a numbered event (Counter), one of the two", timed, k.Counter)
			case timed && k.Apply == nil:
				t.Error("planned in time, but no Apply")
			case timed && (k.scope == 0 || k.stream == "" || k.drawOrder == 0):
				t.Error("planned in time, but without the scope, stream or order its generators need")
			case counted && (k.Apply != nil || k.Counter >= NumCounters || k.Counter.String() == ""):
				t.Errorf("fires at counter %d, which is no counter, or has an Apply that nothing calls", k.Counter)
			}
			if _, ok := undrawn[k.Name]; ok != (len(k.Fields) == 0) {
				t.Errorf("%d fields: every kind but %v has a field that draws it", len(k.Fields), undrawn)
			}
			if len(k.Fields) > 0 {
				switch first := k.Fields[0]; {
				case timed && first.Type != Rate:
					t.Errorf("its first field %s is not a rate: a kind planned in time is drawn at a rate per second", first.Name)
				case counted && first.Type != Prob && first.Type != Switch:
					t.Errorf("its first field %s is no probability or switch: a counted kind fires with a probability per event", first.Name)
				}
			}
			if k.Swarm != (len(k.Fields) > 0) {
				t.Errorf("Swarm %v: swarm testing switches every kind a field turns on, and only those", k.Swarm)
			}
			for _, u := range k.Uses {
				if fields[u] == "" || fields[u] == k.Name {
					t.Errorf("uses %s, which no other kind declares", u)
				}
			}
			for _, f := range k.Fields {
				checkField(t, f)
			}
			if k.Makes != "" {
				made, ok := Lookup(k.Makes)
				if !ok || k.Describe != nil || k.Check != nil {
					t.Errorf("makes %s faults: that must be a kind of a schedule, which describes and checks them", k.Makes)
				} else if !made.Swarm || made.Draw == nil {
					t.Errorf("makes %s faults, a kind that is not planned in time", k.Makes)
				}
				return
			}
			if k.Describe == nil || k.Check == nil {
				t.Fatalf("Describe or Check is missing: every kind of a schedule says what its faults did and checks its entries")
			}
			f := Fault{Kind: k.Name, Node: "n1", Op: 7}
			if d := f.Describe(); d == "" || d == k.Name+" "+f.Node {
				t.Errorf("Describe gives %q, no more than a kind sf does not know", d)
			}
			if err := k.Check(Fault{Kind: k.Name}, Context{PreemptPCT: true}); err == nil {
				t.Error("Check accepts an entry that says nothing but its kind")
			}
		})
	}
	for _, name := range Kinds() {
		if k, ok := Lookup(name); !ok || k.Makes != "" {
			t.Errorf("Kinds lists %s, which Lookup does not give as a kind of a schedule", name)
		}
	}
}

// checkField checks a field's declaration: a type, a default of that type,
// and for a list of choices the choices and how to name one.
func checkField(t *testing.T, f Field) {
	t.Helper()
	want := map[FieldType]reflect.Type{Rate: reflect.TypeFor[float64](), Prob: reflect.TypeFor[float64](),
		Factor: reflect.TypeFor[float64](), Duration: reflect.TypeFor[int64](), Range: reflect.TypeFor[[2]int64](),
		Choices: reflect.TypeFor[[]string](), Switch: reflect.TypeFor[bool]()}[f.Type]
	switch {
	case want == nil:
		t.Errorf("field %s has no type", f.Name)
	case reflect.TypeOf(f.zero()) != want:
		t.Errorf("field %s: default %v is a %T, want a %s", f.Name, f.Default, f.zero(), want)
	case f.Type == Choices && (len(f.Choices) == 0 || f.Noun == "" || len(f.Default.([]string)) == 0):
		t.Errorf("field %s lists choices without the choices, a noun for one, or a default", f.Name)
	case f.Type == Factor && f.zero().(float64) < 1:
		t.Errorf("field %s: a factor's default is at least 1", f.Name)
	case (f.Needs == "") != (f.Why == ""):
		t.Errorf("field %s: Needs and Why come together", f.Name)
	}
	for c := range f.ChoiceNodes {
		if !contains(f.Choices, c) {
			t.Errorf("field %s: ChoiceNodes names %s, which is no choice", f.Name, c)
		}
	}
}

// TestEveryFieldChangesTheDraw: each field of a kind planned in time, and
// each field it uses, changes what a seed draws, so that no field of the
// world file shapes nothing. A counted kind's only field is its
// probability, which the engine reads (lib/engine's tests).
func TestEveryFieldChangesTheDraw(t *testing.T) {
	draw := func(v Values) string {
		p := &Plan{Values: v, Until: 30e9,
			Nodes: []PlanNode{{Name: "a", Faults: true, NetFaults: true}, {Name: "b", Faults: true, NetFaults: true},
				{Name: "c", Faults: true, NetFaults: true}, {Name: "d", Faults: true, NetFaults: true}}}
		pl := NewPlanner(p, 1, 0)
		var out []string
		for {
			f, ok := pl.Pop(p)
			if !ok {
				return strings.Join(out, "\n")
			}
			out = append(out, fmt.Sprintf("%+v", f))
		}
	}
	for _, k := range registry {
		if k.Draw == nil {
			continue
		}
		base := Defaults()
		base[k.Fields[0].Name] = 2.0
		want := draw(base)
		if want == "" {
			t.Errorf("%s: nothing drawn at a rate of 2 per second", k.Name)
			continue
		}
		names := []string{}
		for _, f := range k.Fields {
			names = append(names, f.Name)
		}
		for _, name := range append(names, k.Uses...) {
			f, _ := LookupField(name)
			v := base.Clone()
			switch f.Type {
			case Rate:
				v[name] = 0.5
			case Factor:
				v[name] = v.Float(name) + 3
			case Duration:
				v[name] = v.Duration(name) / 3
			case Range:
				v[name] = [2]int64{3e6, 7e6}
			case Choices:
				v[name] = f.Choices[len(f.Choices)-1:]
			}
			if draw(v) == want {
				t.Errorf("%s: changing %s changes nothing the seed draws", k.Name, name)
			}
		}
	}
}

// TestDocsListEveryKind: docs/schedules.md's table of kinds has a row for
// every kind a schedule may hold, with the fields that draw it and the
// event it fires at, and no row for a kind sf does not have.
func TestDocsListEveryKind(t *testing.T) {
	doc, err := os.ReadFile("../../docs/schedules.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Fault kinds\n")
	if !ok {
		t.Fatal("docs/schedules.md has no section ## Fault kinds")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		if cells := strings.Split(line, "|"); len(cells) > 3 && strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			rows[strings.Trim(strings.TrimSpace(cells[1]), "`")] = line
		}
	}
	for _, k := range registry {
		name := k.Name
		if k.Makes != "" {
			name = k.Makes
		}
		row, ok := rows[name]
		if !ok {
			t.Errorf("docs/schedules.md, Fault kinds: no row for %s", name)
			continue
		}
		for _, f := range k.Fields {
			if !strings.Contains(row, "`"+f.Name+"`") {
				t.Errorf("docs/schedules.md, Fault kinds: the row of %s does not name its field %s", name, f.Name)
			}
		}
		if k.Counter != 0 && !strings.Contains(row, k.Counter.String()) {
			t.Errorf("docs/schedules.md, Fault kinds: the row of %s does not say it fires at a numbered %s", name, k.Counter)
		}
	}
	for name := range rows {
		if _, ok := Lookup(name); !ok {
			t.Errorf("docs/schedules.md, Fault kinds: a row for %s, which is no kind", name)
		}
	}
}
