package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestIssue30SetGetsItsOwnFolder: a sweep with -set overrides writes its
// artifacts into a folder of its own, .seedfall/seedfall.set-<hash>/, with
// the overrides listed in overrides.json, and leaves the plain world's
// schedules as they were; its repro lines replay its own schedules, and
// sf-shrink, sf-faults and pins follow it there.
func TestIssue30SetGetsItsOwnFolder(t *testing.T) {
	t.Parallel()
	dir := tools.FreshExample(t, "kvlog", "seedfall.json")
	const set = "faults.crash_per_sec=2"
	const folder = ".seedfall/seedfall.set-f061c506" // sha256("faults.crash_per_sec=2")[:4]
	failing := func(r result) []map[string]any {
		t.Helper()
		var out []map[string]any
		for _, rec := range clitest.Records(t, r) {
			if rec["kind"] == "seed" && rec["status"] == "fail" {
				out = append(out, rec)
			}
		}
		if len(out) == 0 {
			t.Fatalf("no seed failed\n%s", r)
		}
		return out
	}
	plain := sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1-3", "-json")
	plainFails := failing(plain)
	before := map[string][]byte{}
	for _, rec := range plainFails {
		p := rec["artifacts"].(map[string]any)["faults"].(string)
		if !strings.HasPrefix(p, ".seedfall/seedfall/seed-") {
			t.Errorf("the plain sweep's schedule %s, want it in .seedfall/seedfall/", p)
		}
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		before[p] = b
	}

	swept := sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1-3", "-json", "-set", set)
	setFails := failing(swept)
	for _, rec := range setFails {
		arts := rec["artifacts"].(map[string]any)
		for _, k := range []string{"faults", "trace"} {
			if p, _ := arts[k].(string); !strings.HasPrefix(p, folder+"/seed-") {
				t.Errorf("the -set sweep's %s %s, want it in %s/", k, p, folder)
			}
		}
	}
	overrides, err := os.ReadFile(filepath.Join(dir, folder, "overrides.json"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"config\": \"seedfall.json\",\n  \"set\": [\n    \"faults.crash_per_sec=2\"\n  ]\n}\n"; string(overrides) != want {
		t.Errorf("overrides.json\n%s\nwant\n%s", overrides, want)
	}
	for p, b := range before {
		if now, err := os.ReadFile(filepath.Join(dir, p)); err != nil || !bytes.Equal(now, b) {
			t.Errorf("the -set sweep changed the plain world's %s (%v)", p, err)
		}
	}

	// The repro line of a -set seed replays its own schedule and fails the
	// same way.
	first := setFails[0]
	repro := first["repro"].(string)
	if !strings.HasSuffix(repro, " -set "+set) {
		t.Errorf("repro %q, want it to end with -set %s", repro, set)
	}
	r := shell(t, dir, repro)
	if r.Code != 1 || !strings.Contains(r.Stdout+r.Stderr, first["message"].(string)) {
		t.Errorf("the repro line did not fail with %q\n%s", first["message"], r)
	}

	// sf-shrink of the -set records writes into the -set folder.
	seed := fmt.Sprint(first["seed"])
	sh := sfShrink(t, dir, swept.Stdout, "-json", "-max", "1")
	shrinks := shrinkRecords(t, sh)
	if len(shrinks) != 1 {
		t.Fatalf("%d shrink records, want 1\n%s", len(shrinks), sh)
	}
	if p := shrinks[0]["schedule"].(string); p != folder+"/seed-"+seed+".shrunk.faults.json" {
		t.Errorf("shrunk schedule %s, want %s/seed-%s.shrunk.faults.json", p, folder, seed)
	}
	// Its replay line names the -set folder's schedule and the overrides,
	// and fails.
	shRepro := shrinks[0]["repro"].(string)
	if !strings.Contains(shRepro, "-faults "+folder+"/seed-"+seed+".shrunk.faults.json") || !strings.Contains(shRepro, "-set "+set) {
		t.Errorf("shrink repro %q, want -faults in %s and -set %s", shRepro, folder, set)
	}
	if r := shell(t, dir, shRepro); r.Code != 1 {
		t.Errorf("the shrunk schedule's replay did not fail\n%s", r)
	}

	// sf-faults lists the -set folder's schedule of the seed, the shrunk
	// one now that there is one.
	f := runBin(t, dir, "", tools.Path("sf-faults"), "-c", "seedfall.json", "-seed", seed, "-set", set)
	if f.Code != 0 || !strings.Contains(f.Stdout, "from "+folder+"/seed-"+seed+".shrunk.faults.json") {
		t.Errorf("sf-faults did not read the -set folder's schedule\n%s", f)
	}
	// And without -set, the plain one's, if the plain sweep failed that seed.
	for p := range before {
		if strings.HasSuffix(p, "/seed-"+seed+".faults.json") {
			f := runBin(t, dir, "", tools.Path("sf-faults"), "-c", "seedfall.json", "-seed", seed)
			if !strings.Contains(f.Stdout, "from .seedfall/seedfall/seed-"+seed+".faults.json") {
				t.Errorf("sf-faults without -set did not read the plain schedule\n%s", f)
			}
		}
	}

	// A pin of the -set world goes to its own pin folder.
	pin := sfRun(t, dir, "-c", "seedfall.json", "-seed", seed, "-set", set, "-pin")
	pinDir := ".seedfall/pinned/seedfall.set-f061c506"
	if pin.Code != 1 || !strings.Contains(pin.Stdout+pin.Stderr, "pinned seed "+seed+" as "+pinDir+"/seed-"+seed+".json") {
		t.Errorf("the pin did not go to %s\n%s", pinDir, pin)
	}
	if b, err := os.ReadFile(filepath.Join(dir, pinDir, "overrides.json")); err != nil || !bytes.Equal(b, overrides) {
		t.Errorf("the pin folder's overrides.json: %v\n%s", err, b)
	}
	if _, err := os.Stat(filepath.Join(dir, ".seedfall/pinned/seedfall/seed-"+seed+".json")); err == nil {
		t.Errorf("the -set pin was also written for the plain world")
	}
}
