// Package simsdk is the host side of the guest SDK (package sim): what its
// functions call inside the simulator.
package simsdk

import (
	"math"

	"github.com/tetratelabs/wazero/api"

	"github.com/sf-dst/sf/lib/engine/core"
	"github.com/sf-dst/sf/lib/engine/udp"
	"github.com/sf-dst/sf/lib/margin"
	"github.com/sf-dst/sf/lib/simnet"
)

// Adapter is the sim SDK's host module: what sim's functions call inside the
// simulator (properties, buggify, history, events, the workload's budget,
// quiet periods, the end of setup, and the SDK's own TCP sockets; its UDP
// sockets are the udp adapter's).
type Adapter struct{}

// Module is sf's own host module.
func (Adapter) Module() string { return "seedfall" }

// Funcs are the SDK's functions, each with its word in the determinism hash.
func (Adapter) Funcs() []core.HostFunc { return funcs }

var (
	i32 = api.ValueTypeI32
	i64 = api.ValueTypeI64
	f64 = api.ValueTypeF64
)

func p(ts ...api.ValueType) []api.ValueType { return ts }

func readString(m api.Module, ptr, n uint32) (string, bool) {
	b, ok := m.Memory().Read(ptr, n)
	if !ok {
		return "", false
	}
	return string(b), true
}

var funcs = []core.HostFunc{
	{Name: "fail", ID: 38, Params: p(i32, i32), Results: nil, Run: func(c *core.Call) {
		in, ctx, m, s := c.In, c.Ctx, c.Mod, c.Stack
		msg, _ := readString(m, uint32(s[0]), uint32(s[1]))
		c.KeyText(core.HashString(msg), 0, msg, "")
		in.FailRun(ctx, core.ClassFail, msg)
	}},
	{Name: "property", ID: 39, Params: p(i32, i32, i32, i32, i32, i32), Results: nil, Run: func(c *core.Call) {
		in, ctx, m, s := c.In, c.Ctx, c.Mod, c.Stack
		msg, _ := readString(m, uint32(s[2]), uint32(s[3]))
		details, _ := m.Memory().Read(uint32(s[4]), uint32(s[5]))
		c.KeyText(core.HashString(msg), s[0]<<1|s[1]&1, msg, "")
		in.Property(ctx, uint32(s[0]), uint32(s[1]) != 0, msg, details, nil)
	}},
	{Name: "property_margin", ID: 39, Params: p(i32, i32, i32, i32, i32, i32, f64), Results: nil, Run: func(c *core.Call) {
		in, ctx, m, s := c.In, c.Ctx, c.Mod, c.Stack
		msg, _ := readString(m, uint32(s[2]), uint32(s[3]))
		details, _ := m.Memory().Read(uint32(s[4]), uint32(s[5]))
		v := margin.Float(api.DecodeF64(s[6]))
		c.KeyText(core.HashString(msg), s[0]<<1|s[1]&1|s[6]<<8, msg, "")
		in.Property(ctx, uint32(s[0]), uint32(s[1]) != 0, msg, details, &v)
	}},
	// A comparison of integers passes its margin exact, as a sign and a
	// magnitude. It adds the same words to the hash as property_margin of
	// the nearest float64, so that a run whose margins a float64 holds
	// exactly hashes as it did before integers had a call of their own.
	{Name: "property_margin_int", ID: 39, Params: p(i32, i32, i32, i32, i32, i32, i32, i64), Results: nil, Run: func(c *core.Call) {
		in, ctx, m, s := c.In, c.Ctx, c.Mod, c.Stack
		msg, _ := readString(m, uint32(s[2]), uint32(s[3]))
		details, _ := m.Memory().Read(uint32(s[4]), uint32(s[5]))
		v := margin.Int(uint32(s[6]) != 0, s[7])
		c.KeyText(core.HashString(msg), s[0]<<1|s[1]&1|math.Float64bits(v.Float64())<<8, msg, "")
		in.Property(ctx, uint32(s[0]), uint32(s[1]) != 0, msg, details, &v)
	}},
	{Name: "buggify", ID: 46, Params: p(i32, i32, f64), Results: p(i32), Run: func(c *core.Call) {
		in, m, s := c.In, c.Mod, c.Stack
		site, _ := m.Memory().Read(uint32(s[0]), uint32(s[1]))
		prob := api.DecodeF64(s[2])
		fired, name := in.Buggify(site, prob)
		c.KeyText(core.HashBytes(site), boolWord(fired), name, "")
		s[0] = boolWord(fired)
	}},
	{Name: "quiet_for", ID: 47, Params: p(i64), Results: nil, Run: func(c *core.Call) {
		in, s := c.In, c.Stack
		d := int64(s[0])
		c.Key(uint64(d), 0)
		in.Run.QuietFor(in, d)
	}},
	{Name: "setup_complete", ID: 48, Params: nil, Results: nil, Run: func(c *core.Call) {
		in := c.In
		c.Key(0, 0)
		in.Run.SetupComplete(in.Name)
	}},
	{Name: "history_invoke", ID: 49, Params: p(i64, i32, i32, i32, i32, i32, i32), Results: p(i64), Run: func(c *core.Call) {
		in, m, s := c.In, c.Mod, c.Stack
		f, _ := readString(m, uint32(s[1]), uint32(s[2]))
		key, _ := readString(m, uint32(s[3]), uint32(s[4]))
		value, _ := readString(m, uint32(s[5]), uint32(s[6]))
		c.Key(core.HashString(f)^core.HashString(key), core.HashString(value))
		s[0] = in.Run.HistoryInvoke(in, int64(s[0]), f, key, value)
	}},
	{Name: "history_complete", ID: 49, Params: p(i64, i32, i32, i32), Results: nil, Run: func(c *core.Call) {
		in, m, s := c.In, c.Mod, c.Stack
		out, _ := readString(m, uint32(s[2]), uint32(s[3]))
		c.Key(s[0], uint64(s[1])^core.HashString(out))
		in.Run.HistoryComplete(in, s[0], uint32(s[1]), out)
	}},
	{Name: "event", ID: 40, Params: p(i32, i32, i32, i32), Results: nil, Run: func(c *core.Call) {
		in, m, s := c.In, c.Mod, c.Stack
		name, _ := readString(m, uint32(s[0]), uint32(s[1]))
		details, _ := readString(m, uint32(s[2]), uint32(s[3]))
		c.KeyText(core.HashString(name), core.HashString(details), name, details)
		if details == "" {
			in.Run.Tracef("event %s from %s", name, in.Name)
		} else {
			in.Run.Tracef("event %s from %s: %s", name, in.Name, details)
		}
	}},
	{Name: "budget", ID: 41, Params: p(i64), Results: p(i64), Run: func(c *core.Call) {
		in, s := c.In, c.Stack
		got := in.Run.Budget(in, int64(s[0]))
		c.Key(s[0], uint64(got))
		s[0] = uint64(got)
	}},
	{Name: "sock_listen", ID: 42, Params: p(i32, i32, i32), Results: p(i32), Run: func(c *core.Call) {
		in, m, s := c.In, c.Mod, c.Stack
		addr, ok := readString(m, uint32(s[0]), uint32(s[1]))
		c.KeyText(core.HashString(addr), 0, addr, "")
		if !ok {
			s[0] = core.EFault
			return
		}
		host, port, err := udp.SplitHostPort(addr)
		if err != nil || (host != "" && host != in.Node.Spec.Name && host != "0.0.0.0" && host != "localhost" && host != "127.0.0.1") {
			s[0] = core.EInval
			return
		}
		l, errno := in.Run.Net.Listen(in.Node.Spec.Name, in.Num, port)
		if errno != simnet.OK {
			s[0] = uint64(errno)
			return
		}
		fd := in.AddFD(&core.Desc{Kind: core.DescSock, Sock: l, Read: true})
		if !m.Memory().WriteUint32Le(uint32(s[2]), uint32(fd)) {
			s[0] = core.EFault
			return
		}
		s[0] = core.ESuccess
	}},
	{Name: "sock_dial", ID: 43, Params: p(i32, i32, i32), Results: p(i32), Run: func(c *core.Call) {
		in, m, s := c.In, c.Mod, c.Stack
		addr, ok := readString(m, uint32(s[0]), uint32(s[1]))
		c.KeyText(core.HashString(addr), 0, addr, "")
		if !ok {
			s[0] = core.EFault
			return
		}
		host, port, err := udp.SplitHostPort(addr)
		if err != nil || host == "" {
			s[0] = core.EInval
			return
		}
		if host == "localhost" || host == "127.0.0.1" {
			host = in.Node.Spec.Name
		}
		conn, errno := in.Run.Net.Dial(in.Node.Spec.Name, in.Num, host, port)
		if errno != simnet.OK {
			s[0] = uint64(errno)
			return
		}
		fd := in.AddFD(&core.Desc{Kind: core.DescSock, Sock: conn, Read: true, Write: true})
		if !m.Memory().WriteUint32Le(uint32(s[2]), uint32(fd)) {
			s[0] = core.EFault
			return
		}
		s[0] = core.ESuccess
	}},
	{Name: "sock_status", ID: 44, Params: p(i32), Results: p(i32), Run: func(c *core.Call) {
		in, s := c.In, c.Stack
		fd := int32(s[0])
		e := in.FD(fd)
		if e == nil || e.Kind != core.DescSock {
			c.Key(uint64(fd), core.EBadf)
			s[0] = core.EBadf
			return
		}
		st := e.Sock.Status()
		c.Key(uint64(fd), uint64(st))
		s[0] = uint64(st)
	}},
}

func boolWord(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
