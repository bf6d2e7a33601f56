package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/engine/core"
	"github.com/sf-dst/sf/lib/faults"
)

// crashingGrower is a world whose node g, crashed eight times a second and
// restarted after 1 to 20 ms, takes a different amount of memory at each
// start, beside a sleeping workload, for duration.
func crashingGrower(t *testing.T, duration time.Duration) *Spec {
	return &Spec{
		Nodes: []NodeSpec{
			{Name: "g", Wasm: buildGuest(t, "grower"), Args: []string{"-n", "300"}, Faults: true},
			{Name: "w", Wasm: buildGuest(t, "sleeper"), Workload: true},
		},
		DurationNs: int64(duration), LatencyNs: [2]int64{1e6, 1e6}, Supervise: true,
		Kinds: faults.Values{"crash_per_sec": 8.0, "restart_after": [2]int64{1e6, 20e6}},
	}
}

// TestReusedInstancesRunAsFresh: a node crashed and restarted many times,
// taking a different amount of memory at each start, runs the same whether
// each start gets a fresh instance or the instance of an earlier start: the
// same hash, trace and faults, seed for seed. And instances are reused.
func TestReusedInstancesRunAsFresh(t *testing.T) {
	spec := crashingGrower(t, 3*time.Second)
	run := func(off bool) ([]*Result, int64) {
		t.Setenv(core.InstanceReuseEnv, map[bool]string{true: "off", false: ""}[off])
		e, err := New(testCache())
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		var out []*Result
		for seed := uint64(1); seed <= 3; seed++ {
			res, err := e.Run(spec, seed, Options{})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, res)
		}
		return out, e.Instances().Reused()
	}
	fresh, none := run(true)
	reused, n := run(false)
	if none != 0 {
		t.Errorf("with %s=off, %d instances were reused", core.InstanceReuseEnv, none)
	}
	starts := 0
	for i := range fresh {
		a, b := fresh[i], reused[i]
		for _, l := range a.Trace {
			if strings.Contains(l, "grower: start with") {
				starts++
			}
		}
		if a.Hash != b.Hash || a.Status != b.Status || !slices.Equal(a.Trace, b.Trace) || fmt.Sprint(a.Faults) != fmt.Sprint(b.Faults) {
			t.Errorf("seed %d: fresh instances %s, hash %x, %d trace lines, %d faults; reused %s, %x, %d, %d",
				i+1, a.Status, a.Hash, len(a.Trace), len(a.Faults), b.Status, b.Hash, len(b.Trace), len(b.Faults))
		}
	}
	if starts < 10 || n < int64(starts)/2 {
		t.Errorf("%d starts of the grower over the seeds, %d instances reused: want many of each", starts, n)
	}
}
