// Package runner is how every tool runs a world: Prepare loads, builds and
// compiles it once, and Run makes a list of runs of it (jobs: a seed, with a
// schedule, branches or a mutant) on a pool of workers, handing their
// outcomes back in the order of the list whatever the number of workers.
// It owns what a run needs beyond one call of engine.Engine.Run: the
// second run of a seed that failed on the real-time watchdog, the double
// run of sf-run -check, an early stop at the first outcome a driver is
// looking for, and the interrupt flag. Each tool has lib/stopsignal set that
// flag on SIGINT and SIGTERM from before it prepares the world, so that a
// signal during the build counts too, and turns it into its exit status.
//
// sf-run's sweep (lib/sweep), its exploration (lib/explore), sf-shrink
// (lib/shrink), sf-mutate (lib/mutate) and sf-faults (lib/faultsedit) run
// through it, and so do sf-mcp's tools and simtest, which call those
// packages.
package runner

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/sf-dst/sf/lib/engine"
)

// Job is one run of a prepared world.
type Job struct {
	Seed uint64
	// Options are the run's engine options: a schedule's faults and
	// budget, branches, a runtime mutant, Inspect. Run sets their
	// Interrupt to the pool's.
	Options engine.Options
	// Spec, when set, is the world to run instead of the prepared one:
	// sf-mutate -app's, with one node built from a mutated source.
	// Defaults to the prepared world's.
	Spec *engine.Spec
	// Recheck runs a seed whose run failed on the real-time watchdog once
	// more (engine.Engine.RecheckWatchdog); when the second run does not
	// fail so, it is the outcome, marked HostStall. Defaults to false.
	Recheck bool
	// Check runs the seed a second time and compares the two runs (sf-run
	// -check): runs that differ make the outcome nondeterministic, with a
	// message that names the first host call where they part. Defaults to
	// false.
	Check bool
	// DivergeAtCall makes Check's second run perturb virtual time at that
	// host call. Tests use it to prove the check can fail; no flag sets it.
	DivergeAtCall uint64
	// StallFirstRun gives the first run a watchdog of 1ns, so that it
	// stalls as on a host that stopped. Tests use it to exercise Recheck;
	// no flag sets it, and a world forked at its setup keeps its own.
	StallFirstRun bool
	// Continue, when set, is continued (engine.Engine.ResumeRest) instead
	// of running Seed from its start (sf-run -from); Spec, Recheck, Check,
	// StallFirstRun, From and Forks are then unused. Defaults to nil.
	Continue *engine.Fork
	// From, when set, is a fork of an earlier run of the world that this
	// run may start from: when the run agrees with the fork's up to the
	// fork (engine.Fork.Admits) it starts there, and ends exactly as it
	// would from the start; otherwise it starts from the start. Forks
	// finds one. Defaults to nil.
	From *engine.Fork
	// Forks, when set, holds forks of the world's runs: the run starts from
	// the latest that admits it (when From does not), and leaves forks of
	// itself there, on Forks' grid of steps, at times before
	// ForksBeforeNs. Defaults to nil: no fork is looked for or taken.
	Forks         *Forks
	ForksBeforeNs int64
}

// Outcome is what one job came to.
type Outcome struct {
	// Index is the job's place in the list.
	Index int
	// Result is the run's, or with Recheck the second run's; nil when the
	// job did not start or Err is set.
	Result *engine.Result
	// Err says why the engine could not make the run: a bug in sf or the
	// host, never a verdict on the program.
	Err error
	// Interrupted says the job did not start because the pool's interrupt
	// was set, or its run ended early because of it.
	Interrupted bool
	// HostStall says the first run failed on the watchdog and the second
	// did not (Job.Recheck).
	HostStall bool

	stop bool // the pool's last outcome: no job after it starts or is handed back
}

// Pool says how a list of jobs runs.
type Pool struct {
	// Workers is how many jobs run at once. Defaults to 1.
	Workers int
	// Interrupt, when it becomes true, starts no more jobs (each is handed
	// back Interrupted) and, passed to the engine, ends the running ones at
	// their next step. Defaults to nil, never.
	Interrupt *atomic.Bool
	// StopAt, when set, is asked about each run that ended (neither
	// interrupted nor in error) as soon as it ends, from the worker that
	// made it, so it must be safe to call from several goroutines. True
	// makes that job the last: no job after it in the list starts, and
	// none after it is handed back. A job whose run failed to start (Err)
	// is a last job too. Jobs after the last that were already running are
	// waited for and dropped, so what a driver sees is the outcome of every
	// job up to the first last one in the list, for any number of workers.
	// Defaults to nil: every job runs.
	StopAt func(Outcome) bool
}

func (pool Pool) interrupted() bool { return pool.Interrupt != nil && pool.Interrupt.Load() }

// Run makes jobs on the pool and hands their outcomes to deliver, in the
// order of jobs, as each becomes the next in line: deliver runs on the
// caller's goroutine while later jobs go on. When deliver returns an error
// no more jobs start; Run waits for the running ones and returns the error.
func (p *Prepared) Run(jobs []Job, pool Pool, deliver func(Outcome) error) error {
	return p.RunN(len(jobs), func(i int) Job { return jobs[i] }, pool, deliver)
}

// RunN is Run for n jobs that job(i) describes, made as their turn comes,
// so that a list of millions of seeds holds no more than the pool's window
// of jobs in memory at once.
func (p *Prepared) RunN(n int, job func(i int) Job, pool Pool, deliver func(Outcome) error) error {
	return pool.Each(n, func(i int) Outcome { return p.One(job(i), pool.Interrupt) }, deliver)
}

// windowPerWorker is how far, in jobs per worker, the workers may run ahead
// of the outcome being handed back: enough that a slow job does not idle
// the others for long, while the outcomes held waiting stay a few per
// worker whatever the length of the list.
const windowPerWorker = 8

// Each is Run for n jobs that run(i) makes, for a driver whose runs are not
// only a Job's (a shrinker tested on replays it fakes): run is called from
// the workers, at most Workers at once, and its Outcome's Index is set for
// it. Workers run at most a window of jobs ahead of the one handed back
// next, so its memory is in proportion to the workers, not to n.
func (pool Pool) Each(n int, run func(i int) Outcome, deliver func(Outcome) error) error {
	workers := min(max(pool.Workers, 1), n)
	window := max(workers*windowPerWorker, 1)
	// slots[i%window] carries job i's outcome; a worker takes job i only
	// once job i-window has been handed back (free), so no slot holds two.
	slots := make([]chan Outcome, window)
	for i := range slots {
		slots[i] = make(chan Outcome, 1)
	}
	free := make(chan struct{}, window)
	for range window {
		free <- struct{}{}
	}
	var next atomic.Int64
	// last is the lowest index of a last job so far: no job after it
	// starts. It only falls, so a job skipped for it lies after a last job
	// that is handed back, and ends the handing back, before its turn.
	var last atomic.Int64
	last.Store(int64(n))
	var quit atomic.Bool // deliver failed or the list ended early: no job starts
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-free:
				case <-done:
					return
				}
				i := int(next.Add(1) - 1)
				if i >= n || int64(i) > last.Load() || quit.Load() {
					return
				}
				o := Outcome{Interrupted: true}
				if !pool.interrupted() {
					o = run(i)
				}
				o.Index = i
				if o.Result != nil && o.Result.Status == engine.StatusInterrupted {
					o.Interrupted = true
				}
				o.stop = o.Err != nil || (!o.Interrupted && pool.StopAt != nil && pool.StopAt(o))
				if o.stop {
					for cur := last.Load(); int64(i) < cur && !last.CompareAndSwap(cur, int64(i)); cur = last.Load() {
					}
				}
				slots[i%window] <- o
			}
		}()
	}
	var err error
	for i := 0; i < n && err == nil; i++ {
		o := <-slots[i%window]
		if err = deliver(o); err == nil && o.stop {
			break
		}
		free <- struct{}{}
	}
	quit.Store(true)
	close(done)
	wg.Wait()
	return err
}

// One makes one job at once, on the caller's goroutine, with interrupt as
// its engine options' Interrupt.
func (p *Prepared) One(j Job, interrupt *atomic.Bool) Outcome {
	spec := j.Spec
	if spec == nil {
		spec = p.Spec
	}
	opts := j.Options
	opts.Interrupt = interrupt
	if j.Continue != nil {
		res, err := p.Engine.ResumeRest(j.Continue, opts)
		if err != nil {
			return Outcome{Err: err}
		}
		// In a world forked at its setup, the fork's run is the setup
		// seed's with the job's branch; the result is the job's seed's.
		res.Seed = j.Seed
		return Outcome{Result: res, Interrupted: res.Status == engine.StatusInterrupted}
	}
	first := spec
	if j.StallFirstRun && !p.forksAtSetup() {
		s := *spec
		s.WatchdogNs = 1
		first = &s
	}
	a, err := p.start(first, j.Seed, opts, j.origin())
	if err != nil {
		return Outcome{Err: err}
	}
	stalled := false
	if j.Recheck {
		a, stalled = p.recheckWatchdog(spec, j, opts, a)
	}
	o := Outcome{Result: a, HostStall: stalled, Interrupted: a.Status == engine.StatusInterrupted}
	if !j.Check {
		return o
	}
	return p.check(spec, j, opts, o)
}

// origin is where a job's run may start, other than at the start, and
// where it leaves forks of itself.
type origin struct {
	from   *engine.Fork
	forks  *Forks
	before int64
}

func (j Job) origin() origin { return origin{j.From, j.Forks, j.ForksBeforeNs} }

// start makes one run of seed: from a fork the run agrees with (o.from or
// one of o.forks), from the fork at the end of the world's setup for a
// world that forks there, and from the start otherwise.
func (p *Prepared) start(spec *engine.Spec, seed uint64, opts engine.Options, o origin) (*engine.Result, error) {
	// A world forked at its setup runs every seed as the setup seed with
	// a branch (setup.go); forks of its runs are taken and admitted so.
	runSeed, runOpts := seed, opts
	var setup *engine.Fork
	if p.forksAtSetup() {
		var err error
		if setup, err = p.setup(spec, opts.Mutant); err != nil {
			return nil, err
		}
		if runOpts, err = setupOptions(setup, seed, opts); err != nil {
			return nil, err
		}
		runSeed = SetupSeed
	}
	from := o.from
	if from != nil && from.Admits(runSeed, runOpts) != nil {
		from = nil
	}
	if from == nil && o.forks != nil {
		var done func()
		from, done = o.forks.acquire(runSeed, runOpts)
		defer done()
	}
	if o.forks != nil {
		runOpts.AtStep = o.forks.collect(runSeed, runOpts, o.before, opts.AtStep)
	}
	var r *engine.Result
	var err error
	switch {
	case from != nil:
		r, err = p.Engine.ResumeAs(from, runSeed, runOpts)
	case setup != nil:
		r, err = p.Engine.Resume(setup, runOpts)
	default:
		r, err = p.Engine.Run(spec, seed, runOpts)
	}
	if r != nil {
		r.Seed = seed
	}
	return r, err
}

// recheckWatchdog is engine.Engine.RecheckWatchdog for a run that start
// makes: a run that failed on the real-time watchdog runs once more, the
// same way, and when the second does not fail so it is the outcome.
func (p *Prepared) recheckWatchdog(spec *engine.Spec, j Job, opts engine.Options, first *engine.Result) (*engine.Result, bool) {
	if first == nil || first.Status != engine.StatusFail || first.Class != engine.ClassWatchdog {
		return first, false
	}
	again, err := p.start(spec, j.Seed, opts, j.origin())
	if err != nil || again.Status == engine.StatusFail && again.Class == engine.ClassWatchdog {
		return first, false
	}
	return again, true
}

// LimitProcs lowers GOMAXPROCS to workers when it is higher, and returns
// what puts it back: only one goroutine of each run executes at a time
// (the engine's baton), so more Ps than workers only add wake-ups of idle
// threads at every handoff.
func LimitProcs(workers int) (restore func()) {
	if workers < 1 || workers >= runtime.GOMAXPROCS(0) {
		return func() {}
	}
	prev := runtime.GOMAXPROCS(workers)
	return func() { runtime.GOMAXPROCS(prev) }
}
