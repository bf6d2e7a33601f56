package engine

import (
	"os"
	"strings"
	"testing"
)

func TestSmokeKvlog(t *testing.T) {
	if _, err := os.Stat("/tmp/sfw/server.wasm"); err != nil {
		t.Skip("no prebuilt guests")
	}
	e, err := New("/tmp/sfw/cache")
	if err != nil {
		t.Fatal(err)
	}
	spec := &Spec{
		Nodes: []NodeSpec{
			{Name: "server", Wasm: "/tmp/sfw/server.wasm", Args: []string{"-ack-before-fsync"}},
			{Name: "client", Wasm: "/tmp/sfw/client.wasm", Args: []string{"-writes", "200"}, Workload: true},
		},
		DurationNs: 60e9, LatencyNs: [2]int64{1e6, 5e6}, WatchdogNs: 10e9, Supervise: true,
		CrashPerSec: 0.5, RestartAfter: [2]int64{10e6, 500e6},
	}
	for seed := uint64(1); seed <= 20; seed++ {
		res, err := e.Run(spec, seed, Options{Trace: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d: %s %s %s steps=%d calls=%d real=%dms at=%s", seed, res.Status, res.Class, res.Message, res.Steps, res.HostCalls, res.RealNs/1e6, fmtTime(res.AtNs))
		tr := res.Trace
		if len(tr) > 30 {
			tr = append(tr[:15], tr[len(tr)-15:]...)
		}
		if res.Status == StatusFail && seed < 6 {
			t.Log("\n" + strings.Join(tr, "\n"))
		}
	}
}
