// Command loader is a workload of kvlog's server whose setup is real work:
// it loads -load keys into the server, one acknowledged PUT at a time, and
// only then calls sim.SetupComplete; then it writes -writes keys more under
// faults and reads them back with a sample of the loaded ones, failing the
// run on a key that is missing or changed.
//
// Usage:
//
//	loader [-addr server:7000] [-load 300] [-writes 40] [-value-bytes 64]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/sf-dst/sf/sim"
)

const (
	pause      = 2 * time.Millisecond
	backoffMin = 20 * time.Millisecond
	backoffMax = 200 * time.Millisecond
	retryFor   = 30 * time.Second
	timeout    = 500 * time.Millisecond
)

var valueBytes int

func main() {
	addr := flag.String("addr", "server:7000", "address of the kvlog server")
	load := flag.Int("load", 300, "keys loaded before sim.SetupComplete")
	writes := flag.Int("writes", 40, "keys written after it")
	flag.IntVar(&valueBytes, "value-bytes", 64, "pad each value to at least this many bytes")
	flag.Parse()
	c := &client{addr: *addr}
	for i := 1; i <= *load; i++ {
		c.put(i)
	}
	sim.SetupComplete()
	n := sim.Budget(*writes)
	for i := *load + 1; i <= *load+n; i++ {
		c.put(i)
		time.Sleep(pause)
	}
	// Every key written after the setup, and a sample of the loaded ones,
	// which a crash after the setup cannot have left unsynced.
	for i := 1; i <= *load+n; i++ {
		if i <= *load && i%50 != 0 {
			continue
		}
		k, want := key(i), value(i)
		switch reply := c.call("GET " + k); {
		case reply == "NONE":
			sim.Assert(false, fmt.Sprintf("acknowledged write lost: %s", k))
		case reply != "VALUE "+want:
			sim.Assert(false, fmt.Sprintf("acknowledged value changed: %s", k))
		}
	}
	fmt.Printf("loader: %d keys loaded, %d written, all readable\n", *load, n)
}

func key(i int) string { return fmt.Sprintf("k%d", i) }

func value(i int) string {
	v := fmt.Sprintf("v%d", i)
	return v + strings.Repeat("-", max(0, valueBytes-len(v)))
}

type client struct {
	addr string
	conn net.Conn
	r    *bufio.Reader
}

func (c *client) put(i int) {
	if reply := c.call("PUT " + key(i) + " " + value(i)); reply != "OK" {
		sim.Fail(fmt.Sprintf("PUT %s: unexpected reply %q", key(i), reply))
	}
}

// call sends req until a reply comes back, reconnecting with a backoff after
// an error, and fails the run after retryFor of errors.
func (c *client) call(req string) string {
	backoff, start := backoffMin, time.Now()
	for {
		reply, err := c.roundTrip(req)
		if err == nil {
			return reply
		}
		if time.Since(start) >= retryFor {
			sim.Fail(fmt.Sprintf("gave up on %q after %s: %v", req[:min(len(req), 20)], retryFor, err))
		}
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
	fail := func(err error) (string, error) {
		c.conn.Close()
		c.conn = nil
		return "", err
	}
	if err := c.conn.SetDeadline(time.Now().Add(timeout)); err != nil {
		return fail(err)
	}
	if _, err := io.WriteString(c.conn, req+"\n"); err != nil {
		return fail(err)
	}
	line, err := c.r.ReadString('\n')
	if err != nil {
		return fail(err)
	}
	return strings.TrimSuffix(line, "\n"), nil
}
