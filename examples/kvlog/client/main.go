// Command client is the workload of the kvlog example. It writes k1=v1,
// k2=v2, ... to the server one at a time and remembers every write the server
// acknowledged. Every 10 writes, and at the end, it reads each acknowledged
// key back: a key that is missing or holds another value fails the run, since
// the server promised to keep it.
//
// Usage:
//
//	client [-addr server:7000] [-writes 200] [-value-bytes 0]
//
// -value-bytes pads every value to at least that many bytes, so that the
// log spans many 4 KiB pages and a disk fault that hits one page of it
// hits few records.
//
// The server crashes and restarts under it, so errors talking to the server
// are expected: the client reconnects and retries with a growing backoff, and
// gives up only after 30s of errors in a row.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/sf-dst/sf/sim"
)

const (
	checkEvery = 10 // writes between two read-backs
	// pauseBetweenWrites spreads the writes out in time, so that crashes land
	// between an acknowledgement and the fsync that follows it.
	pauseBetweenWrites = 5 * time.Millisecond
	backoffMin         = 20 * time.Millisecond
	backoffMax         = 200 * time.Millisecond
	retryFor           = 30 * time.Second
	// requestTimeout bounds one request, so that a reply lost with a crashed
	// server turns into a retry instead of a hang. It is far above a round
	// trip in seedfall.json's world (two 1-5ms hops and an fsync).
	requestTimeout = 500 * time.Millisecond
)

func main() {
	addr := flag.String("addr", "server:7000", "address of the kvlog server")
	writes := flag.Int("writes", 200, "number of keys to write")
	flag.IntVar(&valueBytes, "value-bytes", 0, "pad each value to at least this many bytes")
	flag.Parse()
	n := sim.Budget(*writes)
	workload(*addr, n)
	sim.Reachable("client finished")
	fmt.Printf("client: wrote %d keys, all readable\n", n)
}

// workload writes keys 1..n and checks that every acknowledged write stays
// readable. It fails through sim.Assert and sim.Fail, which panic outside the
// simulator.
func workload(addr string, n int) {
	c := &client{addr: addr}
	defer c.drop()
	for i := 1; i <= n; i++ {
		c.put(i)
		switch {
		case i == n:
			c.checkAcked(len(c.acked))
		case i%checkEvery == 0:
			// A crash can only lose writes that were not yet synced, which
			// are the latest ones, so the periodic checks read back the
			// recent writes and the final check reads back everything.
			c.checkAcked(2 * checkEvery)
		}
		time.Sleep(pauseBetweenWrites)
	}
}

// client holds one connection to the server, dialled on demand.
type client struct {
	addr  string
	conn  net.Conn
	r     *bufio.Reader
	acked []int // numbers of the acknowledged writes, in order
}

// valueBytes is the least length of a value (-value-bytes).
var valueBytes int

func key(i int) string { return fmt.Sprintf("k%d", i) }

// value is v<i>, padded with dashes to valueBytes.
func value(i int) string {
	v := fmt.Sprintf("v%d", i)
	if len(v) < valueBytes {
		v += strings.Repeat("-", valueBytes-len(v))
	}
	return v
}

func (c *client) put(i int) {
	k := key(i)
	reply, retried := c.call("PUT "+k+" "+value(i), k)
	sim.Sometimes(retried, "a write needed a retry")
	if reply != "OK" {
		fail(fmt.Sprintf("PUT %s: unexpected reply %q", k, reply))
	}
	c.acked = append(c.acked, i)
}

// checkAcked reads back the last `last` acknowledged writes.
func (c *client) checkAcked(last int) {
	for _, i := range c.acked[max(0, len(c.acked)-last):] {
		k, want := key(i), value(i)
		reply, _ := c.call("GET "+k, k)
		switch {
		case reply == "NONE":
			sim.Assert(false, fmt.Sprintf("acknowledged write lost: %s=%s, server now answers %q", k, short(want), "NONE"))
		case strings.HasPrefix(reply, "VALUE "):
			got := strings.TrimPrefix(reply, "VALUE ")
			if got != want {
				sim.Assert(false, fmt.Sprintf("acknowledged value changed: %s=%s, server now answers %s", k, short(want), difference(want, got)))
			}
		default:
			fail(fmt.Sprintf("GET %s: unexpected reply %q", k, reply))
		}
	}
}

// call sends the request req about key k until a reply comes back,
// reconnecting after every error with a backoff from backoffMin doubling up to
// backoffMax. It reports whether it had to retry, and fails the run after
// retryFor of errors.
func (c *client) call(req, k string) (reply string, retried bool) {
	backoff := backoffMin
	start := time.Now()
	for {
		reply, err := c.roundTrip(req)
		if err == nil {
			return reply, retried
		}
		if time.Since(start) >= retryFor {
			fail(fmt.Sprintf("gave up on %s after %s of retrying: %v", k, retryFor, err))
		}
		retried = true
		time.Sleep(backoff)
		backoff = min(2*backoff, backoffMax)
	}
}

// roundTrip sends one request line and returns the reply line without its
// newline. After any error the connection is dropped, so that a late reply
// can never be read as the answer to a later request.
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

// difference describes got, a value other than want: in full when both are
// short, else by the first byte where they differ.
func difference(want, got string) string {
	if len(want) <= shortBytes && len(got) <= shortBytes {
		return fmt.Sprintf("%q", got)
	}
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	switch {
	case i == len(want):
		return fmt.Sprintf("a value %d bytes longer", len(got)-len(want))
	case i == len(got):
		return fmt.Sprintf("a value %d bytes shorter", len(want)-len(got))
	}
	return fmt.Sprintf("a value that differs at byte %d: %q instead of %q", i, got[i:i+1], want[i:i+1])
}

// shortBytes is the longest value a message shows in full.
const shortBytes = 24

// short clips a padded value for a message.
func short(v string) string {
	if len(v) > shortBytes {
		return v[:shortBytes] + fmt.Sprintf("...(%d bytes)", len(v))
	}
	return v
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
