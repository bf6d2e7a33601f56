package pin

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/schedule"
)

func TestDirNamesWorldAndProfile(t *testing.T) {
	for _, tt := range []struct {
		file, profile, want string
	}{
		{"/w/seedfall.json", "", "/w/.seedfall/pinned/seedfall"},
		{"/w/seedfall.fixed.json", "", "/w/.seedfall/pinned/seedfall.fixed"},
		{"/w/seedfall.json", "nightly", "/w/.seedfall/pinned/seedfall.nightly"},
	} {
		w := &config.World{File: tt.file, Dir: filepath.Dir(tt.file), Profile: tt.profile}
		if got := Dir(w); got != tt.want {
			t.Errorf("Dir(%s, profile %q) = %s, want %s", tt.file, tt.profile, got, tt.want)
		}
	}
}

// TestWriteAndList: a pin keeps the failure and drops the duration, reads
// back as a schedule, and List finds pins in order of seed, leaving other
// files alone; a run that passed is not pinned.
func TestWriteAndList(t *testing.T) {
	dir := t.TempDir()
	w := &config.World{File: filepath.Join(dir, "seedfall.json"), Dir: dir}
	failed := &engine.Result{Seed: 10, Status: engine.StatusFail, Class: "assert", Node: "client#1", AtNs: 1_500_000_000,
		Message: "client#1: acknowledged write lost: k7=v7"}
	sched := &schedule.Schedule{Seed: 10, Config: "seedfall.json", Duration: 1_500_000_000, Budget: 7,
		Faults: []schedule.Fault{{At: 1_000_000_000, Kind: "crash", Node: "server", Until: 1_200_000_000}}}
	path, err := Write(w, sched, failed)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, ".seedfall", "pinned", "seedfall", "seed-10.json"); path != want {
		t.Fatalf("wrote %s, want %s", path, want)
	}
	got, err := schedule.ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := &schedule.Pinned{Class: "assert", Message: failed.Message, At: 1_500_000_000, Node: "client#1",
		Fingerprint: "assert: acknowledged write lost"}
	if got.Duration != 0 || got.Budget != 7 || len(got.Faults) != 1 || !reflect.DeepEqual(got.Pinned, want) {
		t.Errorf("read back %+v with pinned %+v, want no duration, budget 7, one fault and %+v", got, got.Pinned, want)
	}
	if sched.Pinned != nil || sched.Duration == 0 {
		t.Errorf("Write changed the schedule it was given")
	}

	nine := *sched
	nine.Seed = 9
	failed.Seed = 9
	if _, err := Write(w, &nine, failed); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"README.md", "seed-x.json", "seed-4.json.bak"} {
		if err := os.WriteFile(filepath.Join(Dir(w), name), []byte("note"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pins, err := List(w)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(pins, " "), filepath.Join(Dir(w), "seed-9.json")+" "+filepath.Join(Dir(w), "seed-10.json"); got != want {
		t.Errorf("List = %s, want %s", got, want)
	}

	if _, err := Write(w, sched, &engine.Result{Seed: 10, Status: engine.StatusPass}); err == nil ||
		err.Error() != "seed 10 did not fail (pass): there is no failure to pin" {
		t.Errorf("pinning a pass: %v", err)
	}
	other := &config.World{File: filepath.Join(dir, "other.json"), Dir: dir}
	if pins, err := List(other); err != nil || len(pins) != 0 {
		t.Errorf("a world without pins: %v, %v", pins, err)
	}
}
