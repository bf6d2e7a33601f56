package shrink

import (
	"errors"
	"fmt"
	"io"
	"syscall"
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

// BenchmarkShrinkForks shrinks kvlog's failing seeds of 1-10 with -j 1, with
// its own faults and with the everything preset's,
// with the candidates started from forks of the starting schedule's run and
// from the start, and reports real and CPU seconds per shrunk seed of each.
func BenchmarkShrinkForks(b *testing.B) {
	for _, preset := range []string{"default", "everything"} {
		b.Run(preset, func(b *testing.B) { benchmarkShrinkForks(b, preset) })
	}
}

func benchmarkShrinkForks(b *testing.B, preset string) {
	var set []string
	if preset != "default" {
		set = []string{"faults.preset=" + preset}
	}
	p, err := runner.Prepare("../../examples/kvlog/seedfall.json", config.LoadOptions{Set: set}, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Engine.Close()
	for _, mode := range []string{"forks", "noforks"} {
		b.Run(mode, func(b *testing.B) {
			for range max(b.N, 1) {
				shrunk, forked, runs := 0, 0, 0
				start, cpu := time.Now(), cpuTime()
				for seed := uint64(1); seed <= 10; seed++ {
					out, err := Seed(p, seed, Options{Jobs: 1, NoForks: mode == "noforks"})
					if errors.Is(err, ErrPasses) {
						continue
					}
					if err != nil {
						b.Fatal(err)
					}
					shrunk++
					forked += out.Forked
					runs += out.Runs
				}
				b.ReportMetric(time.Since(start).Seconds()/float64(shrunk), "s/seed")
				b.ReportMetric((cpuTime()-cpu).Seconds()/float64(shrunk), "cpu-s/seed")
				b.ReportMetric(float64(forked)/float64(shrunk), "forked/seed")
				b.ReportMetric(float64(runs)/float64(shrunk), "replays/seed")
			}
		})
	}
}

// BenchmarkShrinkLate shrinks failing seeds of raftkv's seedfall.late.json
// with -j 1, from forks and from the start: its faults begin after a setup
// (an election and 500 acknowledged writes) that takes some two thirds of
// each run's scheduler steps, so every candidate can start from a fork taken
// after the setup. It reports CPU seconds per shrunk seed of each and fails
// when the two shrink a seed to different schedules.
func BenchmarkShrinkLate(b *testing.B) {
	p, err := runner.Prepare("../../examples/raftkv/seedfall.late.json", config.LoadOptions{}, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Engine.Close()
	seeds := []uint64{2, 3, 4}
	shrunk := map[uint64]string{}
	for _, mode := range []string{"forks", "noforks"} {
		b.Run(mode, func(b *testing.B) {
			for range max(b.N, 1) {
				forked, runs := 0, 0
				start, cpu := time.Now(), cpuTime()
				for _, seed := range seeds {
					out, err := Seed(p, seed, Options{Jobs: 1, NoForks: mode == "noforks"})
					if err != nil {
						b.Fatalf("seed %d: %v", seed, err)
					}
					forked += out.Forked
					runs += out.Runs
					got := fmt.Sprint(out.Schedule.Faults, out.Schedule.Budget)
					if want, ok := shrunk[seed]; ok && want != got {
						b.Fatalf("seed %d shrinks to %s from forks and to %s from the start", seed, want, got)
					}
					shrunk[seed] = got
				}
				n := float64(len(seeds))
				b.ReportMetric(time.Since(start).Seconds()/n, "s/seed")
				b.ReportMetric((cpuTime()-cpu).Seconds()/n, "cpu-s/seed")
				b.ReportMetric(float64(forked)/n, "forked/seed")
				b.ReportMetric(float64(runs)/n, "replays/seed")
			}
		})
	}
}

// cpuTime is the CPU time the process has used: the machine may be shared,
// and the wall time then says little.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCauseForks draws the cause curve of kvlog's seed 1 (10 moments,
// 10 branches each, -j 1) with the branches started from forks of the
// seed's run and from the start, and reports real and CPU seconds of each.
func BenchmarkCauseForks(b *testing.B) {
	p, err := runner.Prepare("../../examples/kvlog/seedfall.json", config.LoadOptions{}, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Engine.Close()
	for _, mode := range []string{"forks", "noforks"} {
		b.Run(mode, func(b *testing.B) {
			for range max(b.N, 1) {
				start, cpu := time.Now(), cpuTime()
				out, err := Cause(p, 1, CauseOptions{Moments: DefaultCauseMoments, Branches: DefaultCauseBranches, Jobs: 1, NoForks: mode == "noforks"})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(time.Since(start).Seconds(), "s/curve")
				b.ReportMetric((cpuTime() - cpu).Seconds(), "cpu-s/curve")
				b.ReportMetric(float64(out.Forked), "forked")
				b.ReportMetric(float64(out.Runs), "runs")
			}
		})
	}
}
