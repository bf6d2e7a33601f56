// Command netprobe shows what a program sees of the network faults.
//
// With -serve it is the server: a TCP echo server on :7000 and a UDP echo
// server on :9000. It prints a line when a connection ends with an error.
//
// With -probe NODE it is the workload. It opens one TCP connection to NODE
// at 50ms, then runs -rounds rounds, round i starting at virtual time
// i*-every after the program started (it sleeps until then). A round runs
// its probes at once, each printing what it saw:
//
//	netprobe: t=2.31s round 2 dial: refused after 5ms
//
// t is the virtual time since the start as the program reads it, and the
// duration after "after" is the time since the round started. The probes:
//
//   - dial: a fresh sim.Dial with a -dial-timeout deadline from a context:
//     ok, refused or timed out. A dial that timed out is followed to its end,
//     which prints a dial-late line.
//   - tcp: -burst lines "rt i.j", each its own write, on the connection
//     opened at the start, and a read of their echoes with a -tcp-timeout
//     read deadline: ok (every echo, in order), timed out, reset, or out of
//     order. After a timeout it keeps reading until -late into the round,
//     and echoes that arrive by then print a tcp-late ok line; echoes read
//     in a later round print tcp-late echo. A connection that failed is
//     reopened at the next round (a tcp-open line).
//   - udp: a datagram "udp i" to NODE:9000 and its echo, with a -udp-timeout
//     read deadline: echoed or lost, then udp-late as for tcp. After the
//     echo it waits 1ms more, and an echo read a second time prints a
//     udp-dup line.
//   - timer: a time.Sleep(-sleep), and how long it took.
//
// -probes picks which probes run, and -tick adds a goroutine that only
// sleeps in a loop, as a heartbeat does. The last line counts the outcomes
// that were not a success within -max; with -strict the probe then exits 1,
// so that a sweep over seeds finds the seeds whose faults it noticed.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sf-dst/sf/sim"
)

var (
	start      = time.Now()
	mu         sync.Mutex
	unexpected int
)

func main() {
	serve := flag.Bool("serve", false, "be the echo server: TCP on :7000, UDP on :9000")
	probe := flag.String("probe", "", "probe the echo server on this node")
	rounds := flag.Int("rounds", 4, "number of rounds")
	every := flag.Duration("every", time.Second, "round i starts at i times this")
	dialTimeout := flag.Duration("dial-timeout", 500*time.Millisecond, "deadline of a dial")
	tcpTimeout := flag.Duration("tcp-timeout", 600*time.Millisecond, "read deadline of a TCP round trip")
	udpTimeout := flag.Duration("udp-timeout", 400*time.Millisecond, "read deadline of a UDP round trip")
	late := flag.Duration("late", 900*time.Millisecond, "after a timeout, keep waiting for the echo until this long after the round started")
	burst := flag.Int("burst", 3, "lines a TCP round trip writes, each its own write")
	sleep := flag.Duration("sleep", 100*time.Millisecond, "what the timer probe sleeps")
	most := flag.Duration("max", 50*time.Millisecond, "with -strict, the longest a probe may take")
	probes := flag.String("probes", "dial,tcp,udp,timer", "the probes each round runs, from dial, tcp, udp and timer")
	tick := flag.Duration("tick", 0, "when set, a goroutine sleeps this long in a loop the whole time, as a heartbeat would")
	strict := flag.Bool("strict", false, "exit 1 when a probe fails or takes longer than -max")
	flag.Parse()
	switch {
	case *serve:
		server()
	case *probe != "":
		if *tick > 0 {
			go func() {
				for {
					time.Sleep(*tick)
				}
			}()
		}
		p := &prober{server: *probe, dialTimeout: *dialTimeout, tcpTimeout: *tcpTimeout,
			udpTimeout: *udpTimeout, late: *late, burst: *burst, sleep: *sleep, max: *most}
		p.run(*rounds, *every, strings.Split(*probes, ","))
		mu.Lock()
		n := unexpected
		mu.Unlock()
		fmt.Printf("netprobe: t=%v done, %d unexpected\n", since(start), n)
		if *strict && n > 0 {
			os.Exit(1)
		}
	default:
		fmt.Fprintln(os.Stderr, "netprobe: give -serve or -probe NODE")
		os.Exit(2)
	}
}

func since(t time.Time) time.Duration { return time.Since(t).Round(time.Microsecond) }

// report prints one outcome of round i, and counts it as unexpected when it
// is not good.
func report(round int, kind, outcome string, after time.Duration, detail string, good bool) {
	mu.Lock()
	defer mu.Unlock()
	if !good {
		unexpected++
	}
	if detail != "" {
		detail = ": " + detail
	}
	fmt.Printf("netprobe: t=%v round %d %s: %s after %v%s\n", since(start), round, kind, outcome, after.Round(time.Microsecond), detail)
}

func fail(err error) {
	fmt.Println("netprobe:", err)
	os.Exit(1)
}

func server() {
	l, err := sim.Listen(":7000")
	if err != nil {
		fail(err)
	}
	pc, err := sim.ListenPacket(":9000")
	if err != nil {
		fail(err)
	}
	fmt.Println("netprobe: server up")
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				fail(err)
			}
			pc.WriteTo(buf[:n], from)
		}
	}()
	for {
		c, err := l.Accept()
		if err != nil {
			fail(err)
		}
		go func() {
			defer c.Close()
			buf := make([]byte, 2048)
			for {
				n, err := c.Read(buf)
				if n > 0 {
					if _, werr := c.Write(buf[:n]); werr != nil {
						err = werr
					}
				}
				if err != nil {
					if !errors.Is(err, net.ErrClosed) && !errors.Is(err, io.EOF) {
						fmt.Printf("netprobe: t=%v server: connection from %v: %v\n", since(start), c.RemoteAddr(), err)
					}
					return
				}
			}
		}()
	}
}

type prober struct {
	server                                    string
	dialTimeout, tcpTimeout, udpTimeout, late time.Duration
	sleep, max                                time.Duration
	burst                                     int
	conn                                      net.Conn // the open connection, nil after it failed
	rd                                        *bufio.Reader
	partial                                   string // a line cut by a deadline
	udp                                       net.PacketConn
	roundStart                                []time.Time
	udpSeen                                   map[int]bool
}

func (p *prober) run(rounds int, every time.Duration, probes []string) {
	all := map[string]func(int, time.Time){"dial": p.dial, "tcp": p.tcp, "udp": p.udpTrip, "timer": p.timer}
	var run []func(int, time.Time)
	for _, name := range probes {
		f, ok := all[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "netprobe: -probes: unknown probe %q\n", name)
			os.Exit(2)
		}
		run = append(run, f)
	}
	p.udpSeen = map[int]bool{}
	p.roundStart = make([]time.Time, rounds+1)
	time.Sleep(50 * time.Millisecond) // let the server listen
	p.roundStart[0] = time.Now()
	if slices.Contains(probes, "tcp") {
		p.reopen(0)
	}
	u, err := sim.ListenPacket(":0")
	if err != nil {
		fail(err)
	}
	p.udp = u
	for i := 1; i <= rounds; i++ {
		if d := time.Duration(i)*every - time.Since(start); d > 0 {
			time.Sleep(d)
		}
		t0 := time.Now()
		p.roundStart[i] = t0
		fmt.Printf("netprobe: t=%v round %d starts\n", since(start), i)
		var wg sync.WaitGroup
		for _, f := range run {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f(i, t0)
			}()
		}
		wg.Wait()
	}
}

type dialResult struct {
	c   net.Conn
	err error
}

// dialCtx is sim.Dial with a context: sim.Dial itself takes no deadline.
// The dial goes on after the context ends; onLate gets its result.
func dialCtx(ctx context.Context, addr string, onLate func(dialResult)) (net.Conn, error) {
	ch := make(chan dialResult, 1)
	go func() {
		c, err := sim.Dial(addr)
		ch <- dialResult{c, err}
	}()
	select {
	case r := <-ch:
		return r.c, r.err
	case <-ctx.Done():
		go func() { onLate(<-ch) }()
		return nil, ctx.Err()
	}
}

// outcome names an error as the probe reports it.
func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return "timed out"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "reset"
	}
	return "error"
}

func detail(err error) string {
	if err == nil || outcome(err) == "timed out" || outcome(err) == "refused" {
		return ""
	}
	return err.Error()
}

// open dials the server's echo port, reporting as kind.
func (p *prober) open(i int, t0 time.Time, kind string) net.Conn {
	ctx, cancel := context.WithTimeout(context.Background(), p.dialTimeout)
	defer cancel()
	c, err := dialCtx(ctx, p.server+":7000", func(r dialResult) {
		report(i, kind+"-late", outcome(r.err), time.Since(t0), detail(r.err), false)
		if r.c != nil {
			r.c.Close()
		}
	})
	after := time.Since(t0)
	report(i, kind, outcome(err), after, detail(err), err == nil && after <= p.max)
	return c
}

func (p *prober) dial(i int, t0 time.Time) {
	if c := p.open(i, t0, "dial"); c != nil {
		c.Close()
	}
}

func (p *prober) reopen(i int) bool {
	c := p.open(i, time.Now(), "tcp-open")
	if c == nil {
		return false
	}
	p.conn, p.rd, p.partial = c, bufio.NewReader(c), ""
	return true
}

// tcp writes "rt i.1" to "rt i.<burst>" on the open connection, each line
// its own write, and waits for their echoes, which must come in order.
func (p *prober) tcp(i int, t0 time.Time) {
	if p.conn == nil && !p.reopen(i) {
		return
	}
	for j := 1; j <= p.burst; j++ {
		if _, err := fmt.Fprintf(p.conn, "rt %d.%d\n", i, j); err != nil {
			report(i, "tcp", outcome(err), time.Since(t0), detail(err), false)
			p.conn.Close()
			p.conn = nil
			return
		}
	}
	kind, deadline, next := "tcp", t0.Add(p.tcpTimeout), 1
	for {
		p.conn.SetReadDeadline(deadline)
		line, err := p.rd.ReadString('\n')
		if err != nil {
			p.partial += line
			if outcome(err) == "timed out" && kind == "tcp" {
				report(i, kind, "timed out", time.Since(t0), "", false)
				kind, deadline = "tcp-late", t0.Add(p.late)
				continue
			}
			if kind == "tcp" || outcome(err) != "timed out" {
				report(i, kind, outcome(err), time.Since(t0), detail(err), false)
			}
			if outcome(err) != "timed out" {
				p.conn.Close()
				p.conn = nil
			}
			return
		}
		line, p.partial = strings.TrimSpace(p.partial+line), ""
		var k, j int
		fmt.Sscanf(line, "rt %d.%d", &k, &j)
		switch {
		case k < 1 || k > i:
			report(i, kind, "error", time.Since(t0), fmt.Sprintf("unknown echo %q", line), false)
			continue
		case k < i:
			// The echo of an earlier round that had given up on it.
			if j == p.burst {
				report(k, "tcp-late", "echo", time.Since(p.roundStart[k]), "read in round "+strconv.Itoa(i), false)
			}
			continue
		case j != next:
			report(i, kind, "out of order", time.Since(t0), fmt.Sprintf("echo %d of %d came as number %d", j, p.burst, next), false)
			next = j
		}
		if next++; next <= p.burst {
			continue
		}
		after := time.Since(t0)
		report(i, kind, "ok", after, "", kind == "tcp" && after <= p.max)
		return
	}
}

// udpTrip sends "udp i" and waits for its echo.
func (p *prober) udpTrip(i int, t0 time.Time) {
	dst := sim.Addr{Net: "udp", Address: p.server + ":9000"}
	if _, err := p.udp.WriteTo([]byte(fmt.Sprintf("udp %d", i)), dst); err != nil {
		report(i, "udp", outcome(err), time.Since(t0), detail(err), false)
		return
	}
	kind, deadline := "udp", t0.Add(p.udpTimeout)
	buf := make([]byte, 2048)
	for {
		p.udp.SetReadDeadline(deadline)
		n, _, err := p.udp.ReadFrom(buf)
		if err != nil {
			if outcome(err) == "timed out" && kind == "udp" {
				report(i, kind, "lost", time.Since(t0), "", false)
				kind, deadline = "udp-late", t0.Add(p.late)
				continue
			}
			if outcome(err) != "timed out" {
				report(i, kind, outcome(err), time.Since(t0), detail(err), false)
			}
			return
		}
		k, _ := strconv.Atoi(strings.TrimPrefix(string(buf[:n]), "udp "))
		if k < 1 || k >= len(p.roundStart) {
			report(i, "udp", "error", time.Since(t0), fmt.Sprintf("unknown datagram %q", buf[:n]), false)
			continue
		}
		if p.udpSeen[k] {
			report(k, "udp-dup", "echo", time.Since(p.roundStart[k]), "read in round "+strconv.Itoa(i), false)
			continue
		}
		p.udpSeen[k] = true
		if k != i {
			report(k, "udp-late", "echoed", time.Since(p.roundStart[k]), "read in round "+strconv.Itoa(i), false)
			continue
		}
		after := time.Since(t0)
		report(i, kind, "echoed", after, "", kind == "udp" && after <= p.max)
		if kind == "udp" {
			// Wait a moment for a second copy, so that a duplicate shows in
			// the round it belongs to.
			deadline, kind = time.Now().Add(time.Millisecond), "udp-more"
			continue
		}
		return
	}
}

// timer sleeps and reports how long the sleep took in virtual time.
func (p *prober) timer(i int, t0 time.Time) {
	s := time.Now()
	time.Sleep(p.sleep)
	took := time.Since(s)
	report(i, "timer", "woke", took, "slept "+p.sleep.String(), took < p.sleep+p.sleep/2)
}
