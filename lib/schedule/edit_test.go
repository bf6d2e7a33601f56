package schedule

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/faults"
)

func ms(n int64) Dur { return Dur(n * int64(time.Millisecond)) }

// editBase is the schedule the edit tests start from: two crashes and a
// disk fault, as a shrunk schedule.
func editBase() *Schedule {
	return &Schedule{Seed: 4, Config: "w.json", Profile: "nightly", Set: []string{"duration=\"5s\""}, Duration: ms(2000),
		Budget: 7, Branches: []Branch{{At: ms(100), Key: 3}}, ShrunkFrom: 9, ShrinkRuns: 14,
		Faults: []Fault{
			{At: ms(100), Kind: faults.KindCrash, Node: "server", Until: ms(300)},
			{At: ms(500), Kind: faults.KindWriteEIO, Node: "server", Op: 12},
			{At: ms(900), Kind: faults.KindNetReset, Node: "client"},
		}}
}

func TestEdit(t *testing.T) {
	tests := []struct {
		name string
		edit func(e *Editor) error
		want []Fault
	}{
		{"nothing", func(e *Editor) error { return nil }, editBase().Faults},
		{"remove the first", func(e *Editor) error { return e.Remove(1) }, editBase().Faults[1:]},
		{"shift a crash and its restart", func(e *Editor) error { return e.Shift(1, "-50ms") }, []Fault{
			{At: ms(50), Kind: faults.KindCrash, Node: "server", Until: ms(250)}, editBase().Faults[1], editBase().Faults[2]}},
		{"shift past another fault sorts", func(e *Editor) error { return e.Shift(1, "+1s") }, []Fault{
			editBase().Faults[1], editBase().Faults[2], {At: ms(1100), Kind: faults.KindCrash, Node: "server", Until: ms(1300)}}},
		{"an instant fault keeps its unset until", func(e *Editor) error { return e.Shift(3, "100ms") }, []Fault{
			editBase().Faults[0], editBase().Faults[1], {At: ms(1000), Kind: faults.KindNetReset, Node: "client"}}},
		{"shift a disk fault by ops", func(e *Editor) error { return e.Shift(2, "+2") }, []Fault{
			editBase().Faults[0], {At: ms(500), Kind: faults.KindWriteEIO, Node: "server", Op: 14}, editBase().Faults[2]}},
		{"two shifts add up", func(e *Editor) error {
			if err := e.Shift(2, "-11"); err != nil {
				return err
			}
			return e.Shift(2, "+3")
		}, []Fault{editBase().Faults[0], {At: ms(500), Kind: faults.KindWriteEIO, Node: "server", Op: 4}, editBase().Faults[2]}},
		{"positions are those before the edit", func(e *Editor) error {
			if err := e.Remove(1); err != nil {
				return err
			}
			return e.Shift(2, "-1")
		}, []Fault{{At: ms(500), Kind: faults.KindWriteEIO, Node: "server", Op: 11}, editBase().Faults[2]}},
		{"add sorts by at", func(e *Editor) error {
			return e.Add([]byte(`{"at":"600ms","kind":"pause","node":"server","until":"700ms"}`))
		}, []Fault{editBase().Faults[0], editBase().Faults[1], {At: ms(600), Kind: faults.KindPause, Node: "server", Until: ms(700)}, editBase().Faults[2]}},
		{"add a disk fault without at", func(e *Editor) error {
			return e.Add([]byte(`{"kind":"crash_io","node":"server","op":3,"until":"1s"}`))
		}, []Fault{{Kind: faults.KindCrashIO, Node: "server", Op: 3, Until: ms(1000)}, editBase().Faults[0], editBase().Faults[1], editBase().Faults[2]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := editBase()
			e := NewEditor(base)
			if err := tt.edit(e); err != nil {
				t.Fatal(err)
			}
			got := e.Result()
			if !reflect.DeepEqual(got.Faults, tt.want) {
				t.Fatalf("faults =\n  %+v\nwant\n  %+v", got.Faults, tt.want)
			}
			if !reflect.DeepEqual(base, editBase()) {
				t.Fatalf("the edit changed the schedule it started from: %+v", base)
			}
			wantShrunk := 9
			if e.Changed() {
				wantShrunk = 0
			}
			if got.ShrunkFrom != wantShrunk || got.ShrinkRuns != wantShrunk*14/9 {
				t.Fatalf("shrunk_from %d, shrink_runs %d after the edit (changed %v)", got.ShrunkFrom, got.ShrinkRuns, e.Changed())
			}
			kept := *got
			kept.Faults, kept.ShrunkFrom, kept.ShrinkRuns = base.Faults, base.ShrunkFrom, base.ShrinkRuns
			if !reflect.DeepEqual(&kept, base) {
				t.Fatalf("the edit lost a field of the schedule:\n  %+v\nwant\n  %+v", &kept, base)
			}
		})
	}
}

func TestEditErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(e *Editor) error
		want string
	}{
		{"remove past the end", func(e *Editor) error { return e.Remove(4) }, `there is no fault 4 (the schedule has 3)`},
		{"remove 0", func(e *Editor) error { return e.Remove(0) }, `there is no fault 0 (the schedule has 3)`},
		{"remove twice", func(e *Editor) error { e.Remove(2); return e.Remove(2) }, `fault 2 is removed already: remove it once, and do not shift it`},
		{"shift a removed fault", func(e *Editor) error { e.Remove(1); return e.Shift(1, "1ms") }, `fault 1 is removed already: remove it once, and do not shift it`},
		{"remove a shifted fault", func(e *Editor) error { e.Shift(1, "1ms"); return e.Remove(1) }, `fault 1 is shifted: remove it or shift it, not both`},
		{"shift past the end", func(e *Editor) error { return e.Shift(4, "1ms") }, `there is no fault 4 (the schedule has 3)`},
		{"shift before the start", func(e *Editor) error { return e.Shift(1, "-150ms") }, `fault 1 (crash): at 100ms moved by -150ms is -50ms, before the run starts`},
		{"shift a timed fault by a count", func(e *Editor) error { return e.Shift(1, "+2") },
			`fault 1 (crash) is planned in time: shift it by a duration such as -50ms or +1s, not "+2"`},
		{"shift a disk fault by a duration", func(e *Editor) error { return e.Shift(2, "-50ms") },
			`fault 2 (write_eio) fires at a numbered disk op: shift it by a count such as +2 or -1, not "-50ms"`},
		{"shift a disk fault below op 1", func(e *Editor) error { return e.Shift(2, "-12") },
			`fault 2 (write_eio): op 12 moved by -12 is 0, and disk ops count from 1`},
		{"add an unknown field", func(e *Editor) error {
			return e.Add([]byte(`{"at":"1s","kind":"pause","nod":"server","until":"2s"}`))
		}, `nod: unknown field`},
		{"add an unknown kind", func(e *Editor) error { return e.Add([]byte(`{"at":"1s","kind":"earthquake","node":"server"}`)) },
			`kind: "earthquake" is not a fault kind (bitrot, buggify, `},
		{"add without a kind", func(e *Editor) error { return e.Add([]byte(`{"at":"1s","node":"server"}`)) }, `kind: missing`},
		{"add a timed fault without at", func(e *Editor) error { return e.Add([]byte(`{"kind":"pause","node":"server","until":"2s"}`)) },
			`at: missing: a pause fault is planned at a time`},
		{"add a bad duration", func(e *Editor) error { return e.Add([]byte(`{"at":"soon","kind":"pause","node":"server"}`)) },
			`at: invalid duration "soon"`},
		{"add a list", func(e *Editor) error { return e.Add([]byte(`[{"at":"1s"}]`)) }, `expected an object, got array`},
		{"add malformed JSON", func(e *Editor) error { return e.Add([]byte(`{"at":"1s",`)) }, `unexpected EOF`},
		{"add nothing", func(e *Editor) error { return e.Add([]byte(` `)) }, `empty: a fault is a JSON object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.edit(NewEditor(editBase()))
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error\n  %s\nwant\n  %s", err, tt.want)
			}
		})
	}
}

// TestEditThenCheck shows that an edit does not check the result: an added
// fault on a node the world lacks passes Add and fails Check, which names
// the entry of the sorted schedule.
func TestEditThenCheck(t *testing.T) {
	e := NewEditor(editBase())
	if err := e.Add([]byte(`{"at":"1s","kind":"crash","node":"sever","until":"1.2s"}`)); err != nil {
		t.Fatal(err)
	}
	err := e.Result().Check(world)
	if err == nil || err.Error() != `faults[3].node: "sever" is not a node of this world (server, client)` {
		t.Fatalf("Check = %v", err)
	}
}
