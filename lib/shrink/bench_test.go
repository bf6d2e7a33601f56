package shrink

import (
	"io"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/runner"
)

// BenchmarkShrinkExamples shrinks the first failing seeds of each example's
// buggy world and reports faults before and after, replays and real time per
// shrunk seed.
func BenchmarkShrinkExamples(b *testing.B) {
	for _, world := range []string{"kvlog/seedfall.json", "buggify/seedfall.json", "liveness/seedfall.json", "symswap/seedfall.json"} {
		b.Run(world, func(b *testing.B) {
			p, err := runner.Prepare("../../examples/"+world, config.LoadOptions{}, io.Discard)
			if err != nil {
				b.Fatal(err)
			}
			defer p.Engine.Close()
			const want = 5
			for range max(b.N, 1) {
				var before, after, runs, shrunk int
				start := time.Now()
				for seed := uint64(1); shrunk < want && seed <= 200; seed++ {
					r, err := p.Engine.Run(p.Spec, seed, engine.Options{})
					if err != nil {
						b.Fatal(err)
					}
					if r.Status != engine.StatusFail {
						continue
					}
					out, err := Seed(p, seed, Options{Jobs: 2})
					if err != nil {
						b.Fatal(err)
					}
					before += out.Before
					after += len(out.Schedule.Faults)
					runs += out.Runs
					shrunk++
				}
				if shrunk == 0 {
					b.Fatal("no failing seed in 1-200")
				}
				n := float64(shrunk)
				b.ReportMetric(float64(before)/n, "faults-before/seed")
				b.ReportMetric(float64(after)/n, "faults-after/seed")
				b.ReportMetric(float64(runs)/n, "replays/seed")
				b.ReportMetric(time.Since(start).Seconds()/n, "s/seed")
			}
		})
	}
}
