package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestIssue27ArtifactOfAnotherWorld: a seed's artifact records the world it
// was written under (config, profile, -set). sf-faults refuses to start from
// one written under another, such as one left in the folder by an sf that
// kept every -set variant there, and says so of a file given with -faults.
func TestIssue27ArtifactOfAnotherWorld(t *testing.T) {
	dir := kvlogDir(t)
	other := `{"seed": 4, "config": "seedfall.json", "set": ["duration=2s", "faults.crash_per_sec=0"], "duration": "1.9s", "faults": []}`
	clitest.WriteFile(t, filepath.Join(dir, ".seedfall", "seedfall", "seed-4.faults.json"), other)
	r := runBin(t, dir, "", tools.Path("sf-faults"), "-c", "seedfall.json", "-seed", "4")
	r.WantExitClean(t, 2)
	want := "sf-faults: " + filepath.Join(".seedfall", "seedfall", "seed-4.faults.json") +
		" was written for seedfall.json -set duration=2s -set faults.crash_per_sec=0, not for seedfall.json as given: " +
		"give the same -profile and -set, or -faults FILE to start from it anyway\n"
	if !strings.HasSuffix(r.Stderr, want) {
		t.Errorf("stderr\n  %q\nwant it to end in\n  %q", r.Stderr, want)
	}

	// Given by name, it is used, with a note.
	clitest.WriteFile(t, filepath.Join(dir, "other.json"), other)
	r = runBin(t, dir, "", tools.Path("sf-faults"), "-c", "seedfall.json", "-seed", "4", "-faults", "other.json")
	r.WantExitClean(t, 0)
	if !strings.Contains(r.Stderr, "sf-faults: note: other.json was written for seedfall.json -set duration=2s -set faults.crash_per_sec=0, not for seedfall.json as given\n") {
		t.Errorf("no note on stderr\n%s", r)
	}

	// The same world under the same -set is no news.
	r = runBin(t, dir, "", tools.Path("sf-faults"), "-c", "seedfall.json", "-seed", "4", "-faults", "other.json",
		"-set", "duration=2s", "-set", "faults.crash_per_sec=0")
	r.WantExitClean(t, 0)
	if strings.Contains(r.Stderr, "note:") {
		t.Errorf("a note for the same world\n%s", r)
	}
}
