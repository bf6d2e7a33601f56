package report

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	sfbuild "github.com/sf-dst/sf/lib/build"
)

// sweepOf is an sf-run stream of seeds 1-4 of w in which the seeds named
// fail with "acknowledged write lost".
func sweepOf(t *testing.T, w string, failing ...uint64) []*Sweep {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, `{"kind":"start","tool":"sf-run","config":%q,"seeds":"1-4","count":4}`+"\n", w)
	fails := map[uint64]bool{}
	for _, s := range failing {
		fails[s] = true
	}
	for s := uint64(1); s <= 4; s++ {
		if fails[s] {
			fmt.Fprintf(&b, `{"kind":"seed","seed":%d,"config":%q,"status":"fail","class":"assert","message":"client#%d: acknowledged write lost: k%d","node":"client#%d","repro":"sf-run -seed %d"}`+"\n", s, w, s, s, s, s)
		} else {
			fmt.Fprintf(&b, `{"kind":"seed","seed":%d,"config":%q,"status":"pass"}`+"\n", s, w)
		}
	}
	fmt.Fprintf(&b, `{"kind":"summary","tool":"sf-run","config":%q,"seeds":4}`+"\n", w)
	sweeps, err := Build([]Input{{Name: "run.jsonl", R: strings.NewReader(b.String())}})
	if err != nil {
		t.Fatal(err)
	}
	return sweeps
}

// TestFindingsAcrossRuns follows one finding over four runs of the same
// world and seeds: new, ongoing, resolved once its seeds pass, regressed
// when it comes back. A finding of another world is left alone.
func TestFindingsAcrossRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "findings.json")
	steps := []struct {
		now          string
		failing      []uint64
		wantStatus   string // of the finding in the report
		wantResolved int
	}{
		{"2026-01-01T00:00:00Z", []uint64{1, 3}, StatusNew, 0},
		{"2026-01-02T00:00:00Z", []uint64{3}, StatusOngoing, 0},
		{"2026-01-03T00:00:00Z", nil, "", 1},
		{"2026-01-04T00:00:00Z", []uint64{2}, StatusRegressed, 0},
	}
	other, err := LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	other.Update(sweepOf(t, "other.json", 4), "2025-12-31T00:00:00Z")
	if err := other.Save(); err != nil {
		t.Fatal(err)
	}
	for i, st := range steps {
		store, err := LoadStore(path)
		if err != nil {
			t.Fatal(err)
		}
		sweeps := sweepOf(t, "seedfall.json", st.failing...)
		store.Update(sweeps, st.now)
		if err := store.Save(); err != nil {
			t.Fatal(err)
		}
		sw := sweeps[0]
		var status string
		if len(sw.Findings) > 0 {
			status = sw.Findings[0].Status
			if sw.Findings[0].FirstSeen != steps[0].now || sw.Findings[0].LastSeen != st.now {
				t.Errorf("run %d: first seen %s, last seen %s", i+1, sw.Findings[0].FirstSeen, sw.Findings[0].LastSeen)
			}
		}
		if status != st.wantStatus || len(sw.Resolved) != st.wantResolved {
			t.Fatalf("run %d: status %q and %d resolved; want %q and %d", i+1, status, len(sw.Resolved), st.wantStatus, st.wantResolved)
		}
		if st.wantResolved > 0 && sw.Resolved[0].Title() != "assert · acknowledged write lost" {
			t.Errorf("run %d: resolved %s", i+1, sw.Resolved[0].Title())
		}
		// Every output format shows the status.
		var txt, md strings.Builder
		Text(&txt, sweeps)
		Markdown(&md, sweeps)
		word := st.wantStatus
		if word == "" {
			word = "resolved"
		}
		for name, out := range map[string]string{"text": txt.String(), "markdown": md.String()} {
			if !strings.Contains(out, word) {
				t.Errorf("run %d: the %s report does not say %s:\n%s", i+1, name, word, out)
			}
		}
	}
	final, err := LoadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(final.Findings) != 2 {
		t.Fatalf("%d findings kept, want 2", len(final.Findings))
	}
	for _, r := range final.Findings {
		want := StatusRegressed
		if r.World == "other.json" {
			want = StatusNew // never swept again: untouched
		}
		if r.Status != want {
			t.Errorf("%s: status %s, want %s", r.World, r.Status, want)
		}
	}
}

// TestResolvedNeedsItsSeeds: a sweep that did not run the seeds a finding
// failed on cannot say it is resolved.
func TestResolvedNeedsItsSeeds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "findings.json")
	s, _ := LoadStore(path)
	s.Update(sweepOf(t, "w.json", 3), "t1")
	narrow := sweepOf(t, "w.json")
	delete(narrow[0].ran, 3)
	s.Update(narrow, "t2")
	if len(narrow[0].Resolved) != 0 || s.Findings[0].Status != StatusNew {
		t.Errorf("resolved without running seed 3: %v, %s", narrow[0].Resolved, s.Findings[0].Status)
	}
}

// TestFindingsBesideTheWorld: with no findings file given, each world's
// findings go to the .seedfall folder next to its world file, as its
// artifacts do (issue 29): two worlds of one folder share its file, a world
// in another folder gets its own, a world read from stdin ("-") the current
// folder's; a world whose folder is not here is an error; a file given
// takes every world's findings.
func TestFindingsBesideTheWorld(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, d := range []string{"a", "b"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var sweeps []*Sweep
	for _, w := range []string{"a/seedfall.json", "b/seedfall.json", "a/seedfall.fixed.json", "-"} {
		sweeps = append(sweeps, sweepOf(t, w, 1)...)
	}
	paths, err := UpdateFindings(sweeps, "", "2026-01-01T00:00:00Z")
	want := []string{"a/.seedfall/findings.json", "b/.seedfall/findings.json", ".seedfall/findings.json"}
	if err != nil || strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Fatalf("UpdateFindings wrote %q, %v; want %q", paths, err, want)
	}
	for path, worlds := range map[string]string{
		want[0]: "a/seedfall.json a/seedfall.fixed.json", want[1]: "b/seedfall.json", want[2]: "-",
	} {
		store, err := LoadStore(path)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range store.Findings {
			got = append(got, r.World)
			if r.Status != StatusNew {
				t.Errorf("%s: %s's finding is %s, want new", path, r.World, r.Status)
			}
		}
		sort.Strings(got)
		w := strings.Fields(worlds)
		sort.Strings(w)
		if strings.Join(got, " ") != strings.Join(w, " ") {
			t.Errorf("%s holds the findings of %q, want %q", path, got, w)
		}
	}

	_, err = UpdateFindings(sweepOf(t, "elsewhere/seedfall.json", 1), "", "2026-01-01T00:00:00Z")
	wantErr := `findings of elsewhere/seedfall.json: its folder elsewhere is not here, so there is no .seedfall beside it: ` +
		`run sf-report where sf-run ran, or name a findings file (-findings FILE, or "" for none)`
	if err == nil || err.Error() != wantErr {
		t.Errorf("a world whose folder is not here: %v, want %q", err, wantErr)
	}
	if _, err := os.Stat("elsewhere"); err == nil {
		t.Errorf("the missing world's folder was made")
	}

	paths, err = UpdateFindings(append(sweepOf(t, "elsewhere/seedfall.json", 1), sweepOf(t, "b/seedfall.json", 2)...), "all.json", "2026-01-02T00:00:00Z")
	if err != nil || len(paths) != 1 || paths[0] != "all.json" {
		t.Fatalf("a findings file given: %q, %v", paths, err)
	}
	if store, err := LoadStore("all.json"); err != nil || len(store.Findings) != 2 {
		t.Errorf("all.json: %v, %v", store, err)
	}
}

// TestStateDirIsTheBuilds: the findings go to the folder the build and the
// artifacts use.
func TestStateDirIsTheBuilds(t *testing.T) {
	if stateDir != sfbuild.StateDir {
		t.Errorf("report's state folder %q, the build's %q", stateDir, sfbuild.StateDir)
	}
}
