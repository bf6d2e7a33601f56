// Command loader is the workload of the raftkv example's seedfall.setup.json:
// a cluster seeded with a dataset before anything is under test. It writes
// -load keys d0..d<load-1> one at a time through the leader (the first ones
// wait for the cluster's first election), then calls sim.SetupComplete; a
// world with "fork": "setup" runs that much once for all its seeds. Then
// several clients (goroutines, each a process of the history) put and get
// the first -keys keys of the dataset under the world's faults, 50ms apart.
//
// Every operation, the loading ones too, is recorded with sim.Put and
// sim.Get, so the world's checker (model kv) knows what each key held: a
// read of a loaded key that lost its value is caught. The loader never
// judges an answer itself and exits 0 whatever the cluster did.
//
// It is a program of its own, not a flag of client/, because a change to
// client/ would change the guest of the example's other worlds, and with it
// their determinism hashes.
//
// Usage:
//
//	loader -nodes n1,n2,n3 [-port 7000] [-load 500] [-load-bytes 64] [-clients 3] [-ops 20] [-keys 3] [-pause 50ms]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/sf-dst/sf/sim"
)

func main() {
	nodes := flag.String("nodes", "n1,n2,n3", "comma-separated node names")
	port := flag.Int("port", 7000, "the nodes' client port")
	load := flag.Int("load", 500, "keys written before sim.SetupComplete")
	loadBytes := flag.Int("load-bytes", 64, "the size of each loaded value")
	clients := flag.Int("clients", 3, "concurrent clients after the setup")
	ops := flag.Int("ops", 20, "operations per client after the setup")
	keys := flag.Int("keys", 3, "the clients use keys d0..d<keys-1>")
	pause := flag.Duration("pause", 50*time.Millisecond, "think time between a client's operations")
	flag.Parse()
	names := strings.Split(*nodes, ",")
	if *keys > *load {
		sim.Fail(fmt.Sprintf("-keys %d is more than -load %d", *keys, *load))
	}

	c := newClient(0, names, *port)
	val := strings.Repeat("v", *loadBytes)
	for i := 0; i < *load; i++ {
		// No faults reach the setup, so only the first election refuses.
		for !c.put(fmt.Sprintf("d%d", i), val) {
		}
	}
	fmt.Printf("loader: loaded %d keys\n", *load)
	sim.SetupComplete()

	n := sim.Budget(*ops)
	var wg sync.WaitGroup
	for p := 1; p <= *clients; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := newClient(p, names, *port)
			for i := 0; i < n; i++ {
				time.Sleep(*pause)
				key := fmt.Sprintf("d%d", rand.IntN(*keys))
				if rand.IntN(2) == 0 {
					c.put(key, fmt.Sprintf("%d-%d", p, i))
				} else {
					c.get(key)
				}
			}
		}()
	}
	wg.Wait()
	fmt.Printf("loader: %d clients done, %d operations each\n", *clients, n)
}

type client struct {
	proc   int
	names  []string
	port   int
	conns  map[string]*conn
	leader string // the last leader a node named, "" for none
}

type conn struct {
	c  net.Conn
	rd *bufio.Reader
}

func newClient(proc int, names []string, port int) *client {
	return &client{proc: proc, names: names, port: port, conns: map[string]*conn{}}
}

// target picks where the next operation goes: the node named as leader by
// the last refusal, once, or else any node.
func (c *client) target() string {
	if c.leader != "" {
		t := c.leader
		c.leader = ""
		return t
	}
	return c.names[rand.IntN(len(c.names))]
}

// call sends one request and returns the answer; an error means the
// request may or may not have reached the node.
func (c *client) call(node, req string) (string, error) {
	cn := c.conns[node]
	if cn == nil {
		nc, err := net.DialTimeout("tcp", fmt.Sprintf("%s:%d", node, c.port), time.Second)
		if err != nil {
			return "", err
		}
		cn = &conn{c: nc, rd: bufio.NewReader(nc)}
		c.conns[node] = cn
	}
	cn.c.SetDeadline(time.Now().Add(3 * time.Second))
	line, err := "", error(nil)
	if _, err = fmt.Fprintf(cn.c, "%s\n", req); err == nil {
		line, err = cn.rd.ReadString('\n')
	}
	if err != nil {
		cn.c.Close()
		delete(c.conns, node)
		return "", err
	}
	return strings.TrimSuffix(line, "\n"), nil
}

// refused notes the leader a refusal names and says whether the answer was
// a refusal. With no leader named (an election is under way), it waits a
// little before the next try.
func (c *client) refused(ans string) bool {
	if rest, ok := strings.CutPrefix(ans, "ERR notleader"); ok {
		c.leader = strings.TrimSpace(rest)
		if c.leader == "" {
			time.Sleep(20 * time.Millisecond)
		}
		return true
	}
	return false
}

// put says whether the node answered OK.
func (c *client) put(key, val string) bool {
	node := c.target()
	op := sim.Put(c.proc, key, val)
	ans, err := c.call(node, "PUT "+key+" "+val)
	switch {
	case err != nil:
		op.Unknown()
		time.Sleep(20 * time.Millisecond)
	case ans == "OK":
		op.Ok("")
		return true
	case c.refused(ans):
		op.Failed()
	case strings.HasPrefix(ans, "ERR unknown"):
		op.Unknown()
	default:
		sim.Fail(fmt.Sprintf("%s answered PUT with %q", node, ans))
	}
	return false
}

func (c *client) get(key string) {
	node := c.target()
	op := sim.Get(c.proc, key)
	ans, err := c.call(node, "GET "+key)
	switch {
	case err != nil:
		op.Unknown()
		time.Sleep(20 * time.Millisecond)
	case ans == "NONE":
		op.Ok("")
	case strings.HasPrefix(ans, "VALUE "):
		op.Ok(strings.TrimPrefix(ans, "VALUE "))
	case c.refused(ans), strings.HasPrefix(ans, "ERR unavailable"):
		op.Failed()
	default:
		sim.Fail(fmt.Sprintf("%s answered GET with %q", node, ans))
	}
}
