// Command client is the workload of the memberlist example. It reads each
// node's view of the cluster from the node's status port and checks that
// membership converges:
//
//   - setup: every node sees every node alive, then sim.SetupComplete lets
//     the faults start (with faults_after_setup);
//   - for -for, while the faults run, it reads the views every -every: no
//     view may name a member that is not a node of the world, or a node at
//     another address than its own;
//   - then sim.QuietFor holds the faults off (partitions healed, clogs lifted,
//     no datagram lost or repeated) and within -within every node must see
//     every node alive again, those that crashed and restarted included, and
//     go on seeing them for -hold without a break (sim.Eventually; a node
//     still down then restarts on schedule). A member declared dead for
//     good, or views that keep breaking, fail the run.
//
// Usage:
//
//	client -nodes n1,n2,n3,n4,n5 [-status 7000] [-for 60s] [-within 45s] [-hold 10s]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/sf-dst/sf/sim"
)

// view is a node's answer on its status port (examples/memberlist/server).
type view struct {
	Name    string   `json:"name"`
	Starts  int      `json:"starts"`
	Members []member `json:"members"`
}

type member struct {
	Name  string `json:"name"`
	Addr  string `json:"addr"`
	State string `json:"state"`
}

type cluster struct {
	nodes  []string
	status int
	addrs  map[string]string // each node's address, from /etc/hosts
}

func main() {
	nodes := flag.String("nodes", "n1,n2,n3,n4,n5", "comma-separated names of the cluster's nodes")
	status := flag.Int("status", 7000, "the nodes' status port")
	port := flag.Int("port", 7946, "the nodes' memberlist port")
	faultsFor := flag.Duration("for", 60*time.Second, "how long the faults run after setup")
	every := flag.Duration("every", time.Second, "how often the views are read while the faults run")
	within := flag.Duration("within", 45*time.Second, "bound on convergence, -hold included, once the faults stop")
	hold := flag.Duration("hold", 10*time.Second, "how long the views must stay whole to count as converged")
	flag.Parse()

	c := &cluster{nodes: strings.Split(*nodes, ","), status: *status, addrs: map[string]string{}}
	for _, n := range c.nodes {
		addrs, err := net.LookupHost(n)
		if err != nil || len(addrs) == 0 {
			fmt.Fprintf(os.Stderr, "client: look up %s: %v\n", n, err)
			os.Exit(2)
		}
		c.addrs[n] = net.JoinHostPort(addrs[0], fmt.Sprint(*port))
	}

	// Setup: the cluster forms with no fault.
	var last string
	sim.Eventually(func() bool { return c.converged(&last) }, "the cluster forms before the faults", 60*time.Second)
	fmt.Println("client: the cluster formed")
	sim.SetupComplete()

	// The faults run; the views must stay sane.
	disturbed := false
	end := time.Now().Add(*faultsFor)
	for time.Now().Before(end) {
		for _, n := range c.nodes {
			v, err := c.read(n)
			if err != nil {
				continue
			}
			c.checkSane(v)
			if live := alive(v); len(live) < len(c.nodes) {
				disturbed = true
			}
		}
		time.Sleep(*every)
	}
	// Not a Sometimes: UDP loss alone never disturbs a view (a probe that
	// gets no ack over UDP is tried over TCP too), so a property that
	// must be true in some seed would fail every sweep of that mix.
	fmt.Printf("client: faults over; a view missed a member while they ran: %v\n", disturbed)
	sim.Event("disturbed", map[string]bool{"disturbed": disturbed})

	// The faults stop: membership must converge within the bound and
	// stay whole for -hold. A suspicion raised during the faults whose
	// refutation was lost can still end in a member declared dead after
	// they stop (memberlist's suspicion timeout is up to 6 times 2.8s
	// with five nodes); it must come back, and the views then hold.
	sim.QuietFor(*within + 10*time.Second)
	stopped := time.Now()
	last = ""
	var first, since time.Time
	whole, breaks := false, 0
	stable := func() bool {
		ok := c.converged(&last)
		now := time.Now()
		switch {
		case ok && !whole:
			since = now
			if first.IsZero() {
				first = now
			}
		case !ok && whole:
			breaks++
			fmt.Printf("client: views whole since %v broke\n", since.Sub(stopped).Round(time.Millisecond))
		}
		whole = ok
		return ok && now.Sub(since) >= *hold
	}
	sim.Eventually(stable, "every node sees every node alive, and keeps seeing it, after the faults stop", *within)
	fmt.Printf("client: converged %v after the faults stopped, %d breaks, whole since %v and for %v\n",
		first.Sub(stopped).Round(time.Millisecond), breaks, since.Sub(stopped).Round(time.Millisecond), *hold)
	sim.Event("converged", map[string]any{"first_ms": first.Sub(stopped).Milliseconds(), "breaks": breaks, "whole_since_ms": since.Sub(stopped).Milliseconds()})
	if restarted := c.restarted(); len(restarted) > 0 {
		fmt.Printf("client: restarted nodes back in every view: %s\n", strings.Join(restarted, ", "))
		sim.Event("rejoined", map[string]any{"restarted": restarted})
	}
}

// converged says whether every node answers and sees every node, itself
// included, alive at its own address. When it does not, it prints what is
// missing if that differs from *last, and keeps it there.
func (c *cluster) converged(last *string) bool {
	var problems []string
	for _, n := range c.nodes {
		v, err := c.read(n)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", n, err))
			continue
		}
		c.checkSane(v)
		live := alive(v)
		var missing []string
		for _, m := range c.nodes {
			if !live[m] {
				missing = append(missing, m+" ("+stateOf(v, m)+")")
			}
		}
		if len(missing) > 0 {
			problems = append(problems, fmt.Sprintf("%s misses %s", n, strings.Join(missing, ", ")))
		}
	}
	p := strings.Join(problems, "; ")
	if p != *last {
		*last = p
		if p != "" {
			fmt.Println("client: not converged:", p)
		}
	}
	return p == ""
}

// checkSane fails the run if v names a member that is no node of the world,
// or a node at another address than its own.
func (c *cluster) checkSane(v view) {
	for _, m := range v.Members {
		want, known := c.addrs[m.Name]
		sim.Always(known && m.Addr == want, "a view names only the cluster's nodes, each at its own address",
			map[string]any{"node": v.Name, "member": m.Name, "addr": m.Addr, "want": want})
	}
}

// restarted lists the nodes that started more than once, which converged
// says are back in every view.
func (c *cluster) restarted() []string {
	var out []string
	for _, n := range c.nodes {
		if v, err := c.read(n); err == nil && v.Starts > 1 {
			out = append(out, fmt.Sprintf("%s (%d starts)", n, v.Starts))
		}
	}
	return out
}

// read asks node n for its view.
func (c *cluster) read(n string) (view, error) {
	var v view
	conn, err := net.DialTimeout("tcp", net.JoinHostPort(n, fmt.Sprint(c.status)), time.Second)
	if err != nil {
		return v, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(2 * time.Second))
	if err := json.NewDecoder(conn).Decode(&v); err != nil {
		return v, fmt.Errorf("read view: %w", err)
	}
	if v.Name != n {
		return v, fmt.Errorf("status port answered as %q", v.Name)
	}
	return v, nil
}

// alive is the set of members v holds alive.
func alive(v view) map[string]bool {
	out := map[string]bool{}
	for _, m := range v.Members {
		if m.State == "alive" {
			out[m.Name] = true
		}
	}
	return out
}

// stateOf is the state v holds member m in, "gone" when v does not list it
// (dead, left, or never known).
func stateOf(v view, m string) string {
	for _, x := range v.Members {
		if x.Name == m {
			return x.State
		}
	}
	return "gone"
}
