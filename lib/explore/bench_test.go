package explore

import (
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/runner"
)

// cpuTime is the CPU time the process has used: the machine may be shared,
// and the wall time then says little.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkExploreForks explores httpkv (two nodes and a client on the
// network) from seeds 1 and 2, and kvlog from seed 17, for 50 runs (-j 1)
// with the branches started from forks of their seed's run and from the
// start, and reports the branches per CPU second of each, the CPU seconds
// of the uncounted runs that leave the forks included. raftkv is not among
// them: it reaches no property and no buggify site, so an exploration of
// it keeps no run to branch.
func BenchmarkExploreForks(b *testing.B) {
	for _, w := range []struct {
		name  string
		seeds []uint64
	}{{"httpkv", []uint64{1, 2}}, {"kvlog", []uint64{17}}} {
		b.Run(w.name, func(b *testing.B) { benchExplore(b, w.name, w.seeds) })
	}
}

func benchExplore(b *testing.B, world string, seeds []uint64) {
	p, err := runner.Prepare("../../examples/"+world+"/seedfall.json", config.LoadOptions{}, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Engine.Close()
	for _, mode := range []string{"forks", "noforks"} {
		b.Run(mode, func(b *testing.B) {
			for range max(b.N, 1) {
				start, cpu := time.Now(), cpuTime()
				out, err := Run(p, Options{Seeds: seeds, Runs: 50, Jobs: 1, Config: "seedfall.json", NoForks: mode == "noforks"}, func(Found) {})
				if err != nil {
					b.Fatal(err)
				}
				branches := out.Runs - out.SeedRuns
				b.ReportMetric(float64(branches)/(cpuTime()-cpu).Seconds(), "branches/cpu-s")
				b.ReportMetric(time.Since(start).Seconds(), "s/explore")
				b.ReportMetric(float64(branches), "branches")
				b.ReportMetric(float64(out.Forked), "forked")
				b.ReportMetric(float64(len(out.Found)), "found")
			}
		})
	}
}
