package main

import (
	"fmt"
	"regexp"
	"testing"
)

// TestIssue27LeafRace runs the leaf case of examples/race through the
// built sf-run: two goroutines, 2,000 increments each, and between the read
// and the write of the count only the call of a frameless function. The
// race never shows without preemption inside the node (strategy none, 50
// seeds) and shows under random and pct within 50 seeds, where the rewrite
// adds the stack check Go leaves out of such functions; every world is
// deterministic under -check.
func TestIssue27LeafRace(t *testing.T) {
	dir := tools.FreshExample(t, "race", "seedfall.leaf.json", "seedfall.leaf.random.json", "seedfall.leaf.pct.json")
	summary := func(world string, code int) map[string]any {
		t.Helper()
		r := sfRun(t, dir, "-c", world, "-seeds", "1-50", "-check", "-json")
		r.WantExitClean(t, code)
		recs := jsonRecords(t, r)
		return recs[len(recs)-1]
	}
	if s := summary("seedfall.leaf.json", 0); s["failed"] != float64(0) || s["nondeterministic"] != float64(0) {
		t.Errorf("strategy none: %v failed and %v nondeterministic of 50, want 0 and 0", s["failed"], s["nondeterministic"])
	}
	for _, world := range []string{"seedfall.leaf.random.json", "seedfall.leaf.pct.json"} {
		s := summary(world, 1)
		failed, _ := s["failed_seeds"].([]any)
		if len(failed) == 0 || s["nondeterministic"] != float64(0) {
			t.Fatalf("%s: failed seeds %v and %v nondeterministic of 50, want some failures and 0", world, failed, s["nondeterministic"])
		}
		r := sfRun(t, dir, "-c", world, "-seed", fmt.Sprint(failed[0]))
		r.WantExitClean(t, 1)
		if !regexp.MustCompile(`leaf#1: count is \d+ after 4000 increments, want 4000`).MatchString(r.Stdout + r.Stderr) {
			t.Errorf("%s: the replay of a failing seed does not say the count lost increments\n%s", world, r)
		}
	}
}
