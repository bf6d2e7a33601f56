package config

import (
	"strings"
	"testing"
)

// TestForkSetup: "fork": "setup" needs faults_after_setup and refuses what
// a run draws before its first step (swarm, seeded preemption), naming
// why; "none" loads as no fork, which the canonical form leaves out.
func TestForkSetup(t *testing.T) {
	const on = `"faults_after_setup": true, "fork": "setup"`
	tests := []struct {
		name, json, want string
	}{
		{"without faults_after_setup", `{` + W + `, "fork": "setup"}`,
			`fork: "setup" needs faults_after_setup: the setup that every seed shares must run without faults`},
		{"with swarm", `{` + W + `, ` + on + `, "faults": {"swarm": true}}`,
			`fork: "setup" cannot go with faults.swarm: a run draws its swarm choices before its first step, so every seed would have the setup seed's`},
		{"with pct", `{` + W + `, ` + on + `, "preempt": {"strategy": "pct"}}`,
			`fork: "setup" cannot go with preempt.strategy pct: a run draws its preemption points before its first step, so every seed would have the setup seed's`},
		{"with interleave", `{` + W + `, ` + on + `, "preempt": {"interleave": true}}`,
			`fork: "setup" cannot go with preempt.strategy random: a run draws its preemption points before its first step, so every seed would have the setup seed's`},
		{"not a string", `{` + W + `, "fork": true}`, `fork: expected a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := parse(tt.json)
			if err == nil {
				t.Fatalf("accepted %s", w.Canonical())
			}
			if want := "seedfall.json: " + tt.want; err.Error() != want {
				t.Errorf("\n got: %s\nwant: %s", err, want)
			}
		})
	}
	for _, ok := range []struct{ json, fork string }{
		{`{` + W + `, ` + on + `, "preempt": {"strategy": "calls"}}`, ForkSetup},
		{`{` + W + `, "fork": "none"}`, ""},
	} {
		w, err := parse(ok.json)
		if err != nil {
			t.Fatal(err)
		}
		if w.Fork != ok.fork || strings.Contains(string(w.Canonical()), `"fork"`) != (ok.fork != "") {
			t.Errorf("%s: fork %q, canonical %s", ok.json, w.Fork, w.Canonical())
		}
	}
}
