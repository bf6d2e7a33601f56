package main

// Scenario tests for the rest of the world file, run by the real sf-run on
// the guests of lib/engine/testdata/propguests: liveness mode and its
// recovery phase, finally checks, several workloads, faults on the workload
// (include_workload and per-program "faults"), clock skew and clock jumps,
// swarm testing, and -profile and -set. The helpers are in props_test.go.

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/clitest"
)

// replayOne replays seed 1 (or the given seed) of a world with -json and
// returns the seed record and the trace.
func replayOne(t *testing.T, dir, cfg string, args ...string) (pgRun, map[string]any, string) {
	t.Helper()
	hasSeed := false
	for _, a := range args {
		hasSeed = hasSeed || a == "-seed"
	}
	if !hasSeed {
		args = append(args, "-seed", "1")
	}
	r := pgSweep(t, dir, cfg, args...)
	if len(r.seeds) != 1 {
		t.Fatalf("want one seed record\n%s", r.result)
	}
	return r, r.seeds[0], traceSection(t, r.report)
}

// firstTraceLine returns the first trace line that contains s, or "".
func firstTraceLine(trace, s string) string {
	for _, l := range strings.Split(trace, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// wantTraceLine checks that the trace has the line `TIME  text` exactly.
func wantTraceLine(t *testing.T, trace, at, text string) {
	t.Helper()
	want := fmt.Sprintf("%10s  %s", at, text)
	for _, l := range strings.Split(trace, "\n") {
		if l == want {
			return
		}
	}
	t.Errorf("the trace lacks the line %q\ntrace:\n%s", want, trace)
}

// wantSeed checks a seed record's status, class, node and message ("" for
// the fields that a passing seed leaves out).
func wantSeed(t *testing.T, rec map[string]any, status, class, node, message string) {
	t.Helper()
	get := func(k string) string { s, _ := rec[k].(string); return s }
	if get("status") != status || get("class") != class || get("node") != node || get("message") != message {
		t.Errorf("seed %v: status %q, class %q, node %q, message %q; want %q, %q, %q, %q",
			rec["seed"], get("status"), get("class"), get("node"), get("message"), status, class, node, message)
	}
}

func wantAt(t *testing.T, rec map[string]any, at time.Duration) {
	t.Helper()
	if rec["at_ns"] != float64(at) {
		t.Errorf("seed %v ended at %v ns, want %s", rec["seed"], rec["at_ns"], at)
	}
}

// recoveryText is the recovery line of the trace.
func recoveryText(why string, restarting int, by string) string {
	return fmt.Sprintf("recovery: %s; faults stop, partitions, clogs, slowdowns and pauses end, %d crashed nodes restart now, everything must finish by %s", why, restarting, by)
}

// TestLivenessStuckWorkload: a workload that never finishes passes without
// liveness mode (it only hits the time horizon) and fails with class
// liveness once the recovery phase is over, with the message and trace the
// spec shows. One that finishes within the recovery phase passes.
func TestLivenessStuckWorkload(t *testing.T) {
	t.Parallel()
	dir := pgDir(t)
	stuck := pgProg("client", "worker", "-for", "-1s")
	live := pgWorld(t, dir, "stuck.json", map[string]any{"workload": stuck, "duration": "2s", "liveness": map[string]any{"within": "1s"}})
	const msg = "liveness: client did not finish within 1s of the recovery phase starting at 2.000s"

	r, rec, trace := replayOne(t, dir, live)
	r.WantExit(t, 1)
	wantSeed(t, rec, "fail", "liveness", "client", msg)
	wantAt(t, rec, 3*time.Second)
	wantTraceLine(t, trace, "2.000s", recoveryText("the fault period ended", 0, "3.000s"))
	wantTraceLine(t, trace, "3.000s", "FAIL  "+msg)
	if !strings.Contains(r.report, "FAIL seed 1 at t=3s (") || !strings.Contains(r.report, "\n  "+msg+"\n") {
		t.Errorf("the report does not lead with the liveness failure\n%s", r.result)
	}

	sweep := pgSweep(t, dir, live, "-seeds", "1-3")
	sweep.WantExit(t, 1)
	for _, s := range sweep.seeds {
		wantSeed(t, s, "fail", "liveness", "client", msg)
	}

	// Without liveness mode the same workload only hits the time horizon.
	plain := pgWorld(t, dir, "stuck-plain.json", map[string]any{"workload": stuck, "duration": "2s"})
	r, rec, trace = replayOne(t, dir, plain)
	r.WantExit(t, 0)
	wantSeed(t, rec, "horizon", "", "", "")
	if l := firstTraceLine(trace, "recovery:"); l != "" {
		t.Errorf("no liveness mode, yet the trace has %q", l)
	}

	// A workload that finishes in the recovery phase passes.
	late := pgWorld(t, dir, "late.json", map[string]any{"workload": pgProg("client", "worker", "-for", "2500ms"), "duration": "2s", "liveness": map[string]any{"within": "1s"}})
	r, rec, trace = replayOne(t, dir, late)
	r.WantExit(t, 0)
	wantSeed(t, rec, "pass", "", "", "")
	wantAt(t, rec, 2500*time.Millisecond)
	wantTraceLine(t, trace, "2.000s", recoveryText("the fault period ended", 0, "3.000s"))
}

var crashLineRE = regexp.MustCompile(`(?m)^\s*(\S+)  fault crash (\S+), restart at (\S+)s$`)

// TestRecoveryRestartsCrashedNodes: a node crashed with a long downtime
// restarts the moment the recovery phase starts, whether the fault period
// ended (liveness) or every workload exited 0 (finally); without either it
// stays down.
func TestRecoveryRestartsCrashedNodes(t *testing.T) {
	t.Parallel()
	dir := pgDir(t)
	faults := map[string]any{"crash_per_sec": 5, "restart_after": []string{"20s", "20s"}}
	server := pgProg("server", "worker", "-for", "-1s")
	for _, tc := range []struct {
		name       string
		world      map[string]any
		recoveryAt string // "" when there is no recovery phase
		why, by    string
		end        time.Duration
	}{
		{"liveness", map[string]any{"nodes": []any{server}, "workload": pgProg("client", "worker", "-for", "3s"),
			"duration": "2s", "liveness": map[string]any{"within": "2s"}, "faults": faults},
			"2.000s", "the fault period ended", "4.000s", 3 * time.Second},
		{"finally", map[string]any{"nodes": []any{server}, "workload": pgProg("client", "worker", "-for", "1s"),
			"finally": pgProg("check", "finalcheck"), "duration": "5s", "faults": faults},
			"1.000s", "every workload exited 0", "6.000s", time.Second},
		{"neither", map[string]any{"nodes": []any{server}, "workload": pgProg("client", "worker", "-for", "3s"),
			"duration": "5s", "faults": faults},
			"", "", "", 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := pgWorld(t, dir, "restart-"+tc.name+".json", tc.world)
			r, rec, trace := replayOne(t, dir, cfg)
			r.WantExit(t, 0)
			wantSeed(t, rec, "pass", "", "", "")
			wantAt(t, rec, tc.end)
			crashes := crashLineRE.FindAllStringSubmatch(trace, -1)
			if len(crashes) != 1 || crashes[0][2] != "server#1" {
				t.Fatalf("want one crash of server#1 (rate 5/s, then down 20s), got %q\ntrace:\n%s", crashes, trace)
			}
			if at, _ := strconv.ParseFloat(strings.TrimSuffix(crashes[0][1], "s"), 64); at >= 1 {
				t.Fatalf("the crash came at %ss, after the recovery phase would start; pick another seed\ntrace:\n%s", crashes[0][1], trace)
			}
			if tc.recoveryAt == "" {
				if l := firstTraceLine(trace, "recovery:") + firstTraceLine(trace, "restart server#2"); l != "" {
					t.Errorf("no recovery phase, yet the trace has %q", l)
				}
				return
			}
			wantTraceLine(t, trace, tc.recoveryAt, recoveryText(tc.why, 1, tc.by))
			wantTraceLine(t, trace, tc.recoveryAt, "restart server#2")
			if tc.name == "finally" {
				// The check starts after the recovery phase has restarted
				// the crashed nodes, so that it sees every node.
				restart := strings.Index(trace, "restart server#2")
				check := strings.Index(trace, "check#1: finalcheck: started")
				if restart < 0 || check < 0 || check < restart {
					t.Errorf("the finally check started before the crashed server was restarted\ntrace:\n%s", trace)
				}
				return
			}
			wantTraceLine(t, trace, tc.recoveryAt, "server#2: worker: server started")
		})
	}
}

// TestFinally: the finally program starts once the workload has exited 0,
// never before and never after a failed workload; its failing Always fails
// the seed; with liveness it must finish in time too.
func TestFinally(t *testing.T) {
	dir := pgDir(t)
	for _, tc := range []struct {
		name                     string
		client, check            []string
		liveness                 bool
		code                     int
		status, class, node, msg string
		finallyStarts            bool
	}{
		{"passes", nil, nil, false, 0, "pass", "", "", "", true},
		{"its Always fails", nil, []string{"-ok=false"}, false, 1, "fail", "assert", "check#1", "check#1: the end state is consistent", true},
		{"workload fails", []string{"-exit", "1"}, nil, false, 1, "fail", "exit", "client#1", "client#1 exited with status 1", false},
		{"hangs with liveness", nil, []string{"-hang"}, true, 1, "fail", "liveness", "check", "liveness: check did not finish within 2s of the recovery phase starting at 1.000s", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := map[string]any{"workload": pgProg("client", "worker", tc.client...), "finally": pgProg("check", "finalcheck", tc.check...), "duration": "5s"}
			if tc.liveness {
				w["liveness"] = map[string]any{"within": "2s"}
			}
			cfg := pgWorld(t, dir, "finally-"+strings.ReplaceAll(tc.name, " ", "-")+".json", w)
			r, rec, trace := replayOne(t, dir, cfg)
			r.WantExit(t, tc.code)
			wantSeed(t, rec, tc.status, tc.class, tc.node, tc.msg)
			started := firstTraceLine(trace, "check#1: finalcheck: started")
			if !tc.finallyStarts {
				if started != "" || strings.Contains(trace, "check#") {
					t.Errorf("the workload failed, yet the finally check ran\ntrace:\n%s", trace)
				}
				return
			}
			at1 := fmt.Sprintf("%10s  ", "1.000s")
			exited := strings.Index(trace, at1+"client#1 exited 0\n")
			recovery := strings.Index(trace, at1+recoveryText("every workload exited 0", 0, map[bool]string{false: "6.000s", true: "3.000s"}[tc.liveness])+"\n")
			start := strings.Index(trace, at1+"check#1: finalcheck: started\n")
			if exited < 0 || recovery < 0 || start < 0 || !(exited < recovery && recovery < start) {
				t.Errorf("want, at 1.000s and in this order, `client#1 exited 0`, the recovery line and `check#1: finalcheck: started`\ntrace:\n%s", trace)
			}
		})
	}
}

// TestSeveralWorkloads: with workloads[] the run passes only once every
// workload has exited 0; one that fails fails the run, one that never
// finishes fails liveness mode, and the finally check waits for the last.
func TestSeveralWorkloads(t *testing.T) {
	dir := pgDir(t)
	w1 := pgProg("w1", "worker", "-for", "1s")
	for _, tc := range []struct {
		name                     string
		w2                       []string
		finally, liveness        bool
		code                     int
		status, class, node, msg string
		end                      time.Duration
	}{
		{"both exit 0", []string{"-for", "2s"}, false, false, 0, "pass", "", "", "", 2 * time.Second},
		{"the second exits 1", []string{"-for", "2s", "-exit", "1"}, false, false, 1, "fail", "exit", "w2#1", "w2#1 exited with status 1", 2 * time.Second},
		{"the second never ends", []string{"-for", "-1s"}, false, true, 1, "fail", "liveness", "w2", "liveness: w2 did not finish within 1s of the recovery phase starting at 3.000s", 4 * time.Second},
		{"finally waits for both", []string{"-for", "2s"}, true, false, 0, "pass", "", "", "", 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := map[string]any{"workloads": []any{w1, pgProg("w2", "worker", tc.w2...)}, "duration": "3s"}
			if tc.finally {
				w["finally"] = pgProg("check", "finalcheck")
			}
			if tc.liveness {
				w["liveness"] = map[string]any{"within": "1s"}
			}
			cfg := pgWorld(t, dir, "workloads-"+strings.ReplaceAll(tc.name, " ", "-")+".json", w)
			r, rec, trace := replayOne(t, dir, cfg)
			r.WantExit(t, tc.code)
			wantSeed(t, rec, tc.status, tc.class, tc.node, tc.msg)
			wantAt(t, rec, tc.end)
			wantTraceLine(t, trace, "1.000s", "w1#1 exited 0")
			if tc.finally {
				wantTraceLine(t, trace, "2.000s", "check#1: finalcheck: started")
				if l := firstTraceLine(trace, "check#1"); !strings.HasPrefix(l, fmt.Sprintf("%10s  ", "2.000s")) {
					t.Errorf("the finally check's first line is %q, want it at 2.000s, after w2 exits", l)
				}
			}
		})
	}
}

// TestWorkloadFaults: with include_workload the workload is crashed like a
// node and restarts as client#2 with its disk as the crash left it: the
// file it wrote and fsynced is there. Without it, or with the workload's own
// "faults": false, it is never crashed; its "faults": true alone gives it
// the node faults.
func TestWorkloadFaults(t *testing.T) {
	t.Parallel()
	dir := pgDir(t)
	const found = "a restarted workload found its fsynced file"
	for _, tc := range []struct {
		name    string
		include bool
		own     *bool
		crashed bool
	}{
		{"include_workload", true, nil, true},
		{"default", false, nil, false},
		{"own faults true", false, boolPtr(true), true},
		{"own faults false", true, boolPtr(false), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := pgProg("client", "durable", "-wait", "5s")
			if tc.own != nil {
				client["faults"] = *tc.own
			}
			faults := map[string]any{"crash_per_sec": 1, "restart_after": []string{"100ms", "200ms"}}
			if tc.include {
				faults["include_workload"] = true
			}
			cfg := pgWorld(t, dir, "wl-"+strings.ReplaceAll(tc.name, " ", "-")+".json", map[string]any{"workload": client, "duration": "10s", "faults": faults})
			r := pgSweep(t, dir, cfg, "-seeds", "1-8")
			row := r.prop(t, found)
			if !tc.crashed {
				r.WantExit(t, 1) // the Sometimes is never true
				for _, s := range r.seeds {
					if s["status"] != "pass" || s["faults"] != float64(0) {
						t.Errorf("seed %v: status %v (%v), %v faults; want a pass without faults", s["seed"], s["status"], s["message"], s["faults"])
					}
				}
				if row.SeedsTrue != 0 || row.Verdict != "never true" {
					t.Errorf("row %+v: the workload was never crashed, so want never true", row)
				}
				return
			}
			r.WantExit(t, 0)
			var crashed string
			for _, s := range r.seeds {
				if s["status"] != "pass" {
					t.Errorf("seed %v: status %v (%v), want pass", s["seed"], s["status"], s["message"])
				}
				if s["faults"] != float64(0) && crashed == "" {
					crashed = fmt.Sprint(s["seed"])
				}
			}
			if row.SeedsTrue == 0 || crashed == "" {
				t.Fatalf("no seed of 8 crashed the workload (row %+v)\n%s", row, r.result)
			}
			if same := r.prop(t, "the fsynced file survived the crash"); same.SeedsReached != row.SeedsTrue || same.SeedsTrue != same.SeedsReached {
				t.Errorf("row %+v: every restarted workload should have found the file intact", same)
			}

			rr, rec, trace := replayOne(t, dir, cfg, "-seed", crashed)
			rr.WantExit(t, 0)
			wantSeed(t, rec, "pass", "", "", "")
			m := crashLineRE.FindStringSubmatch(trace)
			if m == nil || m[2] != "client#1" {
				t.Fatalf("seed %s: no crash of client#1 in the trace\n%s", crashed, trace)
			}
			restartAt := fmt.Sprintf("%ss", m[3])
			wantTraceLine(t, trace, restartAt, "restart client#2")
			wantTraceLine(t, trace, restartAt, `client#2: durable: found progress "written and fsynced by the first incarnation\n"`)
			wantTraceLine(t, trace, restartAt, "client#2 exited 0")
		})
	}
}

func boolPtr(v bool) *bool { return &v }

// clockReading is one line of the clocks guest.
type clockReading struct {
	at                string
	wall, mono, since int64
}

var clockRE = regexp.MustCompile(`(?m)^\s*(\S+)  (\w+)#\d+: clocks: (\w+) wall=(-?\d+) mono=(\d+) since=(\d+)$`)

// clockReadings returns each program's readings in a trace, in order.
func clockReadings(t *testing.T, trace string) map[string][]clockReading {
	t.Helper()
	out := map[string][]clockReading{}
	for _, m := range clockRE.FindAllStringSubmatch(trace, -1) {
		if m[2] != m[3] {
			t.Fatalf("instance %s reports node %s", m[2], m[3])
		}
		var v [3]int64
		for i := range v {
			n, err := strconv.ParseInt(m[4+i], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			v[i] = n
		}
		out[m[2]] = append(out[m[2]], clockReading{m[1], v[0], v[1], v[2]})
	}
	return out
}

// simEpochNs is the simulated wall clock at virtual time 0 (without skew).
const simEpochNs = 1_700_000_000 * int64(time.Second)

// TestClockSkew: with clock_skew each node's wall clock is off by a seeded
// constant within the bound, while the monotonic clocks of every node agree
// and time.Since follows them. The workload takes no skew. The same seed
// gives the same skews; other seeds give others.
func TestClockSkew(t *testing.T) {
	t.Parallel()
	dir := pgDir(t)
	const bound = 500 * time.Millisecond
	cfg := pgWorld(t, dir, "skew.json", map[string]any{
		"nodes":    []any{pgProg("a", "clocks"), pgProg("b", "clocks")},
		"workload": pgProg("client", "clocks", "-for", "1500ms", "-fail"),
		"duration": "5s",
		"faults":   map[string]any{"clock_skew": bound.String()},
	})
	r := pgSweep(t, dir, cfg, "-seeds", "1-6")
	r.WantExit(t, 1) // the client fails at the end, to keep every trace
	skews := func(trace string) (a, b int64) {
		t.Helper()
		rd := clockReadings(t, trace)
		if len(rd["a"]) != 5 || len(rd["b"]) != 5 || len(rd["client"]) != 7 {
			t.Fatalf("want 5 readings of a and b and 7 of client, got %d, %d, %d\n%s", len(rd["a"]), len(rd["b"]), len(rd["client"]), trace)
		}
		offset := map[string]int64{}
		for name, rs := range rd {
			for k, x := range rs {
				if k == 0 {
					offset[name] = x.wall - x.mono
				} else if x.wall-x.mono != offset[name] {
					t.Errorf("%s at %s: wall - monotonic moved from %d to %d: the skew is not constant", name, x.at, offset[name], x.wall-x.mono)
				}
				if x.since != x.mono-rs[0].mono {
					t.Errorf("%s at %s: time.Since says %d, the monotonic clock moved %d", name, x.at, x.since, x.mono-rs[0].mono)
				}
				if c := rd["client"][k]; x.mono != c.mono || x.at != c.at {
					t.Errorf("reading %d: %s's monotonic clock reads %d at %s, client's %d at %s", k, name, x.mono, x.at, c.mono, c.at)
				}
			}
		}
		if d := offset["client"] - simEpochNs; d < -int64(time.Millisecond) || d > int64(time.Millisecond) {
			t.Errorf("the workload's wall clock is %s off the epoch: it takes no clock skew", time.Duration(d))
		}
		for _, n := range []string{"a", "b"} {
			if s := offset[n] - offset["client"]; s < -int64(bound) || s > int64(bound) {
				t.Errorf("node %s is skewed by %s, beyond clock_skew %s", n, time.Duration(s), bound)
			}
		}
		return offset["a"] - offset["client"], offset["b"] - offset["client"]
	}
	seen := map[int64]bool{}
	var seed2 [2]int64
	for s := 1; s <= 6; s++ {
		a, b := skews(clitest.ReadFile(t, artifact(t, dir, fmt.Sprintf("seed-%d.trace.log", s))))
		if a == b {
			t.Errorf("seed %d: a and b have the same skew %s", s, time.Duration(a))
		}
		seen[a] = true
		if s == 2 {
			seed2 = [2]int64{a, b}
		}
	}
	if len(seen) < 2 {
		t.Errorf("node a has the same skew in every seed: %v", seen)
	}
	_, _, trace := replayOne(t, dir, cfg, "-seed", "2")
	if a, b := skews(trace); [2]int64{a, b} != seed2 {
		t.Errorf("seed 2 replayed has skews %s and %s, in the sweep %s and %s", time.Duration(a), time.Duration(b), time.Duration(seed2[0]), time.Duration(seed2[1]))
	}
	_, _, trace = replayOne(t, dir, cfg, "-seed", "2", "-set", "faults.clock_skew=0s")
	if a, b := skews(trace); a != 0 || b != 0 {
		t.Errorf("clock_skew 0: skews %s and %s, want none", time.Duration(a), time.Duration(b))
	}
}

var jumpTraceRE = regexp.MustCompile(`(?m)^\s*\S+  fault clock jump (\S+) by (\S+)$`)

// TestClockJumps: clock_jump_per_sec records clock_jump faults in the
// schedule and the trace; each moves the node's time.Now by its delta and
// leaves the monotonic clock, and so time.Since, alone. The workload takes
// no jumps.
func TestClockJumps(t *testing.T) {
	t.Parallel()
	dir := pgDir(t)
	const maxJump = 3 * time.Second
	cfg := pgWorld(t, dir, "jumps.json", map[string]any{
		"nodes":    []any{pgProg("a", "clocks", "-for", "4s", "-every", "100ms")},
		"workload": pgProg("client", "clocks", "-for", "4500ms", "-every", "500ms", "-fail"),
		"duration": "10s",
		"faults":   map[string]any{"clock_jump_per_sec": 2, "clock_jump_max": maxJump.String()},
	})
	r := pgSweep(t, dir, cfg, "-seeds", "1-3")
	r.WantExit(t, 1)
	total := 0
	for s := 1; s <= 3; s++ {
		sched := readFaultSchedule(t, artifact(t, dir, fmt.Sprintf("seed-%d.faults.json", s)))
		type jump struct{ at, delta time.Duration }
		var jumps []jump
		for i, f := range sched.Faults {
			if f["kind"] != "clock_jump" {
				t.Errorf("seed %d: faults[%d] is %v, want only clock jumps", s, i, f)
				continue
			}
			at, err1 := time.ParseDuration(fmt.Sprint(f["at"]))
			delta, err2 := time.ParseDuration(fmt.Sprint(f["delta"]))
			if err1 != nil || err2 != nil || f["node"] != "a" || delta == 0 || delta < -maxJump || delta > maxJump {
				t.Errorf("seed %d: faults[%d] = %v, want a clock_jump of a with a delta within ±%s", s, i, f, maxJump)
			}
			jumps = append(jumps, jump{at, delta})
		}
		total += len(jumps)
		trace := clitest.ReadFile(t, artifact(t, dir, fmt.Sprintf("seed-%d.trace.log", s)))
		if got := jumpTraceRE.FindAllStringSubmatch(trace, -1); len(got) != len(jumps) {
			t.Errorf("seed %d: %d clock jumps in the trace, %d in the schedule", s, len(got), len(jumps))
		}
		rd := clockReadings(t, trace)
		a := rd["a"]
		if len(a) != 41 {
			t.Fatalf("seed %d: %d readings of a, want 41", s, len(a))
		}
		for _, x := range a {
			virtual := time.Duration(x.mono - a[0].mono)
			var want time.Duration
			for _, j := range jumps {
				if j.at <= virtual {
					want += j.delta
				}
			}
			if moved := time.Duration((x.wall - a[0].wall) - (x.mono - a[0].mono)); moved != want {
				t.Errorf("seed %d at %s: a's wall clock moved %s beyond its monotonic clock, want the sum of the jumps so far, %s", s, x.at, moved, want)
			}
			if x.since != x.mono-a[0].mono {
				t.Errorf("seed %d at %s: time.Since says %s, the monotonic clock moved %s: a jump moved it", s, x.at, time.Duration(x.since), virtual)
			}
		}
		for _, x := range rd["client"] {
			if x.wall-x.mono != rd["client"][0].wall-rd["client"][0].mono {
				t.Errorf("seed %d at %s: the workload's wall clock jumped", s, x.at)
			}
		}
	}
	if total == 0 {
		t.Fatalf("no clock jump in 3 seeds at 2 per second")
	}
}

var (
	swarmRE     = regexp.MustCompile(`(?m)^\s*0\.000s  swarm: (.*)$`)
	swarmTypeRE = regexp.MustCompile(`^([a-z_]+) (off|x\d+\.\d\d)$`)
)

// swarmTypes parses a swarm line's list, "crash x1.17, clock_jump off, ...",
// into the setting of each fault type.
func swarmTypes(t *testing.T, list string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, part := range strings.Split(list, ", ") {
		m := swarmTypeRE.FindStringSubmatch(part)
		if m == nil {
			t.Fatalf("swarm entry %q is not `TYPE off` or `TYPE xF.FF`", part)
		}
		out[m[1]] = m[2]
	}
	return out
}

// TestSwarm: with swarm each seed turns each fault type on or off, says so
// in a swarm: trace line, and draws only the faults of the types that are
// on. The line is a function of the seed: a replay prints it again, and the
// seeds differ.
func TestSwarm(t *testing.T) {
	t.Parallel()
	dir := pgDir(t)
	const seeds = 12
	cfg := pgWorld(t, dir, "swarm.json", map[string]any{
		"nodes":    []any{pgProg("a", "worker", "-for", "-1s")},
		"workload": pgProg("client", "bugsites", "-hits", "20", "-p", "1", "-then", "3s", "-fail"),
		"duration": "5s",
		"faults":   map[string]any{"crash_per_sec": 2, "clock_jump_per_sec": 2, "buggify": true, "swarm": true},
	})
	r := pgSweep(t, dir, cfg, "-seeds", fmt.Sprintf("1-%d", seeds))
	r.WantExit(t, 1)
	types := []string{"crash", "clock_jump", "buggify"}
	off, on := map[string]int{}, map[string]int{}
	lines := map[string]bool{}
	swarmLine := map[int]string{}
	for s := 1; s <= seeds; s++ {
		trace := clitest.ReadFile(t, artifact(t, dir, fmt.Sprintf("seed-%d.trace.log", s)))
		m := swarmRE.FindStringSubmatch(trace)
		if m == nil {
			t.Fatalf("seed %d: no line like `0.000s  swarm: crash x1.17, clock_jump off, buggify x0.80`\n%s", s, clitest.Tail(trace, 20))
		}
		swarmLine[s] = m[0]
		lines[m[0]] = true
		set := swarmTypes(t, m[1])
		kinds := map[string]int{}
		for _, f := range readFaultSchedule(t, artifact(t, dir, fmt.Sprintf("seed-%d.faults.json", s))).Faults {
			kinds[f["kind"].(string)]++
		}
		for _, typ := range types {
			v, ok := set[typ]
			if !ok {
				t.Fatalf("seed %d: the swarm line does not set %s: %s", s, typ, m[0])
			}
			if v == "off" {
				off[typ]++
				if kinds[typ] > 0 {
					t.Errorf("seed %d: %s is off (%s), yet the faultSchedule has %d of them", s, typ, strings.TrimSpace(m[0]), kinds[typ])
				}
				continue
			}
			on[typ]++
			if f, _ := strconv.ParseFloat(v[1:], 64); f <= 0 || f > 2 {
				t.Errorf("seed %d: %s rate factor %s, want it in (0, 2]", s, typ, v)
			}
		}
		reached := strings.Contains(trace, `buggify "plain site" first reached by client#1`)
		if buggifyOn := set["buggify"] != "off"; reached != buggifyOn {
			t.Errorf("seed %d: buggify %s, yet the trace shows the first-reached line: %v", s, set["buggify"], reached)
		}
	}
	for _, typ := range types {
		if off[typ] == 0 || on[typ] == 0 {
			t.Errorf("%s is off in %d and on in %d of %d seeds: swarm should vary it", typ, off[typ], on[typ], seeds)
		}
	}
	if len(lines) < seeds/2 {
		t.Errorf("only %d different swarm lines in %d seeds", len(lines), seeds)
	}
	for _, s := range []int{3, 7} {
		_, _, trace := replayOne(t, dir, cfg, "-seed", strconv.Itoa(s))
		if m := swarmRE.FindString(trace); m != swarmLine[s] {
			t.Errorf("seed %d replayed says %q, in the sweep %q", s, strings.TrimSpace(m), strings.TrimSpace(swarmLine[s]))
		}
	}
}

// TestProfileAndSet: -profile applies a profile of the world file, -set
// overrides a field after it, and an unknown profile or a bad -set exits 2
// with a message that names it, before any seed runs.
func TestProfileAndSet(t *testing.T) {
	t.Parallel()
	dir := pgDir(t)
	cfg := pgWorld(t, dir, "profiles.json", map[string]any{
		"nodes":    []any{pgProg("server", "worker", "-for", "-1s")},
		"workload": pgProg("client", "worker", "-for", "2s"),
		"duration": "3s",
		"faults":   map[string]any{"crash_per_sec": 0},
		"profiles": map[string]any{
			"crashy": map[string]any{"faults": map[string]any{"crash_per_sec": 5}},
			"long":   map[string]any{"duration": "4s", "workload": map[string]any{"args": []string{"-for", "3500ms"}}},
		},
	})
	for _, tc := range []struct {
		name    string
		args    []string
		crashes bool
		end     time.Duration
	}{
		{"no profile", nil, false, 2 * time.Second},
		{"crashy", []string{"-profile", "crashy"}, true, 2 * time.Second},
		{"long", []string{"-profile", "long"}, false, 3500 * time.Millisecond},
		{"set", []string{"-set", "faults.crash_per_sec=5"}, true, 2 * time.Second},
		{"set after the profile", []string{"-profile", "crashy", "-set", "faults.crash_per_sec=0"}, false, 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, rec, trace := replayOne(t, dir, cfg, tc.args...)
			r.WantExit(t, 0)
			wantAt(t, rec, tc.end)
			crashes := crashLineRE.FindAllString(trace, -1)
			if tc.crashes != (len(crashes) > 0) || tc.crashes != (rec["faults"] != float64(0)) {
				t.Errorf("crashes %v (%v faults in the record), want crashes: %v\ntrace:\n%s", crashes, rec["faults"], tc.crashes, trace)
			}
		})
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"unknown profile", []string{"-profile", "nosuch"}, []string{"profiles.json: -profile nosuch: unknown profile (known: ", "crashy", "long"}},
		{"unknown field", []string{"-set", "faults.crash_per_secs=5"}, []string{"-set faults.crash_per_secs=5: unknown field"}},
		{"unknown object", []string{"-set", "faults.nosuch.deep=1"}, []string{"-set faults.nosuch.deep=1: unknown field faults.nosuch"}},
		{"wrong type", []string{"-set", "faults.crash_per_sec=fast"}, []string{"-set faults.crash_per_sec=fast: ", "number"}},
		{"index out of range", []string{"-set", "nodes[3].args=[]"}, []string{"-set nodes[3].args=[]: ", "nodes has 1 element"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := sfRun(t, dir, append([]string{"-c", cfg, "-seeds", "1"}, tc.args...)...)
			r.WantExit(t, 2)
			for _, w := range tc.want {
				if !strings.Contains(r.Stderr, w) {
					t.Errorf("stderr lacks %q\n%s", w, r)
				}
			}
			if !strings.HasPrefix(r.Stderr, "sf-run: ") || strings.Count(strings.TrimSpace(r.Stderr), "\n") > 0 {
				t.Errorf("want one line on stderr starting with sf-run: \n%s", r)
			}
			if r.Stdout != "" {
				t.Errorf("an input error ran seeds\n%s", r)
			}
			r.NoStackTrace(t)
		})
	}
}
