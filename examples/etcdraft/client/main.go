// Command client is the workload of the etcdraft example. Several clients
// (goroutines, each a process of the history) put and get a few keys on the
// three-node cluster and record every operation with sim.Put and sim.Get;
// the world's checker (model kv) then checks the history for
// linearizability. The client itself never judges an answer, so it exits 0
// whatever the cluster did, and the history decides.
//
// Each operation goes to a node picked at random; an answer "ERR notleader
// <id>" means nothing was done, so the operation is recorded as failed and
// tried again at the named leader. A PUT that times out, loses its
// connection or gets "ERR unknown" is recorded as unknown: it may still
// take effect.
//
// With -final, the program is the world's finally check instead: it reads
// every key until one read of each has been served (retrying forever; the
// world's liveness.within decides how long is too long), and records those
// reads too. With -final-each as well, every node must serve a read of every
// key itself: a node that cannot start again from its disk (its WAL
// unreadable, say) keeps the check from ending, and the run fails on
// liveness, unless it answers "ERR corrupt" (a server run with -on-corrupt
// refuse), a stop that the check accepts (finalEach).
//
// Usage:
//
//	client -nodes n1,n2,n3 [-port 7000] [-clients 3] [-ops 40] [-keys 3] [-pause 50ms] [-final [-final-each]]
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
	clients := flag.Int("clients", 3, "concurrent clients")
	ops := flag.Int("ops", 40, "operations per client")
	keys := flag.Int("keys", 3, "keys k0..k<keys-1>")
	pause := flag.Duration("pause", 50*time.Millisecond, "think time between a client's operations")
	final := flag.Bool("final", false, "read every key once, through the cluster, and exit")
	each := flag.Bool("final-each", false, "with -final: read every key from every node")
	flag.Parse()
	names := strings.Split(*nodes, ",")
	if *final && *each {
		finalEach(names, *port, *keys)
		return
	}
	if *final {
		finalReads(names, *port, *keys)
		return
	}
	n := sim.Budget(*ops)
	var wg sync.WaitGroup
	for p := 0; p < *clients; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &client{proc: p, names: names, port: *port, conns: map[string]*conn{}}
			for i := 0; i < n; i++ {
				time.Sleep(*pause)
				key := fmt.Sprintf("k%d", rand.IntN(*keys))
				if rand.IntN(2) == 0 {
					c.put(key, fmt.Sprintf("%d-%d", p, i))
				} else {
					c.get(key)
				}
			}
		}()
	}
	wg.Wait()
	fmt.Printf("client: %d clients done, %d operations each\n", *clients, n)
}

// finalReads is the liveness check: a linearizable read of every key must
// be served again once the faults have stopped.
func finalReads(names []string, port, keys int) {
	finalReadsOr(names, port, keys, func() bool { return false })
}

// finalReadsOr is finalReads that also ends, with false, when stop says so
// (checked between tries).
func finalReadsOr(names []string, port, keys int, stop func() bool) bool {
	c := &client{proc: 1000, names: names, port: port, conns: map[string]*conn{}}
	start := time.Now()
	c.pinned = len(names) == 1
	for k := 0; k < keys; k++ {
		key := fmt.Sprintf("k%d", k)
		for tries := 1; ; tries++ {
			if v, ok := c.get(key); ok {
				fmt.Printf("client: final read of %s = %q from %s after %d tries\n", key, v, strings.Join(names, ","), tries)
				break
			}
			if stop() {
				return false
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	fmt.Printf("client: every key read again %v after the check started\n", time.Since(start))
	return true
}

// finalEach is -final -final-each: every node must serve every key, except
// a node that answers "ERR corrupt" (a server run with -on-corrupt refuse
// whose WAL failed its checksum: the clear stop the contract allows). When a
// majority has stopped so, the others cannot serve either, and the check
// ends there: the cluster stopped in plain sight.
func finalEach(names []string, port, keys int) {
	probe := &client{proc: 1001, names: names, port: port, conns: map[string]*conn{}}
	stopped := map[string]bool{}
	isStopped := func(n string) bool {
		if !stopped[n] {
			ans, err := probe.call(n, "PING")
			stopped[n] = err == nil && strings.HasPrefix(ans, "ERR corrupt")
			if stopped[n] {
				fmt.Printf("client: %s stopped on a corrupt wal: %s\n", n, ans)
			}
		}
		return stopped[n]
	}
	majorityStopped := func() bool {
		k := 0
		for _, n := range names {
			if isStopped(n) {
				k++
			}
		}
		return k > len(names)/2
	}
	for _, n := range names {
		if majorityStopped() {
			fmt.Println("client: a majority of the members stopped on corrupt WALs; the cluster cannot serve")
			return
		}
		if isStopped(n) {
			continue
		}
		finalReadsOr([]string{n}, port, keys, func() bool { return isStopped(n) || majorityStopped() })
	}
}

type client struct {
	proc   int
	names  []string
	port   int
	conns  map[string]*conn
	leader string // the last leader a node named, "" for none
	pinned bool   // send every request to names[0], whatever a refusal names
}

type conn struct {
	c  net.Conn
	rd *bufio.Reader
}

// target picks where the next operation goes: the node named as leader by
// the last refusal, once, or else any node.
func (c *client) target() string {
	if c.pinned {
		return c.names[0]
	}
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

func (c *client) put(key, val string) {
	node := c.target()
	op := sim.Put(c.proc, key, val)
	ans, err := c.call(node, "PUT "+key+" "+val)
	switch {
	case err != nil:
		op.Unknown()
		time.Sleep(20 * time.Millisecond)
	case ans == "OK":
		op.Ok("")
	case c.refused(ans), strings.HasPrefix(ans, "ERR corrupt"):
		op.Failed()
	case strings.HasPrefix(ans, "ERR unknown"):
		op.Unknown()
	default:
		sim.Fail(fmt.Sprintf("%s answered PUT with %q", node, ans))
	}
}

func (c *client) get(key string) (string, bool) {
	node := c.target()
	op := sim.Get(c.proc, key)
	ans, err := c.call(node, "GET "+key)
	switch {
	case err != nil:
		op.Unknown()
		time.Sleep(20 * time.Millisecond)
	case ans == "NONE":
		op.Ok("")
		return "", true
	case strings.HasPrefix(ans, "VALUE "):
		v := strings.TrimPrefix(ans, "VALUE ")
		op.Ok(v)
		return v, true
	case c.refused(ans), strings.HasPrefix(ans, "ERR unavailable"), strings.HasPrefix(ans, "ERR corrupt"):
		op.Failed()
	default:
		sim.Fail(fmt.Sprintf("%s answered GET with %q", node, ans))
	}
	return "", false
}
