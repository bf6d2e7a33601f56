package sweep

import (
	"io"
	"sync"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/engine"
)

// BenchmarkKvlogSweep runs a sweep of the kvlog example with one and two
// workers and reports seeds per second, scheduler steps per seed, real time
// per step and how much faster than real time the simulation runs.
func BenchmarkKvlogSweep(b *testing.B) {
	benchSweep(b, "kvlog", "seedfall.json", "seedfall.fixed.json")
}

// BenchmarkHttpkvSweep is the same for httpkv: net/http over the
// net_overlay, with partitions, which shows what the network costs.
func BenchmarkHttpkvSweep(b *testing.B) {
	benchSweep(b, "httpkv", "seedfall.json", "seedfall.fixed.json")
}

// BenchmarkKvlogPreempt shows what counting calls costs the guest: kvlog's
// fixed world without preempt, with strategy none (counting only, a yield
// every 4,194,304 calls), with random (a yield every 1 to 4,096 calls) and
// with random and preempt.loops.
func BenchmarkKvlogPreempt(b *testing.B) {
	for _, v := range []struct {
		name string
		set  []string
	}{
		{"off", nil},
		{"none", []string{"preempt.strategy=none"}},
		{"random", []string{"preempt.strategy=random"}},
		{"random+loops", []string{"preempt.strategy=random", "preempt.loops=true"}},
	} {
		b.Run(v.name, func(b *testing.B) {
			benchSweepWith(b, config.LoadOptions{Set: v.set}, []int{1}, "kvlog", "seedfall.fixed.json")
		})
	}
}

func benchSweep(b *testing.B, example string, worlds ...string) {
	benchSweepWith(b, config.LoadOptions{}, []int{1, 2}, example, worlds...)
}

func benchSweepWith(b *testing.B, opts config.LoadOptions, jobList []int, example string, worlds ...string) {
	for _, world := range worlds {
		p, err := Prepare("../../examples/"+example+"/"+world, opts, io.Discard)
		if err != nil {
			b.Fatal(err)
		}
		for _, jobs := range jobList {
			b.Run(world+"/j"+string(rune('0'+jobs)), func(b *testing.B) {
				const seeds = 60
				var steps, virt int64
				var mu sync.Mutex
				start := time.Now()
				for iter := 0; iter < max(b.N, 1); iter++ {
					next := make(chan uint64)
					var wg sync.WaitGroup
					for range jobs {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for s := range next {
								r, err := p.Engine.Run(p.Spec, s, engine.Options{})
								if err != nil {
									b.Error(err)
									return
								}
								mu.Lock()
								steps += int64(r.Steps)
								virt += r.AtNs
								mu.Unlock()
							}
						}()
					}
					for s := uint64(1); s <= seeds; s++ {
						next <- s
					}
					close(next)
					wg.Wait()
				}
				real := time.Since(start)
				n := float64(seeds * max(b.N, 1))
				b.ReportMetric(n/real.Seconds(), "seeds/s")
				b.ReportMetric(float64(steps)/n, "steps/seed")
				b.ReportMetric(float64(real.Nanoseconds())*float64(jobs)/float64(steps), "ns/step")
				b.ReportMetric(float64(virt)/float64(real.Nanoseconds())/float64(jobs), "virtual/real")
			})
		}
	}
}
