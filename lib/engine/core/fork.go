package core

import (
	"errors"
	"fmt"
	"sync"

	"github.com/tetratelabs/wazero/api"

	"github.com/sf-dst/sf/lib/wasmrewrite"
)

// A fork is a running world copied at a scheduler step, where every node
// is parked inside a host call: the run's state (Snapshot) and, for every
// node that runs, an image of its guest, its linear memory and globals.
// Resume continues it in a fresh instance of each guest, of the same
// compiled module, in any engine: the guest enters again the host call it
// was copied in (through the import's wrapper, which reads its arguments
// from the Go stack in memory), and that call, seeing that it resumes
// (Call.Resuming), skips what it did before it parked and parks again, so
// that the run's state, which already holds its effects, stays as it was.
// When the scheduler next runs the node, the call goes on as it would have,
// and the guest returns into its frames from the return addresses on the Go
// stack (resume.go).
//
// A node is resumable wherever it parks through a Go wrapper: poll_oneoff
// and an fsync's latency (from fd_sync, fd_datasync, or a write with
// O_SYNC). It is not at the end of a preemption time slice, which parks
// inside a sched_yield that the call counting calls without a resume point:
// a fork at a step where a node waits there is refused.

// parkPoint is where a parked instance waits: in which host call, and what
// that call, entered again by a resumed copy of the guest, needs to park
// there again and go on as it would have.
type parkPoint struct {
	fn *HostFunc // the host call; nil before the instance first parks
	// keyed says the call had added itself to the hash before it parked.
	keyed bool
	// noResume says the guest made the call without a resume point.
	noResume bool
	op       int64  // Fsync: the disk operation whose latency it waits out
	carry    uint64 // Call.Carry
}

// guestImage is a copy of one guest, taken while it was parked: its linear
// memory and the globals wasmrewrite.ForkInfo.Globals names.
type guestImage struct {
	wasm    string // the module it runs
	memory  []byte
	globals []uint64
}

// Fork is a running world copied at a scheduler step. It holds nothing of
// the run it was taken from and can be resumed any number of times, at
// once or one after another.
type Fork struct {
	// Step is how many scheduler steps had run, and AtNs the virtual time.
	Step uint64
	AtNs int64

	state  *Snapshot
	guests []*guestImage // by node; nil for a node that is down or not started
}

// MemoryBytes is the size of the guests' images.
func (f *Fork) MemoryBytes() int {
	n := 0
	for _, g := range f.guests {
		if g != nil {
			n += len(g.memory)
		}
	}
	return n
}

// Seed is the seed of the run the fork was taken from.
func (f *Fork) Seed() uint64 {
	if f.state == nil {
		return 0
	}
	return f.state.run.Seed
}

// ParkedIn names the host call the node called name waited in when the
// fork was taken ("poll_oneoff", "fd_sync"), or "" if it was down or had not
// started.
func (f *Fork) ParkedIn(name string) string {
	if f.state == nil {
		return ""
	}
	n := f.state.run.NodeByName(name)
	if n == nil || f.guests[n.Idx] == nil {
		return ""
	}
	return n.Cur.park.fn.display
}

// StepPoint is the top of a scheduler step, where every node is parked, as
// Options.AtStep sees it.
type StepPoint struct {
	// Step is how many steps have run, and AtNs the virtual time.
	Step uint64
	AtNs int64
	// SetupDone says a node has called sim.SetupComplete.
	SetupDone bool
	r         *Run
}

// Fork copies the world at p. It may only be called during the AtStep call
// that got p.
func (p StepPoint) Fork() (*Fork, error) { return p.r.fork() }

// atStep calls Options.AtStep at the top of the first loop iteration after
// each step (and before the first).
func (r *Run) atStep() {
	if r.Opts.AtStep == nil || (r.exec.stepSeen && r.exec.lastStep == r.res.Steps) {
		return
	}
	r.exec.stepSeen, r.exec.lastStep = true, r.res.Steps
	r.Opts.AtStep(StepPoint{Step: r.res.Steps, AtNs: r.Now, SetupDone: r.setupDone, r: r})
}

// fork copies the world: every guest's image, then the state.
func (r *Run) fork() (*Fork, error) {
	f := &Fork{Step: r.res.Steps, AtNs: r.Now, guests: make([]*guestImage, len(r.Nodes))}
	for i, n := range r.Nodes {
		in := n.Cur
		if in == nil || !in.started {
			continue
		}
		img, err := in.copyGuest()
		if err != nil {
			return nil, fmt.Errorf("fork at step %d: %s: %w", f.Step, in.Name, err)
		}
		f.guests[i] = img
	}
	f.state = r.Snapshot()
	return f, nil
}

// copyGuest takes the image of a parked guest.
func (in *Instance) copyGuest() (*guestImage, error) {
	switch {
	case in.exited || !in.parked || in.exec.mod == nil || in.park.fn == nil:
		return nil, errors.New("it is not parked in a host call")
	case in.park.noResume:
		return nil, errors.New("it is parked at the end of a preemption time slice, in a call the call counting makes without a resume point, where it cannot be resumed")
	}
	fi, err := in.Run.exec.mods.ForkInfo(in.Node.wasm)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Node.wasm, err)
	}
	gs, err := in.guestGlobals(in.exec.mod, fi)
	if err != nil {
		return nil, err
	}
	img := &guestImage{wasm: in.Node.wasm, globals: make([]uint64, len(gs))}
	for i, g := range gs {
		img.globals[i] = g.Get()
	}
	if img.globals[len(gs)-1] == 0 { // the dispatch SP: Go's loop never dispatched
		return nil, errors.New("the Go runtime in it has not finished starting")
	}
	mem := in.exec.mod.Memory()
	buf, _ := mem.Read(0, mem.Size())
	img.memory = imageBuffer(len(buf))
	copy(img.memory, buf)
	return img, nil
}

// imagePool keeps the memory of released forks' images for the next ones:
// a guest's image is megabytes, and fresh memory costs page faults and the
// collector's attention every time.
var imagePool sync.Pool

// imageBuffer returns a buffer of n bytes, from imagePool when one there is
// large enough.
func imageBuffer(n int) []byte {
	if b, ok := imagePool.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:n]
	}
	return make([]byte, n)
}

// Release gives the fork's memory back for later forks to reuse. The fork
// must not be resumed after it, nor be being resumed.
func (f *Fork) Release() {
	for i, g := range f.guests {
		if g != nil {
			imagePool.Put(&g.memory)
			f.guests[i] = nil
		}
	}
	f.state = nil
}

// guestGlobals returns the guest's globals an image saves, in its order.
func (in *Instance) guestGlobals(mod api.Module, fi *wasmrewrite.ForkInfo) ([]api.MutableGlobal, error) {
	if in.exec.globals != nil {
		return in.exec.globals, nil
	}
	names := fi.Globals()
	gs := make([]api.MutableGlobal, len(names))
	for i, name := range names {
		g, ok := mod.ExportedGlobal(name).(api.MutableGlobal)
		if !ok {
			return nil, fmt.Errorf("its module exports no mutable global %s", name)
		}
		gs[i] = g
	}
	in.exec.globals = gs
	return gs, nil
}
