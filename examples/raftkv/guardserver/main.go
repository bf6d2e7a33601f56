// Command guardserver is memberserver with -fsm-guard: the workaround a
// careful user of hashicorp/raft v1.7.2 writes for a re-added follower that
// installs a snapshot behind what it applied (docs/findings.md, H2). With
// the flag the state machine refuses such a snapshot and ignores an entry it
// already applied; guard.go says what raft does then and why it is safe.
// Without it, guardserver is memberserver.
//
// It is a program of its own, and not a flag of memberserver, because any
// change to memberserver's code, an unused flag included, changes its guest
// and so the runs of the worlds and pins that use it. membership.go is
// memberserver's (a link to it); main.go is memberserver's with the lines of
// the guard added, and TestRaftKVGuardServerSource checks that it only adds.
//
// Usage: memberserver's, and
//
//	guardserver ... [-fsm-guard]
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	"github.com/sf-dst/sf/sim"
)

func main() {
	addr := flag.String("addr", ":7000", "client address to listen on")
	raftPort := flag.Int("raft-port", 8000, "port of raft's TCP transport on every node")
	peers := flag.String("peers", "", "comma-separated node names of the cluster, this one included")
	data := flag.String("data", "data", "directory of the raft log, stable store and snapshots")
	reads := flag.String("reads", "linearizable", "how GET is served: linearizable (leader, Barrier, VerifyLeader) or local (this node's state, unsafe)")
	period := flag.Duration("period", time.Second, "how often the leader retires a voter (see membership.go)")
	members := flag.String("members", "", "comma-separated node names the leader manages (default: -peers)")
	voters := flag.Int("voters", 3, "how many of -members are voters")
	onRemove := flag.String("on-remove", "keep", "what a server removed from the configuration does: keep (its data, until added back) or wipe (its data, and rejoin empty)")
	newPort := flag.Bool("new-port", false, "a wiped server rejoins on the next raft port (-raft-port plus the times it was wiped), and the leader asks a server its address before adding it")
	guard := flag.Bool("fsm-guard", false, "the state machine refuses a snapshot behind what it applied and ignores an entry it already applied (see guard.go)")
	flag.Parse()
	if *reads != "linearizable" && *reads != "local" {
		fmt.Fprintf(os.Stderr, "server: -reads %q: want linearizable or local\n", *reads)
		os.Exit(2)
	}
	if *onRemove != "keep" && *onRemove != "wipe" {
		fmt.Fprintf(os.Stderr, "server: -on-remove %q: want keep or wipe\n", *onRemove)
		os.Exit(2)
	}
	id := sim.Node()
	if id == "" {
		id, _ = os.Hostname()
	}
	names := strings.Split(*peers, ",")
	if *peers == "" || len(names) < 1 {
		fmt.Fprintln(os.Stderr, "server: -peers is required")
		os.Exit(2)
	}

	logger := hclog.New(&hclog.LoggerOptions{Name: id, Level: hclog.Warn, Output: os.Stderr})
	// What a rebuild interrupted by a crash left behind.
	if err := os.RemoveAll(*data + ".old"); err != nil {
		die("remove "+*data+".old", err)
	}
	wiped, err := readMarker()
	if err != nil {
		die("read "+joinMarker, err)
	}
	joiner := wiped > 0 || !slices.Contains(names, id)
	port := *raftPort
	if *newPort {
		port += wiped
	}
	if err := os.MkdirAll(*data, 0o755); err != nil {
		die("mkdir", err)
	}
	store, err := raftboltdb.New(raftboltdb.Options{Path: filepath.Join(*data, "raft.db")})
	if err != nil {
		die("open raft.db", err)
	}
	snaps, err := raft.NewFileSnapshotStoreWithLogger(*data, 2, logger)
	if err != nil {
		die("snapshot store", err)
	}
	self := fmt.Sprintf("%s:%d", id, port)
	advertise, err := net.ResolveTCPAddr("tcp", self)
	if err != nil {
		die("resolve "+self, err)
	}
	trans, err := raft.NewTCPTransportWithLogger(fmt.Sprintf(":%d", port), advertise, 3, 2*time.Second, logger)
	if err != nil {
		die("transport", err)
	}

	conf := raft.DefaultConfig()
	conf.LocalID = raft.ServerID(id)
	conf.Logger = logger
	// Shorter than the defaults (1s), so that elections and failovers
	// happen many times within a run of a few seconds of virtual time.
	conf.HeartbeatTimeout = 200 * time.Millisecond
	conf.ElectionTimeout = 200 * time.Millisecond
	conf.LeaderLeaseTimeout = 100 * time.Millisecond
	conf.CommitTimeout = 20 * time.Millisecond
	// Small enough that runs take snapshots, compact the log and send
	// snapshots to followers that fell behind.
	conf.SnapshotThreshold = 32
	conf.SnapshotInterval = time.Second
	conf.TrailingLogs = 16

	kv := &fsm{kv: map[string]string{}}
	kv.guard = *guard
	existing, err := raft.HasExistingState(store, store, snaps)
	if err != nil {
		die("read state", err)
	}
	kv.joiner = joiner && !existing
	// Before raft starts, which may apply entries at once.
	kv.member = &member{self: conf.LocalID, store: store, snaps: snaps, data: *data, wipe: *onRemove == "wipe", out: kv.joiner, wiped: wiped}
	r, err := raft.NewRaft(conf, kv, store, store, snaps, trans)
	if err != nil {
		die("start raft", err)
	}
	kv.started(existing, r.LastIndex())
	w := &watch{r: r, self: conf.LocalID, term: r.CurrentTerm(), unreachable: map[raft.ServerID]bool{}}
	all := names
	if *members != "" {
		all = strings.Split(*members, ",")
	}
	kv.member.r = r
	go kv.member.run()
	_, clientPort, err := net.SplitHostPort(*addr)
	if err != nil {
		die("-addr "+*addr, err)
	}
	op := &operator{r: r, self: conf.LocalID, members: all, voters: *voters, period: *period, port: *raftPort, clientPort: clientPort, ask: *newPort}
	go op.run()
	w.start()
	if !existing && !joiner {
		var cfg raft.Configuration
		for _, n := range names {
			cfg.Servers = append(cfg.Servers, raft.Server{ID: raft.ServerID(n), Address: raft.ServerAddress(fmt.Sprintf("%s:%d", n, *raftPort))})
		}
		if err := r.BootstrapCluster(cfg).Error(); err != nil && !errors.Is(err, raft.ErrCantBootstrap) {
			die("bootstrap", err)
		}
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		die("listen", err)
	}
	fmt.Printf("server %s: raft on %s, clients on %s, reads %s, existing state %v\n", id, self, *addr, *reads, existing)
	s := &server{r: r, kv: kv, w: w, local: *reads == "local", member: kv.member, peers: names, self: self}
	for {
		c, err := ln.Accept()
		if err != nil {
			die("accept", err)
		}
		go s.serve(c)
	}
}

type server struct {
	r      *raft.Raft
	kv     *fsm
	w      *watch
	local  bool
	member *member
	peers  []string
	self   string // this server's raft address
}

func (s *server) serve(c net.Conn) {
	defer c.Close()
	in := bufio.NewReader(io.LimitReader(c, 1<<20))
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return
		}
		if _, err := io.WriteString(c, s.handle(strings.Fields(line))+"\n"); err != nil {
			return
		}
	}
}

func (s *server) notLeader() string {
	if _, id := s.r.LeaderWithID(); id != "" {
		return "ERR notleader " + string(id)
	}
	return "ERR notleader"
}

func (s *server) handle(f []string) string {
	switch {
	case len(f) == 3 && f[0] == "PUT":
		if s.r.State() != raft.Leader {
			return s.notLeader()
		}
		cmd, _ := json.Marshal([2]string{f[1], f[2]})
		err := s.r.Apply(cmd, 2*time.Second).Error()
		switch {
		case err == nil:
			// A majority acknowledged it while a follower was cut off or
			// down: what a quorum is for, and the state a lagging
			// follower later has to catch up from.
			sim.Sometimes(s.w.followerUnreachable(), "a write committed while a follower was unreachable")
			// The cluster went on writing after its membership changed.
			sim.Sometimes(changed(latest(s.r), s.peers), "a write committed after a membership change")
			return "OK"
		case errors.Is(err, raft.ErrNotLeader):
			// Refused before the entry was appended anywhere.
			return s.notLeader()
		default:
			// ErrLeadershipLost, a timeout: the entry may still commit.
			return "ERR unknown " + err.Error()
		}
	case len(f) == 2 && f[0] == "RETIRE":
		// From the leader's operator: this server's removal committed.
		index, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			return "ERR bad request"
		}
		s.member.retired(index)
		return "OK"
	case len(f) == 1 && f[0] == "RAFTADDR":
		// From the leader's operator, before it adds this server.
		return "ADDR " + s.self
	case len(f) == 2 && f[0] == "GET":
		if !s.local {
			if s.r.State() != raft.Leader {
				return s.notLeader()
			}
			if err := s.r.Barrier(2 * time.Second).Error(); err != nil {
				return "ERR unavailable barrier: " + err.Error()
			}
			if err := s.r.VerifyLeader().Error(); err != nil {
				return "ERR unavailable verify leader: " + err.Error()
			}
		}
		if v, ok := s.kv.get(f[1]); ok {
			return "VALUE " + v
		}
		return "NONE"
	}
	return "ERR bad request"
}

// fsm is the replicated state: a map, rebuilt from the latest snapshot and
// the log on every start. index is the last entry applied, which a
// snapshot keeps, so that the order in which raft hands entries over can be
// checked across snapshots and restarts.
type fsm struct {
	mu    sync.Mutex
	kv    map[string]string
	index uint64
	// running is set once raft.NewRaft returned: a Restore before it
	// is this node's own latest snapshot, read at start, one after it a
	// snapshot the leader sent.
	running bool
	// restarted is set when the node started on a log of its own, whose
	// last entry was lastAtStart.
	restarted   bool
	lastAtStart uint64
	// member watches this server's own membership; joiner says it
	// started empty, waiting to be added.
	member *member
	joiner bool
	// guard is -fsm-guard; refused says the last snapshot raft asked
	// this state machine to restore was refused (guard.go).
	guard   bool
	refused bool
}

// snapshotData is what a snapshot holds.
type snapshotData struct {
	KV    map[string]string `json:"kv"`
	Index uint64            `json:"index"`
}

func (m *fsm) started(existing bool, last uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.running, m.restarted, m.lastAtStart = true, existing, last
	if m.index > 0 {
		// Raft restored the node's latest snapshot while it started: its
		// log, compacted only behind a snapshot, goes at least as far.
		sim.AlwaysOrUnreachable(m.index <= last, "a restarted node's own snapshot is not ahead of its log", map[string]uint64{"snapshot": m.index, "last": last})
	}
}

func (m *fsm) get(k string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.kv[k]
	return v, ok
}

func (m *fsm) Apply(l *raft.Log) any {
	var kv [2]string
	if err := json.Unmarshal(l.Data, &kv); err != nil {
		// Every entry was written by handle; anything else is corruption
		// that raft's log store let through.
		sim.Fail(fmt.Sprintf("raft log entry %d is not a command: %v", l.Index, err))
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.guard && m.skip(l.Index) {
		return nil
	}
	// Raft hands each committed entry to the state machine once, in
	// index order, also after a restart or a snapshot restored.
	sim.AlwaysGreaterThan(l.Index, m.index, "the state machine applies each entry once, in log order")
	// A node that restarted on its own log and then applies an entry it
	// did not have caught up through replication from a leader.
	sim.Sometimes(m.restarted && l.Index > m.lastAtStart, "a restarted node applied an entry it did not have at its restart")
	// A server that started empty (n4, or one wiped) catching up
	// through the leader's log or snapshot.
	sim.Sometimes(m.joiner, "a server that started empty applied the cluster's entries")
	// Out of the configuration (removed, or rebuilt empty), then a voter
	// again, applying what the cluster wrote meanwhile.
	sim.Sometimes(m.member.caughtUp(), "a server that was out of the configuration rejoined as a voter and applied new entries")
	m.kv[kv[0]] = kv[1]
	m.index = l.Index
	return nil
}

func (m *fsm) Snapshot() (raft.FSMSnapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	// SnapshotThreshold and TrailingLogs are small: raft snapshots the
	// state and then compacts the log behind it.
	sim.Reachable("raft took a snapshot of the state machine")
	b, err := json.Marshal(snapshotData{KV: m.kv, Index: m.index})
	return snapshot(b), err
}

func (m *fsm) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	var d snapshotData
	if err := json.NewDecoder(rc).Decode(&d); err != nil {
		return err
	}
	if d.KV == nil {
		d.KV = map[string]string{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.guard {
		return m.restoreGuarded(d)
	}
	if m.running {
		// The leader had compacted the entries this follower lacked, so
		// the snapshot is ahead of everything the follower applied. It
		// takes a follower cut off while the leader compacted: a few
		// seeds in twenty, so it is not a Sometimes that would fail a
		// short sweep; reaching it is still news to sf-run -explore.
		sim.AlwaysOrUnreachable(d.Index >= m.index, "a snapshot sent by the leader is never behind the follower's state", map[string]uint64{"snapshot": d.Index, "applied": m.index})
	}
	m.kv, m.index = d.KV, d.Index
	return nil
}

// watch follows this node's raft through raft's observations: its role,
// its leader, its term, and, while it leads, which followers its
// heartbeats do not reach.
type watch struct {
	r           *raft.Raft
	mu          sync.Mutex
	term        uint64
	leader      raft.ServerID
	unreachable map[raft.ServerID]bool
	self        raft.ServerID
}

func (w *watch) start() {
	ch := make(chan raft.Observation, 64)
	w.r.RegisterObserver(raft.NewObserver(ch, false, nil))
	go func() {
		for o := range ch {
			w.observe(o)
		}
	}()
}

func (w *watch) observe(o raft.Observation) {
	w.mu.Lock()
	defer w.mu.Unlock()
	term := w.r.CurrentTerm()
	// Raft keeps its term in the stable store: not even a restart takes
	// it back.
	sim.AlwaysGreaterThanOrEqualTo(term, w.term, "a node's term never goes back")
	w.term = max(w.term, term)
	switch d := o.Data.(type) {
	case raft.RaftState:
		if d == raft.Leader && w.r.State() == raft.Leader {
			// Only a voter campaigns, and only the votes of the voters
			// of its configuration count: a removed or demoted server
			// never leads. (The observation may be read late: still
			// leading, no one else can have changed its configuration,
			// as the leader never retires itself.)
			cfg := latest(w.r)
			sim.Always(suffrageOf(cfg, w.self) == voter, "a node becomes leader only as a voter of its configuration", map[string]any{"node": string(w.self), "configuration": fmt.Sprint(cfg.Servers)})
		}
		if d == raft.Leader {
			// Every election under faults is a higher term: the margin
			// leads an exploration to runs with more failovers.
			sim.SometimesGreaterThanOrEqualTo(term, 4, "a node became leader in term 4 or later")
		}
		clear(w.unreachable)
	case raft.LeaderObservation:
		if d.LeaderID != "" {
			sim.Sometimes(w.leader != "" && d.LeaderID != w.leader, "leadership moved to another node")
			w.leader = d.LeaderID
		}
	case raft.FailedHeartbeatObservation:
		w.unreachable[d.PeerID] = true
	case raft.ResumedHeartbeatObservation:
		delete(w.unreachable, d.PeerID)
	}
}

// followerUnreachable says whether, as far as this leader knows, a
// follower misses its heartbeats.
func (w *watch) followerUnreachable() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.unreachable) > 0
}

type snapshot []byte

func (s snapshot) Persist(sink raft.SnapshotSink) error {
	if _, err := sink.Write(s); err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

func (snapshot) Release() {}

func die(what string, err error) {
	fmt.Fprintf(os.Stderr, "server: %s: %v\n", what, err)
	os.Exit(1)
}
