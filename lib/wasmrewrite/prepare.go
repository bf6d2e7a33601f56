package wasmrewrite

import (
	"errors"
	"fmt"
)

// Version is part of every prepared module's name in a build store: a
// change to any rewrite bumps it, so that no store serves a module
// rewritten the old way.
const Version = 7

// Tag names a mode in the file name of a prepared module.
func (m Mode) Tag() string {
	switch {
	case m.Preempt && m.Loops:
		return "preempt-loops"
	case m.Preempt:
		return "preempt"
	}
	return "run"
}

// Prepare returns bin as the engine runs it: with loop ticks, with mode's
// call counting, with its data segments merged, with what forking needs
// (fork.go), and with its clock reads answered inside it (clock.go). A module without preemption that the rewriter does not
// understand keeps its code as it is (the watchdog can then only abandon
// it); one that needs preemption is an error. A module that cannot fork
// runs as before and carries the reason, which ReadForkInfo returns.
func Prepare(bin []byte, mode Mode) ([]byte, error) {
	if !IsModule(bin) {
		return nil, errors.New("not a WebAssembly module")
	}
	plan, forkErr := planFork(bin)
	out := bin
	loops := true
	if mode.Preempt {
		var err error
		if out, err = Rewrite(bin, mode); err != nil {
			if errors.Is(err, ErrUninstrumentable) {
				err = errors.New("preempt: the module cannot be instrumented to count calls (preempt needs a module built by Go for wasip1)")
			}
			return nil, err
		}
	} else {
		out, loops = InstrumentLoops(bin)
	}
	out = MergeDataSegments(out)
	if forkErr == nil {
		var forked []byte
		forked, forkErr = plan.apply(out, forkFlags{loops: loops, preempt: mode.Preempt, preemptLoops: mode.Preempt && mode.Loops})
		if forkErr == nil {
			return withClock(forked), nil
		}
	}
	return withClock(appendCustom(out, noForkSection, []byte(forkErr.Error()))), nil
}

// withClock is bin with the clock rewrite (clock.go), last, so that the
// other rewrites see the module as Go built it; a module the rewrite does not
// understand keeps making a host call for every read.
func withClock(bin []byte) []byte {
	if out, err := addClock(bin); err == nil {
		return out
	}
	return bin
}

// Counts reports whether bin was prepared for preemption: it exports the
// countdown and Go's g register.
func Counts(bin []byte) bool {
	secs, err := splitSections(bin)
	if err != nil {
		return false
	}
	for _, s := range secs {
		if s.id != 7 {
			continue
		}
		names, err := exportNames(s.body)
		if err != nil {
			return false
		}
		return names[ExportPreemptCounter] && names[ExportG]
	}
	return false
}

// exportNames lists the names an export section exports.
func exportNames(b []byte) (map[string]bool, error) {
	count, n, ok := uleb(b)
	if !ok {
		return nil, ErrUninstrumentable
	}
	b = b[n:]
	names := map[string]bool{}
	for range count {
		l, n, ok := uleb(b)
		if !ok || uint64(n)+uint64(l) > uint64(len(b)) {
			return nil, fmt.Errorf("export section: %w", ErrUninstrumentable)
		}
		names[string(b[n:n+int(l)])] = true
		b = b[n+int(l):]
		if len(b) < 1 {
			return nil, ErrUninstrumentable
		}
		b = b[1:] // kind
		if _, n, ok = uleb(b); !ok {
			return nil, ErrUninstrumentable
		}
		b = b[n:]
	}
	return names, nil
}
