//go:build linux

package wasmrewrite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
)

// leafCostKernels are the kernels of testdata/leafcost and how many
// operations a run does: about 0.2 s each without instrumentation.
var leafCostKernels = []struct {
	name string
	n    int
}{{"deposits", 4_000_000}, {"sprintf", 60_000}, {"map", 150_000}, {"sort", 30_000}}

// BenchmarkPreemptCost measures what preemption's instrumentation costs in
// guest CPU: it runs testdata/leafcost under wazero as prepared for a world
// without preempt (loop ticks only), with preempt's call counting but no
// leaf checks, and with both, and reports per kernel the CPU time per
// operation of each and the ratios. No preemption is requested, so only the
// added code runs: a decrement and test per function entry, and per
// frameless function the comparison of SP with g.stackguard0. The time is
// the CPU time of the thread that runs the guest (wazero runs it on the
// calling goroutine, locked to its thread), so other load on the machine
// counts little; each way runs five times, alternately, and the fastest run
// counts. docs/preemption.md has the figures.
func BenchmarkPreemptCost(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a program and runs it three ways for several seconds")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		b.Skip("no go toolchain")
	}
	wasm := filepath.Join(b.TempDir(), "leafcost.wasm")
	cmd := exec.Command(goCmd, "build", "-trimpath", "-o", wasm, "./testdata/leafcost")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build leafcost: %v\n%s", err, out)
	}
	bin, err := os.ReadFile(wasm)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	modes := []Mode{{}, {Preempt: true, noLeafChecks: true}, {Preempt: true}}
	compiled := make([]wazero.CompiledModule, len(modes))
	for i, mode := range modes {
		prep, err := Rewrite(bin, mode)
		if err != nil {
			b.Fatal(err)
		}
		if compiled[i], err = rt.CompileModule(ctx, prep); err != nil {
			b.Fatal(err)
		}
	}
	for _, k := range leafCostKernels {
		best := make([]time.Duration, len(modes))
		var out [3]string
		for range 5 {
			for i, m := range compiled {
				d, stdout, err := runLeafCost(ctx, rt, m, k.name, k.n)
				if err != nil {
					b.Fatal(err)
				}
				if out[i] = stdout; out[i] != out[0] {
					b.Fatalf("kernel %s printed %q prepared as %+v, %q without preempt", k.name, out[i], modes[i], out[0])
				}
				if best[i] == 0 || d < best[i] {
					best[i] = d
				}
			}
		}
		per := func(i int) float64 { return float64(best[i].Nanoseconds()) / float64(k.n) }
		b.Run(k.name, func(b *testing.B) {
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(per(0), "plain-ns/op")
			b.ReportMetric(per(1), "counted-ns/op")
			b.ReportMetric(per(2), "leafchecks-ns/op")
			b.ReportMetric(per(1)/per(0), "counted/plain")
			b.ReportMetric(per(2)/per(1), "leafchecks/counted")
		})
	}
}

// runLeafCost runs one kernel of the program n times and returns the CPU
// time of the thread that ran it and what it printed.
func runLeafCost(ctx context.Context, rt wazero.Runtime, m wazero.CompiledModule, kernel string, n int) (time.Duration, string, error) {
	var stdout, stderr bytes.Buffer
	cfg := wazero.NewModuleConfig().WithName("").WithArgs("leafcost", "-kernel", kernel, "-n", strconv.Itoa(n)).
		WithStdout(&stdout).WithStderr(&stderr)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start, err := threadCPU()
	if err != nil {
		return 0, "", err
	}
	mod, err := rt.InstantiateModule(ctx, m, cfg)
	end, cpuErr := threadCPU()
	var exit *sys.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 0 {
		err = nil
	}
	if err == nil {
		err = cpuErr
	}
	if err != nil {
		return 0, "", fmt.Errorf("leafcost -kernel %s: %v: %s", kernel, err, stderr.String())
	}
	if mod != nil {
		mod.Close(ctx)
	}
	return end - start, stdout.String(), nil
}

// threadCPU is the CPU time the calling thread has used (RUSAGE_THREAD).
func threadCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
