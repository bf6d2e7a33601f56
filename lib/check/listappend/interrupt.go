package listappend

import (
	"errors"
	"math"
	"sync/atomic"
)

// ErrInterrupted is Check's error when its interrupt flag stopped it: there
// is no verdict, the history neither passed nor failed.
var ErrInterrupted = errors.New("interrupted: the check was stopped before it finished")

// stopper looks at an interrupt flag while the checker works. Its passes
// and searches call poll once per unit of work: a node expanded in a path
// search, or itemsPerPoll transactions in a pass over them. It loads the
// flag only every pollEvery polls, so that polling costs a decrement and a
// comparison on paths that take a few nanoseconds a unit. Once the flag was
// seen set, poll keeps reporting true, and the checker unwinds. A stopper without a
// flag never stops. Each stopper is used by one goroutine.
type stopper struct {
	flag    *atomic.Bool
	left    int32 // polls until the next look at flag; the zero value looks at once
	stopped bool
}

// pollEvery is how many polls go between two loads of the flag, and
// itemsPerPoll how many transactions a pass takes per poll: the flag is
// seen every 256 nodes a search expands or every 4,096 transactions of a
// pass, a few milliseconds of work at most.
const (
	pollEvery    = 256
	itemsPerPoll = 16
)

// nodesPerLook is how many nodes Tarjan's algorithm reaches between two
// looks at the flag. It looks through seen rather than poll: in its tight
// loop even poll's rare call made the compiler keep fewer values in
// registers, at a cost of a few instructions per node.
const nodesPerLook = 4096

// seen loads the flag at once and reports whether the checker must stop.
// It makes no call, not even pollHook.
func (s *stopper) seen() bool {
	if s.flag != nil && s.flag.Load() {
		s.stopped = true
	}
	return s.stopped
}

// pollHook, when set (by tests), runs each time poll loads the flag,
// before it does: a test sets the flag from it at a chosen poll, to stop a
// check at a known point of its work rather than after some time.
var pollHook func()

// poll counts one unit of work and reports whether the checker must stop.
// It is small enough for the compiler to inline.
func (s *stopper) poll() bool {
	if s.left--; s.left > 0 {
		return false
	}
	return s.look()
}

// look loads the flag, and says when to look again: after pollEvery polls,
// only after 2^31 polls without a flag, at the next poll once stopped. It
// is kept out of line so that poll, inlined at every call site, stays a
// decrement and a branch.
//
//go:noinline
func (s *stopper) look() bool {
	switch {
	case s.flag == nil:
		s.left = math.MaxInt32
	case s.stopped:
		s.left = 1
	default:
		if pollHook != nil {
			pollHook()
		}
		s.stopped, s.left = s.flag.Load(), pollEvery
	}
	return s.stopped
}
