package check

import (
	"errors"
	"sync/atomic"
)

// ErrInterrupted is Check's error when Options.Interrupt stopped it: there
// is no verdict, the history neither passed nor failed.
var ErrInterrupted = errors.New("interrupted: the check was stopped before it finished")

// stopper looks at an interrupt flag while a checker works. The checkers
// call poll once per unit of work (a transaction read, an edge searched);
// it loads the flag only every pollEvery units, so that polling costs an
// increment on paths that take a few nanoseconds a unit. Once the flag was
// seen set, poll keeps reporting true, and the checker unwinds. A stopper
// without a flag never stops. Each stopper is used by one goroutine.
type stopper struct {
	flag    *atomic.Bool
	work    uint32
	stopped bool
}

// pollEvery is how many units of work go between two loads of the flag: a
// unit is at most a few microseconds, so the checkers stop within
// milliseconds of the flag being set.
const pollEvery = 1024

// pollHook, when set (by tests), runs each time a stopper loads its flag,
// before it does: a test sets the flag from it at a chosen poll, to stop a
// check at a known point of its work rather than after some time.
var pollHook func()

// poll counts one unit of work and reports whether the checker must stop.
func (s *stopper) poll() bool {
	if s.flag == nil {
		return false
	}
	s.work++
	if s.work%pollEvery == 0 && !s.stopped {
		if pollHook != nil {
			pollHook()
		}
		s.stopped = s.flag.Load()
	}
	return s.stopped
}

// interrupted reports whether flag is set.
func interrupted(flag *atomic.Bool) bool { return flag != nil && flag.Load() }
