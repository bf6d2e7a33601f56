// Command server is one node of the etcdraft example: a key-value store
// replicated with go.etcd.io/raft/v3, in the shape of etcd's raftexample.
// Each node keeps its raft log in etcd's own write-ahead log
// (go.etcd.io/etcd/server/v3/storage/wal) and its snapshots in etcd's
// snapshotter (.../etcdserver/api/snap), takes a snapshot every -snap-count
// applied entries and compacts its in-memory log behind it, and purges old
// WAL and snapshot files as etcd does. Peers exchange raftpb.Message over a
// plain TCP transport of this example's own (transport.go), not etcd's
// rafthttp.
//
// Clients speak a line protocol on -addr:
//
//	PUT <key> <value>  ->  OK                 once the entry is committed and applied here
//	GET <key>          ->  VALUE <value>  or  NONE
//	either             ->  ERR notleader [<node>]    nothing was done; ask the leader
//	                       ERR unknown <reason>      a PUT that may or may not take effect
//	                       ERR unavailable <reason>  a GET that could not be served
//
// -reads picks how a GET is served:
//
//   - readindex (the default): raft's ReadIndex (ReadOnlySafe: the leader
//     confirms with a quorum that it is still leader), then wait until this
//     node has applied up to the read index;
//   - local (the planted bug): from this node's state machine, whatever it
//     has applied.
//
// A storage error is a fail-stop, as in etcd (whose raft loop calls
// zap's Fatal on a failed WAL write): the node prints the error and exits
// with status 1, and the world's supervise restarts it from its disk.
// With -on-corrupt refuse, a WAL that fails its checksum on every one of a
// few reads stops the member in plain sight instead (corrupt.go).
//
// Usage:
//
//	server -peers n1,n2,n3 [-addr :7000] [-raft-port 8000] [-data data] [-reads readindex|local]
//	       [-snap-count 16] [-catch-up 8] [-segment-bytes 16384] [-syncdir]
//	       [-on-corrupt exit|refuse] [-restore-broken]
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/sf-dst/sf/sim"
)

func main() {
	addr := flag.String("addr", ":7000", "client address to listen on")
	raftPort := flag.Int("raft-port", 8000, "port of the raft transport on every node")
	peers := flag.String("peers", "", "comma-separated node names of the cluster, this one included, in raft ID order (n1 is ID 1)")
	data := flag.String("data", "data", "data directory: member/wal and member/snap, as etcd lays them out")
	reads := flag.String("reads", "readindex", "how GET is served: readindex (linearizable) or local (this node's state, unsafe)")
	snapCount := flag.Uint64("snap-count", 16, "applied entries between two snapshots")
	catchUp := flag.Uint64("catch-up", 8, "entries kept in the log behind a snapshot, for slow followers")
	segment := flag.Int64("segment-bytes", 16*1024, "size of a WAL segment file (etcd's default is 64 MiB)")
	syncDir := flag.Bool("syncdir", false, "fsync the directories etcd's wal.Create, TouchDirAll and SaveSnap leave unsynced")
	onCorrupt := flag.String("on-corrupt", "exit", "when the WAL fails its checksum at start: exit (etcd's fail-stop) or refuse (stay up answering ERR corrupt)")
	restore := flag.Bool("restore-broken", false, "at start, put back .snap.broken files that read back whole")
	flag.Parse()
	if *reads != "readindex" && *reads != "local" {
		fmt.Fprintf(os.Stderr, "server: -reads %q: want readindex or local\n", *reads)
		os.Exit(2)
	}
	if *onCorrupt != "exit" && *onCorrupt != "refuse" {
		fmt.Fprintf(os.Stderr, "server: -on-corrupt %q: want exit or refuse\n", *onCorrupt)
		os.Exit(2)
	}
	id := sim.Node()
	if id == "" {
		id, _ = os.Hostname()
	}
	names := strings.Split(*peers, ",")
	if *peers == "" {
		fmt.Fprintln(os.Stderr, "server: -peers is required")
		os.Exit(2)
	}
	self := 0
	for i, n := range names {
		if n == id {
			self = i + 1
		}
	}
	if self == 0 {
		fmt.Fprintf(os.Stderr, "server: node %q is not in -peers %q\n", id, *peers)
		os.Exit(2)
	}

	cfg := nodeConfig{
		id:            uint64(self),
		peers:         len(names),
		dir:           filepath.Join(*data, "member"),
		snapCount:     *snapCount,
		catchUp:       *catchUp,
		segment:       *segment,
		syncDir:       *syncDir,
		restoreBroken: *restore,
	}
	tr := newTransport(names, *raftPort)
	var kv *store
	var rn *raftNode
	var err error
	for try := 1; ; try++ {
		kv = newStore()
		if rn, err = startNode(cfg, kv, tr); err == nil {
			break
		}
		if *onCorrupt == "exit" || !isCorrupt(err) {
			failStop("start", err)
		}
		if try == corruptTries {
			refuse(*addr, err)
		}
	}
	ln, err := net.Listen("tcp", fmt.Sprintf(":%d", *raftPort))
	if err != nil {
		failStop("listen for peers", err)
	}
	tr.start(uint64(self), rn.node)
	go tr.serve(ln, rn.node)
	go rn.run()

	cl, err := net.Listen("tcp", *addr)
	if err != nil {
		failStop("listen for clients", err)
	}
	fmt.Printf("server %s: raft ID %d, peers on :%d, clients on %s, reads %s, restarted %v at index %d\n",
		id, self, *raftPort, *addr, *reads, rn.restarted, rn.applied())
	s := &server{rn: rn, kv: kv, names: names, local: *reads == "local", boot: rand.Uint64()}
	for {
		c, err := cl.Accept()
		if err != nil {
			failStop("accept", err)
		}
		go s.serve(c)
	}
}

// failStop ends the node on an error it cannot go on from, the way etcd's
// lg.Fatal does: a message and exit status 1, never a panic, so that the
// world's supervise restarts the node from what its disk kept.
func failStop(what string, err error) {
	fmt.Fprintf(os.Stderr, "server: fail-stop: %s: %v\n", what, err)
	os.Exit(1)
}
