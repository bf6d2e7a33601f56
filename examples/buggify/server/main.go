// Command server is the system under test of the buggify example: a counter
// that clients increment over TCP.
//
// Usage:
//
//	server [-addr :7000] [-dedup]
//
// It speaks a line protocol, one goroutine per connection:
//
//	INC <request-id>   ->  VALUE <n>   the counter after this increment
//	GET                ->  VALUE <n>
//	anything else      ->  ERR <reason>
//
// Two BUGGIFY sites mark the rare paths of the handler. "slow apply" delays an
// increment by 1, 5 or 50ms before it is applied, and "reply lost after apply"
// closes the connection after the increment is applied but before the reply
// is sent, as a crash or a cut network would. Outside the simulator neither
// site ever fires.
//
// A client that gets no reply sends the same INC again. By default the server
// applies it again (the planted bug). With -dedup (the fix) it remembers the
// value each request id produced and answers a repeated id with that value,
// without applying it a second time.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/sf-dst/sf/sim"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	addr := fs.String("addr", ":7000", "address to listen on")
	dedup := fs.Bool("dedup", false, "the fix: apply each request id at most once")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ln, err := sim.Listen(*addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "server: %v\n", err)
		return 1
	}
	fmt.Printf("server: listening on %s\n", ln.Addr())
	err = newCounter(*dedup).serveAll(ln)
	fmt.Fprintf(os.Stderr, "server: accept: %v\n", err)
	return 1
}

// counter is the service's state. mu guards every field.
type counter struct {
	mu      sync.Mutex
	value   int
	dedup   bool
	applied map[string]int // with dedup: request id -> the value it produced
}

func newCounter(dedup bool) *counter {
	return &counter{dedup: dedup, applied: map[string]int{}}
}

// inc applies the increment named id and returns the counter after it. With
// dedup, a repeated id returns the value it produced the first time.
func (c *counter) inc(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.applied[id]; ok && c.dedup {
		return v
	}
	c.value++
	if c.dedup {
		c.applied[id] = c.value
	}
	return c.value
}

func (c *counter) get() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.value
}

// serveAll serves every connection ln accepts until Accept fails.
func (c *counter) serveAll(ln net.Listener) error {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return err
		}
		go c.serve(conn)
	}
}

func (c *counter) serve(conn net.Conn) {
	defer conn.Close()
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		reply, ok := c.handle(sc.Text())
		if !ok {
			return // the reply is lost: close without answering
		}
		if _, err := fmt.Fprint(conn, reply); err != nil {
			return
		}
	}
}

// handle answers one request line. It returns false when the reply must be
// lost, in which case the caller closes the connection without answering.
func (c *counter) handle(line string) (reply string, ok bool) {
	cmd, id, _ := strings.Cut(line, " ")
	switch {
	case cmd == "INC" && id != "" && !strings.Contains(id, " "):
		if sim.BuggifyWithProb("slow apply", 0.5) {
			time.Sleep(sim.RandomChoice([]time.Duration{time.Millisecond, 5 * time.Millisecond, 50 * time.Millisecond}))
		}
		v := c.inc(id)
		if sim.Buggify("reply lost after apply") {
			return "", false
		}
		return fmt.Sprintf("VALUE %d\n", v), true
	case cmd == "INC":
		return "ERR usage: INC <request-id>\n", true
	case line == "GET":
		return fmt.Sprintf("VALUE %d\n", c.get()), true
	default:
		return fmt.Sprintf("ERR unknown request %q\n", line), true
	}
}
