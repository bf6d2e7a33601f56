package core_test

import (
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/engine"
)

// BenchmarkFork measures forking a running world and resuming the fork: a
// kvlog world (its server and its client) and the raftkv world (three
// nodes and a client), each forked at ten steps spread over seed 1. The
// fork is every guest's memory and globals and the run's state; the resume
// lasts until the scheduler could take its next step: fresh instances, the
// images written, every guest back in the host call it was copied in. It
// reports the median of each and of their sum, for the world and per guest,
// the fastest fork and resume (on a loaded machine, the closest to their
// own cost), and the images' size.
func BenchmarkFork(b *testing.B) {
	for _, w := range []struct{ name, world string }{
		{"kvlog", "examples/kvlog/seedfall.json"},
		{"raftkv", "examples/raftkv/seedfall.json"},
	} {
		b.Run(w.name, func(b *testing.B) {
			p := prepareWorld(b, w.world, nil)
			whole, err := p.Engine.Run(p.Spec, 1, engine.Options{})
			if err != nil {
				b.Fatal(err)
			}
			var forkNs, resumeNs []int64
			guests, imageBytes := 0, 0
			b.ResetTimer()
			for range b.N {
				forkNs, resumeNs = forkNs[:0], resumeNs[:0]
				_, err := p.Engine.Run(p.Spec, 1, engine.Options{AtStep: func(s engine.StepPoint) {
					if s.Step == 0 || s.Step%max(1, whole.Steps/10) != 0 {
						return
					}
					start := time.Now()
					f, err := s.Fork()
					if err != nil {
						b.Fatal(err)
					}
					forkNs = append(forkNs, time.Since(start).Nanoseconds())
					guests, imageBytes = 0, f.MemoryBytes()
					for _, n := range p.Spec.Nodes {
						if f.ParkedIn(n.Name) != "" {
							guests++
						}
					}
					var stop atomic.Bool
					start = time.Now()
					if _, err := p.Engine.Resume(f, engine.Options{Interrupt: &stop, AtStep: func(engine.StepPoint) {
						if !stop.Load() {
							resumeNs = append(resumeNs, time.Since(start).Nanoseconds())
							stop.Store(true)
						}
					}}); err != nil {
						b.Fatal(err)
					}
					f.Release()
				}})
				if err != nil {
					b.Fatal(err)
				}
			}
			fork, resume := median(forkNs), median(resumeNs)
			both := make([]int64, len(forkNs))
			for i := range both {
				both[i] = forkNs[i] + resumeNs[i]
			}
			b.ReportMetric(fork, "fork-ms")
			b.ReportMetric(resume, "resume-ms")
			b.ReportMetric(fork+resume, "fork+resume-ms")
			b.ReportMetric(float64(slices.Min(both))/1e6, "fork+resume-ms-fastest")
			b.ReportMetric((fork+resume)/float64(max(guests, 1)), "fork+resume-ms/guest")
			b.ReportMetric(float64(imageBytes)/(1<<20), "images-MiB")
		})
	}
}

// median is the median of ns, in milliseconds.
func median(ns []int64) float64 {
	if len(ns) == 0 {
		return 0
	}
	s := slices.Clone(ns)
	slices.Sort(s)
	return float64(s[len(s)/2]) / 1e6
}
