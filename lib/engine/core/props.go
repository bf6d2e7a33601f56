package core

import (
	"context"
	"fmt"
	"strconv"

	"github.com/sf-dst/sf/lib/margin"
)

// Property kinds as the SDK numbers them (sim/sim.go).
var propertyKinds = map[uint32]string{
	1: "always",
	2: "alwaysOrUnreachable",
	3: "sometimes",
	4: "reachable",
	5: "unreachable",
	6: "assert",
	7: "eventually",
}

const (
	kindUnreachableABI = 5
	kindAssertABI      = 6
	kindEventuallyABI  = 7
)

// Property records one evaluation of a property and fails the run when it
// is violated. details, the property's details as JSON text, is read only
// during the call (it may be a view of the guest's memory), and only when
// the run fails.
func (in *Instance) Property(ctx context.Context, kind uint32, cond bool, msg string, details []byte, m *margin.Value) {
	name, ok := propertyKinds[kind]
	if !ok {
		in.FailRun(ctx, ClassFail, fmt.Sprintf("sim: unknown property kind %d for %q", kind, msg))
		return
	}
	if kind != kindAssertABI { // Assert is a plain check, not a tracked property
		// Most evaluations find their property: the key is built on the
		// stack, and a string of it made only for a new one.
		var buf [128]byte
		key := append(append(append(buf[:0], name...), 0), msg...)
		pr := in.Run.props[string(key)]
		if pr == nil {
			pr = &Property{Kind: name, Message: msg, FirstNs: in.Run.Now}
			in.Run.props[string(key)] = pr
		}
		pr.Reached = true
		pr.Hits++
		if cond {
			if !pr.True {
				pr.FirstTrueNs = in.Run.Now
			}
			pr.True = true
		} else {
			pr.falsified = true
		}
		if m != nil {
			switch {
			case pr.Margin == nil:
				v := *m
				pr.Margin = &v
				pr.MarginNs = in.Run.Now
			case name == "always" && m.Less(*pr.Margin), name == "sometimes" && pr.Margin.Less(*m):
				*pr.Margin = *m
				pr.MarginNs = in.Run.Now
			}
		}
	}
	failing := !cond && (kind == kindEventuallyABI || kind == 1 || kind == 2 || kind == kindAssertABI) || kind == kindUnreachableABI
	if !failing {
		return
	}
	if !in.Run.ended {
		in.Run.res.Property = msg
	}
	text := msg
	if len(details) > 0 {
		text += " " + string(details)
	}
	switch {
	case kind == kindEventuallyABI:
		in.FailRun(ctx, ClassLiveness, msg+": "+unquote(string(details)))
	case kind == kindUnreachableABI:
		in.FailRun(ctx, ClassAssert, "reached unreachable: "+text)
	default:
		in.FailRun(ctx, ClassAssert, text)
	}
}

func unquote(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}

// failRun records a failure raised by the guest itself and ends the guest.
func (in *Instance) FailRun(ctx context.Context, class, msg string) {
	in.failed = true
	in.flushOutput()
	in.Run.fail(in, class, in.Name+": "+msg)
	in.Stop(ctx, 1)
}
