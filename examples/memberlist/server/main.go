// Command server is one node of the memberlist example: a member of a
// gossip cluster run by github.com/hashicorp/memberlist with its default LAN
// configuration and its own network transport (UDP for probes and gossip, TCP
// for push/pull state syncs), bound to the node's address on the simulated
// network.
//
// At start it joins the other nodes named by -peers, and every -rejoin it
// joins again each peer it does not hold as a live member: memberlist itself
// stops probing a member once it has declared it dead, so two sides of a long
// partition, or a node restarted while cut off, would never meet again. This
// is what an application of memberlist does around it (serf's reconnect of
// failed members, Consul's retry_join); -rejoin 0 turns it off.
//
// It answers every TCP connection on -status with its view of the cluster,
// one JSON object, then closes it; the workload reads those views.
//
// Usage:
//
//	server -peers n1,n2,n3,n4,n5 [-name n1] [-port 7946] [-status 7000] [-rejoin 2s]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/memberlist"
)

// View is what a node answers on its status port: its name, how many times
// it has started (1 on the first start), and every member it knows of that
// is not dead or gone, with the state it holds it in.
type View struct {
	Name    string   `json:"name"`
	Starts  int      `json:"starts"`
	Members []Member `json:"members"`
}

// Member is one entry of a View.
type Member struct {
	Name  string `json:"name"`
	Addr  string `json:"addr"`
	State string `json:"state"`
}

func main() {
	name := flag.String("name", os.Getenv("SEEDFALL_NODE"), "member name, unique in the cluster (default: the node's name)")
	port := flag.Int("port", 7946, "memberlist port, UDP and TCP")
	status := flag.Int("status", 7000, "TCP port that answers with this node's view")
	peers := flag.String("peers", "", "comma-separated names of every node of the cluster")
	rejoin := flag.Duration("rejoin", 2*time.Second, "join again every peer not held live this often; 0 for never")
	debug := flag.Bool("debug", false, "keep memberlist's [DEBUG] log lines")
	debugUDP := flag.Bool("debug-udp", false, "log every datagram sent and received")
	flag.Parse()
	if *name == "" || *peers == "" {
		fmt.Fprintln(os.Stderr, "server: -name and -peers are required")
		os.Exit(2)
	}
	starts := countStart("starts")
	ip, err := lookup(*name)
	if err != nil {
		die(err)
	}

	cfg := memberlist.DefaultLANConfig()
	cfg.Name = *name
	cfg.BindAddr = ip
	cfg.BindPort = *port
	cfg.AdvertiseAddr = ip
	cfg.AdvertisePort = *port
	cfg.LogOutput = os.Stderr
	if !*debug {
		cfg.LogOutput = &dropDebug{w: os.Stderr}
	}
	cfg.Events = &events{name: *name}
	if *debugUDP {
		nt, err := memberlist.NewNetTransport(&memberlist.NetTransportConfig{BindAddrs: []string{ip}, BindPort: *port})
		if err != nil {
			die(fmt.Errorf("transport on %s:%d: %w", ip, *port, err))
		}
		cfg.Transport = newLogTransport(*name, nt)
	}
	ml, err := memberlist.Create(cfg)
	if err != nil {
		die(fmt.Errorf("create memberlist on %s:%d: %w", ip, *port, err))
	}
	fmt.Printf("server: %s up on %s:%d (start %d)\n", *name, ip, *port, starts)

	others := strings.Split(*peers, ",")
	go serveStatus(*status, func() View { return view(ml, *name, starts) })
	for {
		joinMissing(ml, *name, others, *port)
		if *rejoin <= 0 {
			select {}
		}
		time.Sleep(*rejoin)
	}
}

// joinMissing joins every peer that ml does not hold as a live member. A
// join is a push/pull over TCP with that peer; a failed one (the peer down
// or cut off) is tried again on the next round.
func joinMissing(ml *memberlist.Memberlist, self string, peers []string, port int) {
	live := map[string]bool{}
	for _, m := range ml.Members() {
		live[m.Name] = true
	}
	var addrs []string
	for _, p := range peers {
		if p == self || live[p] {
			continue
		}
		ip, err := lookup(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "server:", err)
			continue
		}
		// name/ip:port lets memberlist check it reached the member it meant.
		addrs = append(addrs, p+"/"+net.JoinHostPort(ip, strconv.Itoa(port)))
	}
	if len(addrs) == 0 {
		return
	}
	if n, err := ml.Join(addrs); err != nil && n == 0 {
		fmt.Printf("server: join %s: none reached\n", strings.Join(addrs, ","))
	}
}

// view is this node's view of the cluster, sorted by name.
func view(ml *memberlist.Memberlist, name string, starts int) View {
	v := View{Name: name, Starts: starts}
	for _, m := range ml.Members() {
		v.Members = append(v.Members, Member{Name: m.Name, Addr: m.Address(), State: stateName(m.State)})
	}
	sort.Slice(v.Members, func(i, j int) bool { return v.Members[i].Name < v.Members[j].Name })
	return v
}

func stateName(s memberlist.NodeStateType) string {
	switch s {
	case memberlist.StateAlive:
		return "alive"
	case memberlist.StateSuspect:
		return "suspect"
	case memberlist.StateDead:
		return "dead"
	case memberlist.StateLeft:
		return "left"
	}
	return fmt.Sprintf("state-%d", s)
}

// serveStatus answers each connection on port with the view, as JSON.
func serveStatus(port int, get func() View) {
	ln, err := net.Listen("tcp", fmt.Sprintf(":%d", port))
	if err != nil {
		die(fmt.Errorf("status listener: %w", err))
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			die(fmt.Errorf("status accept: %w", err))
		}
		go func() {
			defer c.Close()
			c.SetWriteDeadline(time.Now().Add(5 * time.Second))
			json.NewEncoder(c).Encode(get())
		}()
	}
}

// countStart counts this start in file and returns the count. The file is
// synced, so a crash cannot take a start back.
func countStart(file string) int {
	n := 0
	if b, err := os.ReadFile(file); err == nil {
		n, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	n++
	f, err := os.Create(file)
	if err != nil {
		die(fmt.Errorf("start count: %w", err))
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "%d\n", n); err != nil {
		die(fmt.Errorf("start count: %w", err))
	}
	if err := f.Sync(); err != nil {
		die(fmt.Errorf("start count: %w", err))
	}
	return n
}

// lookup resolves a node's name to its address through /etc/hosts.
func lookup(name string) (string, error) {
	addrs, err := net.LookupHost(name)
	if err != nil {
		return "", fmt.Errorf("look up %s: %w", name, err)
	}
	if len(addrs) == 0 {
		return "", fmt.Errorf("look up %s: no address", name)
	}
	return addrs[0], nil
}

// events logs what memberlist tells the application about its members.
type events struct{ name string }

func (e *events) NotifyJoin(n *memberlist.Node) {
	fmt.Printf("server: %s: %s joined\n", e.name, n.Name)
}
func (e *events) NotifyLeave(n *memberlist.Node) {
	fmt.Printf("server: %s: %s left or died\n", e.name, n.Name)
}
func (e *events) NotifyUpdate(n *memberlist.Node) {}

// dropDebug passes memberlist's log on without its [DEBUG] lines (one per
// stream connection and push/pull), which would fill the trace.
type dropDebug struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

func (d *dropDebug) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.buf = append(d.buf, p...)
	for {
		i := bytes.IndexByte(d.buf, '\n')
		if i < 0 {
			break
		}
		line := d.buf[:i+1]
		if !bytes.Contains(line, []byte("[DEBUG]")) {
			d.w.Write(line)
		}
		d.buf = d.buf[i+1:]
	}
	return len(p), nil
}

func die(err error) {
	fmt.Fprintln(os.Stderr, "server:", err)
	os.Exit(1)
}
