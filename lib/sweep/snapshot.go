package sweep

// This file is sf-run's time travel: -stop-at with -snapshot forks one
// seed's run at a virtual time and writes the world to a file (lib/snapfile);
// -from continues such a file as a replay of that seed, with the trace,
// determinism hash and verdict the seed's uninterrupted run has.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/runner"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/snapfile"
	"github.com/sf-dst/sf/lib/textfmt"
	"github.com/sf-dst/sf/lib/wire"
)

// forkStepsMax is how many scheduler steps after -stop-at a snapshot is
// tried at: a step where a node waits where it cannot be resumed (at the end
// of a preemption time slice) is passed, and the next tried.
const forkStepsMax = 10000

// snapshot runs the replayed seed up to the first step at or after o.StopAt
// where its world can be forked, writes the snapshot file and ends the run
// there.
func (s *sweeper) snapshot() (int, error) {
	o := s.o
	seed := o.Seeds[0]
	opts := s.p.RunOptions(nil)
	var (
		fork    *engine.Fork
		disks   []engine.NodeDisk
		fds     []engine.NodeFDs
		refused error
		tried   int
	)
	opts.AtStep = func(p engine.StepPoint) {
		if fork != nil || p.AtNs < int64(o.StopAt) {
			return
		}
		f, err := p.Fork()
		if err != nil {
			refused, tried = err, tried+1
			if tried >= forkStepsMax {
				s.interrupt.Store(true)
			}
			return
		}
		fork = f
		if o.Inspect {
			disks, fds = p.Inspect()
		}
		s.interrupt.Store(true) // the rest of the run is the snapshot's to make
	}
	out := s.p.One(runner.Job{Seed: seed, Options: opts}, s.interrupt)
	if out.Err != nil {
		return 0, out.Err
	}
	res := out.Result
	if fork == nil {
		switch {
		case tried > 0:
			return 0, fmt.Errorf("-snapshot: seed %d could not be forked in the %d steps from t=%s on: %w", seed, tried, o.StopAt, refused)
		case res.Status == engine.StatusInterrupted:
			return ExitInterrupted, errors.New("interrupted before -stop-at")
		}
		return 0, fmt.Errorf("-stop-at %s: seed %d ended at t=%s (%s), before it: there is nothing to snapshot", o.StopAt, seed, time.Duration(res.AtNs), res.Status)
	}
	defer fork.Release()
	w := wire.NewWriter(fork.MemoryBytes() + 1<<20)
	if err := fork.Encode(w); err != nil {
		return 0, err
	}
	h, err := snapshotHeader(o, s.p)
	if err != nil {
		return 0, err
	}
	h.Seed, h.Step, h.AtNs, h.StopAtNs = seed, fork.Step, fork.AtNs, int64(o.StopAt)
	n, err := snapfile.Write(o.Snapshot, h, w.Data())
	if err != nil {
		return 0, fmt.Errorf("-snapshot: %w", err)
	}
	if o.OnSnapshot != nil {
		o.OnSnapshot(SnapshotWritten{Seed: seed, Step: fork.Step, AtNs: fork.AtNs, Bytes: n, StateBytes: w.Len(), Disks: disks, FDs: fds})
	}
	fmt.Fprintf(s.human, "seed %d: snapshot at step %d, t=%s, written to %s (%s, %s of state uncompressed)\n", seed, fork.Step,
		time.Duration(fork.AtNs), textfmt.Display(o.Snapshot), mib(n), mib(w.Len()))
	fmt.Fprintf(s.human, "continue it: %s\n", ShellJoin(append(worldArgs(o), "-from", o.Snapshot)))
	if o.Inspect {
		fmt.Fprintln(s.human)
		printNodes(s.human, fmt.Sprintf("at the snapshot (step %d, t=%s)", fork.Step, time.Duration(fork.AtNs)), disks, fds)
	}
	return ExitPass, nil
}

// branchFork makes the branches of the run -from continues: -branch's
// first, just after the snapshot's moment, then those of the -faults
// schedule, each of which must come after that moment too. The run keeps
// them in the schedule it writes for a failure, which replays it from the
// seed's start.
//
// A branch of a schedule takes effect when virtual time first reaches its
// at, before anything else happens at that time; the snapshot may have been
// taken after some steps at its time had run. So a branch at the snapshot's
// time itself would have acted before the snapshot in a replay of the seed,
// and the continued run could not be that replay. A branch 1ns after the
// snapshot's time is the first that acts after the snapshot in both: it
// re-keys the streams before the clock next moves (RATIONALE.md).
func (s *sweeper) branchFork() error {
	o := &s.o
	at := s.fork.AtNs
	var bs []schedule.Branch
	if o.Branched {
		bs = append(bs, schedule.Branch{At: schedule.Dur(at + 1), Key: o.Branch})
	}
	for i, b := range o.branches {
		if int64(b.At) <= at {
			return &InputError{fmt.Errorf("-faults %s: branches[%d].at: %s is not after the snapshot's time %s (step %d): "+
				"a run continued from a snapshot can branch only after it (-branch KEY branches just after it)",
				textfmt.InputName(o.Faults), i, time.Duration(b.At), time.Duration(at), s.fork.Step)}
		}
	}
	o.branches = append(bs, o.branches...)
	return nil
}

// mib writes a size in MiB, to a tenth.
func mib(n int) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// SnapshotWritten is what -snapshot wrote: the seed, the step and virtual
// time it was forked at, and the file's size and the state's uncompressed.
type SnapshotWritten struct {
	Seed              uint64
	Step              uint64
	AtNs              int64
	Bytes, StateBytes int
	// Disks and FDs, with Inspect, are each node's disk and open
	// descriptors at the snapshot, as -inspect lists them.
	Disks []engine.NodeDisk
	FDs   []engine.NodeFDs
}

// worldArgs are the tool and the flags that name o's world.
func worldArgs(o Options) []string {
	args := []string{o.Tool, "-c", o.Config}
	if o.Profile != "" {
		args = append(args, "-profile", o.Profile)
	}
	for _, s := range o.Set {
		args = append(args, "-set", s)
	}
	return args
}

// snapshotHeader is what binds a snapshot to this sf, world and modules.
func snapshotHeader(o Options, p *runner.Prepared) (snapfile.Header, error) {
	key := sha256.Sum256(p.World.Canonical())
	h := snapfile.Header{Version: snapfile.Version(Version), Config: o.Config, Profile: o.Profile, Set: o.Set,
		WorldKey: hex.EncodeToString(key[:])}
	sums := map[string]string{}
	sum := func(path string) (string, error) {
		if path == "" || sums[path] != "" {
			return sums[path], nil
		}
		f, err := os.Open(path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		d := sha256.New()
		if _, err := io.Copy(d, f); err != nil {
			return "", err
		}
		sums[path] = hex.EncodeToString(d.Sum(nil))
		return sums[path], nil
	}
	for _, n := range p.Spec.Nodes {
		m := snapfile.Module{Node: n.Name}
		var err error
		if m.SHA256, err = sum(n.Wasm); err == nil {
			m.Upgrade, err = sum(n.UpgradeWasm)
		}
		if err != nil {
			return h, fmt.Errorf("node %s: hashing its module: %w", n.Name, err)
		}
		h.Modules = append(h.Modules, m)
	}
	return h, nil
}

// snapshotFile is a snapshot -from read, its header checked for form but
// not yet against the world.
type snapshotFile struct {
	path   string
	header *snapfile.Header
	rest   []byte
}

// readSnapshot reads the header of o.From, before the world is built, and
// makes o the replay of its seed.
func readSnapshot(o *Options) (*snapshotFile, error) {
	h, rest, err := snapfile.ReadHeader(o.From)
	if err != nil {
		return nil, &InputError{fmt.Errorf("-from %s: %w", textfmt.InputName(o.From), err)}
	}
	o.Seeds, o.SeedsText, o.Replay = []uint64{h.Seed}, fmt.Sprint(h.Seed), true
	return &snapshotFile{path: o.From, header: h, rest: rest}, nil
}

// fork checks the snapshot against the prepared world and decodes it.
func (f *snapshotFile) fork(o Options, p *runner.Prepared) (*engine.Fork, error) {
	fail := func(err error) error {
		return &InputError{fmt.Errorf("-from %s: %w", textfmt.InputName(f.path), err)}
	}
	cur, err := snapshotHeader(o, p)
	if err != nil {
		return nil, err
	}
	if err := f.header.Check(cur); err != nil {
		return nil, fail(err)
	}
	payload, err := snapfile.Payload(f.header, f.rest)
	if err != nil {
		return nil, fail(err)
	}
	fork, err := p.Engine.DecodeFork(wire.NewReader(payload), p.Spec)
	if err != nil {
		return nil, fail(err)
	}
	return fork, nil
}
