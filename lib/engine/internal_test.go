package engine

import (
	"strings"
	"testing"
	"time"
)

// TestInternalErrors breaks an invariant on purpose, in a host call and in
// the scheduler: the run fails with class internal and a message that asks
// for a report, never as the guest's trap or with a Go stack trace.
func TestInternalErrors(t *testing.T) {
	wasm := buildGuest(t, "sleeper")
	e, err := New(testCache())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	spec := &Spec{
		Nodes:      []NodeSpec{{Name: "client", Wasm: wasm, Workload: true}, {Name: "server", Wasm: wasm}},
		DurationNs: int64(10 * time.Second), LatencyNs: [2]int64{1e6, 1e6},
	}
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"host call", Options{PanicAtCall: 40}, "internal error in sf: a host call of "},
		{"scheduler", Options{PanicAtStep: 3}, "internal error in sf: the scheduler panicked: injected invariant failure; please report it with this seed and world"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := e.Run(spec, 1, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != StatusFail || res.Class != ClassInternal {
				t.Fatalf("%s %s %q, want an internal failure", res.Status, res.Class, res.Message)
			}
			if !strings.HasPrefix(res.Message, tt.want) || !strings.HasSuffix(res.Message, "panicked: injected invariant failure; please report it with this seed and world") {
				t.Errorf("message %q", res.Message)
			}
			if strings.Contains(res.Message, "goroutine") || strings.Contains(res.Message, "wasm") {
				t.Errorf("message %q shows engine internals", res.Message)
			}
		})
	}
}
