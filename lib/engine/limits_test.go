package engine

import (
	"strings"
	"testing"
	"time"
)

// limitRun runs seed 1 of a world of one workload, the guest name with
// args, under limits.
func limitRun(t *testing.T, name string, duration time.Duration, limits Limits, args ...string) *Result {
	t.Helper()
	e, err := New(testCache())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	spec := &Spec{
		Nodes:      []NodeSpec{{Name: "w", Wasm: buildGuest(t, name), Args: args, Workload: true}},
		DurationNs: int64(duration), LatencyNs: [2]int64{1e6, 1e6},
		WatchdogNs: int64(20 * time.Second), Limits: limits,
	}
	r, err := e.Run(spec, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestNanosecondSleepsReachTheHorizon: with the 50µs timer granularity a
// program that polls with time.Sleep(time.Nanosecond) reaches a 1s horizon
// in about 20,000 steps, not one step per nanosecond, and the same seed
// gives the same hash.
func TestNanosecondSleepsReachTheHorizon(t *testing.T) {
	r := limitRun(t, "nanosleep", time.Second, Limits{})
	if r.Status != StatusHorizon {
		t.Fatalf("status %s %s %q, want horizon", r.Status, r.Class, r.Message)
	}
	if r.Steps < 19_000 || r.Steps > 21_000 {
		t.Errorf("%d steps to a 1s horizon, want about 20,000 (one per 50µs)", r.Steps)
	}
	again := limitRun(t, "nanosleep", time.Second, Limits{})
	if again.Hash != r.Hash || again.Steps != r.Steps {
		t.Errorf("the same seed gave hash %x in %d steps, then %x in %d", r.Hash, r.Steps, again.Hash, again.Steps)
	}
}

// TestLimits: each limit ends a run that would otherwise go on for a very
// long time with class limit and a message naming the field to raise.
func TestLimits(t *testing.T) {
	for _, c := range []struct {
		name, guest string
		limits      Limits
		want        string
	}{
		{"steps", "nanosleep", Limits{StepsMax: 1000}, "limit: the run took 1000 scheduler steps and reached only 0.050s of virtual time (limits.steps)"},
		{"trace bytes", "chatter", Limits{TraceBytesMax: 64 << 10}, "limit: the trace passed 65536 bytes (limits.trace_bytes)"},
		{"fds", "fdleak", Limits{FDsMax: 64}, "limit: w#1 opened more than 64 descriptors at once (limits.fds)"},
		{"fds by default", "fdleak", Limits{}, "limit: w#1 opened more than 1024 descriptors at once (limits.fds)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := limitRun(t, c.guest, time.Hour, c.limits)
			if r.Status != StatusFail || r.Class != ClassLimit {
				t.Fatalf("status %s class %s %q, want a failure of class limit", r.Status, r.Class, r.Message)
			}
			if !strings.HasPrefix(r.Message, c.want) || !strings.Contains(r.Message, "in the world file") {
				t.Errorf("message %q, want it to start %q and say what to raise", r.Message, c.want)
			}
		})
	}
}
