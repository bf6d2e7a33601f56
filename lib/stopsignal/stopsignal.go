// Package stopsignal turns SIGINT and SIGTERM into the flag that the sf
// tools' long work polls (engine runs, checkers, shrinks), so that a tool
// stopped by Ctrl-C ends at its next poll and reports what it finished.
package stopsignal

import (
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// Watch sets flag when the process gets SIGINT or SIGTERM, from now
// until stop is called; stop also ends the goroutine that waits for the
// signal, so an in-process caller leaves nothing behind. While it watches,
// these signals no longer end the process: call it only around work that
// polls flag, not around a read that may block (standard input, a pipe).
func Watch(flag *atomic.Bool) (stop func()) {
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
