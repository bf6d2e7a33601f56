package runner

import (
	"testing"
	"time"
)

// BenchmarkSetupFork sweeps seeds 1-10 of two worlds whose setup is real
// work: kvlog's server loaded with 1000 keys (testdata/setupload), and
// examples/raftkv's seedfall.setup.json, a Raft cluster's first election
// and 500 writes. Each runs with "fork": "setup" (the setup run once a
// sweep, each seed resumed from its fork) and with "fork": "none" (each
// seed runs its own), and reports seeds per second of each.
func BenchmarkSetupFork(b *testing.B) {
	const seeds = 10
	for _, w := range []struct{ name, world string }{
		{"kvlog-load", "lib/runner/testdata/setupload/seedfall.json"},
		{"raftkv", "examples/raftkv/seedfall.setup.json"},
	} {
		for _, fork := range []string{"setup", "none"} {
			b.Run(w.name+"/"+fork, func(b *testing.B) {
				p := prepare(b, w.world, "fork="+fork)
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
}
