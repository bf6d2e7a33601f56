package mutate

import (
	"io"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/runner"
)

// BenchmarkNineMutantsVsSweep measures the cost bound of sf-mutate: the
// nine runtime mutants over seeds 1-100 of examples/ledger must cost at most
// 10 times one 100-seed sweep of the same world. It reports the ratio.
func BenchmarkNineMutantsVsSweep(b *testing.B) {
	world := filepath.Join("..", "..", "examples", "ledger", "seedfall.json")
	p, err := runner.Prepare(world, config.LoadOptions{}, io.Discard)
	if err != nil {
		b.Skip(err)
	}
	defer p.Engine.Close()
	seeds, _ := config.ParseSeeds("1-100")
	c := &Command{Seeds: seeds, Jobs: runtime.NumCPU()}
	for b.Loop() {
		start := time.Now()
		if _, err := c.sweep(p, nil, ""); err != nil {
			b.Fatal(err)
		}
		one := time.Since(start)
		start = time.Now()
		for _, m := range engine.Mutants {
			if _, err := c.sweep(p, nil, m.Name); err != nil {
				b.Fatal(err)
			}
		}
		ratio := float64(time.Since(start)) / float64(one)
		b.ReportMetric(ratio, "x_sweep")
		if ratio > 10 {
			b.Errorf("nine mutants cost %.1f times one sweep, more than 10", ratio)
		}
	}
}
