package runner

// This file keeps forks of a world's runs for later runs to start from:
// sf-shrink's candidate schedules start from a fork of the run they were
// cut from, sf-run -explore's and sf-shrink -cause's branches from a fork
// of the run they branch. A run starts from a fork only when it agrees
// with the fork's run up to the fork (engine.Fork.Admits), and then ends
// exactly as it would from the start, so which fork a run starts from, or
// whether it finds one, changes how long it takes and nothing else.

import (
	"sync"

	"github.com/sf-dst/sf/lib/engine"
)

// ForkBytesMax is how many bytes of guest images Forks holds by default:
// a fork holds a copy of every guest's linear memory, 4 to 10 MiB a guest
// for the examples (8 MiB for kvlog's two programs, 39 MiB for raftkv's
// four), so 1 GiB is some 25 forks of raftkv and 128 of kvlog.
const ForkBytesMax = 1 << 30

// Forks holds forks of a world's runs within a bound on their images'
// bytes. Runs take forks of themselves on a grid of scheduler steps (every
// Every steps); when the forks held pass the bound, the grid's spacing
// doubles and the forks off it are released, so the forks of a run stay
// spread over it, however long it is. It is safe for concurrent runs.
type Forks struct {
	mu       sync.Mutex
	maxBytes int64
	every    uint64
	held     []*heldFork
	bytes    int64 // of the held forks not dropped
	taken    int
	started  int
	skipped  uint64 // the steps of the forks runs started from
}

// heldFork is a fork and the runs starting from it now: a fork dropped
// while a run reads it is released when that run is done with it.
type heldFork struct {
	f     *engine.Fork
	users int
	drop  bool
}

// NewForks holds forks of up to maxBytes of images (ForkBytesMax when 0),
// taken every `every` steps at first (at least 1).
func NewForks(maxBytes int64, every uint64) *Forks {
	if maxBytes <= 0 {
		maxBytes = ForkBytesMax
	}
	return &Forks{maxBytes: maxBytes, every: max(every, 1)}
}

// Taken counts the forks runs have taken, Started the runs that started
// from one.
func (fs *Forks) Taken() int   { fs.mu.Lock(); defer fs.mu.Unlock(); return fs.taken }
func (fs *Forks) Started() int { fs.mu.Lock(); defer fs.mu.Unlock(); return fs.started }

// Skipped sums the steps at which the runs that started from a fork
// started: the steps they did not run again.
func (fs *Forks) Skipped() uint64 { fs.mu.Lock(); defer fs.mu.Unlock(); return fs.skipped }

// Bytes is the size of the images the forks hold now.
func (fs *Forks) Bytes() int64 { fs.mu.Lock(); defer fs.mu.Unlock(); return fs.bytes }

// acquire returns the fork that the run of seed with opts can start from
// at the latest step, or nil, and what to call once the run is done with
// it.
func (fs *Forks) acquire(seed uint64, opts engine.Options) (*engine.Fork, func()) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var best *heldFork
	for _, h := range fs.held {
		if h.drop || (best != nil && h.f.Step <= best.f.Step) || h.f.Admits(seed, opts) != nil {
			continue
		}
		best = h
	}
	if best == nil {
		return nil, func() {}
	}
	best.users++
	fs.started++
	fs.skipped += best.f.Step
	return best.f, func() {
		fs.mu.Lock()
		defer fs.mu.Unlock()
		best.users--
		if best.drop && best.users == 0 {
			best.f.Release()
		}
	}
}

// collect is the AtStep of a run of seed with opts: on the grid, at times
// before `before`, where no fork held admits the run yet, it forks the run
// and keeps the fork. then, when set, is the run's own AtStep.
func (fs *Forks) collect(seed uint64, opts engine.Options, before int64, then func(engine.StepPoint)) func(engine.StepPoint) {
	return func(s engine.StepPoint) {
		if then != nil {
			then(s)
		}
		if s.Step == 0 || s.AtNs >= before || !fs.wanted(s.Step, seed, opts) {
			return
		}
		f, err := s.Fork()
		if err != nil {
			return // a node that cannot be copied here: the next point of the grid will do
		}
		fs.add(f)
	}
}

// wanted reports whether step is on the grid and no fork held there admits
// the run.
func (fs *Forks) wanted(step, seed uint64, opts engine.Options) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if step%fs.every != 0 {
		return false
	}
	for _, h := range fs.held {
		if h.f.Step == step && !h.drop && h.f.Admits(seed, opts) == nil {
			return false
		}
	}
	return true
}

// add keeps f, and thins the forks out while they hold too much.
func (fs *Forks) add(f *engine.Fork) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.taken++
	fs.held = append(fs.held, &heldFork{f: f})
	fs.bytes += int64(f.MemoryBytes())
	for fs.bytes > fs.maxBytes {
		fs.every *= 2
		fs.dropWhere(func(h *heldFork) bool { return h.f.Step%fs.every != 0 })
	}
}

// Prune releases the forks that keep says no later run will want.
func (fs *Forks) Prune(keep func(*engine.Fork) bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.dropWhere(func(h *heldFork) bool { return !keep(h.f) })
}

// Release releases every fork; runs starting from one still hold it until
// they are done.
func (fs *Forks) Release() {
	fs.Prune(func(*engine.Fork) bool { return false })
}

// dropWhere drops the held forks that drop says, releasing each at once
// unless a run is starting from it.
func (fs *Forks) dropWhere(drop func(*heldFork) bool) {
	kept := fs.held[:0]
	for _, h := range fs.held {
		if !drop(h) {
			kept = append(kept, h)
			continue
		}
		fs.bytes -= int64(h.f.MemoryBytes())
		h.drop = true
		if h.users == 0 {
			h.f.Release()
		}
	}
	clear(fs.held[len(kept):])
	fs.held = kept
}
