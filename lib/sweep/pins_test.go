package sweep

import (
	"testing"

	"github.com/sf-dst/sf/lib/record"
)

// TestPinReport: the lines sf-run prints, and simtest fails a pin's subtest
// with, for each way a pin's replay can end.
func TestPinReport(t *testing.T) {
	base := record.Pin{Kind: record.KindPin, Pin: ".seedfall/pinned/seedfall/seed-3.json", Seed: 3, AtNs: 3_860_253_020,
		Repro: "sf-run -c seedfall.json -seed 3 -faults .seedfall/pinned/seedfall/seed-3.json"}
	pass := base
	pass.Status = "pass"
	again := base
	again.Status, again.Message, again.PinnedMessage = "fail", "client#1: lost k1", "client#1: lost k2"
	again.PinnedFingerprint, again.Fingerprint, again.SameFailure = "assert: lost", "assert: lost", true
	again.Artifacts = &record.Artifacts{Trace: ".seedfall/seedfall/pin-seed-3.trace.log"}
	differently := again
	differently.Message, differently.Fingerprint, differently.SameFailure, differently.Artifacts = "client#1: panic: boom", "panic: panic", false, nil
	unpinned := base
	unpinned.Status, unpinned.Message, unpinned.Fingerprint = "fail", "client#1: lost k1", "assert: lost"
	nondet := base
	nondet.Status, nondet.Message = "nondeterministic", "nondeterministic: host call 5000"
	tests := []struct {
		name string
		rec  record.Pin
		want string
	}{
		{"passes", pass, "ok   pin seed-3.json (seed 3) passed: the regression it pins stays fixed\n"},
		{"fails again", again, "FAIL pin .seedfall/pinned/seedfall/seed-3.json (original seed 3) failed again at t=3.86025302s: client#1: lost k1\n" +
			"  pinned failure: client#1: lost k2 (assert: lost)\n" +
			"  trace: .seedfall/seedfall/pin-seed-3.trace.log\n" +
			"  replay: sf-run -c seedfall.json -seed 3 -faults .seedfall/pinned/seedfall/seed-3.json\n"},
		{"fails differently", differently, "FAIL pin .seedfall/pinned/seedfall/seed-3.json (original seed 3) failed differently at t=3.86025302s: client#1: panic: boom\n" +
			"  pinned failure: client#1: lost k2 (assert: lost)\n" +
			"  fails now as: panic: panic\n" +
			"  replay: sf-run -c seedfall.json -seed 3 -faults .seedfall/pinned/seedfall/seed-3.json\n"},
		{"a schedule without a pinned object", unpinned, "FAIL pin .seedfall/pinned/seedfall/seed-3.json (original seed 3) failed at t=3.86025302s: client#1: lost k1\n" +
			"  replay: sf-run -c seedfall.json -seed 3 -faults .seedfall/pinned/seedfall/seed-3.json\n"},
		{"nondeterministic", nondet, "FAIL pin .seedfall/pinned/seedfall/seed-3.json (original seed 3) failed as nondeterministic at t=3.86025302s: nondeterministic: host call 5000\n" +
			"  replay: sf-run -c seedfall.json -seed 3 -faults .seedfall/pinned/seedfall/seed-3.json\n"},
	}
	for _, tt := range tests {
		if got := PinReport(tt.rec); got != tt.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tt.name, got, tt.want)
		}
	}
}
