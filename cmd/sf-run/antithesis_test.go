package main

// The antithesis example: a workload written for the Antithesis Go SDK
// alone (assert, lifecycle, random; no sf import) runs unchanged under the
// real sf-run. Its assertions are properties, its lifecycle calls show in
// the trace, and its random values come from the seed.

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// antithesisDir returns a directory holding copies of the example's worlds,
// seedfall.json (the planted bug) and seedfall.fixed.json, with absolute
// package paths. The subtests share it and run one after another.
func antithesisDir(t *testing.T) string {
	t.Helper()
	return tools.Example(t, "antithesis", "seedfall.json", "seedfall.fixed.json")
}

// The example's assertions, as client/main.go writes them.
const (
	msgAlways    = "the total balance never changes"
	msgRefused   = "a transfer is refused for insufficient funds"
	msgNearEmpty = "a transfer leaves an account nearly empty"
	msgAudit     = "the final audit ran"
)

var (
	// propertyRowRE is a row of the human property table.
	propertyRowRE = regexp.MustCompile(`(?m)^  (\w+) +(\d+) +(\d+)  (.+)$`)
	// firstDrawsRE is the client's line with its first three random draws.
	firstDrawsRE = regexp.MustCompile(`(?m)client#1: client: first draws \d+ \d+ \d+$`)
	// locationRE is where the catalog places the client's assertions.
	locationRE = regexp.MustCompile(`(^|/)examples/antithesis/client/main\.go:\d+$`)
)

func TestAntithesisSDK(t *testing.T) {
	dir := antithesisDir(t)
	t.Parallel()

	t.Run("buggy world fails on the Always", func(t *testing.T) {
		removeArtifacts(t, dir)
		r := sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1-5", "-json")
		r.WantExit(t, 1)
		recs := jsonRecords(t, r)
		var first map[string]any // the first failing seed's record
		for _, rec := range recs[1 : len(recs)-1] {
			if rec["status"] != "fail" {
				continue
			}
			if first == nil {
				first = rec
			}
			msg, _ := rec["message"].(string)
			if rec["class"] != "assert" || rec["node"] != "client#1" || !strings.HasPrefix(msg, "client#1: "+msgAlways+" {") {
				t.Errorf("seed %v: class %v, node %v, message %q; want assert, client#1, the Always's message with its details",
					rec["seed"], rec["class"], rec["node"], msg)
			}
		}
		if first == nil {
			t.Fatalf("no seed of 1-5 found the planted bug\n%s", r)
		}
		if !strings.Contains(r.Stderr, "FAIL seed ") || !strings.Contains(r.Stderr, msgAlways) {
			t.Errorf("the human report on stderr lacks the failure\n%s", r)
		}
		// The replay of the first failing seed fails the same way.
		s := strconv.Itoa(int(first["seed"].(float64)))
		want, _ := first["message"].(string)
		rep := sfRun(t, dir, "-c", "seedfall.json", "-seed", s)
		rep.WantExit(t, 1)
		if got := failureMessage(t, rep.Stdout); got != want {
			t.Errorf("seed %s: the replay fails with %q, the sweep with %q", s, got, want)
		}
	})

	t.Run("fixed world passes with the SDK's properties", func(t *testing.T) {
		r := sfRun(t, dir, "-c", "seedfall.fixed.json", "-seeds", "1-10")
		r.WantExit(t, 0)
		if !strings.Contains(r.Stdout, "ok  10 seeds passed") {
			t.Errorf("no `ok  10 seeds passed` line\n%s", r)
		}
		rows := map[string][]string{}
		for _, m := range propertyRowRE.FindAllStringSubmatch(r.Stdout, -1) {
			rows[m[4]] = m[1:4]
		}
		for _, want := range []struct{ kind, msg string }{
			{"always", msgAlways},
			{"sometimes", msgRefused},
			{"sometimes", msgNearEmpty},
			{"reachable", msgAudit},
		} {
			row, ok := rows[want.msg]
			if !ok {
				t.Errorf("the property table lacks %s %q\n%s", want.kind, want.msg, r)
				continue
			}
			reached, _ := strconv.Atoi(row[1])
			isTrue, _ := strconv.Atoi(row[2])
			if row[0] != want.kind || reached == 0 || isTrue == 0 {
				t.Errorf("property %q: kind %s, seeds reached %d, seeds true %d; want %s, both more than 0", want.msg, row[0], reached, isTrue, want.kind)
			}
			if want.kind == "always" && (reached != 10 || isTrue != 10) {
				t.Errorf("the Always was reached in %d and true in %d of 10 passing seeds, want 10 and 10", reached, isTrue)
			}
		}
		if strings.Contains(r.Stdout, "<- never") {
			t.Errorf("a property of the fixed world was never reached or never true\n%s", r)
		}
	})

	t.Run("catalog and -json", func(t *testing.T) {
		r := sfRun(t, dir, "-c", "seedfall.fixed.json", "-seeds", "1-10", "-json")
		r.WantExit(t, 0)
		recs := jsonRecords(t, r)
		props, _ := recs[len(recs)-1]["properties"].([]any)
		found := map[string]bool{}
		for _, p := range props {
			p := p.(map[string]any)
			msg, _ := p["message"].(string)
			loc, _ := p["location"].(string)
			found[msg] = true
			// The catalog finds the SDK's calls in the source, so each has
			// its place in client/main.go (relative to the world file, which
			// is a copy in a temporary directory).
			if !locationRE.MatchString(loc) {
				t.Errorf("property %q: location %q, want .../antithesis/client/main.go:LINE", msg, loc)
			}
		}
		for _, m := range []string{msgAlways, msgRefused, msgNearEmpty, msgAudit} {
			if !found[m] {
				t.Errorf("the summary's properties lack %q: %v", m, props)
			}
		}
	})

	t.Run("the trace shows setup and events", func(t *testing.T) {
		r := sfRun(t, dir, "-c", "seedfall.fixed.json", "-seed", "3")
		r.WantExit(t, 0)
		trace := traceSection(t, r.Stdout)
		setup := strings.Index(trace, "  setup complete (client#1, Antithesis SDK)\n")
		event := strings.Index(trace, "  event audit from client#1")
		if setup < 0 || event < 0 || setup > event {
			t.Errorf("want `setup complete (client#1, Antithesis SDK)` and then `event audit from client#1` in the trace\n%s", trace)
		}
		if !strings.Contains(trace, `  event audit from client#1: {"total":400,"want":400}`+"\n") {
			t.Errorf("the audit event lacks its details\n%s", trace)
		}
	})

	t.Run("random values come from the seed", func(t *testing.T) {
		var outs []string
		var draws []string
		for _, seed := range []string{"3", "3", "4"} {
			r := sfRun(t, dir, "-c", "seedfall.fixed.json", "-seed", seed)
			r.WantExit(t, 0)
			outs = append(outs, realTimeRE.ReplaceAllString(r.Stdout, ", NNms real)"))
			d := firstDrawsRE.FindString(r.Stdout)
			if d == "" {
				t.Fatalf("seed %s: no `first draws` line\n%s", seed, r)
			}
			draws = append(draws, d)
		}
		if draws[0] != draws[1] {
			t.Errorf("two runs of seed 3 drew differently: %q and %q", draws[0], draws[1])
		}
		if outs[0] != outs[1] {
			t.Errorf("two runs of seed 3 differ:\n%s", firstDiff(outs[0], outs[1]))
		}
		if draws[0] == draws[2] {
			t.Errorf("seeds 3 and 4 drew the same: %q", draws[0])
		}
	})
}
