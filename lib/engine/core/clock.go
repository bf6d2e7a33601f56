package core

import (
	"sync/atomic"

	"github.com/sf-dst/sf/lib/wasmrewrite"
	"github.com/tetratelabs/wazero/api"
)

// A guest of a module with the clock rewrite (wasmrewrite/clock.go) answers
// its own clock reads from words in its memory that hold what its clocks
// read now, and notes each read there. Nothing else happens to the world
// between two of the guest's host calls, so the dispatcher adds the noted
// reads to the determinism hash at the start of the next one, in order,
// exactly as the reads' own host calls would have: same call numbers, same
// words, same virtual time. Every host call ends by bringing the values up
// to date.

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

// guestClock is, for a guest that answers its own clock reads, the memory
// that holds the words it shares with the host (wasmrewrite.ClockArea), and
// what the host last wrote there; mem is nil for a guest that makes a host
// call for every read.
type guestClock struct {
	mem              api.Memory
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

// clockStart finds whether a guest about to run answers its own clock
// reads, and lets it, unless the run asks for every read as a host call
// (Options.HostClock), or counts its host calls one by one for an injected
// divergence or panic, which must fall at a read as it would without the
// rewrite. A resumed guest keeps the clocks' values its image holds, what
// the copied guest last read: the end of the host call it enters again
// brings them up to date, as in the run that was never forked, whose
// guest's memory it must match.
func (in *Instance) clockStart(mod api.Module, resumed bool) {
	in.exec.clock = guestClock{}
	mem := mod.Memory()
	if mod.ExportedGlobal(wasmrewrite.ExportClockArea) == nil || mem == nil {
		return
	}
	// A reused instance holds what its last guest left there.
	mem.WriteUint64Le(wasmrewrite.ClockState, 0)
	if o := &in.Run.Opts; o.HostClock || o.DivergeAtCall != 0 || o.PanicAtCall != 0 {
		mem.WriteUint32Le(wasmrewrite.ClockOn, 0)
		return
	}
	c := &in.exec.clock
	c.mem = mem
	if resumed {
		w, _ := mem.ReadUint64Le(wasmrewrite.ClockWall)
		m, _ := mem.ReadUint64Le(wasmrewrite.ClockMono)
		c.wallNow, c.monoNow = int64(w), int64(m)
	} else {
		c.wallNow, _ = in.ClockNow(0)
		c.monoNow, _ = in.ClockNow(1)
		mem.WriteUint64Le(wasmrewrite.ClockWall, uint64(c.wallNow))
		mem.WriteUint64Le(wasmrewrite.ClockMono, uint64(c.monoNow))
	}
	mem.WriteUint32Le(wasmrewrite.ClockOn, 1)
}

// clockTake adds the reads the guest answered since its last host call to
// the hash, and starts its count again.
func (in *Instance) clockTake() {
	mem := in.exec.clock.mem
	state, _ := mem.ReadUint64Le(wasmrewrite.ClockState)
	if state == 0 {
		return
	}
	k := state >> 56
	in.Run.exec.clockReads += k
	for i := range k {
		in.account(ClockTimeGet.ID, ClockTimeGet.Name, false, state>>i&1, 0, "", "")
	}
	mem.WriteUint64Le(wasmrewrite.ClockState, 0)
}

// clockRefresh brings the clocks' values the guest reads up to date, at the
// end of a host call: time may have moved while it was parked, or a clock
// fault have changed its node's clocks.
func (in *Instance) clockRefresh() {
	c := &in.exec.clock
	if w, _ := in.ClockNow(0); w != c.wallNow {
		c.wallNow = w
		c.mem.WriteUint64Le(wasmrewrite.ClockWall, uint64(w))
	}
	if m, _ := in.ClockNow(1); m != c.monoNow {
		c.monoNow = m
		c.mem.WriteUint64Le(wasmrewrite.ClockMono, uint64(m))
	}
}
