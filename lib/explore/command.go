package explore

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/exitcode"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/sweep"
)

// Main is sf-run -explore: it prepares the world, explores it and reports
// each failure as it is found. It returns 0 when no run failed, 1 when one
// did, 2 when the world could not be prepared or a run could not be made,
// and 130 when SIGINT or SIGTERM stopped it.
func Main(o Options, stdout, stderr io.Writer) int {
	p, err := sweep.Prepare(o.Config, config.LoadOptions{Profile: o.Profile, Set: o.Set}, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "sf-run: %v\n", err)
		return exitcode.Usage
	}
	defer p.Engine.Close()
	if o.Interrupt == nil {
		o.Interrupt = new(atomic.Bool)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-sigs:
			o.Interrupt.Store(true)
		case <-done:
		}
	}()
	out, err := Run(p, o, func(f Found) {
		how := "starting seed, no branch"
		if n := len(f.Branches); n > 0 {
			how = fmt.Sprintf("%d branches, the last at %s", n, schedule.Time(int64(f.Branches[n-1].At)))
			if n == 1 {
				how = fmt.Sprintf("branched at %s", schedule.Time(int64(f.Branches[0].At)))
			}
		}
		fmt.Fprintf(stdout, "FAIL run %d: seed %d (%s) at t=%s: %s\n", f.Run, f.Seed, how, schedule.Time(f.Result.AtNs), f.Result.Message)
		if f.Schedule != "" {
			fmt.Fprintf(stdout, "  wrote %s\n", f.Schedule)
		}
		fmt.Fprintf(stdout, "  replay: %s\n", f.Repro)
	})
	if err != nil {
		fmt.Fprintf(stderr, "sf-run: explore: %v\n", err)
		return exitcode.Usage
	}
	Print(stdout, out)
	switch {
	case out.Interrupted:
		return exitcode.Interrupted
	case len(out.Found) > 0:
		return exitcode.Problem
	}
	return exitcode.Pass
}
