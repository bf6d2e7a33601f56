// Command primary is the primary of the liveness example's primary/backup
// counter. Clients add to the total; the primary forwards every add it
// applies to the backup over one long-lived connection and answers only once
// the backup has acknowledged it.
//
// Usage:
//
//	primary [-addr :7000] [-backup backup:7001] [-reconnect] [-dedup]
//
// It speaks a line protocol to clients:
//
//	ADD <id> <n>   ->  OK <total>   or   ERR backup unavailable
//	GET            ->  VALUE <total>
//	anything else  ->  ERR <reason>
//
// and forwards "ADD <seq> <id> <n>" to the backup, where seq numbers the
// primary's adds from 1 (see the backup's documentation).
//
// The planted liveness bug: by default, once the connection to the backup
// breaks, the primary logs it and never reconnects; from then on it answers
// every add with "ERR backup unavailable". No answer is ever wrong, so every
// safety check passes, but no client can make progress again. With
// -reconnect (the fix) it redials the backup with a backoff and resends the
// add the backup has not acknowledged.
//
// A client that gets no answer sends the same add again, with the same id.
// Without -dedup the primary applies it again; with -dedup it remembers the
// ids it applied and answers a repeated one with OK and the current total.
//
// The primary keeps its state in memory only: the example's worlds never
// crash it.
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
	"sync"
	"time"

	"github.com/sf-dst/sf/sim"
)

const (
	// ackTimeout bounds the wait for the backup's acknowledgement; a backup
	// that does not answer in time counts as a broken connection.
	ackTimeout = time.Second
	backoffMin = 10 * time.Millisecond
	backoffMax = 100 * time.Millisecond
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	fs := flag.NewFlagSet("primary", flag.ContinueOnError)
	addr := fs.String("addr", ":7000", "address to listen on for clients")
	backupAddr := fs.String("backup", "backup:7001", "address of the backup")
	reconnect := fs.Bool("reconnect", false, "the fix: redial the backup after the connection breaks")
	dedup := fs.Bool("dedup", false, "apply each add id at most once")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	p := newPrimary(*backupAddr, *reconnect, *dedup)
	// The backup may start after the primary, so the first dial is retried
	// in both modes. The bug is only about connecting again.
	for backoff := backoffMin; p.dial() != nil; backoff = min(2*backoff, backoffMax) {
		time.Sleep(backoff)
	}
	ln, err := sim.Listen(*addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "primary: %v\n", err)
		return 1
	}
	fmt.Printf("primary: listening on %s\n", *addr)
	err = p.serveAll(ln)
	fmt.Fprintf(os.Stderr, "primary: accept: %v\n", err)
	return 1
}

// primary is the counter and its link to the backup. mu guards every field
// and serialises adds, so that they reach the backup one at a time and in
// order.
type primary struct {
	backupAddr string
	reconnect  bool
	dedup      bool

	mu      sync.Mutex
	total   int
	seq     int // adds applied, and the number of the last one
	applied map[string]bool
	conn    net.Conn // to the backup; nil when there is none
	r       *bufio.Reader
	gaveUp  bool // without -reconnect: the link broke and stays broken
}

func newPrimary(backupAddr string, reconnect, dedup bool) *primary {
	return &primary{backupAddr: backupAddr, reconnect: reconnect, dedup: dedup, applied: map[string]bool{}}
}

// add applies one client add, forwards it and returns the client's reply.
func (p *primary) add(id string, n int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dedup && p.applied[id] {
		return fmt.Sprintf("OK %d\n", p.total)
	}
	if p.gaveUp {
		return "ERR backup unavailable\n"
	}
	p.seq++
	p.total += n
	p.applied[id] = true
	if err := p.forward(fmt.Sprintf("ADD %d %s %d\n", p.seq, id, n)); err != nil {
		return "ERR backup unavailable\n"
	}
	return fmt.Sprintf("OK %d\n", p.total)
}

// forward sends one add to the backup and waits for its acknowledgement.
// When the connection breaks, the primary without -reconnect gives up on the
// backup for good (the planted bug); with -reconnect it redials and resends
// until the add is acknowledged.
func (p *primary) forward(req string) error {
	backoff := backoffMin
	for {
		err := p.send(req)
		if err == nil {
			return nil
		}
		if p.conn != nil {
			p.conn.Close()
			p.conn, p.r = nil, nil
		}
		if !p.reconnect {
			fmt.Printf("primary: lost the backup (%v); not reconnecting\n", err)
			p.gaveUp = true
			return err
		}
		fmt.Printf("primary: lost the backup (%v); reconnecting in %s\n", err, backoff)
		time.Sleep(backoff)
		backoff = min(2*backoff, backoffMax)
	}
}

// send sends req over the connection to the backup, dialling it first if
// there is none, and checks the acknowledgement.
func (p *primary) send(req string) error {
	if p.conn == nil {
		if err := p.dial(); err != nil {
			return err
		}
	}
	p.conn.SetDeadline(time.Now().Add(ackTimeout))
	if _, err := io.WriteString(p.conn, req); err != nil {
		return err
	}
	line, err := p.r.ReadString('\n')
	if err != nil {
		return err
	}
	if want := fmt.Sprintf("OK %d\n", p.seq); line != want {
		return fmt.Errorf("backup answered %q to add %d", strings.TrimSuffix(line, "\n"), p.seq)
	}
	return nil
}

func (p *primary) dial() error {
	c, err := sim.Dial(p.backupAddr)
	if err != nil {
		return err
	}
	p.conn, p.r = c, bufio.NewReader(c)
	fmt.Printf("primary: connected to the backup at %s\n", p.backupAddr)
	return nil
}

// serveAll serves every connection ln accepts until Accept fails.
func (p *primary) serveAll(ln net.Listener) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		go p.serve(c)
	}
}

func (p *primary) serve(c net.Conn) {
	defer c.Close()
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		if _, err := io.WriteString(c, p.handle(sc.Text())); err != nil {
			return
		}
	}
}

// handle answers one request line; the reply ends with a newline.
func (p *primary) handle(line string) string {
	if line == "GET" {
		p.mu.Lock()
		defer p.mu.Unlock()
		return fmt.Sprintf("VALUE %d\n", p.total)
	}
	if rest, ok := strings.CutPrefix(line, "ADD "); ok {
		f := strings.Fields(rest)
		if len(f) == 2 {
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				return p.add(f[0], n)
			}
		}
		return "ERR usage: ADD <id> <n>\n"
	}
	return fmt.Sprintf("ERR unknown request %q\n", line)
}
