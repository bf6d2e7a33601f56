package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/engine/core"
	"github.com/sf-dst/sf/lib/faults"
)

// TestOSyncIgnored: with osync_ignored an O_SYNC write is no longer
// durable when it returns, so a crash after it loses the page; a node that
// takes no faults is not weakened, and the mutant is then not exercised.
func TestOSyncIgnored(t *testing.T) {
	wasm := buildGuest(t, "osync")
	e, err := New(testCache())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	crash := Fault{Kind: KindCrash, Node: "w", At: Dur(100 * time.Millisecond), Until: Dur(200 * time.Millisecond)}
	for _, tc := range []struct {
		name     string
		mutant   string
		faults   bool
		after    string
		wantHits int
	}{
		{"no mutant", "", true, "w#2: found 4096 of 4096 bytes", 0},
		{"osync_ignored", core.MutantOSyncIgnored, true, "w#2: found 0 of 0 bytes", 1},
		{"osync_ignored on a node without faults", core.MutantOSyncIgnored, false, "w#1: write 1: ok", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := &Spec{
				Nodes:      []NodeSpec{{Name: "w", Wasm: wasm, Workload: true, Faults: tc.faults, Args: []string{"-sleep", "1s"}}},
				DurationNs: int64(5 * time.Second), LatencyNs: [2]int64{1e6, 1e6}, Kinds: faults.Values{"restart_after": [2]int64{1e6, 1e6}},
			}
			res, err := e.Run(spec, 1, Options{Faults: []Fault{crash}, Mutant: tc.mutant})
			if err != nil {
				t.Fatal(err)
			}
			if trace := strings.Join(res.Trace, "\n"); !strings.Contains(trace, tc.after) {
				t.Errorf("trace has no %q:\n%s", tc.after, trace)
			}
			if res.MutantHits != tc.wantHits {
				t.Errorf("%d hits, want %d", res.MutantHits, tc.wantHits)
			}
		})
	}
}

// TestMonotonicJump: a clock jump moves only the wall clock, so time.Since
// is right; with monotonic_jump it moves the monotonic clock too and a
// sleep seems to take 5s. Without a clock jump the mutant has nothing to
// weaken. The mutant run replays exactly.
func TestMonotonicJump(t *testing.T) {
	wasm := buildGuest(t, "elapsed")
	e, err := New(testCache())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	spec := &Spec{
		Nodes:      []NodeSpec{{Name: "n", Wasm: wasm, Workload: true, Faults: true}},
		DurationNs: int64(20 * time.Second), LatencyNs: [2]int64{1e6, 1e6},
	}
	jump := []Fault{{Kind: faults.KindClockJump, Node: "n", At: Dur(2500 * time.Millisecond), Until: Dur(2500 * time.Millisecond), Delta: Dur(4 * time.Second)}}
	for _, tc := range []struct {
		name   string
		mutant string
		faults []Fault
		status Status
		hits   int
	}{
		{"jump without the mutant", "", jump, StatusPass, 0},
		{"monotonic_jump", core.MutantMonotonicJump, jump, StatusFail, 1},
		{"monotonic_jump with no jump", core.MutantMonotonicJump, []Fault{}, StatusPass, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := e.Run(spec, 1, Options{Faults: tc.faults, Mutant: tc.mutant})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tc.status || res.MutantHits != tc.hits {
				t.Fatalf("status %s (%s) with %d hits, want %s with %d", res.Status, res.Message, res.MutantHits, tc.status, tc.hits)
			}
			again, _ := e.Run(spec, 1, Options{Faults: tc.faults, Mutant: tc.mutant})
			if again.Hash != res.Hash {
				t.Error("a second run differs")
			}
		})
	}
	if _, err := e.Run(spec, 1, Options{Mutant: "nope"}); err == nil || !strings.Contains(err.Error(), `unknown mutant "nope"`) {
		t.Errorf("unknown mutant: %v", err)
	}
}
