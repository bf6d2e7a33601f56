package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIssue29CounterUnknownAdds runs the built sf-check on issue 29's kind
// of counter history: one client, 108 operations one after another, 23
// adds of unknown outcome. The search alone gives up on it within sf-run's
// 2,000,000 steps per key (lib/check's TestIssue29SearchAloneGivesUp);
// sf-check decides it, and the same history with one read too high fails
// with the reads that show it.
func TestIssue29CounterUnknownAdds(t *testing.T) {
	stdout, stderr, code := runBin(t, "", "-model", "counter", "-max-steps", "2000000", "counter-unknown.jsonl")
	if want := "ok    history of 108 operations is linearizable (model counter)\n"; code != 0 || stdout != want || stderr != "" {
		t.Errorf("exit status %d, stdout %q, stderr %q; want 0 and %q", code, stdout, stderr, want)
	}

	stdout, _, code = runBin(t, "", "-model", "counter", "-max-steps", "2000000", "-json", "counter-unknown.jsonl")
	var rec struct {
		Verdict    string
		Passed     bool
		Operations int
	}
	if err := json.Unmarshal([]byte(stdout), &rec); err != nil || code != 0 || rec.Verdict != "ok" || !rec.Passed || rec.Operations != 108 {
		t.Errorf("exit status %d, record %+v (%v): %s", code, rec, err, stdout)
	}

	html := filepath.Join(t.TempDir(), "bad.html")
	stdout, stderr, code = runBin(t, "", "-model", "counter", "-max-steps", "2000000", "-timeline", html, "counter-unknown-bad.jsonl")
	want := []string{
		`nonlinearizable: key "k": no order of its 108 operations is legal: read → 41 (id 54, process 0) completed before read → 40 (id 66, process 0) was invoked, but every add adds 1, so the counter never goes down; see the timeline` + "\n",
		"timeline: " + html + "\n",
		`FAIL  history of 108 operations is not linearizable (model counter): key "k"` + "\n",
	}
	if code != 1 || stdout != strings.Join(want, "") || stderr != "" {
		t.Errorf("exit status %d, stderr %q, stdout\n%s\nwant 1 and\n%s", code, stderr, stdout, strings.Join(want, ""))
	}
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "<html") {
		t.Errorf("no timeline: %v", err)
	}
}
