package runner

import (
	"testing"
	"time"
)

// BenchmarkSetupFork sweeps seeds 1-10 of a world whose workload loads
// 1000 keys into kvlog's server before sim.SetupComplete, with "fork":
// "setup" (the setup run once a sweep, each seed resumed from its fork) and
// with "fork": "none" (each seed runs its own), and reports seeds per
// second of each.
func BenchmarkSetupFork(b *testing.B) {
	const seeds = 10
	for _, fork := range []string{"setup", "none"} {
		b.Run(fork, func(b *testing.B) {
			p := prepare(b, "lib/runner/testdata/setupload/seedfall.json", "fork="+fork)
			start := time.Now()
			for range b.N {
				p.setups, p.setupOrder = nil, nil // one setup a sweep
				for seed := uint64(1); seed <= seeds; seed++ {
					if o := p.One(Job{Seed: seed}, nil); o.Err != nil {
						b.Fatal(o.Err)
					}
				}
			}
			b.ReportMetric(float64(b.N*seeds)/time.Since(start).Seconds(), "seeds/s")
		})
	}
}
