package sweep

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	sfbuild "github.com/sf-dst/sf/lib/build"
	"github.com/sf-dst/sf/lib/wasmrewrite"

	"github.com/sf-dst/sf/lib/engine"
)

// BenchmarkSimulatedTCP pushes bytes, then small request/response messages,
// through one TCP connection: in the simulator (both ends in one guest, over
// the simulated network) and natively over real loopback, and reports both
// rates and their ratio. Each run includes one node start or one process
// start, which the sizes make small.
func BenchmarkSimulatedTCP(b *testing.B) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		b.Skip("no go toolchain")
	}
	dir := b.TempDir()
	wasm := filepath.Join(dir, "tcpbench.wasm")
	native := filepath.Join(dir, "tcpbench")
	build := func(out string, env ...string) {
		cmd := exec.Command(goCmd, "build", "-trimpath", "-o", out, "./testdata/guests/tcpbench")
		cmd.Env = append(os.Environ(), env...)
		if o, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("build: %v\n%s", err, o)
		}
	}
	build(wasm, "GOOS=wasip1", "GOARCH=wasm")
	build(native)
	wasm, err = sfbuild.Runnable(wasm, wasmrewrite.Mode{})
	if err != nil {
		b.Fatal(err)
	}
	eng, err := engine.New(filepath.Join(dir, "cache"))
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	sim := func(args ...string) time.Duration {
		spec := &engine.Spec{
			Nodes:      []engine.NodeSpec{{Name: "bench", Wasm: wasm, Args: args, Workload: true}},
			DurationNs: int64(time.Hour), LatencyNs: [2]int64{50e3, 100e3}, WatchdogNs: int64(time.Minute),
		}
		start := time.Now()
		r, err := eng.Run(spec, 1, engine.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if r.Status != engine.StatusPass {
			b.Fatalf("simulated run: %s %s\n%v", r.Status, r.Message, r.Trace)
		}
		return time.Since(start)
	}
	real := func(args ...string) time.Duration {
		start := time.Now()
		if out, err := exec.Command(native, args...).CombinedOutput(); err != nil {
			b.Fatalf("native run: %v\n%s", err, out)
		}
		return time.Since(start)
	}
	const mb, msgs = 32, 5000
	sim("-mb", "1", "-msgs", "1") // compile outside the timing
	b.ResetTimer()
	simBytes := sim("-mb", "32", "-msgs", "0")
	realBytes := real("-mb", "32", "-msgs", "0")
	simMsgs := sim("-mb", "0", "-msgs", "5000")
	realMsgs := real("-mb", "0", "-msgs", "5000")
	b.ReportMetric(mb/simBytes.Seconds(), "sim-MB/s")
	b.ReportMetric(mb/realBytes.Seconds(), "loopback-MB/s")
	b.ReportMetric(realBytes.Seconds()/simBytes.Seconds(), "bytes-sim/loopback")
	b.ReportMetric(msgs/simMsgs.Seconds(), "sim-msgs/s")
	b.ReportMetric(msgs/realMsgs.Seconds(), "loopback-msgs/s")
	b.ReportMetric(realMsgs.Seconds()/simMsgs.Seconds(), "msgs-sim/loopback")
}
