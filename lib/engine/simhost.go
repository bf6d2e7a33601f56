package engine

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tetratelabs/wazero/api"

	"github.com/sf-dst/sf/lib/simnet"
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

func sortStrings(s []string) { sort.Strings(s) }

// budget answers sim.Budget(n): n, or Options.Budget when that is set and
// smaller. It also remembers the largest n asked for, which tells shrinking
// whether a cap is worth trying.
func (r *run) budget(in *instance, n int64) int64 {
	if n > int64(r.res.BudgetAsked) {
		r.res.BudgetAsked = int(n)
	}
	if limit := int64(r.opts.Budget); limit > 0 && n > limit {
		r.tracef("%s: sim.Budget capped at %d of %d operations", in.name, limit, n)
		return limit
	}
	return n
}

func init() {
	w := func(name string, id callID, params []api.ValueType, results []api.ValueType, fn func(in *instance, ctx context.Context, m api.Module, s []uint64)) {
		hostModules["seedfall"] = append(hostModules["seedfall"], hostFunc{name, id, params, results, fn})
	}
	w("fail", cSimFail, p(i32, i32), nil, func(in *instance, ctx context.Context, m api.Module, s []uint64) {
		msg, _ := readString(m, uint32(s[0]), uint32(s[1]))
		in.hcall(cSimFail, hashString(msg), 0)
		in.failRun(ctx, ClassFail, msg)
	})
	w("property", cSimProperty, p(i32, i32, i32, i32, i32, i32), nil, func(in *instance, ctx context.Context, m api.Module, s []uint64) {
		msg, _ := readString(m, uint32(s[2]), uint32(s[3]))
		details, _ := readString(m, uint32(s[4]), uint32(s[5]))
		in.hcall(cSimProperty, hashString(msg), s[0]<<1|s[1]&1)
		in.property(ctx, uint32(s[0]), uint32(s[1]) != 0, msg, details, nil)
	})
	w("property_margin", cSimProperty, p(i32, i32, i32, i32, i32, i32, f64), nil, func(in *instance, ctx context.Context, m api.Module, s []uint64) {
		msg, _ := readString(m, uint32(s[2]), uint32(s[3]))
		details, _ := readString(m, uint32(s[4]), uint32(s[5]))
		margin := api.DecodeF64(s[6])
		in.hcall(cSimProperty, hashString(msg), s[0]<<1|s[1]&1|s[6]<<8)
		in.property(ctx, uint32(s[0]), uint32(s[1]) != 0, msg, details, &margin)
	})
	w("buggify", cSimBuggify, p(i32, i32, f64), p(i32), func(in *instance, _ context.Context, m api.Module, s []uint64) {
		site, _ := readString(m, uint32(s[0]), uint32(s[1]))
		prob := api.DecodeF64(s[2])
		fired := in.buggify(site, prob)
		in.hcall(cSimBuggify, hashString(site), boolWord(fired))
		s[0] = boolWord(fired)
	})
	w("quiet_for", cSimQuietFor, p(i64), nil, func(in *instance, _ context.Context, _ api.Module, s []uint64) {
		d := int64(s[0])
		in.hcall(cSimQuietFor, uint64(d), 0)
		if until := in.run.now + d; d > 0 && until > in.run.quietUntil {
			in.run.quietUntil = until
			in.run.healNetwork()
			in.run.tracef("quiet: %s suppresses faults until %s", in.name, fmtTime(until))
		}
	})
	w("setup_complete", cSimSetupComplete, nil, nil, func(in *instance, _ context.Context, _ api.Module, _ []uint64) {
		in.hcall(cSimSetupComplete, 0, 0)
		if !in.run.setupDone {
			in.run.setupDone = true
			in.run.tracef("setup complete (%s)", in.name)
		}
	})
	w("history_invoke", cSimHistory, p(i64, i32, i32, i32, i32, i32, i32), p(i64), func(in *instance, ctx context.Context, m api.Module, s []uint64) {
		f, _ := readString(m, uint32(s[1]), uint32(s[2]))
		key, _ := readString(m, uint32(s[3]), uint32(s[4]))
		value, _ := readString(m, uint32(s[5]), uint32(s[6]))
		in.hcall(cSimHistory, hashString(f)^hashString(key), hashString(value))
		s[0] = in.run.historyInvoke(in, int64(s[0]), f, key, value)
	})
	w("history_complete", cSimHistory, p(i64, i32, i32, i32), nil, func(in *instance, ctx context.Context, m api.Module, s []uint64) {
		out, _ := readString(m, uint32(s[2]), uint32(s[3]))
		in.hcall(cSimHistory, s[0], uint64(s[1])^hashString(out))
		in.run.historyComplete(in, s[0], uint32(s[1]), out)
	})
	w("event", cSimEvent, p(i32, i32, i32, i32), nil, func(in *instance, _ context.Context, m api.Module, s []uint64) {
		name, _ := readString(m, uint32(s[0]), uint32(s[1]))
		details, _ := readString(m, uint32(s[2]), uint32(s[3]))
		in.hcall(cSimEvent, hashString(name), hashString(details))
		if details == "" {
			in.run.tracef("event %s from %s", name, in.name)
		} else {
			in.run.tracef("event %s from %s: %s", name, in.name, details)
		}
	})
	w("budget", cSimBudget, p(i64), p(i64), func(in *instance, _ context.Context, _ api.Module, s []uint64) {
		got := in.run.budget(in, int64(s[0]))
		in.hcall(cSimBudget, s[0], uint64(got))
		s[0] = uint64(got)
	})
	w("sock_listen", cSimListen, p(i32, i32, i32), p(i32), func(in *instance, _ context.Context, m api.Module, s []uint64) {
		addr, ok := readString(m, uint32(s[0]), uint32(s[1]))
		in.hcall(cSimListen, hashString(addr), 0)
		if !ok {
			s[0] = eFault
			return
		}
		host, port, err := splitHostPort(addr)
		if err != nil || (host != "" && host != in.node.spec.Name && host != "0.0.0.0" && host != "localhost" && host != "127.0.0.1") {
			s[0] = eInval
			return
		}
		l, errno := in.run.net.Listen(in.node.spec.Name, in.num, port)
		if errno != simnet.OK {
			s[0] = uint64(errno)
			return
		}
		fd := in.addFD(&fdEntry{kind: fdSock, sock: l, read: true})
		if !m.Memory().WriteUint32Le(uint32(s[2]), uint32(fd)) {
			s[0] = eFault
			return
		}
		s[0] = eSuccess
	})
	w("sock_dial", cSimDial, p(i32, i32, i32), p(i32), func(in *instance, _ context.Context, m api.Module, s []uint64) {
		addr, ok := readString(m, uint32(s[0]), uint32(s[1]))
		in.hcall(cSimDial, hashString(addr), 0)
		if !ok {
			s[0] = eFault
			return
		}
		host, port, err := splitHostPort(addr)
		if err != nil || host == "" {
			s[0] = eInval
			return
		}
		if host == "localhost" || host == "127.0.0.1" {
			host = in.node.spec.Name
		}
		c, errno := in.run.net.Dial(in.node.spec.Name, in.num, host, port)
		if errno != simnet.OK {
			s[0] = uint64(errno)
			return
		}
		fd := in.addFD(&fdEntry{kind: fdSock, sock: c, read: true, write: true})
		if !m.Memory().WriteUint32Le(uint32(s[2]), uint32(fd)) {
			s[0] = eFault
			return
		}
		s[0] = eSuccess
	})
	w("sock_status", cSimSockStatus, p(i32), p(i32), func(in *instance, _ context.Context, _ api.Module, s []uint64) {
		fd := int32(s[0])
		e := in.fd(fd)
		if e == nil || e.kind != fdSock {
			in.hcall(cSimSockStatus, uint64(fd), eBadf)
			s[0] = eBadf
			return
		}
		st := e.sock.Status()
		in.hcall(cSimSockStatus, uint64(fd), uint64(st))
		s[0] = uint64(st)
	})
}

// property records one evaluation of a property and fails the run when it
// is violated.
func (in *instance) property(ctx context.Context, kind uint32, cond bool, msg, details string, margin *float64) {
	name, ok := propertyKinds[kind]
	if !ok {
		in.failRun(ctx, ClassFail, fmt.Sprintf("sim: unknown property kind %d for %q", kind, msg))
		return
	}
	if kind != kindAssertABI { // Assert is a plain check, not a tracked property
		key := name + "\x00" + msg
		pr := in.run.props[key]
		if pr == nil {
			pr = &Property{Kind: name, Message: msg, FirstNs: in.run.now}
			in.run.props[key] = pr
		}
		pr.Reached = true
		pr.Hits++
		if cond {
			if !pr.True {
				pr.FirstTrueNs = in.run.now
			}
			pr.True = true
		} else {
			pr.falsified = true
		}
		if margin != nil {
			switch {
			case pr.Margin == nil:
				v := *margin
				pr.Margin = &v
				pr.MarginNs = in.run.now
			case name == "always" && *margin < *pr.Margin, name == "sometimes" && *margin > *pr.Margin:
				*pr.Margin = *margin
				pr.MarginNs = in.run.now
			}
		}
	}
	text := msg
	if details != "" {
		text += " " + details
	}
	failing := !cond && (kind == kindEventuallyABI || kind == 1 || kind == 2 || kind == kindAssertABI) || kind == kindUnreachableABI
	if failing && !in.run.ended {
		in.run.res.Property = msg
	}
	switch {
	case kind == kindEventuallyABI && !cond:
		in.failRun(ctx, ClassLiveness, msg+": "+unquote(details))
	case kind == kindUnreachableABI:
		in.failRun(ctx, ClassAssert, "reached unreachable: "+text)
	case (kind == 1 || kind == 2 || kind == kindAssertABI) && !cond:
		in.failRun(ctx, ClassAssert, text)
	}
}

func unquote(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}

func boolWord(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// failRun records a failure raised by the guest itself and ends the guest.
func (in *instance) failRun(ctx context.Context, class, msg string) {
	in.failed = true
	in.flushOutput()
	in.run.fail(in, class, in.name+": "+msg)
	in.stop(ctx, 1)
}

func splitHostPort(addr string) (string, int, error) {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		return "", 0, fmt.Errorf("missing port in %q", addr)
	}
	port, err := strconv.Atoi(addr[i+1:])
	if err != nil || port <= 0 || port > 65535 {
		return "", 0, fmt.Errorf("bad port in %q", addr)
	}
	host := strings.TrimSuffix(strings.TrimPrefix(addr[:i], "["), "]")
	return host, port, nil
}
