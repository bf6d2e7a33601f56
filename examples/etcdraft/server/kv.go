package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/raft/v3"

	"github.com/sf-dst/sf/sim"
)

// store is the replicated state machine: a map, and the index of the last
// entry applied to it. A command is a JSON [id, key, value]; id lets the
// node that proposed it answer its client once it is applied.
type store struct {
	mu      sync.Mutex
	kv      map[string]string
	applied uint64
	waiting map[string]chan struct{}
}

func newStore() *store {
	return &store{kv: map[string]string{}, waiting: map[string]chan struct{}{}}
}

func (s *store) get(k string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.kv[k]
	return v, ok
}

func (s *store) apply(data []byte) {
	var cmd [3]string
	if err := json.Unmarshal(data, &cmd); err != nil {
		// Every entry was proposed by handle; anything else is corruption
		// that got past the WAL's checksums.
		sim.Fail(fmt.Sprintf("raft entry is not a command: %v: %q", err, data))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kv[cmd[1]] = cmd[2]
	if c, ok := s.waiting[cmd[0]]; ok {
		close(c)
		delete(s.waiting, cmd[0])
	}
}

func (s *store) setApplied(i uint64) {
	s.mu.Lock()
	s.applied = i
	s.mu.Unlock()
}

func (s *store) appliedIndex() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.applied
}

// snapshot is the state as JSON; encoding/json sorts map keys, so equal
// states give equal bytes on every node.
func (s *store) snapshot() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := json.Marshal(s.kv)
	if err != nil {
		failStop("encode snapshot", err)
	}
	return b
}

func (s *store) restore(b []byte) error {
	kv := map[string]string{}
	if len(b) > 0 {
		if err := json.Unmarshal(b, &kv); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.kv = kv
	s.mu.Unlock()
	return nil
}

func (s *store) wait(id string) <-chan struct{} {
	c := make(chan struct{})
	s.mu.Lock()
	s.waiting[id] = c
	s.mu.Unlock()
	return c
}

func (s *store) forget(id string) {
	s.mu.Lock()
	delete(s.waiting, id)
	s.mu.Unlock()
}

type server struct {
	rn    *raftNode
	kv    *store
	names []string
	local bool
	// boot tells this run's proposals from those of the node's earlier
	// runs, whose entries a restarted node applies again from its log.
	boot uint64
	seq  atomic.Uint64
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
	if l := s.rn.leader(); l >= 1 && int(l) <= len(s.names) {
		return "ERR notleader " + s.names[l-1]
	}
	return "ERR notleader"
}

func (s *server) handle(f []string) string {
	switch {
	case len(f) == 3 && f[0] == "PUT":
		if s.rn.leader() == raft.None {
			return s.notLeader()
		}
		id := fmt.Sprintf("%d-%x-%d", s.rn.cfg.id, s.boot, s.seq.Add(1))
		cmd, _ := json.Marshal([3]string{id, f[1], f[2]})
		done := s.kv.wait(id)
		defer s.kv.forget(id)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := s.rn.node.Propose(ctx, cmd); err != nil {
			if errors.Is(err, raft.ErrProposalDropped) {
				// Dropped before it was appended anywhere (no leader known).
				return s.notLeader()
			}
			return "ERR unknown propose: " + err.Error()
		}
		select {
		case <-done:
			return "OK"
		case <-ctx.Done():
			// Forwarded or appended, maybe committed later: unknown.
			return "ERR unknown timeout"
		}
	case len(f) == 2 && f[0] == "GET":
		if !s.local {
			if s.rn.leader() == raft.None {
				return s.notLeader()
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			rctx := fmt.Sprintf("r%d-%d", s.rn.cfg.id, s.seq.Add(1))
			if err := s.rn.readIndex(ctx, rctx); err != nil {
				return "ERR unavailable read index: " + err.Error()
			}
		}
		if v, ok := s.kv.get(f[1]); ok {
			return "VALUE " + v
		}
		return "NONE"
	}
	return "ERR bad request"
}
