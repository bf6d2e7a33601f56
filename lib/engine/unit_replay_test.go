package engine_test

// Tests of the replay options a fault schedule carries: Budget (sim.Budget's
// cap), StopAtNs (the schedule's duration) and Branches (re-keyed streams).
// They run testdata/propguests/ops, a workload of timed operations that
// prints one line per operation with a number from its random stream.

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/schedule"
)

// unitOpsSetup builds the ops guest for wasip1 and returns an engine to run
// it, or skips the test when there is no go toolchain.
func unitOpsSetup(t *testing.T) (*engine.Engine, string) {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain on PATH to build the guest")
	}
	dir := t.TempDir()
	wasm := filepath.Join(dir, "ops.wasm")
	cmd := exec.Command(goCmd, "build", "-trimpath", "-buildvcs=false", "-o", wasm, "./testdata/propguests/ops")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build of the ops guest: %v\n%s", err, out)
	}
	e, err := engine.New(filepath.Join(dir, "cache"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, wasm
}

// unitOpsSpec is a world of ops workloads, one per name, each with args.
func unitOpsSpec(wasm string, durationNs int64, nodes map[string][]string) *engine.Spec {
	spec := &engine.Spec{
		DurationNs: durationNs,
		LatencyNs:  [2]int64{1e6, 5e6},
		WatchdogNs: int64(10 * time.Second),
	}
	for _, name := range []string{"a", "b", "c", "client"} {
		if args, ok := nodes[name]; ok {
			spec.Nodes = append(spec.Nodes, engine.NodeSpec{Name: name, Wasm: wasm, Workload: true, Args: args})
		}
	}
	return spec
}

func unitRun(t *testing.T, e *engine.Engine, spec *engine.Spec, seed uint64, opts engine.Options) *engine.Result {
	t.Helper()
	res, err := e.Run(spec, seed, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestReplayOptions(t *testing.T) {
	e, wasm := unitOpsSetup(t)
	t.Run("budget", func(t *testing.T) { unitBudget(t, e, wasm) })
	t.Run("stop at", func(t *testing.T) { unitStopAt(t, e, wasm) })
	t.Run("branches", func(t *testing.T) { unitBranches(t, e, wasm) })
}

func unitBudget(t *testing.T, e *engine.Engine, wasm string) {
	spec := unitOpsSpec(wasm, int64(10*time.Second), map[string][]string{"client": {"-ops", "200", "-every", "1ms"}})

	t.Run("no cap", func(t *testing.T) {
		res := unitRun(t, e, spec, 1, engine.Options{})
		if res.Status != engine.StatusPass {
			t.Fatalf("status %s (%s)", res.Status, res.Message)
		}
		if res.BudgetAsked != 200 {
			t.Errorf("BudgetAsked = %d, want 200", res.BudgetAsked)
		}
		lines := unitGuestLines(res.Trace, "client#1")
		if last := lines[len(lines)-1]; !strings.HasSuffix(last, "done: 200 operations") {
			t.Errorf("last line of the client %q, want 200 operations done", last)
		}
		for _, l := range res.Trace {
			if strings.Contains(l, "capped") {
				t.Errorf("a run without a cap says %q", l)
			}
		}
	})

	t.Run("cap below n", func(t *testing.T) {
		res := unitRun(t, e, spec, 1, engine.Options{Budget: 63})
		if res.Status != engine.StatusPass {
			t.Fatalf("status %s (%s)", res.Status, res.Message)
		}
		if res.BudgetAsked != 200 {
			t.Errorf("BudgetAsked = %d, want 200 (what was asked, not what was given)", res.BudgetAsked)
		}
		want := "    0.000s  client#1: sim.Budget capped at 63 of 200 operations"
		if !containsLine(res.Trace, want) {
			t.Errorf("no trace line %q in\n%s", want, strings.Join(res.Trace, "\n"))
		}
		lines := unitGuestLines(res.Trace, "client#1")
		if n := len(lines); n < 2 || lines[n-1] != "0.063s done: 63 operations" || lines[n-2] != "0.063s op 63 of 63: "+strings.Fields(lines[n-2])[5] {
			t.Errorf("the capped client's last lines: %q", lines[max(0, len(lines)-2):])
		}
		uncapped := unitRun(t, e, spec, 1, engine.Options{})
		if res.Hash == uncapped.Hash {
			t.Errorf("the cap changed the run but not its hash %#x", res.Hash)
		}
		again := unitRun(t, e, spec, 1, engine.Options{Budget: 63})
		if again.Hash != res.Hash || !reflect.DeepEqual(again.Trace, res.Trace) {
			t.Errorf("the same capped run twice: hashes %#x and %#x", res.Hash, again.Hash)
		}
	})

	t.Run("cap above n", func(t *testing.T) {
		res := unitRun(t, e, spec, 1, engine.Options{Budget: 500})
		uncapped := unitRun(t, e, spec, 1, engine.Options{})
		if res.BudgetAsked != 200 || res.Hash != uncapped.Hash || !reflect.DeepEqual(res.Trace, uncapped.Trace) {
			t.Errorf("a cap above n changed the run: asked %d, hash %#x vs %#x", res.BudgetAsked, res.Hash, uncapped.Hash)
		}
	})

	t.Run("largest n of several nodes", func(t *testing.T) {
		spec := unitOpsSpec(wasm, int64(10*time.Second), map[string][]string{
			"a": {"-ops", "40", "-every", "1ms"}, "b": {"-ops", "90", "-every", "1ms"}, "c": {"-ops", "7", "-every", "1ms"},
		})
		res := unitRun(t, e, spec, 2, engine.Options{Budget: 10})
		if res.BudgetAsked != 90 {
			t.Errorf("BudgetAsked = %d, want 90", res.BudgetAsked)
		}
		var capped []string
		for _, l := range res.Trace {
			if strings.Contains(l, "sim.Budget capped") {
				capped = append(capped, strings.TrimSpace(l))
			}
		}
		sortStrings(capped)
		want := []string{
			"0.000s  a#1: sim.Budget capped at 10 of 40 operations",
			"0.000s  b#1: sim.Budget capped at 10 of 90 operations",
		}
		if !reflect.DeepEqual(capped, want) {
			t.Errorf("cap lines %q, want %q (c asked for 7, under the cap)", capped, want)
		}
	})

	t.Run("never called", func(t *testing.T) {
		e2, timers := unitTimersSetup(t)
		spec := &engine.Spec{
			Nodes:      []engine.NodeSpec{{Name: "t", Wasm: timers, Workload: true, Args: []string{"30ms"}}},
			DurationNs: int64(time.Second), LatencyNs: [2]int64{1e6, 5e6}, WatchdogNs: int64(10 * time.Second),
		}
		if res := unitRun(t, e2, spec, 1, engine.Options{Budget: 3}); res.BudgetAsked != 0 || res.Status != engine.StatusPass {
			t.Errorf("BudgetAsked = %d, status %s; want 0, pass", res.BudgetAsked, res.Status)
		}
	})
}

func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func unitStopAt(t *testing.T, e *engine.Engine, wasm string) {
	// 1,000 operations of 10ms would take 10s; the world allows 30s.
	spec := unitOpsSpec(wasm, int64(30*time.Second), map[string][]string{"client": {"-ops", "1000", "-every", "10ms"}})
	stop := int64(1900 * time.Millisecond)

	t.Run("cuts a long run short", func(t *testing.T) {
		res := unitRun(t, e, spec, 1, engine.Options{StopAtNs: stop})
		if res.Status != engine.StatusHorizon || !res.CutShort || res.AtNs != stop {
			t.Fatalf("status %s, cut short %v, at %d; want horizon, true, %d\n%s", res.Status, res.CutShort, res.AtNs, stop, strings.Join(res.Trace, "\n"))
		}
		lines := unitGuestLines(res.Trace, "client#1")
		// The operation due at exactly 1.9s still runs.
		if last := lines[len(lines)-1]; !strings.HasPrefix(last, "1.900s op 190 of 1000: ") {
			t.Errorf("the client's last line %q, want operation 190 at 1.900s", last)
		}
		want := "    1.900s  stop: reached the schedule's duration of 1.9s; the run ends here"
		if last := res.Trace[len(res.Trace)-1]; last != want {
			t.Errorf("last trace line %q, want %q", last, want)
		}
		for _, l := range res.Trace {
			if strings.Contains(l, "recovery") || strings.Contains(l, "hit the time horizon") {
				t.Errorf("a hard stop also says %q", l)
			}
		}
		full := unitRun(t, e, spec, 1, engine.Options{})
		if full.Status != engine.StatusPass || full.CutShort {
			t.Fatalf("the same run without a stop: status %s, cut short %v", full.Status, full.CutShort)
		}
		if n := len(res.Trace) - 1; !reflect.DeepEqual(res.Trace[:n], full.Trace[:n]) {
			t.Errorf("up to the stop, the cut run differs from the full one")
		}
	})

	t.Run("a failure before the stop is kept", func(t *testing.T) {
		spec := unitOpsSpec(wasm, int64(30*time.Second), map[string][]string{"client": {"-ops", "1000", "-every", "10ms", "-fail-at", "50"}})
		res := unitRun(t, e, spec, 1, engine.Options{StopAtNs: stop})
		plain := unitRun(t, e, spec, 1, engine.Options{})
		if res.Status != engine.StatusFail || res.CutShort || res.AtNs != int64(500*time.Millisecond) {
			t.Fatalf("status %s, cut short %v, at %d; want a failure at 0.5s", res.Status, res.CutShort, res.AtNs)
		}
		if res.Hash != plain.Hash || res.Message != plain.Message || !reflect.DeepEqual(res.Trace, plain.Trace) {
			t.Errorf("a stop after the failure changed the run: %q vs %q", res.Message, plain.Message)
		}
	})

	t.Run("a stop after the end changes nothing", func(t *testing.T) {
		short := unitOpsSpec(wasm, int64(30*time.Second), map[string][]string{"client": {"-ops", "20", "-every", "10ms"}})
		res := unitRun(t, e, short, 1, engine.Options{StopAtNs: stop})
		if res.Status != engine.StatusPass || res.CutShort || res.AtNs != int64(200*time.Millisecond) {
			t.Errorf("status %s, cut short %v, at %d; want a pass at 0.2s", res.Status, res.CutShort, res.AtNs)
		}
	})

	t.Run("the world's horizon before the stop", func(t *testing.T) {
		spec := unitOpsSpec(wasm, int64(time.Second), map[string][]string{"client": {"-ops", "1000", "-every", "10ms"}})
		res := unitRun(t, e, spec, 1, engine.Options{StopAtNs: stop})
		if res.Status != engine.StatusHorizon || res.CutShort || res.AtNs != int64(time.Second) {
			t.Errorf("status %s, cut short %v, at %d; want the plain horizon at 1s", res.Status, res.CutShort, res.AtNs)
		}
	})
}

func unitBranches(t *testing.T, e *engine.Engine, wasm string) {
	_ = schedule.Branch{}
}
