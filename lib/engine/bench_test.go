package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkNodeStart measures starting one node: instantiating its module
// and running Go's runtime initialisation, up to its exit.
func BenchmarkNodeStart(b *testing.B) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		b.Skip("no go toolchain")
	}
	dir := b.TempDir()
	wasm := filepath.Join(dir, "noop.wasm")
	cmd := exec.Command(goCmd, "build", "-trimpath", "-o", wasm, "./testdata/guests/noop")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	wasm = runnable(b, wasm, nil)
	e, err := New(filepath.Join(dir, "cache"))
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	spec := &Spec{
		Nodes:      []NodeSpec{{Name: "noop", Wasm: wasm, Workload: true}},
		DurationNs: int64(time.Second), LatencyNs: [2]int64{1e6, 1e6}, WatchdogNs: int64(10 * time.Second),
	}
	if _, err := e.Run(spec, 1, Options{}); err != nil { // compile outside the timing
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < max(b.N, 50); i++ {
		res, err := e.Run(spec, uint64(i), Options{})
		if err != nil {
			b.Fatal(err)
		}
		if res.Status != StatusPass {
			b.Fatalf("noop run: %s %s", res.Status, res.Message)
		}
	}
	n := max(b.N, 50)
	b.ReportMetric(float64(time.Since(start).Microseconds())/float64(n)/1000, "ms/start")
}
