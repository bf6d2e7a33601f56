// Command client is the workload of the ledger example. It sends deposits
// to the ledger server one at a time, each once and never again, and keeps
// two sums: what the server acknowledged, and everything it sent, including
// the deposits whose reply never came (a crash or a timeout leaves their
// fate unknown). Every 10 deposits, and at the end, it asks for the total
// and checks both bounds:
//
//   - the total covers every acknowledged deposit (total >= acknowledged),
//     since the server fsyncs before it acknowledges;
//   - the total holds no deposit that was never sent (total <= sent), since
//     each deposit is sent once and the server applies what it reads once.
//
// Usage:
//
//	client [-addr server:7000] [-deposits 300]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/sf-dst/sf/sim"
)

const (
	checkEvery     = 10
	pause          = 5 * time.Millisecond
	requestTimeout = 500 * time.Millisecond
	backoff        = 50 * time.Millisecond
	retryFor       = 30 * time.Second
)

func main() {
	addr := flag.String("addr", "server:7000", "address of the ledger server")
	deposits := flag.Int("deposits", 300, "number of deposits to send")
	flag.Parse()
	n := sim.Budget(*deposits)
	c := &client{addr: *addr}
	for i := 1; i <= n; i++ {
		c.deposit(uint64(i), amount(i))
		if i%checkEvery == 0 || i == n {
			c.check(i == n)
		}
		time.Sleep(pause)
	}
	c.drop()
	sim.Reachable("client finished")
	fmt.Printf("client: %d deposits, %d acknowledged (%d), %d sent\n", n, c.ackedCount, c.acked, c.sent)
}

// amount is the seeded-free amount of deposit i: 1 to 97.
func amount(i int) int64 { return int64(1 + (i*37)%97) }

type client struct {
	addr       string
	conn       net.Conn
	r          *bufio.Reader
	acked      int64 // sum of the acknowledged deposits
	ackedCount int
	sent       int64 // sum of every deposit sent, acknowledged or not
	nextID     uint64
}

// deposit sends one deposit, once. A deposit whose reply does not come is
// not sent again: the server may have applied it.
func (c *client) deposit(id uint64, amount int64) {
	for start := time.Now(); ; time.Sleep(backoff) {
		if time.Since(start) > retryFor {
			sim.Fail(fmt.Sprintf("no connection to the server for %s", retryFor))
		}
		if c.connect() != nil {
			continue // nothing was sent: trying again is safe
		}
		c.sent += amount
		reply, err := c.call(fmt.Sprintf("ADD %d %d", id, amount), "OK "+strconv.FormatUint(id, 10))
		if err == nil && reply != "" {
			c.acked += amount
			c.ackedCount++
		}
		return
	}
}

// check asks for the total and checks it against both sums. A failed
// request skips the check (last: the final check retries until it gets an
// answer).
func (c *client) check(last bool) {
	for start := time.Now(); ; time.Sleep(backoff) {
		if time.Since(start) > retryFor {
			sim.Fail(fmt.Sprintf("no total from the server for %s", retryFor))
		}
		if c.connect() != nil {
			continue
		}
		c.nextID++
		q := "q" + strconv.FormatUint(c.nextID, 10)
		reply, err := c.call("TOTAL "+q, "TOTAL "+q)
		if err != nil {
			if last {
				continue
			}
			return
		}
		total, perr := strconv.ParseInt(strings.TrimSpace(reply), 10, 64)
		if perr != nil {
			sim.Fail(fmt.Sprintf("bad TOTAL reply %q", reply))
		}
		sim.AlwaysGreaterThanOrEqualTo(total, c.acked, "ledger total covers every acknowledged deposit", map[string]int64{"unacked": c.sent - c.acked})
		sim.AlwaysLessThanOrEqualTo(total, c.sent, "ledger total holds no deposit that was never sent")
		return
	}
}

func (c *client) connect() error {
	if c.conn != nil {
		return nil
	}
	conn, err := sim.Dial(c.addr)
	if err != nil {
		return err
	}
	c.conn, c.r = conn, bufio.NewReader(conn)
	return nil
}

// call sends one request and waits for the reply line that starts with
// want, skipping others (late replies to requests that timed out). It
// returns the rest of that line.
func (c *client) call(req, want string) (string, error) {
	c.conn.SetDeadline(time.Now().Add(requestTimeout))
	if _, err := fmt.Fprintf(c.conn, "%s\n", req); err != nil {
		c.drop()
		return "", err
	}
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			c.drop()
			return "", err
		}
		line = strings.TrimSpace(line)
		if line == want {
			return "ok", nil
		}
		if rest, ok := strings.CutPrefix(line, want+" "); ok {
			return rest, nil
		}
	}
}

func (c *client) drop() {
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}
