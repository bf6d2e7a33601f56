package core

import (
	"fmt"

	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/faults"
	"github.com/sf-dst/sf/lib/history"
	"github.com/sf-dst/sf/lib/margin"
	"github.com/sf-dst/sf/lib/rng"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/simnet"
	"github.com/sf-dst/sf/lib/wire"
)

// imageGlobalsMax bounds the globals of a guest's image: Go's eight and
// the few the rewrite adds.
const imageGlobalsMax = 64

// DecodeFork reads a fork that Encode wrote, for the world spec it was
// taken in, whose host functions host declares. The spec's nodes must be
// the fork's, in its order; a fork of another world is refused before
// (lib/snapfile binds a snapshot file to its world's content). An input
// that is not such an encoding is an error wrapping wire.ErrCorrupt, never
// a panic.
func DecodeFork(r *wire.Reader, spec *Spec, host *Host) (*Fork, error) {
	if spec.WatchdogNs <= 0 {
		s := *spec
		s.WatchdogNs = DefaultWatchdogNs
		spec = &s
	}
	if len(spec.Nodes) == 0 {
		return nil, fmt.Errorf("the world has no nodes")
	}
	f := &Fork{Step: r.Uint(), AtNs: r.Int()}
	k := r.Len(wire.ListMax)
	if r.Err() == nil && k != len(spec.Nodes) {
		return nil, fmt.Errorf("the fork holds %d nodes, the world %d", k, len(spec.Nodes))
	}
	for i := range k {
		if name := r.String(wire.StringMax); r.Err() == nil && name != spec.Nodes[i].Name {
			return nil, fmt.Errorf("the fork's node %d is %s, the world's %s", i+1, name, spec.Nodes[i].Name)
		}
	}
	if r.Err() != nil {
		return nil, r.Err()
	}
	run := decodeRun(r, spec, host)
	if r.Err() != nil {
		return nil, r.Err()
	}
	f.guests = make([]*guestImage, len(spec.Nodes))
	for i := range f.guests {
		if !r.Bool() {
			continue
		}
		g := &guestImage{wasm: spec.Nodes[i].Wasm}
		if r.Bool() {
			g.wasm = spec.Nodes[i].UpgradeWasm
		}
		g.globals = make([]uint64, r.Len(imageGlobalsMax))
		for j := range g.globals {
			g.globals[j] = r.Word()
		}
		g.memory = r.View(GuestMemoryLimitPages * wasmPageBytes)
		if r.Err() == nil && (len(g.memory)%wasmPageBytes != 0 || len(g.globals) == 0) {
			r.Failf("node %s's image holds %d bytes of memory and %d globals", spec.Nodes[i].Name, len(g.memory), len(g.globals))
		}
		if cur := run.Nodes[i].Cur; r.Err() == nil && (cur == nil || !cur.started || cur.park.fn == nil) {
			r.Failf("node %s has an image but no parked instance", spec.Nodes[i].Name)
		}
		f.guests[i] = g
	}
	for i, n := range run.Nodes {
		if in := n.Cur; r.Err() == nil && in != nil && in.started && f.guests[i] == nil {
			r.Failf("node %s runs but has no image", n.Spec.Name)
		}
	}
	if err := r.Done(); err != nil {
		return nil, err
	}
	f.state = &Snapshot{Step: f.Step, run: run}
	return f, nil
}

// decodeRun reads a run's state, with what the world gives from spec.
func decodeRun(rd *wire.Reader, spec *Spec, host *Host) *Run {
	r := &Run{Spec: spec, Seed: rd.Word(), limits: spec.Limits.withDefaults()}
	r.Opts.Faults = faults.DecodeList(rd)
	r.Opts.StopAtNs, r.Opts.Budget = rd.Int(), int(rd.IntIn(0, 1<<62))
	r.Opts.Branches = decodeBranches(rd)
	r.Opts.RedrawAfterBranch, r.Opts.Mutant = rd.Bool(), rd.String(wire.StringMax)
	r.Now = rd.Int()
	for i := range spec.Nodes {
		r.Nodes = append(r.Nodes, &Node{Idx: i, Spec: &spec.Nodes[i]})
	}
	var sock func(uint64) *simnet.Socket
	r.Net, sock = simnet.Decode(rd)
	insts := make([]*Instance, rd.Len(wire.ListMax))
	for i := range insts {
		in := &Instance{}
		in.Run, in.Node = r, r.Nodes[rd.Index(len(r.Nodes))]
		in.decode(rd, sock, host)
		insts[i] = in
	}
	inst := func() *Instance {
		if i := rd.Ref(len(insts)); i >= 0 {
			return insts[i]
		}
		return nil
	}
	for _, n := range r.Nodes {
		n.Cur = inst()
		if n.Cur != nil && n.Cur.Node != n {
			rd.Failf("node %s's instance %s is another node's", n.Spec.Name, n.Cur.Name)
		}
		n.decode(rd, r)
	}
	r.sched = decodeStream(rd)
	r.planner = faults.DecodePlanner(rd)
	r.res = decodeResult(rd)
	r.ended = rd.Bool()
	r.decodeSites(rd)
	r.rates = decodeFloats(rd)
	r.quietUntil = rd.Int()
	if rd.Bool() {
		r.rec = history.DecodeRecorder(rd)
	}
	hasOps := rd.Bool()
	if k := rd.Len(wire.ListMax); k > 0 || hasOps {
		r.opNode = make(map[int64]*Instance, k)
		for range k {
			id := rd.Int()
			r.opNode[id] = inst()
		}
	}
	if k := rd.Len(wire.ListMax); k > 0 {
		r.ends = make([]netEnd, k)
		for i := range r.ends {
			r.ends[i] = netEnd{at: rd.Int(), seq: rd.Uint(), fault: faults.DecodeFault(rd), gen: int(rd.Int()), clog: simnet.ClogID(rd.Uint())}
		}
	}
	r.endSeq, r.partitionSeq = rd.Uint(), int(rd.Int())
	r.horizon, r.recovering, r.recoveryAt = rd.Int(), rd.Bool(), rd.Int()
	hasSwarm := rd.Bool()
	if swarm := decodeFloats(rd); hasSwarm {
		r.swarm = swarm
		if r.swarm == nil {
			r.swarm = map[string]float64{}
		}
	}
	r.setupDone, r.hash, r.calls = rd.Bool(), rd.Word(), rd.Uint()
	r.decodeProps(rd)
	r.traceLines = rd.Strings(wire.ListMax, wire.StringMax)
	r.wallEpoch, r.traceBytes, r.traceFull = rd.Int(), rd.Int(), rd.Bool()
	for g := range r.streamSeeds {
		r.streamSeeds[g] = rd.Word()
	}
	r.nextBranch = int(rd.IntIn(0, int64(len(r.Opts.Branches))))
	r.planSeed = rd.Word()
	r.mutant, r.engineHits = rd.String(wire.StringMax), int(rd.Int())
	if rd.Err() != nil {
		return nil
	}
	if r.mutant != "" {
		if _, ok := LookupMutant(r.mutant); !ok {
			rd.Failf("unknown mutant %q", r.mutant)
		}
	}
	r.plan = r.newPlan()
	if r.Opts.Faults != nil {
		r.scheduledHits, r.scheduledOps, _ = r.scheduleOf(r.Opts.Faults)
	}
	return r
}

func (n *Node) decode(rd *wire.Reader, r *Run) {
	n.FS = disk.Decode(rd, func() int64 { return r.Wall(n) })
	n.wasm = n.Spec.Wasm
	if rd.Bool() {
		n.wasm = n.Spec.UpgradeWasm
		if n.wasm == "" && rd.Err() == nil {
			rd.Failf("node %s upgraded, but the world gives it no module to upgrade to", n.Spec.Name)
		}
	}
	n.count, n.restartAt, n.done = int(rd.IntIn(0, 1<<31)), rd.Int(), rd.Bool()
	n.skew, n.crashes = rd.Int(), rd.Int()
	for c := range n.counts {
		n.counts[c] = rd.Int()
	}
	n.Slow, n.slowSeq, n.pausedUntil = rd.Float(), int(rd.Int()), rd.Int()
	n.jumps, n.MonoJumps = rd.Int(), rd.Int()
	if rd.Bool() {
		n.preempt = &preemptState{total: rd.Int(), sliceUsed: rd.Int(), left: rd.Int(), random: decodeStream(rd), points: rd.Ints(wire.ListMax)}
	}
}

func (in *Instance) decode(rd *wire.Reader, sock func(uint64) *simnet.Socket, host *Host) {
	in.Num, in.Name = int(rd.IntIn(0, 1<<31)), rd.String(wire.StringMax)
	if k := rd.Len(wire.ListMax); k > 0 {
		in.FDs = make([]*Desc, k)
		for i := range in.FDs {
			if !rd.Bool() {
				continue
			}
			d := &Desc{Kind: DescKind(rd.UintIn(uint64(DescSock))), Ino: disk.Ino(rd.Uint()), Path: rd.String(disk.PathBytesMax), Pos: rd.Int()}
			d.Flags = uint16(rd.UintIn(0xffff))
			d.Read, d.Write, d.Preopen = rd.Bool(), rd.Bool(), rd.Bool()
			d.Sock, d.Antithesis = sock(rd.Uint()), rd.Bool()
			in.FDs[i] = d
		}
	}
	in.Random = decodeStream(rd)
	if k := rd.Len(wire.ListMax); k > 0 {
		in.Maps = make([]Mapping, k)
		for i := range in.Maps {
			m := Mapping{Ino: disk.Ino(rd.Uint()), Path: rd.String(disk.PathBytesMax), Off: rd.Int()}
			m.Data, m.N = uint32(rd.UintIn(1<<32-1)), uint32(rd.UintIn(1<<32-1))
			m.Shadow = ShadowOf(rd.View(int(m.N))) // a shared writable mapping's, N bytes; none for the others
			in.Maps[i] = m
		}
	}
	in.ExitCode = uint32(rd.UintIn(1<<32 - 1))
	if k := rd.Len(wire.ListMax); k > 0 {
		in.Waits = make([]Wait, k)
		for i := range in.Waits {
			in.Waits[i] = Wait{FD: int32(rd.IntIn(-1<<31, 1<<31-1)), Write: rd.Bool()}
		}
	}
	in.hashID, in.started, in.parked, in.deadline = rd.Word(), rd.Bool(), rd.Bool(), rd.Int()
	hasSlow := rd.Bool()
	if k := rd.Len(wire.ListMax); k > 0 || hasSlow {
		in.slowDeadlines = make(map[int64]int64, k)
		for range k {
			d := rd.Int()
			in.slowDeadlines[d] = rd.Int()
		}
	}
	in.pLoaded = rd.Int()
	in.park.decode(rd, host)
	in.exited, in.failed, in.oom, in.crashed = rd.Bool(), rd.Bool(), rd.Bool(), rd.Bool()
	in.trap, in.hostPanic, in.resumeFailed = rd.String(wire.StringMax), rd.String(wire.StringMax), rd.String(wire.StringMax)
	for i := range in.lineBuf {
		in.lineBuf[i] = rd.Bytes(wire.BytesMax)
	}
	in.sdkBuf = rd.Bytes(wire.BytesMax)
	in.stderrTail = rd.Strings(wire.ListMax, wire.StringMax)
	in.crashLine, in.pendingCrash = rd.String(wire.StringMax), rd.String(wire.StringMax)
	in.pendingAge = int(rd.Int())
	in.crashTail = rd.Strings(wire.ListMax, wire.StringMax)
}

func (p *parkPoint) decode(rd *wire.Reader, host *Host) {
	if rd.Bool() {
		module, name := rd.String(wire.StringMax), rd.String(wire.StringMax)
		if p.fn = host.lookup(module, name); p.fn == nil && rd.Err() == nil {
			rd.Failf("parked in %s.%s, which this build of sf does not provide", module, name)
		}
	}
	p.keyed, p.noResume, p.op, p.carry = rd.Bool(), rd.Bool(), rd.Int(), rd.Word()
}

// lookup returns the host function module.name, or nil.
func (h *Host) lookup(module, name string) *HostFunc {
	for _, f := range h.modules[module] {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func decodeResult(rd *wire.Reader) *Result {
	res := &Result{Seed: rd.Word(), Status: Status(rd.String(wire.StringMax)), Class: rd.String(wire.StringMax)}
	res.Message, res.Node = rd.String(wire.StringMax), rd.String(wire.StringMax)
	res.AtNs, res.Steps, res.HostCalls, res.RealNs, res.Hash = rd.Int(), rd.Uint(), rd.Uint(), rd.Int(), rd.Word()
	if k := rd.Len(wire.ListMax); k > 0 {
		res.Checkpoints = make([]uint64, k)
		for i := range res.Checkpoints {
			res.Checkpoints[i] = rd.Word()
		}
	}
	res.Calls = rd.Strings(wire.ListMax, wire.StringMax)
	res.Faults = faults.DecodeList(rd)
	res.Tail = rd.Strings(wire.ListMax, wire.StringMax)
	res.Property, res.BudgetAsked, res.CutShort, res.MutantHits = rd.String(wire.StringMax), int(rd.Int()), rd.Bool(), int(rd.Int())
	return res
}

func (r *Run) decodeSites(rd *wire.Reader) {
	k := rd.Len(wire.ListMax)
	r.sites = make(map[string]*siteState, k)
	for range k {
		name := rd.String(wire.StringMax)
		st := &siteState{name: name, enabled: rd.Bool(), fired: int(rd.Int())}
		n := rd.Len(wire.ListMax)
		st.hits = make(map[int]int64, n)
		for range n {
			i := rd.Index(len(r.Nodes))
			st.hits[i] = rd.Int()
		}
		n = rd.Len(wire.ListMax)
		st.fire = make(map[int]*rng.Stream, n)
		for range n {
			i := rd.Index(len(r.Nodes))
			st.fire[i] = decodeStream(rd)
		}
		r.sites[name] = st
	}
}

func (r *Run) decodeProps(rd *wire.Reader) {
	k := rd.Len(wire.ListMax)
	r.props = make(map[string]*Property, k)
	for range k {
		key := rd.String(wire.StringMax)
		p := &Property{Kind: rd.String(wire.StringMax), Message: rd.String(wire.StringMax), Reached: rd.Bool(), True: rd.Bool(), Hits: int(rd.Int())}
		if rd.Bool() {
			m := margin.Decode(rd)
			p.Margin = &m
		}
		p.FirstNs, p.FirstTrueNs, p.MarginNs, p.falsified = rd.Int(), rd.Int(), rd.Int(), rd.Bool()
		r.props[key] = p
	}
}

func decodeBranches(rd *wire.Reader) []schedule.Branch {
	k := rd.Len(wire.ListMax)
	if k == 0 {
		return nil
	}
	bs := make([]schedule.Branch, k)
	for i := range bs {
		bs[i] = schedule.Branch{At: schedule.Dur(rd.Int()), Key: rd.Word(), Stream: rd.String(wire.StringMax)}
	}
	return bs
}

func decodeStream(rd *wire.Reader) *rng.Stream {
	if !rd.Bool() {
		return nil
	}
	return rng.FromState(rd.Word())
}

func decodeFloats(rd *wire.Reader) map[string]float64 {
	k := rd.Len(wire.ListMax)
	if k == 0 {
		return nil
	}
	m := make(map[string]float64, k)
	for range k {
		key := rd.String(wire.StringMax)
		m[key] = rd.Float()
	}
	return m
}
