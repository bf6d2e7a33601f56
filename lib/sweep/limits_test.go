package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// limitsWorld writes world w into a temporary directory and returns its
// path. Guest paths are relative to this package.
func limitsWorld(t *testing.T, w map[string]any) string {
	t.Helper()
	data, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "world.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func guestPkg(t *testing.T, rel string) string {
	t.Helper()
	abs, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// sweepJSON runs o and returns its exit status, its seed records and its
// summary record, and the human summary.
func sweepJSON(t *testing.T, o Options) (int, []map[string]any, map[string]any, string) {
	t.Helper()
	var out, errb bytes.Buffer
	o.JSON, o.Stdout, o.Stderr = true, &out, &errb
	if o.Jobs == 0 {
		o.Jobs = 1
	}
	code := Main(o)
	var seeds []map[string]any
	var sum map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		switch rec["kind"] {
		case "seed":
			seeds = append(seeds, rec)
		case "summary":
			sum = rec
		}
	}
	return code, seeds, sum, errb.String()
}

// TestZeroLatencyPingPongHitsTheStepLimit: two nodes that answer each
// other at zero latency never let virtual time pass; the step limit ends
// the run with class limit.
func TestZeroLatencyPingPongHitsTheStepLimit(t *testing.T) {
	udp := guestPkg(t, "testdata/guests/udp")
	world := limitsWorld(t, map[string]any{
		"nodes":    []map[string]any{{"name": "server", "pkg": udp, "args": []string{"-serve", ":9000"}}},
		"workload": map[string]any{"name": "client", "pkg": udp, "args": []string{"-ping", "server:9000", "-n", "1000000000"}},
		"latency":  []string{"0s", "0s"},
		"limits":   map[string]any{"steps": 20000},
	})
	code, seeds, _, human := sweepJSON(t, Options{Config: world, Seeds: []uint64{1}, SeedsText: "1"})
	if code != ExitProblem || len(seeds) != 1 {
		t.Fatalf("exit %d, %d seed records, want 1 and one record\n%s", code, len(seeds), human)
	}
	s := seeds[0]
	if s["class"] != "limit" || !strings.Contains(s["message"].(string), "took 20000 scheduler steps and reached only 0.010s of virtual time (limits.steps)") {
		t.Errorf("class %v, message %q, want a step limit at 10ms, when the client starts to ping", s["class"], s["message"])
	}
}

// TestWatchdogFailureRunsAgain: a seed whose first run stalls (a 1ns
// watchdog trips on the first loop tick of a guest that spins for a few
// million iterations, as a host that stopped the process would make it)
// passes on its second run and is counted as a host stall, not as a
// failure; a guest that spins forever fails the watchdog twice and is a
// failure.
func TestWatchdogFailureRunsAgain(t *testing.T) {
	t.Run("host stall", func(t *testing.T) {
		world := limitsWorld(t, map[string]any{
			"workload": map[string]any{"name": "client", "pkg": guestPkg(t, "../engine/testdata/guests/spin"), "args": []string{"1000000"}},
		})
		code, seeds, sum, human := sweepJSON(t, Options{Config: world, Seeds: []uint64{1, 2}, SeedsText: "1-2", stallFirstRun: true})
		if code != ExitPass {
			t.Fatalf("exit %d, want 0\n%s", code, human)
		}
		for _, s := range seeds {
			if s["status"] != "pass" || s["host_stall"] != true {
				t.Errorf("seed %v: status %v, host_stall %v; want pass and true", s["seed"], s["status"], s["host_stall"])
			}
		}
		if sum["host_stalls"] != 2.0 || sum["failed"] != 0.0 {
			t.Errorf("summary: host_stalls %v, failed %v; want 2 and 0", sum["host_stalls"], sum["failed"])
		}
		if !strings.Contains(human, "2 seeds: host stall: the first run hit the real-time watchdog and a second run did not") {
			t.Errorf("the human summary does not count the host stalls:\n%s", human)
		}
	})
	t.Run("spinning guest", func(t *testing.T) {
		world := limitsWorld(t, map[string]any{
			"nodes":    []map[string]any{{"name": "spinner", "pkg": guestPkg(t, "../engine/testdata/guests/spin")}},
			"workload": map[string]any{"name": "client", "pkg": guestPkg(t, "../engine/testdata/guests/sleeper")},
			"watchdog": "300ms",
		})
		code, seeds, sum, human := sweepJSON(t, Options{Config: world, Seeds: []uint64{1}, SeedsText: "1"})
		if code != ExitProblem || len(seeds) != 1 || seeds[0]["class"] != "watchdog" || seeds[0]["host_stall"] != nil {
			t.Fatalf("exit %d, seeds %v; want a watchdog failure that is no host stall\n%s", code, seeds, human)
		}
		if sum["host_stalls"] != nil {
			t.Errorf("host_stalls %v, want none", sum["host_stalls"])
		}
	})
}

// TestGaveUpIsShown: a seed whose history check runs out of its step
// budget neither passes nor fails on it: it is not counted as passed, the
// sweep exits 1 as sf-check does for a check that gave up (issue 27), and
// the summary line and record count it apart.
func TestGaveUpIsShown(t *testing.T) {
	world := limitsWorld(t, map[string]any{
		"workload": map[string]any{"name": "client", "pkg": guestPkg(t, "testdata/guests/register")},
		"limits":   map[string]any{"check_steps": 1},
	})
	code, seeds, sum, human := sweepJSON(t, Options{Config: world, Seeds: []uint64{1, 2}, SeedsText: "1-2"})
	if code != ExitProblem {
		t.Fatalf("exit %d, want 1\n%s", code, human)
	}
	if sum["passed"] != 0.0 || sum["failed"] != 0.0 || sum["status"] != "fail" {
		t.Errorf("summary passed %v, failed %v, status %v; want 0, 0, fail", sum["passed"], sum["failed"], sum["status"])
	}
	if fmt.Sprint(sum["gave_up_seeds"]) != "[1 2]" {
		t.Errorf("gave_up_seeds %v, want [1 2]", sum["gave_up_seeds"])
	}
	if !strings.Contains(human, "\nGAVE UP 2 of 2 seeds gave up checking their history (0 passed, 0 hit the time horizon) in ") {
		t.Errorf("the summary line does not count the give-ups apart:\n%s", human)
	}
	for _, s := range seeds {
		if s["history_check"] != "unknown" {
			t.Errorf("seed %v: history_check %v, want unknown", s["seed"], s["history_check"])
		}
	}
	if sum["gave_up"] != 2.0 {
		t.Errorf("gave_up %v, want 2", sum["gave_up"])
	}
	if !strings.Contains(human, "2 seeds: gave up checking the history (see -history-timeout and limits.check_steps)") {
		t.Errorf("the human summary does not show the give-up:\n%s", human)
	}
}
