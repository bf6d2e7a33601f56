package engine

import (
	"strings"
	"testing"
	"time"
)

// TestRemovedFilesGiveSpaceBack: on a disk of 64 KiB, a file removed while
// closed, or renamed over, gives its space back at once, and one removed
// while open gives it back at its close, as on Linux (the diskfull guest
// checks each step, ENOSPC before and room after).
func TestRemovedFilesGiveSpaceBack(t *testing.T) {
	wasm := buildGuest(t, "diskfull")
	e, err := New(testCache())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s := &Spec{
		Nodes:      []NodeSpec{{Name: "w", Wasm: wasm, Workload: true}},
		DurationNs: int64(time.Second), LatencyNs: [2]int64{1e6, 1e6},
	}
	s.Disk.CapacityBytes = 64 << 10
	res, err := e.Run(s, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	trace := strings.Join(res.Trace, "\n")
	if res.Status != StatusPass || !strings.Contains(trace, "diskfull: ok") {
		t.Fatalf("status %s %s; want the guest's every check to pass\n%s", res.Status, res.Message, trace)
	}
}
