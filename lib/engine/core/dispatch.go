package core

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// A host interface (WASI, the sim SDK, the net overlay, UDP, compat_overlay's
// mmap) is an Adapter: a list of host functions in a host module. Each
// function is declared once, as a HostFunc, and every call of every one of
// them goes through the dispatcher below, which takes the baton from the
// guest, adds the call to the determinism hash (and to the recorded calls),
// stops a guest whose run reached a limit, and gives the baton back.

// Adapter is one host interface.
type Adapter interface {
	// Module is the host module the functions are imported from:
	// wasi_snapshot_preview1, or seedfall for sf's own.
	Module() string
	// Funcs are the adapter's host functions.
	Funcs() []HostFunc
}

// CallID is a host call's word in the determinism hash. The numbers are part
// of the hash's definition: changing one changes every hash of every run
// that makes the call.
type CallID uint64

// HostFunc is one host function, declared once: its import name, its
// signature, its word in the hash and its body.
type HostFunc struct {
	Name string
	// ID is the call's word in the determinism hash. Imports that do the
	// same thing to the world share one (fd_sync and fd_datasync).
	ID              CallID
	Params, Results []api.ValueType
	// Key, when set, gives the two words that say what the call was, from
	// its arguments alone: the dispatcher adds them to the hash before Run.
	// A function whose words depend on what it did leaves Key nil and calls
	// Call.Key from Run once it knows them.
	Key func(s []uint64) (a, b uint64)
	// OnFD says the first argument is a descriptor: a recorded call names
	// the descriptor's file.
	OnFD bool
	Run  func(c *Call)

	display string // how a recorded call names it: module.name, or the bare WASI name
	module  string // the host module it belongs to
}

// Event is an entry of the determinism hash that is not a guest's call of an
// import: a node waking from poll_oneoff, a preemption countdown running out.
type Event struct {
	Name string
	ID   CallID
}

// Call is one host call under way: the instance that made it and the
// guest's view of it. Its fields are valid until Run returns.
type Call struct {
	In  *Instance
	Ctx context.Context
	Mod api.Module
	// Stack holds the arguments, and receives the results from index 0.
	Stack []uint64

	fn    *HostFunc
	keyed bool
	carry uint64
}

// Mem is the guest's linear memory.
func (c *Call) Mem() api.Memory { return c.Mod.Memory() }

// Key adds the call to the determinism hash with the two words a and b that
// say what it was. A HostFunc without Key calls it exactly once.
func (c *Call) Key(a, b uint64) {
	if c.keyed {
		panic(fmt.Sprintf("host function %s keyed twice", c.fn.Name))
	}
	c.keyed = true
	c.In.account(c.fn.ID, c.fn.display, c.fn.OnFD, a, b, "", "")
}

// KeyText is Key for a call whose words fold strings: ta and tb (either may
// be empty) are what a and b were made from, a message, site or path, which
// a nondeterminism report shows instead of the opaque word.
func (c *Call) KeyText(a, b uint64, ta, tb string) {
	if c.keyed {
		panic(fmt.Sprintf("host function %s keyed twice", c.fn.Name))
	}
	c.keyed = true
	c.In.account(c.fn.ID, c.fn.display, c.fn.OnFD, a, b, ta, tb)
}

// KeyAs adds the call to the hash as event e instead of as itself: the
// import was the vehicle of something else (sched_yield is also how the
// call-counting instrumentation reports that a countdown ran out).
func (c *Call) KeyAs(e Event, a, b uint64) {
	if c.keyed {
		panic(fmt.Sprintf("host function %s keyed twice", c.fn.Name))
	}
	c.keyed = true
	c.In.account(e.ID, e.Name, false, a, b, "", "")
}

// Unkeyed says that this call, on this path, adds nothing to the hash.
func (c *Call) Unkeyed() { c.keyed = true }

// Resuming reports whether this call is the one a forked guest was copied
// in, entered again by the resumed guest, and has not yet reached the point
// where it parked: everything it did before that point is done, in the
// state the fork restored, and must not be done again. A host function that
// may park skips to its park when it is; one that never parks is never
// entered this way (fork.go).
func (c *Call) Resuming() bool { return c.In.exec.resuming }

// Carry keeps v, something the call did before it parks, with the park, so
// that a resumed copy of the guest gets it back from Carried.
func (c *Call) Carry(v uint64) { c.carry = v }

// Carried is what the call passed to Carry before the park it resumes.
func (c *Call) Carried() uint64 { return c.carry }

// Event adds event e to the hash, during a call that was keyed already.
func (c *Call) Event(e Event, a, b uint64) { c.In.account(e.ID, e.Name, false, a, b, "", "") }

// wasiModule is WASI's host module, whose functions recorded calls name
// without it.
const wasiModule = "wasi_snapshot_preview1"

// dispatch is the body wazero runs for every host function of every adapter.
func dispatch(fn *HostFunc, narrow []int) api.GoModuleFunc {
	return func(ctx context.Context, m api.Module, s []uint64) {
		in := instanceOf(ctx)
		if !in.exec.hold.CompareAndSwap(holdWasm, holdHost) {
			// Abandoned by the watchdog: the run is no longer this
			// goroutine's to touch.
			in.Stop(ctx, 137)
		}
		// wazero passes an i32 argument in the low half of a stack slot
		// and leaves the high half undefined; clearing it here keeps junk
		// out of every use, the determinism hash above all.
		for _, i := range narrow {
			s[i] &= 0xffffffff
		}
		if in.exec.clock.mem != nil {
			in.clockTake() // the clock reads the guest answered come first
		}
		in.exec.seq++
		c := &in.exec.call
		*c = Call{In: in, Ctx: ctx, Mod: m, Stack: s, fn: fn}
		if in.exec.resuming {
			// The resumed guest's first call: the one it was copied in.
			if fn != in.park.fn {
				panic(fmt.Sprintf("a resumed guest called %s first, but was copied inside %s", fn.display, in.park.fn.display))
			}
			c.keyed, c.carry = in.park.keyed, in.park.carry
		} else if fn.Key != nil {
			c.Key(fn.Key(s))
		}
		fn.Run(c)
		if in.exec.resuming {
			panic(fmt.Sprintf("host function %s, entered again by a resumed guest, did not park again", fn.display))
		}
		if !c.keyed {
			panic(fmt.Sprintf("host function %s returned without adding itself to the determinism hash", fn.Name))
		}
		in.stopAtLimit(ctx)
		if in.exec.clock.mem != nil {
			in.clockRefresh()
		}
		in.exec.hold.Store(holdWasm)
	}
}

// hostModules are the adapters' functions by host module, once
// InstantiateHostModules has checked them.
type hostModules map[string][]*HostFunc

// Host is the host side of every guest: the adapters' functions, built
// into host modules of a runtime.
type Host struct {
	modules hostModules
}

// NewHost checks the adapters' declarations: no two functions of one module
// share a name, and every function has a body and a call ID.
func NewHost(adapters ...Adapter) (*Host, error) {
	h := &Host{modules: hostModules{}}
	for _, a := range adapters {
		for _, f := range a.Funcs() {
			f := f
			switch {
			case f.Name == "" || f.Run == nil:
				return nil, fmt.Errorf("host module %s: a function without a name or a body", a.Module())
			case f.ID == 0:
				return nil, fmt.Errorf("host function %s.%s: no call ID", a.Module(), f.Name)
			case h.Provides(a.Module(), f.Name):
				return nil, fmt.Errorf("host function %s.%s: declared twice", a.Module(), f.Name)
			}
			f.display, f.module = f.Name, a.Module()
			if a.Module() != wasiModule {
				f.display = a.Module() + "." + f.Name
			}
			h.modules[a.Module()] = append(h.modules[a.Module()], &f)
		}
	}
	return h, nil
}

// Provides reports whether a guest may import module.name.
func (h *Host) Provides(module, name string) bool {
	for _, f := range h.modules[module] {
		if f.Name == name {
			return true
		}
	}
	return false
}

// Funcs lists every function as module.name, sorted.
func (h *Host) Funcs() []string {
	var out []string
	for mod, fs := range h.modules {
		for _, f := range fs {
			out = append(out, mod+"."+f.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Instantiate builds the host modules into rt, every function's body the
// dispatcher. It is the only place sf gives wazero a host function.
func (h *Host) Instantiate(ctx context.Context, rt wazero.Runtime) error {
	mods := make([]string, 0, len(h.modules))
	for m := range h.modules {
		mods = append(mods, m)
	}
	sort.Strings(mods)
	for _, modName := range mods {
		b := rt.NewHostModuleBuilder(modName)
		for _, f := range h.modules[modName] {
			var narrow []int
			for i, t := range f.Params {
				if t == api.ValueTypeI32 {
					narrow = append(narrow, i)
				}
			}
			b.NewFunctionBuilder().WithGoModuleFunction(dispatch(f, narrow), f.Params, f.Results).Export(f.Name)
		}
		if _, err := b.Instantiate(ctx); err != nil {
			return fmt.Errorf("host module %s: %w", modName, err)
		}
	}
	return nil
}

// describeCall is how a recorded call reads in a nondeterminism report.
func (in *Instance) describeCall(name string, onFD bool, a, b uint64, ta, tb string) string {
	var arg string
	word := func(v uint64, text string) string {
		if text != "" {
			return strconv.Quote(text)
		}
		return strconv.FormatUint(v, 10)
	}
	switch {
	case ta != "" || tb != "":
		arg = "(" + word(a, ta) + ", " + word(b, tb) + ")"
	case onFD:
		target := fmt.Sprintf("fd %d", a)
		if f := in.FD(int32(a)); f != nil && f.Path != "" {
			target = f.Path
		}
		arg = fmt.Sprintf(" %s(%d)", target, b)
	case name == "random_get":
		arg = fmt.Sprintf("(%d)", a)
	default:
		arg = fmt.Sprintf("(%d, %d)", a, b)
	}
	return fmt.Sprintf("%s %s%s at %s", in.Name, strings.TrimSpace(name), arg, fmtDuration(in.Run.Now))
}
