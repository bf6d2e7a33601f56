package faults

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/sf-dst/sf/lib/wire"
	"github.com/sf-dst/sf/lib/wire/wiretest"
)

// TestPlannerEncodeGoesOn: a planner encoded and decoded after any number
// of faults hands out the rest exactly as the planner it came from, a
// swizzle's faults drawn ahead among them, and a replayed list's planner
// goes on from where it stood.
func TestPlannerEncodeGoesOn(t *testing.T) {
	s := settings{RestartAfter: [2]int64{1e6, 1e8}, ClogForNs: [2]int64{1e8, 4e9}, SlowForNs: [2]int64{5e8, 5e9}, SlowFactor: 10,
		PauseForNs: [2]int64{1e8, 3e9}, ClockJumpMaxNs: 1e10, PartitionForNs: [2]int64{5e7, 2e9}, PartitionTopologies: []string{"half", "one"}}
	rates := map[string]float64{"crash_per_sec": 1, "swizzle_per_sec": 5, "reset_per_sec": 2, "slow_per_sec": 2, "pause_per_sec": 3,
		"clock_jump_per_sec": 1, "partition_per_sec": 2}
	p := &Plan{Values: s.values(rates), Nodes: []PlanNode{{Name: "a", Faults: true, NetFaults: true}, {Name: "b", Faults: true, NetFaults: true},
		{Name: "c", NetFaults: true}}, Until: 20e9}
	for seed := uint64(1); seed <= 4; seed++ {
		want := drain(NewPlanner(p, seed, 0), p)
		if len(want) < 20 {
			t.Fatalf("seed %d draws only %d faults: the test would prove little", seed, len(want))
		}
		for _, after := range []int{0, 1, 7, len(want) / 2, len(want)} {
			pl := NewPlanner(p, seed, 0)
			got := drainN(pl, p, after)
			c := roundTrip(t, pl)
			got = append(got, drain(c, p)...)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("seed %d, encoded after %d faults: the faults differ:\n%v\nwant\n%v", seed, after, got, want)
			}
		}
	}
	list := []Fault{{At: 5, Kind: "crash", Node: "a"}, {At: 1, Kind: "partition", Groups: [][]string{{"a"}, {"b", "c"}}}, {At: 9, Kind: "clog", From: "a", To: "b", Mode: "slow", Delay: 3}}
	pl := ListPlanner(list)
	first := drainN(pl, p, 1)
	c := roundTrip(t, pl)
	if got := append(first, drain(c, p)...); fmt.Sprint(got) != fmt.Sprint(drain(ListPlanner(list), p)) {
		t.Errorf("a replayed list's planner went on otherwise: %v", got)
	}
}

func roundTrip(t *testing.T, pl *Planner) *Planner {
	t.Helper()
	w := wire.NewWriter(0)
	pl.Encode(w)
	r := wire.NewReader(w.Data())
	c := DecodePlanner(r)
	if err := r.Done(); err != nil {
		t.Fatal(err)
	}
	w2 := wire.NewWriter(0)
	c.Encode(w2)
	if !bytes.Equal(w.Data(), w2.Data()) {
		t.Fatal("the decoded planner encodes otherwise")
	}
	return c
}

func drainN(pl *Planner, p *Plan, n int) []Fault {
	var out []Fault
	for range n {
		f, ok := pl.Pop(p)
		if !ok {
			break
		}
		out = append(out, f)
	}
	return out
}

func drain(pl *Planner, p *Plan) []Fault { return drainN(pl, p, 1<<30) }

// TestFaultEncodeRoundTrip: every field of a fault reads back as written,
// and a nil list of faults stays nil while an empty one stays empty.
func TestFaultEncodeRoundTrip(t *testing.T) {
	f := Fault{At: 1, Kind: "k", Node: "n", Site: "s", Until: 2, Op: 3, Path: "p", Offset: 4, Target: 5, Delta: -6, Bytes: 7,
		Groups: [][]string{{"a"}, {"b", "c"}}, Side: []string{"d"}, From: "f", To: "t", Dir: "in", Mode: "slow", Delay: 8, Factor: 2.5}
	if n := reflect.TypeFor[Fault]().NumField(); n != 19 {
		t.Fatalf("Fault has %d fields; Encode and this test write 19: add the new ones to both", n)
	}
	for _, list := range [][]Fault{nil, {}, {f, {}}} {
		w := wire.NewWriter(0)
		EncodeList(w, list)
		r := wire.NewReader(w.Data())
		got := DecodeList(r)
		if err := r.Done(); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, list) && !(len(list) == 2 && fmt.Sprint(got) == fmt.Sprint(list)) {
			t.Errorf("%#v read back as %#v", list, got)
		}
		if (got == nil) != (list == nil) {
			t.Errorf("a list nil %v read back nil %v", list == nil, got == nil)
		}
	}
}

// FuzzDecodePlanner: no input makes DecodePlanner panic.
func FuzzDecodePlanner(f *testing.F) {
	w := wire.NewWriter(0)
	ListPlanner([]Fault{{At: 1, Kind: "crash", Node: "a"}}).Encode(w)
	f.Add(w.Data())
	f.Fuzz(func(t *testing.T, b []byte) {
		r := wire.NewReader(b)
		DecodePlanner(r)
		_ = r.Done()
	})
}

// TestPlannerEncodeCoversEveryField pins the fields Encode writes: a field
// added to one of these types fails here until Encode and DecodePlanner
// write it.
func TestPlannerEncodeCoversEveryField(t *testing.T) {
	pinned := map[reflect.Type]string{
		reflect.TypeFor[Planner](): "Gens heads list next",
		reflect.TypeFor[Gen]():     "Kind Node S T Ahead Done",
		reflect.TypeFor[head]():    "f ok",
	}
	wiretest.CheckFields(t, pinned)
}
