package core

import (
	"fmt"
	"testing"
)

const unitFNVOffset = uint64(14695981039346656037)

// TestHashHelpersArePinned catches an accidental change to the determinism
// hash: every recorded hash and checkpoint would stop matching.
func TestHashHelpersArePinned(t *testing.T) {
	// FNV-1a 64, checked against the published test vectors.
	strs := []struct {
		in   string
		want uint64
	}{
		{"", 0xcbf29ce484222325},
		{"a", 0xaf63dc4c8601ec8c},
		{"foobar", 0x85944171f73967e8},
	}
	for _, s := range strs {
		if got := HashString(s.in); got != s.want {
			t.Errorf("HashString(%q) = %#x, want %#x", s.in, got, s.want)
		}
		if got := HashBytes([]byte(s.in)); got != s.want {
			t.Errorf("HashBytes(%q) = %#x, want %#x", s.in, got, s.want)
		}
	}
	if got := mixHash(unitFNVOffset, 1); got != 0xaf63bc49fd1c5448 {
		t.Errorf("mixHash(offset, 1) = %#x", got)
	}
	// One host call as the dispatcher folds it: id, instance, two arguments, time.
	h := unitFNVOffset
	for _, v := range []uint64{5 /* clock_time_get */, 1<<32 | 1, 1, 0, 1} {
		h = mixHash(h, v)
	}
	if h != 0x5c59152ae35e39e3 {
		t.Errorf("hash of one clock_time_get = %#x, want 0x5c59152ae35e39e3", h)
	}
	if mixHash(mixHash(unitFNVOffset, 1), 2) == mixHash(mixHash(unitFNVOffset, 2), 1) {
		t.Error("folding 1 then 2 hashes the same as 2 then 1: the order of arguments is lost")
	}
}

// unitInstance is an instance with just enough of a run for hcall.
func unitInstance(opts Options) *Instance {
	r := &Run{Opts: opts, hash: unitFNVOffset, res: &Result{}}
	return &Instance{InstanceState: InstanceState{Run: r, Name: "n#1", hashID: 1<<32 | 1}}
}

// Call IDs of the calls these tests make, as the WASI adapter declares them.
const (
	cFdRead     = 10
	cFdWrite    = 11
	cRandomGet  = 6
	cSchedYield = 8
)

// hcall accounts one call the way the dispatcher does.
func (in *Instance) hcall(id CallID, a, b uint64) {
	name := map[CallID]string{cFdRead: "fd_read", cFdWrite: "fd_write", cRandomGet: "random_get", cSchedYield: "sched_yield"}[id]
	in.account(id, name, false, a, b, "", "")
}

func TestHcall(t *testing.T) {
	t.Run("folds id, instance, arguments and time", func(t *testing.T) {
		in := unitInstance(Options{})
		in.Run.Now = 42
		in.hcall(cFdWrite, 1, 5)
		want := unitFNVOffset
		for _, v := range []uint64{uint64(cFdWrite), 1<<32 | 1, 1, 5, 42} {
			want = mixHash(want, v)
		}
		if in.Run.hash != want || in.Run.calls != 1 {
			t.Fatalf("hash %#x after %d calls, want %#x after 1", in.Run.hash, in.Run.calls, want)
		}
	})
	t.Run("each input matters", func(t *testing.T) {
		base := func() *Instance { in := unitInstance(Options{}); in.Run.Now = 7; return in }
		ref := base()
		ref.hcall(cFdRead, 3, 4)
		variants := map[string]func(in *Instance){
			"id":       func(in *Instance) { in.hcall(cFdWrite, 3, 4) },
			"first":    func(in *Instance) { in.hcall(cFdRead, 4, 4) },
			"second":   func(in *Instance) { in.hcall(cFdRead, 3, 5) },
			"time":     func(in *Instance) { in.Run.Now = 8; in.hcall(cFdRead, 3, 4) },
			"instance": func(in *Instance) { in.hashID = 1<<32 | 2; in.hcall(cFdRead, 3, 4) },
		}
		for name, f := range variants {
			in := base()
			f(in)
			if in.Run.hash == ref.Run.hash {
				t.Errorf("changing the %s leaves the hash unchanged", name)
			}
		}
	})
	t.Run("checkpoints every CheckpointEvery calls", func(t *testing.T) {
		in := unitInstance(Options{})
		for range 2*CheckpointEvery + 10 {
			in.hcall(cSchedYield, 0, 0)
		}
		if got := len(in.Run.res.Checkpoints); got != 2 {
			t.Fatalf("%d checkpoints after %d calls, want 2", got, 2*CheckpointEvery+10)
		}
	})
	t.Run("records the calls of a window", func(t *testing.T) {
		in := unitInstance(Options{RecordCalls: [2]uint64{2, 4}})
		// Full precision, so a 1ns divergence shows in the description.
		in.Run.Now = 1_500_000_001
		for i := range 6 {
			in.hcall(cRandomGet, uint64(i), 0)
		}
		want := []string{"n#1 random_get(2) at 1.500000001s", "n#1 random_get(3) at 1.500000001s"}
		if fmt.Sprint(in.Run.res.Calls) != fmt.Sprint(want) {
			t.Fatalf("recorded %q, want %q", in.Run.res.Calls, want)
		}
	})
	t.Run("a recorded sim call shows its message or site", func(t *testing.T) {
		// Issue 27: the report shows what the program passed, not the hash
		// of it.
		in := unitInstance(Options{RecordCalls: [2]uint64{0, 3}})
		in.Run.Now = 2_000_000_000
		in.account(39, "seedfall.property", false, HashString("no write is lost"), 3, "no write is lost", "")
		in.account(46, "seedfall.buggify", false, HashString("drop ack"), 1, "drop ack", "")
		in.account(40, "seedfall.event", false, HashString("recovered"), HashString(`{"keys":0}`), "recovered", `{"keys":0}`)
		want := []string{`n#1 seedfall.property("no write is lost", 3) at 2s`, `n#1 seedfall.buggify("drop ack", 1) at 2s`,
			`n#1 seedfall.event("recovered", "{\"keys\":0}") at 2s`}
		if fmt.Sprint(in.Run.res.Calls) != fmt.Sprint(want) {
			t.Fatalf("recorded %q, want %q", in.Run.res.Calls, want)
		}
	})
	t.Run("DivergeAtCall perturbs time at that call", func(t *testing.T) {
		a, b := unitInstance(Options{}), unitInstance(Options{DivergeAtCall: 3})
		var ha, hb []uint64
		for range 4 {
			a.hcall(cSchedYield, 0, 0)
			b.hcall(cSchedYield, 0, 0)
			ha, hb = append(ha, a.Run.hash), append(hb, b.Run.hash)
		}
		if ha[0] != hb[0] || ha[1] != hb[1] || ha[2] == hb[2] {
			t.Fatalf("hashes %x vs %x: want equal for two calls, then different", ha, hb)
		}
		if b.Run.Now != 1 {
			t.Fatalf("time after the perturbed call = %d, want 1", b.Run.Now)
		}
	})
}

func TestFirstDivergence(t *testing.T) {
	tests := []struct {
		name string
		a, b []uint64
		want int
	}{
		{"both empty", nil, nil, -1},
		{"nil and empty", nil, []uint64{}, -1},
		{"equal", []uint64{1, 2, 3}, []uint64{1, 2, 3}, -1},
		{"differ at the start", []uint64{9, 2, 3}, []uint64{1, 2, 3}, 0},
		{"differ in the middle", []uint64{1, 2, 3, 4}, []uint64{1, 2, 7, 4}, 2},
		{"differ at the end", []uint64{1, 2, 3}, []uint64{1, 2, 4}, 2},
		{"first longer", []uint64{1, 2, 3}, []uint64{1, 2}, 2},
		{"second longer", []uint64{1}, []uint64{1, 2, 3}, 1},
		{"one empty", nil, []uint64{5}, 0},
		{"differ before one ends", []uint64{1, 5}, []uint64{1, 2, 3}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FirstDivergence(tt.a, tt.b); got != tt.want {
				t.Fatalf("FirstDivergence = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestDescribeDivergence(t *testing.T) {
	tests := []struct {
		name  string
		first uint64
		a, b  []string
		want  string
	}{
		{"equal", 4097, []string{"x", "y"}, []string{"x", "y"}, ""},
		{"both empty", 1, nil, nil, ""},
		{"differ at the first call", 4097, []string{"a at 0.001s", "b"}, []string{"a at 0.002s", "b"},
			"host call 4097: a at 0.001s vs a at 0.002s, after the start of the window"},
		{"differ in the middle", 100, []string{"p", "q", "r", "s"}, []string{"p", "q", "R", "s"},
			"host call 102: r vs R, after q"},
		// Issue 27: a run that ends first reads in the same form.
		{"first longer", 10, []string{"p", "q", "r"}, []string{"p", "q"},
			"host call 12: r vs the end of the second run, after q"},
		{"second longer", 10, []string{"p"}, []string{"p", "q", "r"},
			"host call 11: the end of the first run vs q, after p"},
		{"second empty", 5, []string{"p"}, nil,
			"host call 5: p vs the end of the second run, after the start of the window"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DescribeDivergence(tt.first, tt.a, tt.b); got != tt.want {
				t.Fatalf("DescribeDivergence =\n  %q\nwant\n  %q", got, tt.want)
			}
		})
	}
}
