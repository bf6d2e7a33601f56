package report

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
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
