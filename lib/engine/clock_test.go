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

// TestClockReadsInsideTheGuest: a guest with the clock rewrite answers its
// own clock reads, and its runs are the ones it had when every read was a
// host call (Options.HostClock): the same outcome, output, steps, host call
// count, hash, checkpoints and recorded calls, with a clock jump and a crash
// among the faults, and without and with preemption. The guest checks what
// it reads (testdata/guests/clockreads); one that traps after a few reads,
// without a host call, has them counted too.
func TestClockReadsInsideTheGuest(t *testing.T) {
	raw := buildRawGuest(t, "clockreads")
	e, err := New(testCache())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, tc := range []struct {
		preempt *Preempt
		args    []string
		status  Status
	}{{nil, nil, StatusPass}, {&Preempt{Loops: true}, nil, StatusPass}, {nil, []string{"trap"}, StatusFail}} {
		p := tc.preempt
		spec := &Spec{
			Nodes:      []NodeSpec{{Name: "n", Wasm: runnable(t, raw, p), Args: tc.args, Workload: true, Faults: true}},
			DurationNs: int64(20 * time.Second), LatencyNs: [2]int64{1e6, 1e6}, Preempt: p,
		}
		fs := []Fault{
			{Kind: faults.KindClockJump, Node: "n", At: Dur(40 * time.Millisecond), Until: Dur(40 * time.Millisecond), Delta: Dur(3 * time.Second)},
			{Kind: faults.KindCrash, Node: "n", At: Dur(100 * time.Millisecond), Until: Dur(150 * time.Millisecond)},
		}
		for _, sched := range [][]Fault{nil, fs} {
			before := core.GuestClockReads()
			opts := Options{Faults: sched, RecordCalls: [2]uint64{0, 1 << 20}}
			in, err := e.Run(spec, 1, opts)
			if err != nil {
				t.Fatal(err)
			}
			answered := core.GuestClockReads() - before
			opts.HostClock = true
			host, err := e.Run(spec, 1, opts)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("preempt %v, args %q, faults %v", p != nil, tc.args, sched != nil)
			if in.Status != tc.status || host.Status != tc.status {
				t.Fatalf("%s: %s (%s) and, with every read a host call, %s (%s); want both %s", name, in.Status, in.Message, host.Status, host.Message, tc.status)
			}
			if !slices.ContainsFunc(in.Trace, func(l string) bool { return strings.Contains(l, "clockreads: ok") }) {
				t.Fatalf("%s: the guest never said it was done; trace:\n%s", name, strings.Join(in.Trace, "\n"))
			}
			if answered < 1000 {
				t.Errorf("%s: the guest answered %d clock reads itself, want thousands", name, answered)
			}
			if in.Hash != host.Hash || in.HostCalls != host.HostCalls || in.Steps != host.Steps || in.AtNs != host.AtNs {
				t.Errorf("%s: hash %016x over %d calls, %d steps, at %d; with every read a host call %016x over %d, %d, at %d",
					name, in.Hash, in.HostCalls, in.Steps, in.AtNs, host.Hash, host.HostCalls, host.Steps, host.AtNs)
			}
			if !slices.Equal(in.Checkpoints, host.Checkpoints) || !slices.Equal(in.Calls, host.Calls) || !slices.Equal(in.Trace, host.Trace) {
				t.Errorf("%s: the checkpoints, recorded calls or traces differ (%d and %d calls recorded)", name, len(in.Calls), len(host.Calls))
			}
			if len(in.Calls) < 3000 || !slices.ContainsFunc(in.Calls, func(c string) bool { return strings.Contains(c, "clock_time_get") }) {
				t.Errorf("%s: %d calls recorded, want the guest's clock reads among thousands", name, len(in.Calls))
			}
		}
	}
}

// BenchmarkGuestClockReads reports what a clock read costs a guest that
// answers it itself (ns/read) and one whose every read is a host call
// (ns/read-host), from runs of testdata/guests/clockloop: a million reads,
// 100 between two sleeps. docs/perf.md has the figures.
func BenchmarkGuestClockReads(b *testing.B) {
	raw := buildRawGuest(b, "clockloop")
	e, err := New(testCache())
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	spec := &Spec{
		Nodes:      []NodeSpec{{Name: "n", Wasm: runnable(b, raw, nil), Workload: true}},
		DurationNs: int64(200 * time.Second), LatencyNs: [2]int64{1e6, 1e6},
	}
	const reads = 10000 * 50 * 2
	if _, err := e.Run(spec, 1, Options{}); err != nil { // compile outside the timing
		b.Fatal(err)
	}
	var took [2]time.Duration
	b.ResetTimer()
	for range b.N {
		for i, host := range []bool{false, true} {
			start := time.Now()
			res, err := e.Run(spec, 1, Options{HostClock: host})
			if err != nil || res.Status != StatusPass {
				b.Fatalf("clockloop: %v %v", err, res)
			}
			took[i] += time.Since(start)
		}
	}
	b.ReportMetric(float64(took[0].Nanoseconds())/float64(b.N*reads), "ns/read")
	b.ReportMetric(float64(took[1].Nanoseconds())/float64(b.N*reads), "ns/read-host")
}

// TestClockReadsAcrossForks: a guest copied by a fork and resumed answers
// its clock reads, or makes host calls for them, as the resumed run's
// options say, whatever the run it was copied from did: either way the
// resumed run ends as the run that was never forked.
func TestClockReadsAcrossForks(t *testing.T) {
	e, err := New(testCache())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	spec := &Spec{
		Nodes:      []NodeSpec{{Name: "n", Wasm: buildGuest(t, "clockreads"), Workload: true}},
		DurationNs: int64(20 * time.Second), LatencyNs: [2]int64{1e6, 1e6},
	}
	whole, err := e.Run(spec, 1, Options{})
	if err != nil || whole.Status != StatusPass {
		t.Fatalf("the run: %v %v", err, whole)
	}
	resumed := 0
	for _, from := range []bool{false, true} {
		_, err = e.Run(spec, 1, Options{HostClock: from, AtStep: func(s StepPoint) {
			if s.Step == 0 || s.Step%7 != 0 {
				return
			}
			f, err := s.Fork()
			if err != nil {
				t.Fatalf("step %d: %v", s.Step, err)
			}
			for _, to := range []bool{false, true} {
				res, err := e.Resume(f, Options{HostClock: to})
				if err != nil {
					t.Fatal(err)
				}
				resumed++
				if res.Hash != whole.Hash || res.HostCalls != whole.HostCalls || !slices.Equal(res.Trace, whole.Trace) {
					t.Errorf("copied at step %d from a run with every read a host call %v, resumed with %v: hash %x over %d calls; the whole run %x over %d",
						s.Step, from, to, res.Hash, res.HostCalls, whole.Hash, whole.HostCalls)
				}
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
	if resumed < 4 {
		t.Errorf("%d resumed runs, want a few from each kind of run", resumed)
	}
}
