package sweep

import (
	"io"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/runner"
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
		p, err := runner.Prepare("../../examples/"+example+"/"+world, opts, io.Discard)
		if err != nil {
			b.Fatal(err)
		}
		for _, workers := range jobList {
			b.Run(world+"/j"+string(rune('0'+workers)), func(b *testing.B) {
				const seeds = 60
				var steps, virt int64
				jobs := make([]runner.Job, seeds)
				for i := range jobs {
					jobs[i].Seed = uint64(i + 1)
				}
				start := time.Now()
				for iter := 0; iter < max(b.N, 1); iter++ {
					err := p.Run(jobs, runner.Pool{Workers: workers}, func(o runner.Outcome) error {
						if o.Err != nil {
							return o.Err
						}
						steps += int64(o.Result.Steps)
						virt += o.Result.AtNs
						return nil
					})
					if err != nil {
						b.Fatal(err)
					}
				}
				real := time.Since(start)
				n := float64(seeds * max(b.N, 1))
				b.ReportMetric(n/real.Seconds(), "seeds/s")
				b.ReportMetric(float64(steps)/n, "steps/seed")
				b.ReportMetric(float64(real.Nanoseconds())*float64(workers)/float64(steps), "ns/step")
				b.ReportMetric(float64(virt)/float64(real.Nanoseconds())/float64(workers), "virtual/real")
			})
		}
	}
}
