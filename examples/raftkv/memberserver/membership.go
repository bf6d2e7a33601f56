package main

// Membership changes, on with -reconfig: the leader runs what an operator
// (or Consul's autopilot) would, through raft's configuration-change API,
// while the clients keep writing. It keeps -voters voters among the -members
// it manages:
//
//   - a member missing from the configuration for a while (removed, or a
//     new machine such as n4 that never bootstrapped) is added back as a
//     nonvoter (AddNonvoter), so that it catches up without counting in a
//     quorum;
//   - a nonvoter that has been one for a while is promoted (AddVoter) when
//     the cluster is short of voters, or when the next rotation is due;
//   - with more voters than wanted, or when a rotation is due and there is
//     no nonvoter to promote, one voter other than the leader is retired:
//     removed (RemoveServer) or demoted (DemoteVoter), one or the other at
//     random.
//
// The calls pass 0 as prevIndex: raft v1.7.2's GetConfiguration answers
// from a cached copy of the latest configuration whose index is always 0
// (so is Stats' latest_configuration_index), so no public call tells the
// index to pass. Raft still makes one change at a time, each on a committed
// configuration, and only this leader's operator asks for changes.
//
// Once a removal is committed, the leader tells the removed server so
// ("RETIRE <index>" on its client port; raft itself never tells a follower
// that its removal committed, as the leader stops replicating to it). The
// server then does what -on-remove says: keep (stay up with its log, to be
// added back later) or wipe (an operator rebuilding the machine: mark it as
// a joiner, delete the data directory, exit non-zero so that the supervisor
// restarts it empty, as a server that waits to be added instead of
// bootstrapping). A server the message does not reach keeps its data, and
// is added back with it.

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/raft"
	"github.com/sf-dst/sf/sim"
)

// Pacing of the changes, in virtual time: long enough for a retired server
// to notice, wipe and restart (restart_after is up to 1s), and for a
// nonvoter to receive the snapshot and the log's tail before it votes.
const (
	reconfigTick = 100 * time.Millisecond
	rejoinGrace  = time.Second
	promoteAfter = 500 * time.Millisecond
	changeWait   = 2 * time.Second
)

// joinMarker, in the working directory (outside the data directory), says
// that this server was wiped, and how many times: it must wait to be added
// rather than bootstrap the cluster again.
const joinMarker = "rejoin"

type suffrage int

const (
	absent suffrage = iota
	nonvoter
	voter
)

func (s suffrage) String() string {
	return [...]string{"absent", "nonvoter", "voter"}[s]
}

func suffrageOf(cfg raft.Configuration, id raft.ServerID) suffrage {
	for _, s := range cfg.Servers {
		if s.ID == id {
			if s.Suffrage == raft.Voter {
				return voter
			}
			return nonvoter
		}
	}
	return absent
}

// operator is the leader's side of the membership changes.
type operator struct {
	r       *raft.Raft
	self    raft.ServerID
	members []string
	voters  int
	period  time.Duration
	port    int
	// clientPort is where the servers take client requests, RETIRE and
	// RAFTADDR.
	clientPort string
	// ask: the servers' raft addresses change (-new-port); ask a server
	// for its own before adding it.
	ask bool
	// Since when this leader has seen each member in its state; nil while
	// it does not lead, so that every leadership starts counting anew.
	since      map[raft.ServerID]sinceState
	lastRetire time.Time
}

type sinceState struct {
	s  suffrage
	at time.Time
}

func (o *operator) run() {
	for range time.Tick(reconfigTick) {
		if o.r.State() != raft.Leader {
			o.since = nil
			continue
		}
		if o.since == nil {
			o.since = map[raft.ServerID]sinceState{}
			o.lastRetire = time.Now()
		}
		o.step()
	}
}

// step makes at most one configuration change.
func (o *operator) step() {
	f := o.r.GetConfiguration()
	if f.Error() != nil {
		return
	}
	cfg, now := f.Configuration(), time.Now()
	age := map[raft.ServerID]time.Duration{}
	var voters, standby []raft.ServerID
	for _, m := range o.members {
		id := raft.ServerID(m)
		s := suffrageOf(cfg, id)
		if st, ok := o.since[id]; !ok || st.s != s {
			o.since[id] = sinceState{s, now}
		}
		age[id] = now.Sub(o.since[id].at)
		switch {
		case s == absent && age[id] >= rejoinGrace:
			if addr, ok := o.addr(id); ok {
				o.change("add", id, o.r.AddNonvoter(id, addr, 0, changeWait))
				return
			}
		case s == voter:
			voters = append(voters, id)
		case s == nonvoter && age[id] >= promoteAfter:
			standby = append(standby, id)
		}
	}
	due := now.Sub(o.lastRetire) >= o.period
	if len(standby) > 0 && (len(voters) < o.voters || due) {
		id := standby[rand.IntN(len(standby))]
		o.change("promote", id, o.r.AddVoter(id, addressOf(cfg, id), 0, changeWait))
		return
	}
	if len(voters) > o.voters || (due && len(voters) == o.voters && len(standby) == 0 && len(o.members) == o.voters) {
		var pick []raft.ServerID
		for _, id := range voters {
			// Not itself, and not a voter promoted a moment ago.
			if id != o.self && age[id] >= promoteAfter {
				pick = append(pick, id)
			}
		}
		if len(pick) == 0 {
			return
		}
		id := pick[rand.IntN(len(pick))]
		if rand.IntN(2) == 0 {
			o.change("remove", id, o.r.RemoveServer(id, 0, changeWait))
		} else {
			o.change("demote", id, o.r.DemoteVoter(id, 0, changeWait))
		}
		o.lastRetire = now
	}
}

// addr is the raft address to add a server at: its name and the raft
// port, or with -new-port the address the server itself gives.
func (o *operator) addr(id raft.ServerID) (raft.ServerAddress, bool) {
	if !o.ask {
		return raft.ServerAddress(fmt.Sprintf("%s:%d", id, o.port)), true
	}
	ans, err := o.call(id, "RAFTADDR")
	addr, ok := strings.CutPrefix(ans, "ADDR ")
	return raft.ServerAddress(addr), err == nil && ok
}

func addressOf(cfg raft.Configuration, id raft.ServerID) raft.ServerAddress {
	for _, s := range cfg.Servers {
		if s.ID == id {
			return s.Address
		}
	}
	return ""
}

// call sends one request to a server's client port and returns its
// answer.
func (o *operator) call(id raft.ServerID, req string) (string, error) {
	c, err := net.DialTimeout("tcp", net.JoinHostPort(string(id), o.clientPort), time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := fmt.Fprintf(c, "%s\n", req); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSuffix(line, "\n"), err
}

// change waits for one configuration change and says what came of it.
func (o *operator) change(what string, id raft.ServerID, f raft.IndexFuture) {
	if err := f.Error(); err != nil {
		fmt.Printf("server %s: %s %s: %v\n", o.self, what, id, err)
		return
	}
	fmt.Printf("server %s: %s %s committed at index %d\n", o.self, what, id, f.Index())
	sim.Sometimes(true, "a configuration change committed", map[string]any{"change": what})
	switch what {
	case "remove":
		sim.Sometimes(true, "a voter was removed from the configuration")
		o.retire(id, f.Index())
	case "demote":
		sim.Sometimes(true, "a voter was demoted to nonvoter")
	case "promote":
		sim.Sometimes(true, "a nonvoter was promoted to voter")
	}
}

// retire tells a removed server that its removal committed at index. One
// try: a server cut off or down at that moment stays as it is.
func (o *operator) retire(id raft.ServerID, index uint64) {
	o.call(id, fmt.Sprintf("RETIRE %d", index))
}

// member is a server's own side: it notices its committed removal and
// rejoins, and says when a server that was out of the configuration serves
// again.
type member struct {
	r     *raft.Raft
	self  raft.ServerID
	store interface {
		raft.LogStore
		Close() error
	}
	snaps raft.SnapshotStore
	data  string
	wipe  bool
	wiped int // the times this server was wiped before

	mu sync.Mutex
	// out is set once this server saw itself out of the configuration
	// (removed, or started empty as a joiner); rejoined once it was back
	// as a voter after that.
	out, rejoined, wiping bool
}

func (m *member) run() {
	for range time.Tick(reconfigTick) {
		f := m.r.GetConfiguration()
		if f.Error() != nil {
			continue
		}
		s := suffrageOf(f.Configuration(), m.self)
		m.mu.Lock()
		if s == absent {
			m.out = true
		} else if s == voter && m.out {
			m.rejoined = true
		}
		m.mu.Unlock()
	}
}

// retired is the leader's word that this server's removal committed at
// index: from that entry on, no quorum counts it.
func (m *member) retired(index uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.out = true
	sim.Sometimes(true, "a removed server learned that its removal committed")
	if m.wipe && !m.wiping {
		m.wiping = true
		go m.rebuild(index)
	}
}

// caughtUp says whether this server was out of the configuration and is now
// a voter of a committed one: what an entry it applies then shows.
func (m *member) caughtUp() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rejoined
}

// rebuild is the operator wiping a server whose removal committed at
// index: stop raft, and read the configuration it persisted. If a later one
// gave it a vote again (a new leader added it back before the message
// came), it may have counted in a quorum since, and it keeps its data.
// Otherwise nothing it holds counts for any quorum, and it is wiped. Either
// way the process exits non-zero and the supervisor restarts it.
func (m *member) rebuild(index uint64) {
	if err := m.r.Shutdown().Error(); err != nil {
		die("shutdown", err)
	}
	cfg, at, err := persistedConfiguration(m.store, m.snaps)
	if err != nil {
		die("read configuration", err)
	}
	if at > index && suffrageOf(cfg, m.self) == voter {
		fmt.Printf("server %s: a voter again at index %d, restarting with its data\n", m.self, at)
		os.Exit(3)
	}
	m.store.Close()
	// The marker first, durable, so that a crash in the middle leaves a
	// server that rebuilds again rather than one that bootstraps; the
	// data directory renamed away at once, so that no crash leaves half
	// of it (a snapshot without the log that followed it).
	if err := writeSynced(joinMarker, strconv.Itoa(m.wiped+1)); err != nil {
		die("write "+joinMarker, err)
	}
	old := m.data + ".old"
	if err := os.Rename(m.data, old); err != nil {
		die("rename "+m.data, err)
	}
	if err := syncDir(filepath.Dir(m.data)); err != nil {
		die("sync directory", err)
	}
	if err := os.RemoveAll(old); err != nil {
		die("remove "+old, err)
	}
	fmt.Printf("server %s: removed from the configuration, data wiped, restarting empty\n", m.self)
	os.Exit(3)
}

// persistedConfiguration is the latest configuration in a stopped server's
// log, or else in its latest snapshot, and its index.
func persistedConfiguration(logs raft.LogStore, snaps raft.SnapshotStore) (raft.Configuration, uint64, error) {
	first, err := logs.FirstIndex()
	if err != nil {
		return raft.Configuration{}, 0, err
	}
	last, err := logs.LastIndex()
	if err != nil {
		return raft.Configuration{}, 0, err
	}
	for i := last; i >= first && i > 0; i-- {
		var l raft.Log
		if err := logs.GetLog(i, &l); err != nil {
			return raft.Configuration{}, 0, fmt.Errorf("log entry %d: %w", i, err)
		}
		if l.Type == raft.LogConfiguration {
			return raft.DecodeConfiguration(l.Data), i, nil
		}
	}
	list, err := snaps.List()
	if err != nil {
		return raft.Configuration{}, 0, err
	}
	if len(list) == 0 {
		return raft.Configuration{}, 0, errors.New("no configuration in the log or a snapshot")
	}
	return list[0].Configuration, list[0].ConfigurationIndex, nil
}

// readMarker returns how many times this server was wiped: 0 with no
// marker.
func readMarker() (int, error) {
	b, err := os.ReadFile(joinMarker)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

func writeSynced(name, content string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return syncDir(".")
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// latest is the configuration this server holds, committed or not.
func latest(r *raft.Raft) raft.Configuration {
	f := r.GetConfiguration()
	if f.Error() != nil {
		return raft.Configuration{}
	}
	return f.Configuration()
}

// changed says whether a configuration is other than the bootstrapped
// one, whose voters are the -peers and nobody else.
func changed(cfg raft.Configuration, peers []string) bool {
	if len(cfg.Servers) != len(peers) {
		return true
	}
	for _, s := range cfg.Servers {
		if s.Suffrage != raft.Voter || !slices.Contains(peers, string(s.ID)) {
			return true
		}
	}
	return false
}
