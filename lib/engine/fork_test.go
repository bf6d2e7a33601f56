package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/faults"
)

// TestForkInsideFsyncLatency: a node that waits out an fsync's latency,
// from fd_sync or from a write with O_SYNC, is forked there and resumed
// there: the sync's faults and the write's result come after the wait, and
// the resumed run ends as the run that was never forked.
func TestForkInsideFsyncLatency(t *testing.T) {
	e, err := New(testCache())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	spec := &Spec{
		Nodes: []NodeSpec{
			{Name: "log", Wasm: buildGuest(t, "fsyncloop"), Args: []string{"-n", "20"}, Faults: true},
			{Name: "osync", Wasm: buildGuest(t, "osync"), Args: []string{"-n", "20", "-sleep", "1s"}, Workload: true},
		},
		DurationNs: int64(5 * time.Second), LatencyNs: [2]int64{1e6, 1e6},
		Disk:  DiskFaults{LatencyNs: [2]int64{1e6, 5e6}},
		Kinds: faults.Values{"lost_write": 0.2},
	}
	for _, n := range spec.Nodes {
		if _, err := e.Compile(n.Wasm); err != nil {
			t.Fatal(err)
		}
	}
	whole, err := e.Run(spec, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if whole.Status != StatusPass || len(whole.Faults) == 0 {
		t.Fatalf("the run %s: %s, with faults %v: want a pass after lost writes", whole.Status, whole.Message, whole.Faults)
	}
	seen := map[string]bool{}
	_, err = e.Run(spec, 1, Options{AtStep: func(s StepPoint) {
		f, err := s.Fork()
		if err != nil {
			t.Fatalf("step %d: %v", s.Step, err)
		}
		where := []string{f.ParkedIn("log"), f.ParkedIn("osync")}
		if !slices.Contains(where, "fd_sync") && !slices.Contains(where, "fd_write") {
			return
		}
		seen[where[0]], seen[where[1]] = true, true
		res, err := e.Resume(f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Hash != whole.Hash || !slices.Equal(res.Trace, whole.Trace) || fmt.Sprint(res.Faults) != fmt.Sprint(whole.Faults) {
			t.Errorf("resumed at step %d (log in %s, osync in %s): hash %x, %d trace lines, faults %v; the whole run %x, %d, %v",
				s.Step, where[0], where[1], res.Hash, len(res.Trace), res.Faults, whole.Hash, len(whole.Trace), whole.Faults)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !seen["fd_sync"] || !seen["fd_write"] {
		t.Errorf("no fork inside an fsync's latency from both fd_sync and fd_write: %v", seen)
	}
}

// TestForkRefusals: a fork that cannot be resumed is refused, with an error
// that names the node and says why: a node waiting at the end of a
// preemption time slice, or one whose module was not prepared for forking.
func TestForkRefusals(t *testing.T) {
	pre := &Preempt{Strategy: "none", Depth: 3, Steps: 1 << 20, Calls: 4096, Loops: true}
	raw := buildRawGuest(t, "sleeper")
	tests := []struct {
		name string
		spec *Spec
		want string
	}{
		{"end of a time slice", &Spec{
			Nodes: []NodeSpec{
				{Name: "spinner", Wasm: runnable(t, buildRawGuest(t, "spin"), pre)},
				{Name: "client", Wasm: runnable(t, buildRawGuest(t, "sleeper"), pre), Args: []string{"-for", "100ms", "-step", "20ms"}, Workload: true},
			},
			Preempt: pre,
		}, "spinner#1: it is parked at the end of a preemption time slice"},
		{"a module not prepared", &Spec{
			Nodes: []NodeSpec{{Name: "sleeper", Wasm: raw, Args: []string{"-for", "100ms", "-step", "20ms"}, Workload: true}},
		}, "sleeper#1: " + raw + ": the module was not prepared for forking"},
	}
	e, err := New(testCache())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.spec.DurationNs, tt.spec.LatencyNs, tt.spec.WatchdogNs = int64(10*time.Second), [2]int64{1e6, 1e6}, int64(20*time.Second)
			var refusal error
			res, err := e.Run(tt.spec, 1, Options{AtStep: func(s StepPoint) {
				if refusal == nil && s.Step >= 2 {
					_, refusal = s.Fork()
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != StatusPass {
				t.Fatalf("the run %s: %s", res.Status, res.Message)
			}
			if refusal == nil || !strings.Contains(refusal.Error(), tt.want) {
				t.Errorf("fork error %v, want one with %q", refusal, tt.want)
			}
		})
	}
}
