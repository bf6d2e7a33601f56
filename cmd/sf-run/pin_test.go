package main

// Issue 15, pinned regressions: sf-run -pin -seed N stores a failing seed's
// schedule under .seedfall/pinned/<world>/, every sweep replays the world's
// pins first, a pin that fails again names itself and its original seed,
// and one that passes is a kept regression test. The worlds are copies of
// kvlog in a folder of this test's own, so no other test's sweep meets
// these pins.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

func TestPinnedRegressions(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(tools.Root, "examples", "kvlog")
	for _, w := range []string{"seedfall.json", "seedfall.fixed.json"} {
		clitest.CopyWorld(t, filepath.Join(src, w), filepath.Join(dir, w))
	}
	pinFile := filepath.Join(".seedfall", "pinned", "seedfall", "seed-3.json")

	// -pin needs -seed, and a seed that passes has nothing to pin.
	r := sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1-2", "-pin")
	r.WantExit(t, 2)
	if !strings.Contains(r.Stderr, "-pin needs -seed N") {
		t.Errorf("want the usage error of -pin without -seed\n%s", r)
	}
	r = sfRun(t, dir, "-c", "seedfall.fixed.json", "-seed", "3", "-pin")
	r.WantExit(t, 2)
	if !strings.Contains(r.Stderr, "sf-run: -pin: seed 3 did not fail (pass), so there is nothing to pin") {
		t.Errorf("want the error of a pin of a passing seed\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(dir, ".seedfall", "pinned", "seedfall.fixed")); err == nil {
		t.Errorf("a passing seed left a pin folder")
	}

	// sf-run -pin -seed 3 on the buggy world pins its failure.
	r = sfRun(t, dir, "-c", "seedfall.json", "-seed", "3", "-pin", "-json")
	r.WantExit(t, 1)
	r.NoStackTrace(t)
	if want := "pinned seed 3 as " + pinFile + ": commit it"; !strings.Contains(r.Stderr, want) {
		t.Errorf("want %q\n%s", want, r)
	}
	if want := `"pinned":"` + pinFile + `"`; !strings.Contains(r.Stdout, `"kind":"seed"`) || !strings.Contains(r.Stdout, want) {
		t.Errorf("the seed record lacks %s\n%s", want, r)
	}
	var pin struct {
		Seed     uint64 `json:"seed"`
		Config   string `json:"config"`
		Duration string `json:"duration"`
		Pinned   struct {
			Class, Message, At, Node, Fingerprint string
		} `json:"pinned"`
		Faults []map[string]any `json:"faults"`
	}
	data, err := os.ReadFile(filepath.Join(dir, pinFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &pin); err != nil {
		t.Fatalf("%s: %v", pinFile, err)
	}
	if pin.Seed != 3 || pin.Config != "seedfall.json" || pin.Duration != "" || pin.Pinned.Class != "assert" ||
		pin.Pinned.Fingerprint != "assert: acknowledged write lost" || pin.Pinned.Node != "client#1" ||
		!strings.HasPrefix(pin.Pinned.Message, "client#1: acknowledged write lost: ") || pin.Pinned.At == "" || len(pin.Faults) == 0 {
		t.Errorf("%s does not keep the seed, its faults and its failure (and no duration):\n%s", pinFile, data)
	}

	// A sweep replays the pin first: it fails again, naming the pin and
	// its seed, in the report and in a pin record, and fails the sweep.
	r = sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1", "-json")
	r.WantExit(t, 1)
	for _, want := range []string{
		"replaying 1 pinned regression of seedfall.json (" + filepath.Dir(pinFile) + ")\n",
		"FAIL pin " + pinFile + " (original seed 3) failed again at t=" + pin.Pinned.At + ": " + pin.Pinned.Message + "\n",
		"  pinned failure: " + pin.Pinned.Message + " (assert: acknowledged write lost)\n",
		"  trace: " + filepath.Join(".seedfall", "seedfall", "pin-seed-3.trace.log") + "\n",
		"  replay: sf-run -c seedfall.json -seed 3 -faults " + pinFile + "\n",
		"FAIL 1 of 1 pinned regression failed\n",
	} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("the sweep's report lacks %q\n%s", want, r)
		}
	}
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	var kinds []string
	var pinRec map[string]any
	var sum map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a record: %q", l)
		}
		kinds = append(kinds, m["kind"].(string))
		switch m["kind"] {
		case "pin":
			pinRec = m
		case "summary":
			sum = m
		}
	}
	if got := strings.Join(kinds, ","); got != "start,pin,seed,summary" {
		t.Errorf("record kinds %s, want start,pin,seed,summary", got)
	}
	if pinRec["pin"] != pinFile || pinRec["seed"] != 3.0 || pinRec["status"] != "fail" || pinRec["same_failure"] != true ||
		pinRec["pinned_fingerprint"] != "assert: acknowledged write lost" || pinRec["fingerprint"] != "assert: acknowledged write lost" {
		t.Errorf("pin record %v", pinRec)
	}
	if sum["pins"] != 1.0 || sum["pins_failed"] != 1.0 || sum["status"] != "fail" {
		t.Errorf("summary %v: want pins 1, pins_failed 1, status fail", sum)
	}

	// The pin's replay line replays it: the same failure at the same time.
	r = sfRun(t, dir, "-c", "seedfall.json", "-seed", "3", "-faults", pinFile)
	r.WantExit(t, 1)
	if want := "FAIL seed 3 at t=" + pin.Pinned.At + " "; !strings.Contains(r.Stdout, want) {
		t.Errorf("the replay line does not fail as the pin did: want %q\n%s", want, r)
	}

	// Pinned for the fixed world, the schedule passes: a kept regression
	// test. The last shard of a sharded sweep leaves pins to the first.
	fixedPin := filepath.Join(dir, ".seedfall", "pinned", "seedfall.fixed", "seed-3.json")
	clitest.WriteFile(t, fixedPin, data)
	r = sfRun(t, dir, "-c", "seedfall.fixed.json", "-seeds", "3")
	r.WantExit(t, 0)
	for _, want := range []string{"ok   pin seed-3.json (seed 3) passed: the regression it pins stays fixed\n", "ok  1 pinned regression passed\n"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("lacks %q\n%s", want, r)
		}
	}
	r = sfRun(t, dir, "-c", "seedfall.fixed.json", "-seeds", "3-4", "-shard", "2/2")
	r.WantExit(t, 0)
	if strings.Contains(r.Stdout, "pin") {
		t.Errorf("shard 2/2 replayed pins\n%s", r)
	}

	// The bug coming back (the fixed world's file given the buggy flag)
	// fails the pin again, naming it and its original seed. The world file
	// itself changes: a -set override is another world, with pins of its
	// own (issue 30).
	fixedWorld := filepath.Join(dir, "seedfall.fixed.json")
	fixed, err := os.ReadFile(fixedWorld)
	if err != nil {
		t.Fatal(err)
	}
	buggy := strings.Replace(string(fixed), `"args": []`, `"args": ["-ack-before-fsync"]`, 1)
	if buggy == string(fixed) {
		t.Fatalf("seedfall.fixed.json has no empty server args to replace:\n%s", fixed)
	}
	clitest.WriteFile(t, fixedWorld, buggy)
	r = sfRun(t, dir, "-c", "seedfall.fixed.json", "-seeds", "1")
	clitest.WriteFile(t, fixedWorld, fixed)
	r.WantExit(t, 1)
	if want := "FAIL pin " + filepath.Join(".seedfall", "pinned", "seedfall.fixed", "seed-3.json") + " (original seed 3) failed again at t="; !strings.Contains(r.Stdout, want) {
		t.Errorf("lacks %q\n%s", want, r)
	}

	// With the flag as a -set override, the world is another one: the
	// fixed world's pin is not replayed (the seed itself fails).
	r = sfRun(t, dir, "-c", "seedfall.fixed.json", "-seeds", "1", "-set", `nodes[0].args=["-ack-before-fsync"]`)
	r.WantExit(t, 1)
	if strings.Contains(r.Stdout, "pin") {
		t.Errorf("a -set sweep replayed the plain world's pins\n%s", r)
	}

	// A pin that does not read is an input error naming its file.
	clitest.WriteFile(t, filepath.Join(dir, ".seedfall", "pinned", "seedfall.fixed", "seed-9.json"), []byte(`{"seed": 9, "faults": [{"kind": "crash", "node": "nosuch", "at": "1s"}]}`))
	r = sfRun(t, dir, "-c", "seedfall.fixed.json", "-seeds", "1")
	r.WantExit(t, 2)
	r.NoStackTrace(t)
	if want := "sf-run: pinned regression " + filepath.Join(".seedfall", "pinned", "seedfall.fixed", "seed-9.json") + `: faults[0].node: "nosuch" is not a node of this world (server, client)` + "\n"; r.Stderr != want {
		t.Errorf("want stderr %q\n%s", want, r)
	}
	clitest.WriteFile(t, filepath.Join(dir, ".seedfall", "pinned", "seedfall.fixed", "seed-9.json"), []byte(`{"seed": 9, "faults": [], "pinned": {"nonsense": 1}}`))
	r = sfRun(t, dir, "-c", "seedfall.fixed.json", "-seeds", "1")
	r.WantExit(t, 2)
	r.NoStackTrace(t)
	if want := "sf-run: pinned regression " + filepath.Join(".seedfall", "pinned", "seedfall.fixed", "seed-9.json") + ": pinned.nonsense: unknown field\n"; r.Stderr != want {
		t.Errorf("want stderr %q\n%s", want, r)
	}
}
