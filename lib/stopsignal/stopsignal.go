// Package stopsignal turns SIGINT and SIGTERM into the flag that the sf
// tools' long work polls (engine runs, checkers, shrinks), so that a tool
// stopped by Ctrl-C ends at its next poll and reports what it finished.
//
// A command calls Install first thing in main, before it reads a flag or
// loads a world: from then on the two signals are the process's, and a
// signal that comes before the long work starts is not lost. Then:
//
//   - while some Watch watches, a signal sets the watchers' flags, and the
//     work ends at its next poll with exit status 130 and what it finished;
//     a second signal ends the process at once with status 130 (for a
//     watcher stuck in a read that never polls, such as a world file on a
//     terminal's standard input);
//   - while nothing watches, a tool installed with ExitAtOnce (one whose
//     work is reading and writing, such as sf-report) ends at once with
//     status 130, SIGTERM as SIGINT; one installed with StopWork (sf-run,
//     sf-shrink, sf-mutate) keeps the signal for the Watch to come, whose
//     flag is set as soon as it is made.
//
// So a sweep interrupted while it parses its flags or loads and builds
// its world writes its records and stops, as one interrupted while its
// seeds run.
//
// A process started with SIGINT ignored, as a shell starts a script's
// background jobs, has it ignored until Go's os/signal is asked for it:
// signal.Notify installs a handler then. Install asks at once, so such a
// job still stops on `kill -INT`, and the window in which the signal is
// lost is the Go runtime's start-up, before main.
package stopsignal

import (
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/sf-dst/sf/lib/exitcode"
)

// process is the state Install sets up; installed is false until then.
var process struct {
	mu        sync.Mutex
	installed bool
	mode      Mode
	watchers  map[*atomic.Bool]int // each flag watched, with how many Watch calls watch it
	signalled int                  // signals received
}

// exit ends the process; a test replaces it.
var exit = os.Exit

// Mode says what a signal does while nothing watches.
type Mode int

const (
	// ExitAtOnce ends the process with status 130.
	ExitAtOnce Mode = iota
	// StopWork keeps the signal for the next Watch.
	StopWork
)

// Install takes SIGINT and SIGTERM for the life of the process, as the
// package doc describes. Call it once, first thing in main.
func Install(m Mode) {
	process.mu.Lock()
	defer process.mu.Unlock()
	if process.installed {
		return
	}
	process.installed, process.mode = true, m
	process.watchers = map[*atomic.Bool]int{}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		for range sigs {
			received()
		}
	}()
}

// received handles one signal after Install.
func received() {
	process.mu.Lock()
	process.signalled++
	n, watched, keep := process.signalled, len(process.watchers) > 0, process.mode == StopWork
	for f := range process.watchers {
		f.Store(true)
	}
	process.mu.Unlock()
	if n > 1 || (!watched && !keep) {
		exit(exitcode.Interrupted)
	}
}

// Watch sets flag when the process gets SIGINT or SIGTERM, from now
// until stop is called; stop also ends the goroutine that waits for the
// signal, so an in-process caller leaves nothing behind. While it watches,
// these signals no longer end the process: call it only around work that
// polls flag, not around a read that may block (standard input, a pipe).
// After Install, a second signal ends the process (see the package doc),
// and a signal received before the call sets flag at once.
func Watch(flag *atomic.Bool) (stop func()) {
	process.mu.Lock()
	if process.installed {
		process.watchers[flag]++
		if process.signalled > 0 {
			flag.Store(true)
		}
		process.mu.Unlock()
		return func() {
			process.mu.Lock()
			defer process.mu.Unlock()
			if process.watchers[flag]--; process.watchers[flag] <= 0 {
				delete(process.watchers, flag)
			}
		}
	}
	process.mu.Unlock()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		select {
		case <-sigs:
			flag.Store(true)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
		<-ended
	}
}
