package main

// Issue 15, pinned regressions: sf-shrink -pin stores each shrunk schedule
// under .seedfall/pinned/<world>/ as well, and a sweep of sf-run replays it
// first. A folder of this test's own keeps the pin from other tests' sweeps.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestShrinkPin(t *testing.T) {
	t.Parallel()
	dir := tools.FreshExample(t, "kvlog", "seedfall.json")
	pinFile := filepath.Join(".seedfall", "pinned", "seedfall", "seed-4.json")

	r := shell(t, dir, "sf-run -c seedfall.json -seeds 4 -json 2>/dev/null | sf-shrink -pin -json")
	r.WantExitClean(t, 1)
	if want := "pinned " + pinFile + ": commit it; sf-run replays it before every sweep\n"; !strings.Contains(r.Stderr, want) {
		t.Errorf("lacks %q\n%s", want, r)
	}
	var shrunk map[string]any
	for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a record: %q", l)
		}
		if m["kind"] == "shrink" {
			shrunk = m
		}
	}
	if shrunk == nil || shrunk["pinned"] != pinFile {
		t.Fatalf("the shrink record does not name the pin %s: %v\n%s", pinFile, shrunk, r)
	}

	// The pin is the shrunk schedule, without its duration, with the
	// failure it pins.
	data, err := os.ReadFile(filepath.Join(dir, pinFile))
	if err != nil {
		t.Fatal(err)
	}
	var pin struct {
		Seed       uint64 `json:"seed"`
		Duration   string `json:"duration"`
		ShrunkFrom int    `json:"shrunk_from"`
		Pinned     struct {
			Class, Message, Fingerprint string
		} `json:"pinned"`
		Faults []any `json:"faults"`
	}
	if err := json.Unmarshal(data, &pin); err != nil {
		t.Fatal(err)
	}
	if pin.Seed != 4 || pin.Duration != "" || pin.ShrunkFrom == 0 || len(pin.Faults) != int(shrunk["faults_after"].(float64)) ||
		pin.Pinned.Class != "assert" || pin.Pinned.Fingerprint != "assert: acknowledged write lost" || pin.Pinned.Message != shrunk["message"] {
		t.Errorf("the pin does not keep the shrunk schedule and its failure:\n%s\nshrink record: %v", data, shrunk)
	}

	// sf-run's next sweep replays it first, and it fails again.
	r = shell(t, dir, "sf-run -c seedfall.json -seeds 1 -json=false")
	r.WantExitClean(t, 1)
	if want := "FAIL pin " + pinFile + " (original seed 4) failed again at t="; !strings.Contains(r.Stdout, want) {
		t.Errorf("lacks %q\n%s", want, r)
	}
}
