package core

import (
	"github.com/sf-dst/sf/lib/faults"
	"github.com/sf-dst/sf/lib/rng"
	"github.com/sf-dst/sf/lib/schedule"
)

// branchStream names a group of the run's random streams that a branch can
// re-key together. Every stream the engine draws from while a run goes on
// belongs to exactly one group:
//
//   - sched: which runnable node the scheduler picks ("sched"), and the
//     delay before a supervised node that exited comes back ("restart").
//   - net: each socket's latency stream in simnet, for TCP chunks and for
//     UDP datagrams and their second copies ("net" keyed by socket id).
//   - disk: what a crash leaves on a node's disk ("crashdisk"), what a disk
//     fault does once it fires (which page a lost write drops, which bit a
//     corrupt read flips: "<kind>/what"; which bit rots: "bitrot"), and how
//     long a node that crashed inside a disk operation stays down
//     ("crash_io/restart").
//   - io: whether a disk fault fires at a node's disk operation or read
//     ("<kind>" keyed by node and op).
//   - udp: whether a datagram is lost or duplicated ("udp").
//   - disklatency: how long each fsync takes ("disklatency").
//   - mutant: nothing yet; the engine draws no mutant stream, so a branch
//     of it only leaves a trace line.
//   - random: what each instance's random_get reads ("random" keyed by node
//     and incarnation).
//   - buggify: when an enabled buggify site fires ("buggify" keyed by site
//     and node). A branch names no such stream, so only a branch of every
//     stream re-keys it; whether a site is enabled ("buggify-enable") stays
//     keyed by the seed alone.
//
// The streams drawn before the first step (swarm, clock skew, and the
// planned crashes, clock jumps, bitrot times and network faults) are never
// re-keyed: a branch cannot reach back before the run started.
type branchStream int

const (
	bsSched branchStream = iota
	bsNet
	bsDisk
	bsIO
	bsUDP
	bsDiskLatency
	bsMutant
	bsRandom
	bsBuggify
	numBranchStreams
)

// branchStreamNames are the names of the groups, as branches spell them.
var branchStreamNames = [numBranchStreams]string{"sched", "net", "disk", "io", "udp", "disklatency", "mutant", "random", "buggify"}

// seedOf is the seed that the streams of group g are keyed by: the run's
// seed until a branch re-keys g.
func (r *Run) SeedOf(g branchStream) uint64 { return r.streamSeeds[g] }

// branchDue applies the branches whose time has come, in order. The loop
// calls it whenever virtual time has moved and before anything happens at
// the new time, so a branch takes effect at the first scheduler step at or
// after its time.
func (r *Run) branchDue() {
	for r.nextBranch < len(r.Opts.Branches) && int64(r.Opts.Branches[r.nextBranch].At) <= r.Now {
		b := r.Opts.Branches[r.nextBranch]
		r.nextBranch++
		r.applyBranch(b)
	}
}

// applyBranch re-keys the groups a branch names. A group's new seed is drawn
// from its old seed, the branch's key and the group's name, so two branches
// in a row compose, and an every-stream branch gives each group a seed of
// its own. The long-lived streams of the group restart from the new seed;
// the short-lived ones pick it up when they are next made.
func (r *Run) applyBranch(b schedule.Branch) {
	what := b.Stream
	for g := range numBranchStreams {
		if b.Stream != "" && branchStreamNames[g] != b.Stream {
			continue
		}
		r.streamSeeds[g] = rng.New(r.streamSeeds[g], "branch/"+branchStreamNames[g], b.Key).Uint64()
		seed := r.streamSeeds[g]
		switch g {
		case bsSched:
			r.sched.Reset(seed, "sched")
		case bsNet:
			r.Net.Rekey(seed)
		case bsRandom:
			for _, n := range r.Nodes {
				if in := n.Cur; in != nil {
					in.Random.Reset(seed, "random", rng.Key(n.Spec.Name), uint64(in.Num))
				}
			}
		case bsBuggify:
			for site, st := range r.sites {
				for idx, s := range st.fire {
					s.Reset(seed, "buggify", rng.Key(site), rng.Key(r.Nodes[idx].Spec.Name))
				}
			}
		}
	}
	if what == "" {
		what = "every stream"
	}
	r.Tracef("branch: re-keyed %s at %s (key %d)", what, faults.Time(int64(b.At)), b.Key)
	if b.Stream == "" && r.Opts.RedrawAfterBranch && r.Opts.Faults == nil {
		r.redrawPlanned(b.Key)
	}
}

// redrawPlanned replaces the planned timed faults that have not fired yet
// with a fresh draw over the rest of the fault period, keyed by the plan's
// seed and the branch's key, so that repeated branches compose as the
// stream groups do. Faults already under way (a crash waiting to restart, a
// partition not yet healed) keep their end, which is not in the plan.
func (r *Run) redrawPlanned(key uint64) {
	r.planSeed = rng.New(r.planSeed, "branch/plan", key).Uint64()
	dropped := r.planner.Count(r.plan)
	r.planner = faults.NewPlanner(r.plan, r.planSeed, r.Now)
	r.Tracef("branch: redrew the planned faults after %s (%d dropped, %d drawn)", faults.Time(r.Now), dropped, r.planner.Count(r.plan))
}
