package engine

import (
	"testing"
	"time"
)

// TestRecheckWatchdog covers the three ways a second run can go: a stalled
// host (the first run's watchdog of 1ns stands in for it) gives the second
// run's pass and says so; a spinning guest fails again and keeps the first
// failure; a run that did not fail on the watchdog is not run again.
func TestRecheckWatchdog(t *testing.T) {
	e, spinning := watchdogWorld(t)
	// fsyncloop passes enough loop heads to reach a watchdog tick.
	busy := buildGuest(t, "fsyncloop")
	calm := &Spec{
		Nodes:      []NodeSpec{{Name: "client", Wasm: busy, Args: []string{"-n", "20000"}, Workload: true}},
		DurationNs: int64(10 * time.Second), LatencyNs: [2]int64{1e6, 1e6},
		WatchdogNs: int64(10 * time.Second),
	}
	stalled := *calm
	stalled.WatchdogNs = 1

	first, err := e.Run(&stalled, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if first.Status != StatusFail || first.Class != ClassWatchdog {
		t.Fatalf("a 1ns watchdog: %s %s %q, want a watchdog failure", first.Status, first.Class, first.Message)
	}
	res, host := e.RecheckWatchdog(calm, 1, Options{}, first)
	if !host || res.Status != StatusPass {
		t.Errorf("stalled host: second run %s, host stall %v; want a pass reported as a host stall", res.Status, host)
	}

	spin, err := e.Run(spinning, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, host = e.RecheckWatchdog(spinning, 1, Options{}, spin)
	if host || res != spin {
		t.Errorf("spinning guest: host stall %v, result %s %q; want the first failure kept", host, res.Status, res.Message)
	}

	pass, err := e.Run(calm, 2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res, host = e.RecheckWatchdog(calm, 2, Options{}, pass); host || res != pass {
		t.Errorf("a pass was run again or replaced")
	}
}
