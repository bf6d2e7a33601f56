package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"

	"github.com/sf-dst/sf/lib/rng"
)

// Instance is one incarnation of a node: one wasm module instance, and the
// host-side state it sees (its descriptors, its random stream, its mappings).
type Instance struct {
	InstanceState
	exec *instExec
}

// InstanceState is an instance's part of a run's state (snapshot.go):
// everything but what runs it.
type InstanceState struct {
	Run  *Run
	Node *Node
	// Num counts the node's incarnations from 1; Name is "server#2".
	Num  int
	Name string
	// FDs are the instance's open descriptors, by number; nil is free.
	FDs []*Desc
	// Random is what the guest's random_get reads.
	Random *rng.Stream
	// Maps are the guest's shared writable mappings (compat_overlay's
	// mmap), which a crash may find written back.
	Maps []Mapping
	// ExitCode is what the guest passed to proc_exit.
	ExitCode uint32
	// Waits are the descriptors the instance waits on when it parks in
	// poll_oneoff.
	Waits []Wait

	hashID   uint64
	started  bool
	parked   bool
	deadline int64
	// slowDeadlines maps the timer deadlines a slowdown stretched to what
	// they were stretched to.
	slowDeadlines map[int64]int64
	// pLoaded is, with Spec.Preempt, the preemption countdown as the host
	// last set it (preempt.go).
	pLoaded int64
	// park is where the instance last parked, inside which host call
	// (fork.go).
	park parkPoint

	exited, failed, oom bool
	crashed             bool // crashed inside one of its own disk operations
	trap                string
	hostPanic           string // a host function panicked: a bug in sf
	resumeFailed        string // the guest could not be resumed from a fork

	lineBuf    [3][]byte
	sdkBuf     []byte // a partial line of Antithesis SDK output
	stderrTail []string
	// crashLine is Go's "panic: ..." or "fatal error: ..." line once the
	// stack dump that follows it has started, and crashTail that line and
	// the lines after it, for the report.
	crashLine, pendingCrash string
	pendingAge              int
	crashTail               []string
}

// instExec is what runs an instance: its coroutine, its module, the baton,
// and the wazero handles of its globals. It is not state: a snapshot leaves
// it out, and a restore keeps the run's own.
type instExec struct {
	mod api.Module
	// mem is the module's memory, when sf allocated it.
	mem experimental.LinearMemory
	// The guest runs in a coroutine (baton.go) that the run's driver
	// resumes with next, cmd the command it resumes it with; the guest
	// gives the baton up through yield, naming the instance to run next
	// or nil to hand it back to the scheduler. gone says the guest ended
	// after the scheduler had abandoned it.
	next  func() (*Instance, bool)
	yield func(*Instance) bool
	cmd   cmd
	gone  bool
	// hold says who may touch the run's state: the scheduler or this
	// instance's goroutine (see holdSched). It is the only field both read
	// without a handoff (a coroutine switch or a channel) between them.
	hold atomic.Int32
	// call is the host call under way, reused from call to call.
	call Call
	// stepStart is when, in real time since monoBase, the instance last
	// got the baton, for the watchdog.
	stepStart time.Duration
	// pCounter and gReg are, with Spec.Preempt, the guest's preemption
	// countdown and Go's g register (preempt.go).
	pCounter api.MutableGlobal
	gReg     api.Global
	// clock holds, for a guest that answers its own clock reads, the
	// memory it answers them from (clock.go).
	clock guestClock
	// abandoned says the scheduler gave up on the goroutine (watchdog).
	abandoned bool
	// dirty says which pages of the guest's mappings may be dirty
	// (dirty.go).
	dirty dirtyTracker
	// zero tells which parts of a range of guest memory hold only zeros
	// (zero.go), reused from question to question; zeros are those the
	// last reads of files left (knownZeros). seq counts the instance's
	// host calls.
	zero  ZeroTest
	zeros knownZeros
	seq   uint64
	// image, set for an instance of a resumed fork, is the guest it starts
	// from instead of _start; resuming says its guest has entered the host
	// call it was copied in again and not yet parked there (fork.go).
	image    *guestImage
	resuming bool
	// globals are the guest's globals an image saves, once it has been
	// copied or resumed (wasmrewrite.ForkInfo.Globals).
	globals []api.MutableGlobal
}

// Wait is one descriptor a parked instance waits on, for reading or for
// writing.
type Wait struct {
	FD    int32
	Write bool
}

func (in *Instance) runnable() bool {
	if in.Node.pausedUntil > in.Run.Now {
		return false // paused: it runs again when the pause ends
	}
	if !in.started {
		return true
	}
	if !in.parked {
		return false
	}
	if in.deadline <= in.Run.Now {
		return true
	}
	for _, w := range in.Waits {
		if in.FDReady(w.FD, w.Write) {
			return true
		}
	}
	return false
}

// instanceCtx is the context every host call of the instance gets: it
// carries the instance, which the dispatcher takes by a type assertion
// rather than a walk of the context's values on every call.
type instanceCtx struct {
	context.Context
	in *Instance
}

// instanceKey is the key instanceCtx answers Value with its instance for,
// for a context that wraps it.
var instanceKey = new(byte)

func (c *instanceCtx) Value(key any) any {
	if key == instanceKey {
		return c.in
	}
	return c.Context.Value(key)
}

// instanceOf is the instance whose host call got ctx.
func instanceOf(ctx context.Context) *Instance {
	if c, ok := ctx.(*instanceCtx); ok {
		return c.in
	}
	return ctx.Value(instanceKey).(*Instance)
}

// main is the body of the instance's coroutine, which the driver first
// resumes with its first command: it runs the guest and returns when the
// guest has ended, and the driver tells the scheduler.
func (in *Instance) main() {
	// Nothing of the run is read before the first command: until then the
	// scheduler may change it (a restore) without a handoff between them.
	c := in.exec.cmd
	r := in.Run
	in.started = true
	if c == cmdKill {
		in.exec.hold.Store(holdSched)
		return
	}
	ctx := context.Background()
	pool := r.exec.mods.Instances()
	var mod api.Module
	var mem reusableMemory
	var err error
	resumed := in.exec.image != nil // resumeGuest clears it
	if !resumed {
		mod, mem = in.reusedInstance(pool)
	}
	if mod == nil {
		var keep [2]uint64
		keep[0], keep[1] = r.exec.mods.DataRange(in.Node.wasm)
		var imageBytes uint64
		if img := in.exec.image; img != nil {
			imageBytes = uint64(len(img.memory))
		}
		alloc := memoryAllocator(in.Node.wasm, imageBytes, keep)
		actx := experimental.WithMemoryAllocator(ctx, experimental.MemoryAllocatorFunc(func(capacity, max uint64) experimental.LinearMemory {
			lm := alloc.Allocate(capacity, max)
			in.exec.mem = lm
			mem, _ = lm.(reusableMemory)
			return lm
		}))
		cfg := wazero.NewModuleConfig().
			WithName(fmt.Sprintf("%s@%d", in.Name, instanceSerial.Add(1))).
			WithStartFunctions()
		mod, err = r.exec.mods.Runtime().InstantiateModule(actx, in.Node.compiled, cfg)
		if err != nil {
			in.trap = "could not start: " + err.Error()
			in.exec.hold.Store(holdSched)
			return
		}
		if !resumed && mem != nil {
			pool.noteFresh(in.Node.compiled, mod, forkGlobals(r.exec.mods, in.Node.wasm))
		}
	} else {
		in.exec.mem = mem
	}
	// Outermost, so that the dispatcher finds the instance by a type
	// assertion (instanceOf).
	ctx = &instanceCtx{Context: ctx, in: in}
	in.exec.mod = mod
	if img := in.exec.image; img != nil {
		err = in.resumeGuest(ctx, mod, img)
	} else {
		in.clockStart(mod, false)
		in.preemptStart(mod)
		in.exec.hold.Store(holdWasm)
		_, err = mod.ExportedFunction("_start").Call(ctx)
	}
	if in.exec.hold.Swap(holdSched) == holdAbandoned {
		in.exec.gone = true // the scheduler gave up on this guest and closed its module
		return
	}
	if in.exec.clock.mem != nil {
		// A guest that ended without a host call (a trap, or a return
		// from _start) may have read the clock since its last one.
		in.clockTake()
	}
	clean := true // the guest ended on its own or was stopped, nothing else
	var exit *sys.ExitError
	var resume resumeError
	switch {
	case errors.As(err, &resume):
		in.resumeFailed = resume.Error()
		clean = false
	case err == nil:
		in.ExitCode = 0
	case errors.As(err, &exit):
		in.ExitCode = exit.ExitCode()
	default:
		clean = false
		msgText := err.Error()
		if i := strings.IndexByte(msgText, '\n'); i > 0 {
			msgText = msgText[:i]
		}
		// wazero reports the guest's own traps as "wasm error: ..."; any
		// other error is a Go panic in one of our host functions, which
		// it recovered and marked.
		if p, ok := strings.CutSuffix(msgText, " (recovered by wazero)"); ok || !strings.HasPrefix(msgText, "wasm error: ") {
			in.hostPanic = p
			break
		}
		if strings.Contains(msgText, "out of bounds memory") || strings.Contains(msgText, "memory") && in.oom {
			in.oom = true
		}
		in.trap = "wasm trap: " + msgText
	}
	if in.exec.pCounter != nil {
		in.preemptSync()
	}
	if clean && !resumed && mem != nil {
		mem.zeroedAtEnd(in.zeroMappedPages())
	}
	if !clean || resumed || !pool.put(in.Node.compiled, mod, mem) {
		mod.Close(context.Background())
	}
	in.releaseShadows()
}

// Park hands the baton back and waits for the next command. It returns only
// if the instance should go on; a kill ends the guest from inside the host
// call.
func (in *Instance) Park(ctx context.Context) { in.parkAt(ctx, 0, false) }

// parkAt is Park, recording where the instance parks: op is the disk
// operation Fsync waits in, and noResume says the guest made the host call
// without a resume point, so that a fork cannot resume it there. In a host
// call that a resumed guest entered again it is the park the guest was
// copied in: the call already did everything before it, so it only hands
// the baton back.
func (in *Instance) parkAt(ctx context.Context, op int64, noResume bool) {
	var next *Instance
	if in.exec.resuming {
		in.exec.resuming = false
	} else {
		in.preemptParked()
		in.parked = true
		c := &in.exec.call
		in.park = parkPoint{fn: c.fn, keyed: c.keyed, noResume: noResume, op: op, carry: c.carry}
		next = in.Run.handOn()
		if next != nil && afterHandOn != nil {
			afterHandOn(in, next)
		}
		if next == in {
			return
		}
	}
	// next is nil, or another instance: the driver resumes it directly.
	in.exec.hold.Store(holdSched)
	if !in.exec.yield(next) || in.exec.cmd == cmdKill {
		in.Stop(ctx, 137)
	}
}

// stop ends the guest from inside a host call: the call panics with an exit
// error, which wazero turns into _start's result. The module stays open, so
// that its instance can serve the next guest (reuse.go); main closes it
// when it does not.
func (in *Instance) Stop(ctx context.Context, code uint32) {
	panic(sys.NewExitError(code))
}

// reusedInstance takes an idle instance of the node's module from pool and
// sets it back to a fresh instance's state, or returns nils. An instance
// that cannot be set back is closed.
func (in *Instance) reusedInstance(pool *InstancePool) (api.Module, reusableMemory) {
	mod, mem, fresh := pool.take(in.Node.compiled)
	if mod == nil {
		return nil, nil
	}
	if !fresh.reset(mod, mem) {
		mod.Close(context.Background())
		return nil, nil
	}
	pool.reused.Add(1)
	return mod, mem
}

// output collects a guest's stdout and stderr into trace lines.
func (in *Instance) Output(fd int, p []byte) {
	buf := append(in.lineBuf[fd], p...)
	for {
		i := indexByte(buf, '\n')
		if i < 0 {
			break
		}
		in.emitLine(fd, string(buf[:i]))
		buf = buf[i+1:]
	}
	if len(buf) > 4096 {
		in.emitLine(fd, string(buf))
		buf = buf[:0]
	}
	in.lineBuf[fd] = append(in.lineBuf[fd][:0], buf...)
}

const stderrTailLines = 20

// crashContextLines is how many stderr lines from before a panic the report
// shows with it.
const crashContextLines = 5

func (in *Instance) emitLine(fd int, line string) {
	in.Run.Tracef("%s: %s", in.Name, line)
	if fd != 2 {
		return
	}
	in.stderrTail = append(in.stderrTail, line)
	if len(in.stderrTail) > stderrTailLines {
		in.stderrTail = in.stderrTail[1:]
	}
	switch {
	case in.crashLine != "":
		if len(in.crashTail) < stderrTailLines {
			in.crashTail = append(in.crashTail, line)
		}
	case strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: "):
		in.pendingCrash, in.pendingAge = line, 0
	case in.pendingCrash != "":
		in.pendingAge++
		if strings.HasPrefix(line, "goroutine ") || strings.HasPrefix(line, "runtime stack:") || strings.HasPrefix(line, "[signal ") {
			in.crashLine = in.pendingCrash
			// Keep a few lines the program wrote before it crashed, then the
			// crash itself.
			at := len(in.stderrTail) - 1
			for at > 0 && in.stderrTail[at] != in.pendingCrash {
				at--
			}
			in.crashTail = append([]string(nil), in.stderrTail[max(0, at-crashContextLines):]...)
		} else if in.pendingAge > 3 && !strings.HasPrefix(line, "\t") && line != "" {
			in.pendingCrash = "" // a log line, not a crash
		}
	}
}

func (in *Instance) flushOutput() {
	for fd := 1; fd <= 2; fd++ {
		if len(in.lineBuf[fd]) > 0 {
			in.emitLine(fd, string(in.lineBuf[fd]))
			in.lineBuf[fd] = nil
		}
	}
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// Ready reports whether an instance that would wait until deadline, or for
// one of its Waits, can go on at once.
func (in *Instance) Ready(deadline int64) bool {
	if deadline <= in.Run.Now {
		return true
	}
	for _, w := range in.Waits {
		if in.FDReady(w.FD, w.Write) {
			return true
		}
	}
	return false
}

// ParkUntil hands the baton back until virtual time reaches deadline or one
// of in.Waits is ready, and returns when the instance runs again.
func (in *Instance) ParkUntil(ctx context.Context, deadline int64) {
	in.deadline = deadline
	in.Park(ctx)
	in.deadline = maxTime
}

// ParkAgain is, in a host call that a resumed guest entered again
// (Call.Resuming), the park its copy was taken in: it waits as that park
// did and returns the deadline it waited for.
func (in *Instance) ParkAgain(ctx context.Context) int64 {
	d := in.deadline
	in.parkAt(ctx, in.park.op, false)
	in.deadline = maxTime
	return d
}

// Stretch returns the slowed deadline of the timer deadline d, which the
// node now waits timeout for, slowed by factor f. Go asks again with the time
// left after every early wake, so each timer deadline is stretched once,
// from the first time the node waited for it.
func (in *Instance) Stretch(d, timeout int64, f float64) int64 {
	if in.slowDeadlines == nil {
		in.slowDeadlines = map[int64]int64{}
	}
	if s, ok := in.slowDeadlines[d]; ok {
		return s
	}
	if len(in.slowDeadlines) >= slowDeadlinesMax {
		for k := range in.slowDeadlines {
			if k < in.Run.Now {
				delete(in.slowDeadlines, k) // timers that are due; order does not matter
			}
		}
	}
	s := in.Run.Now + int64(float64(timeout)*f)
	in.slowDeadlines[d] = s
	return s
}

// slowDeadlinesMax bounds the stretched deadlines a node keeps before the
// ones already due are dropped.
const slowDeadlinesMax = 256
