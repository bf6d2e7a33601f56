package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/faults"
)

// TestOSyncWritesMeetFsyncFaults: a write to a file opened with O_SYNC is an
// fsync too, so the fsync faults reach it. Disk op 1 is the write and op 2
// its sync. fsync_eio there fails the write with EIO and leaves nothing
// durable; lost_write lets the write succeed and loses its page. A crash
// after the write shows what survived: the restarted guest counts it.
func TestOSyncWritesMeetFsyncFaults(t *testing.T) {
	wasm := buildGuest(t, "osync")
	e, err := New(testCache())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	spec := &Spec{
		Nodes:      []NodeSpec{{Name: "w", Wasm: wasm, Workload: true, Faults: true, Args: []string{"-sleep", "1s"}}},
		DurationNs: int64(5 * time.Second), LatencyNs: [2]int64{1e6, 1e6},
		Kinds: faults.Values{"restart_after": [2]int64{1e6, 1e6}},
	}
	crash := Fault{Kind: KindCrash, Node: "w", At: Dur(100 * time.Millisecond), Until: Dur(200 * time.Millisecond)}
	tests := []struct {
		name        string
		faults      []Fault
		line, after string
	}{
		{"no fault", []Fault{crash}, "w#1: write 1: ok", "w#2: found 4096 of 4096 bytes"},
		{"fsync_eio", []Fault{{Kind: faults.KindFsyncEIO, Node: "w", Op: 2}, crash}, "w#1: write 1: EIO", "w#2: found 0 of 4096 bytes"},
		{"lost_write", []Fault{{Kind: faults.KindLostWrite, Node: "w", Op: 2}, crash}, "w#1: write 1: ok", "w#2: found 0 of 4096 bytes"},
		{"fault on the write's own op", []Fault{{Kind: faults.KindFsyncEIO, Node: "w", Op: 1}, crash}, "w#1: write 1: ok", "w#2: found 4096 of 4096 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := e.Run(spec, 1, Options{Faults: tt.faults})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != StatusPass {
				t.Fatalf("status %s: %s", res.Status, res.Message)
			}
			trace := strings.Join(res.Trace, "\n")
			for _, want := range []string{tt.line, tt.after} {
				if !strings.Contains(trace, want) {
					t.Errorf("trace has no %q:\n%s", want, trace)
				}
			}
			var fired []string
			for _, f := range res.Faults {
				fired = append(fired, f.Kind)
			}
			want := []string{KindCrash}
			if tt.faults[0].Op == 2 {
				want = []string{tt.name, KindCrash}
			}
			if strings.Join(fired, " ") != strings.Join(want, " ") {
				t.Errorf("faults fired %v, want %v", fired, want)
			}
		})
	}
}
