// Command client is the workload of the buggify example. It increments the
// counter n times, each increment with its own request id, and then checks
// that the counter equals the number of increments the server acknowledged.
//
// Usage:
//
//	client [-addr counter:7000] [-incs 100]
//
// When a reply does not arrive (the connection breaks, or nothing comes back
// within 200ms) the client reconnects and sends the same increment again,
// with the same request id, until it is acknowledged. That retry is only
// correct if the server applies each request id once.
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
	// replyTimeout bounds one attempt. A round trip in the world is two
	// 1-10ms hops plus at most a 50ms "slow apply".
	replyTimeout = 200 * time.Millisecond
	retryPause   = 10 * time.Millisecond
	retryFor     = 10 * time.Second // errors in a row before the client gives up
)

func main() {
	addr := flag.String("addr", "counter:7000", "address of the counter server")
	incs := flag.Int("incs", 100, "number of increments")
	flag.Parse()
	name := sim.Node()
	if name == "" {
		name = "client"
	}
	n := sim.Budget(*incs)
	v := workload(*addr, name, n)
	fmt.Printf("client: counter is %d after %d acknowledged increments\n", v, n)
}

// workload performs n increments with ids "<name>-1" ... "<name>-n", checks
// the final value and returns it. It fails through sim.Assert and sim.Fail,
// which panic outside the simulator.
func workload(addr, name string, n int) int {
	c := &client{addr: addr}
	defer c.drop()
	retried := false
	for i := 1; i <= n; i++ {
		reply, r := c.call(fmt.Sprintf("INC %s-%d", name, i))
		parseValue(reply)
		retried = retried || r
	}
	reply, _ := c.call("GET")
	v := parseValue(reply)
	sim.Sometimes(retried, "an increment was retried")
	sim.Assert(v == n, fmt.Sprintf("counter is %d after %d acknowledged increments", v, n))
	return v
}

// parseValue returns n from a "VALUE <n>" reply and fails the run on any
// other reply.
func parseValue(reply string) int {
	s, ok := strings.CutPrefix(reply, "VALUE ")
	v, err := strconv.Atoi(s)
	if !ok || err != nil {
		fail(fmt.Sprintf("unexpected reply %q", reply))
	}
	return v
}

// client holds one connection to the server, dialled on demand.
type client struct {
	addr string
	conn net.Conn
	r    *bufio.Reader
}

// call sends req until a reply comes back, reconnecting after every error,
// and reports whether it had to send req more than once.
func (c *client) call(req string) (reply string, retried bool) {
	start := time.Now()
	for {
		reply, err := c.roundTrip(req)
		if err == nil {
			return reply, retried
		}
		if time.Since(start) >= retryFor {
			fail(fmt.Sprintf("gave up on %q after %s of errors: %v", req, retryFor, err))
		}
		retried = true
		time.Sleep(retryPause)
	}
}

// roundTrip sends one request line and returns the reply without its
// newline. After any error it drops the connection, so that a late reply is
// never read as the answer to a later request.
func (c *client) roundTrip(req string) (string, error) {
	if c.conn == nil {
		conn, err := sim.Dial(c.addr)
		if err != nil {
			return "", err
		}
		c.conn, c.r = conn, bufio.NewReader(conn)
	}
	c.conn.SetDeadline(time.Now().Add(replyTimeout))
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

// fail stops the run with msg. sim.Fail ends a simulated run and panics
// outside the simulator; the exit only makes sure nothing runs after it.
func fail(msg string) {
	sim.Fail(msg)
	os.Exit(1)
}
