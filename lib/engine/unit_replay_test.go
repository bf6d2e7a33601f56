package engine_test

// Tests of the replay options a fault schedule carries: Budget (sim.Budget's
// cap), StopAtNs (the schedule's duration) and Branches (re-keyed streams).
// They run testdata/propguests/ops, a workload of timed operations that
// prints one line per operation with a number from its random stream.

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/faults"
	"github.com/sf-dst/sf/lib/schedule"
)

// unitOpsSetup builds the ops guest for wasip1 and returns an engine to run
// it, or skips the test when there is no go toolchain.
func unitOpsSetup(t *testing.T) (*engine.Engine, string) {
	t.Helper()
	wasm := prepared(t, engine.BuildSharedForTest(t, "./testdata/propguests/ops", "-trimpath", "-buildvcs=false"))
	e, err := engine.New(engine.SharedCacheForTest())
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

// unitOpLine is one line an ops node printed: when, who, which operation
// and the number its random stream gave it.
type unitOpLine struct {
	at, node, op, value string
}

// unitOps returns the op lines of a trace in trace order.
func unitOps(trace []string) []unitOpLine {
	var out []unitOpLine
	for _, l := range trace {
		f := strings.Fields(l)
		if len(f) == 7 && f[2] == "op" {
			out = append(out, unitOpLine{f[0], f[1], f[3], f[6]})
		}
	}
	return out
}

// unitBefore returns the trace lines stamped before at ("0.500s").
func unitBefore(trace []string, at string) []string {
	var out []string
	for _, l := range trace {
		if strings.Fields(l)[0] < at { // same width: "0.xxxs"
			out = append(out, l)
		}
	}
	return out
}

func unitBranches(t *testing.T, e *engine.Engine, wasm string) {
	// Three nodes wake at the same instants every 10ms for 0.8s, so the
	// sched stream orders them at each instant, and each prints a number
	// from its random stream.
	args := []string{"-ops", "80", "-every", "10ms"}
	spec := unitOpsSpec(wasm, int64(10*time.Second), map[string][]string{"a": args, "b": args, "c": args})
	at := schedule.Dur(500 * time.Millisecond)
	plain := unitRun(t, e, spec, 4, engine.Options{})
	if plain.Status != engine.StatusPass {
		t.Fatalf("status %s (%s)", plain.Status, plain.Message)
	}
	branchLine := func(res *engine.Result) []string {
		var out []string
		for _, l := range res.Trace {
			if strings.Contains(l, "branch:") {
				out = append(out, strings.TrimSpace(l))
			}
		}
		return out
	}

	t.Run("redraw after branch", func(t *testing.T) {
		// Clock jumps are planned timed faults: a branch keeps them unless
		// RedrawAfterBranch, which keeps those before it and draws the rest
		// again; a replay of the faults that fired, with the branch, fires
		// the same ones.
		jumpy := *spec
		jumpy.Kinds = faults.Values{"clock_jump_per_sec": 10.0, "clock_jump_max": int64(time.Millisecond)}
		jumpy.Nodes = append([]engine.NodeSpec{}, spec.Nodes...)
		for i := range jumpy.Nodes {
			jumpy.Nodes[i].Faults = true
		}
		branch := []schedule.Branch{{At: at, Key: 9}}
		base := unitRun(t, e, &jumpy, 4, engine.Options{})
		kept := unitRun(t, e, &jumpy, 4, engine.Options{Branches: branch})
		redrawn := unitRun(t, e, &jumpy, 4, engine.Options{Branches: branch, RedrawAfterBranch: true})
		split := func(fs []engine.Fault) (before, after []engine.Fault) {
			for _, f := range fs {
				if f.At < at {
					before = append(before, f)
				} else {
					after = append(after, f)
				}
			}
			return
		}
		b0, a0 := split(base.Faults)
		b1, a1 := split(kept.Faults)
		b2, a2 := split(redrawn.Faults)
		if len(b0) == 0 || len(a0) == 0 {
			t.Fatalf("want clock jumps before and after the branch, got %d and %d", len(b0), len(a0))
		}
		if !reflect.DeepEqual(b0, b1) || !reflect.DeepEqual(a0, a1) {
			t.Errorf("a branch without RedrawAfterBranch moved a planned fault")
		}
		if !reflect.DeepEqual(b0, b2) {
			t.Errorf("RedrawAfterBranch moved a fault before the branch")
		}
		if len(a2) == 0 || reflect.DeepEqual(a0, a2) {
			t.Errorf("RedrawAfterBranch kept the faults after the branch: %v", a2)
		}
		hasText := func(lines []string, text string) bool {
			for _, l := range lines {
				if strings.Contains(l, text) {
					return true
				}
			}
			return false
		}
		if !hasText(redrawn.Trace, "branch: redrew the planned faults after 500ms (") {
			t.Errorf("no trace line says the faults were redrawn")
		}
		replay := unitRun(t, e, &jumpy, 4, engine.Options{Faults: redrawn.Faults, Branches: branch, RedrawAfterBranch: true})
		if !reflect.DeepEqual(replay.Faults, redrawn.Faults) || hasText(replay.Trace, "redrew") {
			t.Errorf("the replay of the redrawn run's faults fired other faults, or redrew a schedule's")
		}
	})

	t.Run("every stream", func(t *testing.T) {
		opts := engine.Options{Branches: []schedule.Branch{{At: at, Key: 9}}}
		res := unitRun(t, e, spec, 4, opts)
		again := unitRun(t, e, spec, 4, opts)
		if res.Hash != again.Hash || !reflect.DeepEqual(res.Trace, again.Trace) {
			t.Fatalf("same seed, same branch: hashes %#x and %#x", res.Hash, again.Hash)
		}
		if res.Hash == plain.Hash {
			t.Errorf("the branch changed nothing: hash %#x", res.Hash)
		}
		if got, want := branchLine(res), []string{"0.500s  branch: re-keyed every stream at 500ms (key 9)"}; !reflect.DeepEqual(got, want) {
			t.Errorf("branch lines %q, want %q", got, want)
		}
		if before, plainBefore := unitBefore(res.Trace, "0.500s"), unitBefore(plain.Trace, "0.500s"); !reflect.DeepEqual(before, plainBefore) || len(before) < 3*49 {
			t.Errorf("the trace before the branch differs from the unbranched run's (%d and %d lines)", len(before), len(plainBefore))
		}
		ops, plainOps := unitOps(res.Trace), unitOps(plain.Trace)
		if len(ops) != 240 || len(plainOps) != 240 {
			t.Fatalf("%d and %d op lines, want 240", len(ops), len(plainOps))
		}
		changed := 0
		for i := 3 * 49; i < 240; i++ {
			if ops[i].value != plainOps[i].value {
				changed++
			}
		}
		if changed < 80 {
			t.Errorf("only %d of the 93 operations after the branch drew other numbers", changed)
		}
		other := unitRun(t, e, spec, 4, engine.Options{Branches: []schedule.Branch{{At: at, Key: 10}}})
		if other.Hash == res.Hash {
			t.Errorf("keys 9 and 10 give the same run")
		}
	})

	t.Run("random only", func(t *testing.T) {
		res := unitRun(t, e, spec, 4, engine.Options{Branches: []schedule.Branch{{At: at, Key: 9, Stream: "random"}}})
		ops, plainOps := unitOps(res.Trace), unitOps(plain.Trace)
		if len(ops) != len(plainOps) {
			t.Fatalf("%d op lines, want %d", len(ops), len(plainOps))
		}
		for i := range ops {
			if ops[i].at != plainOps[i].at || ops[i].node != plainOps[i].node {
				t.Fatalf("op line %d: %s %s, unbranched %s %s: re-keying random moved the schedule", i, ops[i].at, ops[i].node, plainOps[i].at, plainOps[i].node)
			}
			if after := ops[i].at >= "0.500s"; after == (ops[i].value == plainOps[i].value) {
				t.Errorf("op line %d at %s: value %s, unbranched %s", i, ops[i].at, ops[i].value, plainOps[i].value)
			}
		}
	})

	t.Run("sched only", func(t *testing.T) {
		res := unitRun(t, e, spec, 4, engine.Options{Branches: []schedule.Branch{{At: at, Key: 9, Stream: "sched"}}})
		perNode := func(ops []unitOpLine) map[string][]string {
			m := map[string][]string{}
			for _, o := range ops {
				m[o.node] = append(m[o.node], o.at+" "+o.op+" "+o.value)
			}
			return m
		}
		ops, plainOps := unitOps(res.Trace), unitOps(plain.Trace)
		if !reflect.DeepEqual(perNode(ops), perNode(plainOps)) {
			t.Errorf("re-keying sched changed what some node drew from its random stream")
		}
		order := func(ops []unitOpLine) string {
			var b strings.Builder
			for _, o := range ops {
				b.WriteString(o.node)
			}
			return b.String()
		}
		if order(ops[:3*49]) != order(plainOps[:3*49]) {
			t.Errorf("the order before the branch changed")
		}
		if order(ops[3*49:]) == order(plainOps[3*49:]) {
			t.Errorf("the order after the branch is the unbranched one: sched was not re-keyed")
		}
	})

	t.Run("a stream this world never draws from", func(t *testing.T) {
		for _, stream := range []string{"net", "disk", "io", "udp", "disklatency", "mutant"} {
			res := unitRun(t, e, spec, 4, engine.Options{Branches: []schedule.Branch{{At: at, Key: 9, Stream: stream}}})
			if res.Hash != plain.Hash || !reflect.DeepEqual(unitOps(res.Trace), unitOps(plain.Trace)) {
				t.Errorf("re-keying %s changed a world without network, disk or faults", stream)
			}
			if got := branchLine(res); len(got) != 1 || !strings.Contains(got[0], "re-keyed "+stream+" at 500ms") {
				t.Errorf("branch lines %q", got)
			}
		}
	})

	t.Run("after the end", func(t *testing.T) {
		res := unitRun(t, e, spec, 4, engine.Options{Branches: []schedule.Branch{{At: schedule.Dur(5 * time.Second), Key: 9}}})
		if res.Hash != plain.Hash || !reflect.DeepEqual(res.Trace, plain.Trace) {
			t.Errorf("a branch after the run ended changed it")
		}
	})

	t.Run("two branches compose in order", func(t *testing.T) {
		two := []schedule.Branch{{At: schedule.Dur(300 * time.Millisecond), Key: 1}, {At: at, Key: 2, Stream: "random"}}
		res := unitRun(t, e, spec, 4, engine.Options{Branches: two})
		first := unitRun(t, e, spec, 4, engine.Options{Branches: two[:1]})
		if got := branchLine(res); len(got) != 2 || !strings.HasPrefix(got[0], "0.300s") || !strings.HasPrefix(got[1], "0.500s") {
			t.Errorf("branch lines %q", got)
		}
		if !reflect.DeepEqual(unitBefore(res.Trace, "0.500s"), unitBefore(first.Trace, "0.500s")) {
			t.Errorf("the second branch changed the run before its time")
		}
		// random_get is hashed by its length only, so the numbers show the
		// second branch where the hash cannot.
		if reflect.DeepEqual(unitOps(res.Trace), unitOps(first.Trace)) {
			t.Errorf("the second branch changed nothing")
		}
	})
}

// TestBranchBuggify: a branch re-keys when buggify sites fire, never which
// sites are enabled.
func TestBranchBuggify(t *testing.T) {
	wasm := prepared(t, engine.BuildSharedForTest(t, "./testdata/propguests/bugsites", "-trimpath", "-buildvcs=false"))
	e, err := engine.New(engine.SharedCacheForTest())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	spec := &engine.Spec{
		Nodes:      []engine.NodeSpec{{Name: "bugs", Wasm: wasm, Workload: true, Faults: true, Args: []string{"-hits", "60", "-after", "100ms"}}},
		DurationNs: int64(10 * time.Second), LatencyNs: [2]int64{1e6, 5e6}, WatchdogNs: int64(10 * time.Second),
		Kinds: faults.Values{"buggify": true},
	}
	enabled := func(res *engine.Result) (on []string, fired int) {
		for _, s := range res.Buggify {
			if s.Enabled {
				on = append(on, s.Site)
			}
			fired += s.Fired
		}
		return on, fired
	}
	branch := engine.Options{Branches: []schedule.Branch{{At: schedule.Dur(50 * time.Millisecond), Key: 9}}}
	tried := 0
	for seed := uint64(1); seed <= 200; seed++ {
		plain := unitRun(t, e, spec, seed, engine.Options{})
		on, fired := enabled(plain)
		res := unitRun(t, e, spec, seed, branch)
		onB, firedB := enabled(res)
		if !reflect.DeepEqual(on, onB) {
			t.Fatalf("seed %d: enabled sites %q, with a branch %q", seed, on, onB)
		}
		if fired == 0 && firedB == 0 {
			continue
		}
		tried++
		if reflect.DeepEqual(plain.Faults, res.Faults) {
			t.Errorf("seed %d: the branch left every firing where it was (%d firings)", seed, fired)
		}
		if tried == 3 {
			return
		}
	}
	t.Fatalf("only %d of 200 seeds enabled a site that fired", tried)
}
