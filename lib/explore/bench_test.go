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
// network) from seeds 1 and 2, kvlog from seed 17, and raftkv (three raft
// nodes and a client) from seeds 1 and 2, for 50 runs (-j 1): with the
// branches started from forks of the runs they branch ("forks"), from forks
// of the starting seeds' runs only, as explore did before the runs of
// branches left forks too ("seedforks"), and from the start ("noforks"). It
// reports the branches per CPU second of each, the CPU seconds of the
// uncounted runs that leave the forks included, and fails when the modes
// explore differently. To say why the ratio is what it is, it also reports,
// with forks: where the new branch points fall as a fraction of the run
// they branch (point-frac; at-reached of them 1ns after a moment the run
// reached something new, reached-point-frac, the others span-point-frac),
// the fraction of the branches' steps that the forks they started from
// skipped (skip-frac), the steps of the runs that left forks as a fraction
// of the branches' (rerun-frac), the steps run in all as a fraction of
// those of the same runs from t=0 (ran-frac, whose inverse bounds the
// gain), the history check's share of a branch's real time (check-frac),
// and, from the CPU time per step without forks, what each branch started
// from a fork cost beyond the steps it ran (restore-ms, taking the forks
// included; on a loaded machine a small difference of two large numbers).
func BenchmarkExploreForks(b *testing.B) {
	for _, w := range []struct {
		name  string
		seeds []uint64
	}{{"httpkv", []uint64{1, 2}}, {"kvlog", []uint64{17}}, {"raftkv", []uint64{1, 2}}} {
		b.Run(w.name, func(b *testing.B) { benchExplore(b, w.name, w.seeds) })
	}
}

func benchExplore(b *testing.B, world string, seeds []uint64) {
	p, err := runner.Prepare("../../examples/"+world+"/seedfall.json", config.LoadOptions{}, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Engine.Close()
	explored := map[string][3]int{}
	var forked *Outcome
	var forkedCPU time.Duration
	for _, mode := range []string{"forks", "seedforks", "noforks"} {
		b.Run(mode, func(b *testing.B) {
			for range max(b.N, 1) {
				start, cpu := time.Now(), cpuTime()
				out, err := Run(p, Options{Seeds: seeds, Runs: 50, Jobs: 1, Config: "seedfall.json", NoForks: mode == "noforks", seedForksOnly: mode == "seedforks"}, func(Found) {})
				if err != nil {
					b.Fatal(err)
				}
				spent := cpuTime() - cpu
				branches := out.Runs - out.SeedRuns
				b.ReportMetric(float64(branches)/spent.Seconds(), "branches/cpu-s")
				b.ReportMetric(time.Since(start).Seconds(), "s/explore")
				b.ReportMetric(float64(branches), "branches")
				b.ReportMetric(float64(out.Corpus), "kept")
				b.ReportMetric(float64(len(out.Found)), "found")
				c := out.cost
				b.ReportMetric(float64(c.checkNs)/float64(max(c.realNs, 1)), "check-frac")
				if want, ok := explored[world]; ok && want != [3]int{out.Runs, out.Corpus, len(out.Found)} {
					b.Fatalf("%s: %d runs, %d kept, %d found; the first mode made %v", mode, out.Runs, out.Corpus, len(out.Found), want)
				}
				explored[world] = [3]int{out.Runs, out.Corpus, len(out.Found)}
				if mode != "noforks" {
					if mode == "forks" {
						forked, forkedCPU = out, spent
					}
					b.ReportMetric(float64(out.Forked), "forked")
					b.ReportMetric(float64(out.ForkRuns), "fork-runs")
					b.ReportMetric(float64(c.forksTaken), "forks-taken")
					b.ReportMetric(c.pointFrac/float64(max(branches, 1)), "point-frac")
					b.ReportMetric(float64(c.atReached)/float64(max(branches, 1)), "at-reached")
					b.ReportMetric(c.reachedFrac/float64(max(c.atReached, 1)), "reached-point-frac")
					b.ReportMetric((c.pointFrac-c.reachedFrac)/float64(max(branches-c.atReached, 1)), "span-point-frac")
					b.ReportMetric(float64(c.skipped)/float64(max(c.branchSteps, 1)), "skip-frac")
					b.ReportMetric(float64(c.rerunSteps)/float64(max(c.branchSteps, 1)), "rerun-frac")
					ran := c.seedSteps + c.branchSteps - c.skipped + c.rerunSteps
					b.ReportMetric(float64(ran)/float64(max(c.seedSteps+c.branchSteps, 1)), "ran-frac")
					continue
				}
				if forked == nil || forked.Forked == 0 {
					continue
				}
				// What the run with forks would have cost at this run's
				// CPU time per step, and what it cost beyond that per
				// branch started from a fork.
				perStep := spent.Seconds() / float64(c.seedSteps+c.branchSteps)
				f := forked.cost
				ran := f.seedSteps + f.branchSteps - f.skipped + f.rerunSteps
				extra := forkedCPU.Seconds() - perStep*float64(ran)
				b.ReportMetric(perStep*1e6, "cpu-us/step")
				b.ReportMetric(extra/float64(forked.Forked)*1e3, "restore-ms")
			}
		})
	}
}
