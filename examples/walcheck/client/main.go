// Command client is the workload of the log examples (rosedbwal, tidwallwal,
// buntdb): it appends records 1..n to a server one at a time, each record a
// different size (walcheck/record), and reads the whole log back every 10
// appends and at the end. Its contract is a durable log's:
//
//   - every record the server acknowledged is read back (none lost);
//   - every record read back is one the client asked for, byte for byte
//     (none made up, none mangled: the server reports "BAD" for anything
//     that is not);
//   - records come back in the order they were appended.
//
// A record the client sent but whose acknowledgement it did not see (the
// server crashed first) may or may not be there, and a retried append may be
// there twice.
//
// The protocol, one request a line:
//
//	APPEND <i> <n>  ->  OK  (after the record is durable)  or  ERR <reason>
//	SCAN            ->  RECORDS <k>, then k lines "<i> <n>" or "BAD <len> <bytes>"
//
// Usage:
//
//	client [-addr server:7000] [-records 100] [-max-bytes 40000]
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

	"github.com/sf-dst/sf/examples/walcheck/record"
	"github.com/sf-dst/sf/sim"
)

const (
	checkEvery     = 10
	pause          = 5 * time.Millisecond
	backoffMin     = 20 * time.Millisecond
	backoffMax     = 200 * time.Millisecond
	retryFor       = 30 * time.Second
	requestTimeout = 2 * time.Second
)

func main() {
	addr := flag.String("addr", "server:7000", "address of the log server")
	records := flag.Int("records", 100, "number of records to append")
	maxBytes := flag.Int("max-bytes", 40000, "largest record, in bytes")
	flag.Parse()
	n := sim.Budget(*records)
	c := &client{addr: *addr, sizes: map[int]int{}}
	defer c.drop()
	for i := 1; i <= n; i++ {
		c.append(i, record.Size(i, *maxBytes))
		if i%checkEvery == 0 || i == n {
			c.check()
		}
		time.Sleep(pause)
	}
	sim.Reachable("client finished")
	fmt.Printf("client: appended %d records, all read back\n", n)
}

type client struct {
	addr  string
	conn  net.Conn
	r     *bufio.Reader
	sizes map[int]int // size of every record asked for, acknowledged or not
	acked int         // records 1..acked are acknowledged
}

func (c *client) append(i, n int) {
	c.sizes[i] = n
	reply, retried := c.call(fmt.Sprintf("APPEND %d %d", i, n))
	sim.Sometimes(retried, "an append needed a retry")
	if reply[0] != "OK" {
		fail(fmt.Sprintf("APPEND %d: unexpected reply %q", i, reply[0]))
	}
	c.acked = i
}

// check reads the whole log back and checks it against what was asked for.
func (c *client) check() {
	lines, _ := c.call("SCAN")
	seen := map[int]bool{}
	last := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "BAD ") {
			sim.Assert(false, "read a record that was never written: "+l)
			return
		}
		is, ns, _ := strings.Cut(l, " ")
		i, err1 := strconv.Atoi(is)
		n, err2 := strconv.Atoi(ns)
		if err1 != nil || err2 != nil {
			fail(fmt.Sprintf("SCAN: unexpected line %q", l))
		}
		if want, ok := c.sizes[i]; !ok || want != n {
			sim.Assert(false, fmt.Sprintf("read a record that was never written: record %d of %d bytes", i, n))
			return
		}
		if i < last {
			sim.Assert(false, fmt.Sprintf("records out of order: record %d after record %d", i, last))
			return
		}
		last = i
		seen[i] = true
	}
	for i := 1; i <= c.acked; i++ {
		if !seen[i] {
			sim.Assert(false, fmt.Sprintf("acknowledged record lost: record %d (%d bytes) of %d acknowledged, %d records read back", i, c.sizes[i], c.acked, len(lines)))
			return
		}
	}
}

// call sends req until a whole reply comes back, reconnecting with a backoff
// after every error, and gives up after retryFor. SCAN's reply comes back as
// its record lines; any other reply as one line.
func (c *client) call(req string) (reply []string, retried bool) {
	backoff := backoffMin
	start := time.Now()
	for {
		lines, err := c.roundTrip(req)
		if err == nil {
			return lines, retried
		}
		if time.Since(start) >= retryFor {
			fail(fmt.Sprintf("gave up on %q after %s of retrying: %v", req, retryFor, err))
		}
		retried = true
		time.Sleep(backoff)
		backoff = min(2*backoff, backoffMax)
	}
}

func (c *client) roundTrip(req string) ([]string, error) {
	if c.conn == nil {
		conn, err := sim.Dial(c.addr)
		if err != nil {
			return nil, err
		}
		c.conn, c.r = conn, bufio.NewReader(conn)
	}
	lines, err := c.exchange(req)
	if err != nil {
		c.drop()
	}
	return lines, err
}

func (c *client) exchange(req string) ([]string, error) {
	if err := c.conn.SetDeadline(time.Now().Add(requestTimeout)); err != nil {
		return nil, err
	}
	if _, err := io.WriteString(c.conn, req+"\n"); err != nil {
		return nil, err
	}
	first, err := c.line()
	if err != nil {
		return nil, err
	}
	count, ok := strings.CutPrefix(first, "RECORDS ")
	if !ok || req != "SCAN" {
		if req == "SCAN" {
			fail(fmt.Sprintf("SCAN: unexpected reply %q", first))
		}
		return []string{first}, nil
	}
	k, err := strconv.Atoi(count)
	if err != nil {
		fail(fmt.Sprintf("SCAN: unexpected reply %q", first))
	}
	lines := make([]string, 0, k)
	for range k {
		l, err := c.line()
		if err != nil {
			return nil, err
		}
		lines = append(lines, l)
	}
	return lines, nil
}

func (c *client) line() (string, error) {
	l, err := c.r.ReadString('\n')
	return strings.TrimSuffix(l, "\n"), err
}

func (c *client) drop() {
	if c.conn != nil {
		c.conn.Close()
		c.conn, c.r = nil, nil
	}
}

func fail(msg string) {
	sim.Fail(msg)
	os.Exit(1)
}
