package core

import (
	"errors"
	"maps"
	"slices"
	"sort"

	"github.com/sf-dst/sf/lib/faults"
	"github.com/sf-dst/sf/lib/rng"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/simnet"
	"github.com/sf-dst/sf/lib/wire"
)

// A fork on disk (lib/snapfile) is its run's state and its guests' images,
// written with lib/wire by Encode and read back by DecodeFork. What the
// world file gives (the Spec, the run's limits, the plan the timed faults
// are drawn from) is not written: the fork is decoded for the world it was
// taken in, which the snapshot file binds it to, and those come from it
// again. Everything else a Snapshot copies is written, each part by its own
// package's encoder (the disks, the network, the fault planner, the
// history recorder); maps in the order of their keys, so that one fork
// always encodes to the same bytes.
//
// Instances are written once each, in a table, and referred to by number
// wherever the state points at them (a node's current instance, the
// instance that started an open history operation, which may be one that
// has since crashed). Sockets are numbered by the network's encoding.

// Encode writes the fork: its run's state, then each node's guest image.
func (f *Fork) Encode(w *wire.Writer) error {
	if f.state == nil {
		return errors.New("the fork was released")
	}
	r := f.state.run
	w.Uint(f.Step)
	w.Int(f.AtNs)
	w.Uint(uint64(len(r.Nodes)))
	for _, n := range r.Nodes {
		w.String(n.Spec.Name)
	}
	r.encode(w)
	for i, g := range f.guests {
		w.Bool(g != nil)
		if g == nil {
			continue
		}
		w.Bool(g.wasm != r.Nodes[i].Spec.Wasm)
		w.Uint(uint64(len(g.globals)))
		for _, v := range g.globals {
			w.Word(v)
		}
		w.Bytes(g.memory)
	}
	return nil
}

// instances is the table of a run's instances: every node's current one,
// then those that only open history operations still name.
func (r *Run) instances() ([]*Instance, map[*Instance]uint64) {
	var list []*Instance
	num := map[*Instance]uint64{}
	add := func(in *Instance) {
		if in != nil && num[in] == 0 {
			list = append(list, in)
			num[in] = uint64(len(list))
		}
	}
	for _, n := range r.Nodes {
		add(n.Cur)
	}
	for _, id := range slices.Sorted(maps.Keys(r.opNode)) {
		add(r.opNode[id])
	}
	return list, num
}

func (r *Run) encode(w *wire.Writer) {
	w.Word(r.Seed)
	faults.EncodeList(w, r.Opts.Faults)
	w.Int(r.Opts.StopAtNs)
	w.Int(int64(r.Opts.Budget))
	encodeBranches(w, r.Opts.Branches)
	w.Bool(r.Opts.RedrawAfterBranch)
	w.String(r.Opts.Mutant)
	w.Int(r.Now)

	insts, num := r.instances()
	var held []*simnet.Socket
	for _, in := range insts {
		for _, d := range in.FDs {
			if d != nil && d.Sock != nil {
				held = append(held, d.Sock)
			}
		}
	}
	sock := r.Net.Encode(w, held)
	w.Uint(uint64(len(insts)))
	for _, in := range insts {
		w.Uint(uint64(in.Node.Idx))
		in.encode(w, sock)
	}
	for _, n := range r.Nodes {
		w.Uint(num[n.Cur])
		n.encode(w)
	}
	encodeStream(w, r.sched)
	r.planner.Encode(w)
	r.res.encode(w)
	w.Bool(r.ended)
	r.encodeSites(w)
	encodeFloats(w, r.rates)
	w.Int(r.quietUntil)
	w.Bool(r.rec != nil)
	if r.rec != nil {
		r.rec.Encode(w)
	}
	ids := slices.Sorted(maps.Keys(r.opNode))
	w.Bool(r.opNode != nil)
	w.Uint(uint64(len(ids)))
	for _, id := range ids {
		w.Int(id)
		w.Uint(num[r.opNode[id]])
	}
	w.Uint(uint64(len(r.ends)))
	for _, e := range r.ends {
		w.Int(e.at)
		w.Uint(e.seq)
		e.fault.Encode(w)
		w.Int(int64(e.gen))
		w.Uint(uint64(e.clog))
	}
	w.Uint(r.endSeq)
	w.Int(int64(r.partitionSeq))
	w.Int(r.horizon)
	w.Bool(r.recovering)
	w.Int(r.recoveryAt)
	w.Bool(r.swarm != nil)
	encodeFloats(w, r.swarm)
	w.Bool(r.setupDone)
	w.Word(r.hash)
	w.Uint(r.calls)
	r.encodeProps(w)
	w.Strings(r.traceLines)
	w.Int(r.wallEpoch)
	w.Int(r.traceBytes)
	w.Bool(r.traceFull)
	for _, s := range r.streamSeeds {
		w.Word(s)
	}
	w.Int(int64(r.nextBranch))
	w.Word(r.planSeed)
	w.String(r.mutant)
	w.Int(int64(r.engineHits))
}

func (n *Node) encode(w *wire.Writer) {
	n.FS.Encode(w)
	w.Bool(n.wasm != n.Spec.Wasm)
	w.Int(int64(n.count))
	w.Int(n.restartAt)
	w.Bool(n.done)
	w.Int(n.skew)
	w.Int(n.crashes)
	for _, c := range n.counts {
		w.Int(c)
	}
	w.Float(n.Slow)
	w.Int(int64(n.slowSeq))
	w.Int(n.pausedUntil)
	w.Int(n.jumps)
	w.Int(n.MonoJumps)
	w.Bool(n.preempt != nil)
	if p := n.preempt; p != nil {
		w.Int(p.total)
		w.Int(p.sliceUsed)
		w.Int(p.left)
		encodeStream(w, p.random)
		w.Ints(p.points)
	}
}

func (in *Instance) encode(w *wire.Writer, sock func(*simnet.Socket) uint64) {
	w.Int(int64(in.Num))
	w.String(in.Name)
	w.Uint(uint64(len(in.FDs)))
	for _, d := range in.FDs {
		w.Bool(d != nil)
		if d == nil {
			continue
		}
		w.Uint(uint64(d.Kind))
		w.Uint(uint64(d.Ino))
		w.String(d.Path)
		w.Int(d.Pos)
		w.Uint(uint64(d.Flags))
		w.Bool(d.Read)
		w.Bool(d.Write)
		w.Bool(d.Preopen)
		w.Uint(sock(d.Sock))
		w.Bool(d.Antithesis)
	}
	encodeStream(w, in.Random)
	w.Uint(uint64(len(in.Maps)))
	for _, m := range in.Maps {
		w.Uint(uint64(m.Ino))
		w.String(m.Path)
		w.Int(m.Off)
		w.Uint(uint64(m.Data))
		w.Uint(uint64(m.N))
		w.Bytes(m.Shadow.Bytes())
	}
	w.Uint(uint64(in.ExitCode))
	w.Uint(uint64(len(in.Waits)))
	for _, wt := range in.Waits {
		w.Int(int64(wt.FD))
		w.Bool(wt.Write)
	}
	w.Word(in.hashID)
	w.Bool(in.started)
	w.Bool(in.parked)
	w.Int(in.deadline)
	w.Bool(in.slowDeadlines != nil)
	deadlines := slices.Sorted(maps.Keys(in.slowDeadlines))
	w.Uint(uint64(len(deadlines)))
	for _, d := range deadlines {
		w.Int(d)
		w.Int(in.slowDeadlines[d])
	}
	w.Int(in.pLoaded)
	in.park.encode(w)
	for _, b := range []bool{in.exited, in.failed, in.oom, in.crashed} {
		w.Bool(b)
	}
	for _, s := range []string{in.trap, in.hostPanic, in.resumeFailed} {
		w.String(s)
	}
	for _, b := range in.lineBuf {
		w.Bytes(b)
	}
	w.Bytes(in.sdkBuf)
	w.Strings(in.stderrTail)
	w.String(in.crashLine)
	w.String(in.pendingCrash)
	w.Int(int64(in.pendingAge))
	w.Strings(in.crashTail)
}

func (p *parkPoint) encode(w *wire.Writer) {
	w.Bool(p.fn != nil)
	if p.fn != nil {
		w.String(p.fn.module)
		w.String(p.fn.Name)
	}
	w.Bool(p.keyed)
	w.Bool(p.noResume)
	w.Int(p.op)
	w.Word(p.carry)
}

func (res *Result) encode(w *wire.Writer) {
	w.Word(res.Seed)
	w.String(string(res.Status))
	w.String(res.Class)
	w.String(res.Message)
	w.String(res.Node)
	w.Int(res.AtNs)
	w.Uint(res.Steps)
	w.Uint(res.HostCalls)
	w.Int(res.RealNs)
	w.Word(res.Hash)
	w.Uint(uint64(len(res.Checkpoints)))
	for _, c := range res.Checkpoints {
		w.Word(c)
	}
	w.Strings(res.Calls)
	faults.EncodeList(w, res.Faults)
	w.Strings(res.Tail)
	w.String(res.Property)
	w.Int(int64(res.BudgetAsked))
	w.Bool(res.CutShort)
	w.Int(int64(res.MutantHits))
}

func (r *Run) encodeSites(w *wire.Writer) {
	names := slices.Sorted(maps.Keys(r.sites))
	w.Uint(uint64(len(names)))
	for _, name := range names {
		st := r.sites[name]
		w.String(name)
		w.Bool(st.enabled)
		w.Int(int64(st.fired))
		idx := slices.Sorted(maps.Keys(st.hits))
		w.Uint(uint64(len(idx)))
		for _, i := range idx {
			w.Int(int64(i))
			w.Int(st.hits[i])
		}
		idx = slices.Sorted(maps.Keys(st.fire))
		w.Uint(uint64(len(idx)))
		for _, i := range idx {
			w.Int(int64(i))
			encodeStream(w, st.fire[i])
		}
	}
}

func (r *Run) encodeProps(w *wire.Writer) {
	keys := slices.Sorted(maps.Keys(r.props))
	w.Uint(uint64(len(keys)))
	for _, k := range keys {
		p := r.props[k]
		w.String(k)
		w.String(p.Kind)
		w.String(p.Message)
		w.Bool(p.Reached)
		w.Bool(p.True)
		w.Int(int64(p.Hits))
		w.Bool(p.Margin != nil)
		if p.Margin != nil {
			p.Margin.Encode(w)
		}
		w.Int(p.FirstNs)
		w.Int(p.FirstTrueNs)
		w.Int(p.MarginNs)
		w.Bool(p.falsified)
	}
}

func encodeBranches(w *wire.Writer, bs []schedule.Branch) {
	w.Uint(uint64(len(bs)))
	for _, b := range bs {
		w.Int(int64(b.At))
		w.Word(b.Key)
		w.String(b.Stream)
	}
}

func encodeStream(w *wire.Writer, s *rng.Stream) {
	w.Bool(s != nil)
	if s != nil {
		w.Word(s.State())
	}
}

func encodeFloats(w *wire.Writer, m map[string]float64) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	w.Uint(uint64(len(keys)))
	for _, k := range keys {
		w.String(k)
		w.Float(m[k])
	}
}
