package core

import (
	"sync/atomic"

	"github.com/sf-dst/sf/lib/wasmrewrite"
	"github.com/tetratelabs/wazero/api"
)

// A guest of a module with the clock rewrite (wasmrewrite/clock.go) answers
// its own clock reads from globals that hold what its clocks read now, and
// notes each read. Nothing else happens to the world between two of the
// guest's host calls, so the dispatcher adds the noted reads to the
// determinism hash at the start of the next one, in order, exactly as the
// reads' own host calls would have: same call numbers, same words, same
// virtual time. Every host call ends by bringing the globals up to date.

// ClockTimeGet is WASI's clock_time_get as the determinism hash counts it:
// its call ID and the name a recorded call shows.
var ClockTimeGet = Event{Name: "clock_time_get", ID: 5}

// clockReadsAnswered counts the clock reads guests answered themselves, over
// the runs this process finished.
var clockReadsAnswered atomic.Uint64

// GuestClockReads is how many clock reads guests answered themselves in the
// runs this process finished (each is in its run's HostCalls too): tests
// and benchmarks see from it that the clock rewrite was at work.
func GuestClockReads() uint64 { return clockReadsAnswered.Load() }

// guestClock holds the clock rewrite's globals of an instance, all nil for
// a guest that makes a host call for every read.
type guestClock struct {
	on, wall, mono, reads, ids api.MutableGlobal
	// wallNow and monoNow are what wall and mono hold.
	wallNow, monoNow int64
}

// ClockNow is what the guest's clock id reads now, and false for a clock
// WASI does not define.
func (in *Instance) ClockNow(id uint32) (int64, bool) {
	switch id {
	case 0: // realtime
		return in.Run.Wall(in.Node), true
	case 1, 2, 3: // monotonic and the CPU-time clocks, which are virtual time too
		t := in.Run.MonoNow()
		if j := in.Node.MonoJumps; j != 0 {
			t = max(t+j, 1) // monotonic_jump; never 0, which kills Go's runtime
		}
		return t, true
	}
	return 0, false
}

// clockStart finds the clock rewrite's globals of a guest about to run and
// lets it answer its reads, unless the run asks for every read as a host
// call (Options.HostClock), or counts its host calls one by one for an
// injected divergence or panic, which must fall at a read as it would
// without the rewrite.
func (in *Instance) clockStart(mod api.Module) {
	in.exec.clock = guestClock{}
	var g [5]api.MutableGlobal
	for i, name := range []string{wasmrewrite.ExportClockOn, wasmrewrite.ExportClockWall, wasmrewrite.ExportClockMono, wasmrewrite.ExportClockReads, wasmrewrite.ExportClockIDs} {
		var ok bool
		if g[i], ok = mod.ExportedGlobal(name).(api.MutableGlobal); !ok {
			return
		}
	}
	// A reused instance holds what its last guest left.
	g[3].Set(0)
	g[4].Set(0)
	if o := &in.Run.Opts; o.HostClock || o.DivergeAtCall != 0 || o.PanicAtCall != 0 {
		g[0].Set(0)
		return
	}
	c := &in.exec.clock
	*c = guestClock{on: g[0], wall: g[1], mono: g[2], reads: g[3], ids: g[4]}
	c.wallNow, _ = in.ClockNow(0)
	c.monoNow, _ = in.ClockNow(1)
	c.wall.Set(uint64(c.wallNow))
	c.mono.Set(uint64(c.monoNow))
	c.on.Set(1)
}

// clockTake adds the reads the guest answered since its last host call to
// the hash, and starts its count again.
func (in *Instance) clockTake() {
	c := &in.exec.clock
	k := uint32(c.reads.Get())
	if k == 0 {
		return
	}
	in.Run.exec.clockReads += uint64(k)
	ids := c.ids.Get()
	for i := range k {
		in.account(ClockTimeGet.ID, ClockTimeGet.Name, false, ids>>i&1, 0, "", "")
	}
	c.reads.Set(0)
	c.ids.Set(0)
}

// clockRefresh brings the globals the guest reads its clocks from up to
// date, at the end of a host call: time may have moved while it was parked,
// or a clock fault have changed its node's clocks.
func (in *Instance) clockRefresh() {
	c := &in.exec.clock
	if w, _ := in.ClockNow(0); w != c.wallNow {
		c.wallNow = w
		c.wall.Set(uint64(w))
	}
	if m, _ := in.ClockNow(1); m != c.monoNow {
		c.monoNow = m
		c.mono.Set(uint64(m))
	}
}
