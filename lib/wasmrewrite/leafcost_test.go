package wasmrewrite

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
)

// leafCostKernels are the kernels of testdata/leafcost, in its order.
var leafCostKernels = []string{"deposits", "sprintf", "map", "sort"}

// BenchmarkPreemptCost measures what preemption's instrumentation costs in
// guest CPU: it runs testdata/leafcost under wazero as prepared for a world
// without preempt (loop ticks only), with preempt's call counting but no
// leaf checks, and with both, and reports per kernel the ns/op of each and
// the ratios. No preemption is requested, so only the added code runs: a
// decrement and test per function entry, and per frameless function the
// comparison of SP with g.stackguard0. Each way runs three times,
// alternately, and the fastest run counts. docs/preemption.md has the
// figures.
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
	best := map[string][]float64{}
	for range 3 {
		for i, m := range compiled {
			got, err := runLeafCost(ctx, rt, m)
			if err != nil {
				b.Fatal(err)
			}
			for _, k := range leafCostKernels {
				if best[k] == nil {
					best[k] = make([]float64, len(modes))
				}
				if v := got[k]; best[k][i] == 0 || v < best[k][i] {
					best[k][i] = v
				}
			}
		}
	}
	for _, k := range leafCostKernels {
		v := best[k]
		b.Run(k, func(b *testing.B) {
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(v[0], "plain-ns/op")
			b.ReportMetric(v[1], "counted-ns/op")
			b.ReportMetric(v[2], "leafchecks-ns/op")
			b.ReportMetric(v[1]/v[0], "counted/plain")
			b.ReportMetric(v[2]/v[1], "leafchecks/counted")
		})
	}
}

func runLeafCost(ctx context.Context, rt wazero.Runtime, m wazero.CompiledModule) (map[string]float64, error) {
	var stdout, stderr bytes.Buffer
	cfg := wazero.NewModuleConfig().WithName("").WithArgs("leafcost", "-target", "150ms").
		WithStdout(&stdout).WithStderr(&stderr).WithSysWalltime().WithSysNanotime()
	mod, err := rt.InstantiateModule(ctx, m, cfg)
	var exit *sys.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 0 {
		err = nil
	}
	if err != nil {
		return nil, errors.New("leafcost: " + err.Error() + ": " + stderr.String())
	}
	if mod != nil {
		mod.Close(ctx)
	}
	got := map[string]float64{}
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		name, num, _ := strings.Cut(sc.Text(), " ")
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || v <= 0 {
			return nil, errors.New("leafcost: unexpected line " + strconv.Quote(sc.Text()))
		}
		got[name] = v
	}
	for _, k := range leafCostKernels {
		if got[k] == 0 {
			return nil, errors.New("leafcost: no figure for " + k + " in " + strconv.Quote(stdout.String()))
		}
	}
	return got, nil
}
