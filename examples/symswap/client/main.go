// Command client is the workload of the symswap example. It asks the server
// to publish generation after generation and, after each one and after
// every reconnection, asks which generation is current. Once a generation
// has been acknowledged, current must name a generation that exists and is
// whole, whatever crashed in between: a reply of MISSING, CORRUPT or NONE
// fails the run.
//
// Usage:
//
//	client [-addr server:7000] [-publish 100] [-durable]
//
// With -durable it also checks that current never goes back past a
// generation the server acknowledged. The fixed server promises that, since
// it fsyncs the directory before it answers; the buggy one does not, and
// under any file system a crash can take back its latest generations.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sf-dst/sf/sim"
)

const (
	pauseBetween   = 10 * time.Millisecond
	backoffMin     = 20 * time.Millisecond
	backoffMax     = 200 * time.Millisecond
	retryFor       = 30 * time.Second
	requestTimeout = 500 * time.Millisecond
)

func main() {
	addr := flag.String("addr", "server:7000", "address of the symswap server")
	publish := flag.Int("publish", 100, "number of generations to publish")
	durable := flag.Bool("durable", false, "also check that an acknowledged generation is never taken back")
	flag.Parse()
	c := &client{addr: *addr, durable: *durable, acked: -1}
	defer c.drop()
	n := sim.Budget(*publish)
	for i := 0; i < n; i++ {
		reply, _ := c.call("PUBLISH")
		gen, ok := strings.CutPrefix(reply, "PUBLISHED ")
		g, err := strconv.Atoi(gen)
		if !ok || err != nil {
			fail(fmt.Sprintf("PUBLISH: unexpected reply %q", reply))
		}
		c.acked = g
		c.checkCurrent()
		time.Sleep(pauseBetween)
	}
	sim.Reachable("client finished")
	fmt.Printf("client: published %d generations, current always named one\n", n)
}

type client struct {
	addr    string
	durable bool
	conn    net.Conn
	r       *bufio.Reader
	acked   int // the last generation the server acknowledged, -1 for none
}

// checkCurrent asks which generation is current and checks the answer.
func (c *client) checkCurrent() {
	reply, retried := c.call("CURRENT")
	sim.Sometimes(retried, "a question needed a retry")
	c.check(reply)
}

// check fails the run unless reply, an answer to CURRENT, names a whole
// generation (and, with -durable, one at least as new as the last
// acknowledged).
func (c *client) check(reply string) {
	gen, ok := strings.CutPrefix(reply, "CURRENT ")
	g, err := strconv.Atoi(gen)
	whole := ok && err == nil
	sim.Always(whole, "current points at a whole generation",
		map[string]any{"acknowledged": c.acked, "found": describe(reply)})
	if !whole {
		fail(fmt.Sprintf("generation %d was published, but %s", c.acked, describe(reply)))
	}
	// Not a property of its own: only the fixed server promises it, and a
	// property that some worlds never reach would fail their sweeps.
	if c.durable && g < c.acked {
		fail(fmt.Sprintf("generation %d was acknowledged, but current is generation %d", c.acked, g))
	}
}

// describe says in words what a reply to CURRENT found.
func describe(reply string) string {
	word, rest, _ := strings.Cut(reply, " ")
	switch word {
	case "CURRENT":
		return "current names gen-" + rest
	case "MISSING":
		return "current names " + rest + ", which does not exist: current points at nothing"
	case "CORRUPT":
		return "current names " + rest
	case "NONE":
		return "there is no current"
	}
	return fmt.Sprintf("unexpected reply %q", reply)
}

// call sends req until a reply comes back, reconnecting after every error
// with a growing backoff. A new connection after an error may reach a
// restarted server, so before sending anything else on it, call asks
// CURRENT and checks what the restart found: the next PUBLISH would
// otherwise repair current before anyone looked.
func (c *client) call(req string) (reply string, retried bool) {
	backoff := backoffMin
	start := time.Now()
	for {
		var err error
		if c.conn == nil && retried && req != "CURRENT" && c.acked >= 0 {
			if reply, err = c.roundTrip("CURRENT"); err == nil {
				c.check(reply)
			}
		}
		if err == nil {
			if reply, err = c.roundTrip(req); err == nil {
				return reply, retried
			}
		}
		if time.Since(start) >= retryFor {
			fail(fmt.Sprintf("gave up on %s after %s of retrying: %v", req, retryFor, err))
		}
		retried = true
		time.Sleep(backoff)
		backoff = min(2*backoff, backoffMax)
	}
}

func (c *client) roundTrip(req string) (string, error) {
	if c.conn == nil {
		conn, err := sim.Dial(c.addr)
		if err != nil {
			return "", err
		}
		c.conn, c.r = conn, bufio.NewReader(conn)
	}
	if err := c.conn.SetDeadline(time.Now().Add(requestTimeout)); err != nil {
		c.drop()
		return "", err
	}
	if _, err := io.WriteString(c.conn, req+"\n"); err != nil {
		c.drop()
		return "", err
	}
	line, err := c.r.ReadString('\n')
	if err != nil {
		c.drop()
		return "", err
	}
	return strings.TrimSuffix(line, "\n"), nil
}

func (c *client) drop() {
	if c.conn != nil {
		c.conn.Close()
		c.conn, c.r = nil, nil
	}
}

// fail stops the run with msg; sim.Fail panics outside the simulator.
func fail(msg string) {
	sim.Fail(msg)
	os.Exit(1)
}
