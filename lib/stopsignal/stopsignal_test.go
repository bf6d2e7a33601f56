//go:build unix

package stopsignal

import (
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestWatch: SIGINT and SIGTERM, each sent to the test's own process
// while Watch watches, set the flag instead of ending the process, and
// stop returns once the watching goroutine has ended.
func TestWatch(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		flag := new(atomic.Bool)
		stop := Watch(flag)
		if err := syscall.Kill(syscall.Getpid(), sig); err != nil {
			stop()
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for !flag.Load() && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		stop()
		if !flag.Load() {
			t.Errorf("%v: the flag was not set", sig)
		}
	}
	// Without a signal the flag stays unset, and stop does not hang.
	flag := new(atomic.Bool)
	Watch(flag)()
	if flag.Load() {
		t.Errorf("the flag was set without a signal")
	}
}
