// Command server is one node of the raftkv example: a key-value store
// replicated with github.com/hashicorp/raft v1.7.2, its log and stable store
// in bbolt through github.com/hashicorp/raft-boltdb/v2, snapshots in files,
// and raft's NetworkTransport over TCP (the world's net_overlay carries it
// over the simulated network).
//
// Clients speak a line protocol on -addr:
//
//	PUT <key> <value>  ->  OK                 once the entry is committed and applied
//	GET <key>          ->  VALUE <value>  or  NONE
//	either             ->  ERR notleader [<leader-id>]   nothing was done; ask the leader
//	                       ERR unknown <reason>          a PUT that may or may not take effect
//	                       ERR unavailable <reason>      a GET that could not be served
//
// -reads picks how a GET is served:
//
//   - linearizable (the default): only on the leader, after a raft Barrier (so
//     the state machine holds every entry committed before the read) and
//     VerifyLeader (so no newer leader can have committed anything the read
//     misses);
//   - local (the planted bug): from this node's state machine, whatever its
//     role. A follower cut off by a partition, or one still catching up after
//     a restart, answers with a value that was overwritten long ago.
//
// Usage:
//
//	server -peers n1,n2,n3 [-addr :7000] [-raft-port 8000] [-data data] [-reads linearizable|local]
//
// Each node bootstraps the same three-node configuration on its first start,
// which raft documents as safe when every node uses the same one.
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
	flag.Parse()
	if *reads != "linearizable" && *reads != "local" {
		fmt.Fprintf(os.Stderr, "server: -reads %q: want linearizable or local\n", *reads)
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
	self := fmt.Sprintf("%s:%d", id, *raftPort)
	advertise, err := net.ResolveTCPAddr("tcp", self)
	if err != nil {
		die("resolve "+self, err)
	}
	trans, err := raft.NewTCPTransportWithLogger(fmt.Sprintf(":%d", *raftPort), advertise, 3, 2*time.Second, logger)
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
	existing, err := raft.HasExistingState(store, store, snaps)
	if err != nil {
		die("read state", err)
	}
	r, err := raft.NewRaft(conf, kv, store, store, snaps, trans)
	if err != nil {
		die("start raft", err)
	}
	if !existing {
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
	s := &server{r: r, kv: kv, local: *reads == "local"}
	for {
		c, err := ln.Accept()
		if err != nil {
			die("accept", err)
		}
		go s.serve(c)
	}
}

type server struct {
	r     *raft.Raft
	kv    *fsm
	local bool
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
			return "OK"
		case errors.Is(err, raft.ErrNotLeader):
			// Refused before the entry was appended anywhere.
			return s.notLeader()
		default:
			// ErrLeadershipLost, a timeout: the entry may still commit.
			return "ERR unknown " + err.Error()
		}
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
// the log on every start.
type fsm struct {
	mu sync.Mutex
	kv map[string]string
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
	m.kv[kv[0]] = kv[1]
	m.mu.Unlock()
	return nil
}

func (m *fsm) Snapshot() (raft.FSMSnapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, err := json.Marshal(m.kv)
	return snapshot(b), err
}

func (m *fsm) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	kv := map[string]string{}
	if err := json.NewDecoder(rc).Decode(&kv); err != nil {
		return err
	}
	m.mu.Lock()
	m.kv = kv
	m.mu.Unlock()
	return nil
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
