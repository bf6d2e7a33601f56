package simnet

import (
	"bytes"
	"fmt"
	"math"
	"testing"
)

const ms = int64(1_000_000)

// fixed is a network whose every hop takes exactly 5ms, so tests can name
// the instant of each delivery.
func fixed(t *testing.T) *Net {
	t.Helper()
	return New(1, [2]int64{5 * ms, 5 * ms}, []string{"a", "b"})
}

// ranged is a network whose hops take between 1ms and 50ms, drawn per chunk.
func ranged(seed uint64) *Net {
	return New(seed, [2]int64{1 * ms, 50 * ms}, []string{"a", "b"})
}

// step delivers the next pending event (and everything due at the same
// instant) and returns its time; ok is false when nothing is pending.
func step(n *Net) (at int64, ok bool) {
	at = n.NextAt()
	if at == math.MaxInt64 {
		return 0, false
	}
	n.Advance(at)
	return at, true
}

// advanceTo moves time to t one delivery instant at a time, as the engine
// does: it never skips past a pending delivery.
func advanceTo(n *Net, t int64) {
	for n.NextAt() <= t {
		step(n)
	}
	n.Advance(t)
}

// settle delivers everything pending and returns the time of the last
// delivery (or the current time when nothing was pending).
func settle(n *Net) int64 {
	last := n.Now()
	for {
		at, ok := step(n)
		if !ok {
			return last
		}
		last = at
	}
}

// readAll reads everything readable from s now.
func readAll(t *testing.T, n *Net, s *Socket) []byte {
	t.Helper()
	var out []byte
	buf := make([]byte, 7) // small on purpose: reads must resume mid-chunk
	for {
		c, e := n.Read(s, buf)
		if e == EAGAIN {
			return out
		}
		if e != OK {
			t.Fatalf("read: errno %d", e)
		}
		if c == 0 {
			return out // end of stream
		}
		out = append(out, buf[:c]...)
	}
}

// connect dials listener l from node a and returns both ends once the
// handshake is over.
func connect(t *testing.T, n *Net, l *Socket) (client, server *Socket) {
	t.Helper()
	c, e := n.Dial("a", 1, l.Node, l.Port)
	if e != OK {
		t.Fatalf("dial: errno %d", e)
	}
	for c.Status() == EINPROGRESS {
		if _, ok := step(n); !ok {
			t.Fatal("handshake never finished")
		}
	}
	if c.Status() != OK {
		t.Fatalf("dial status %d, want OK", c.Status())
	}
	s, e := n.Accept(l)
	if e != OK {
		t.Fatalf("accept: errno %d", e)
	}
	return c, s
}

func listen(t *testing.T, n *Net, node string, port int) *Socket {
	t.Helper()
	l, e := n.Listen(node, 1, port)
	if e != OK {
		t.Fatalf("listen %s:%d: errno %d", node, port, e)
	}
	return l
}

type readiness struct {
	readable, writable bool
	status             Errno
}

func (r readiness) String() string {
	return fmt.Sprintf("readable=%v writable=%v status=%d", r.readable, r.writable, r.status)
}

func stateOf(s *Socket) readiness {
	return readiness{s.Readable(), s.Writable(), s.Status()}
}

func TestDial(t *testing.T) {
	tests := []struct {
		name   string
		listen bool // b listens on 7000
		node   string
		port   int
		// What Dial returns at once.
		dialErr Errno
		// The dialer's status after the SYN arrived and after the answer arrived.
		afterSyn, final Errno
		// When the answer arrives, with a fixed 5ms hop.
		finalAt int64
	}{
		{name: "to a listener", listen: true, node: "b", port: 7000, afterSyn: EINPROGRESS, final: OK, finalAt: 10 * ms},
		{name: "to a port nobody listens on", listen: true, node: "b", port: 7001, afterSyn: EINPROGRESS, final: ECONNREFUSED, finalAt: 10 * ms},
		{name: "to a node with no listener at all", node: "b", port: 7000, afterSyn: EINPROGRESS, final: ECONNREFUSED, finalAt: 10 * ms},
		{name: "to itself", node: "a", port: 7000, afterSyn: EINPROGRESS, final: ECONNREFUSED, finalAt: 10 * ms},
		{name: "to an unknown node", listen: true, node: "c", port: 7000, dialErr: EHOSTUNREACH},
		{name: "to an unknown node with a bad port", node: "c", port: 0, dialErr: EHOSTUNREACH},
		{name: "to port 0", listen: true, node: "b", port: 0, dialErr: EINVAL},
		{name: "to port 65536", listen: true, node: "b", port: 65536, dialErr: EINVAL},
		{name: "to a negative port", listen: true, node: "b", port: -1, dialErr: EINVAL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := fixed(t)
			var l *Socket
			if tt.listen {
				l = listen(t, n, "b", 7000)
			}
			c, e := n.Dial("a", 1, tt.node, tt.port)
			if e != tt.dialErr {
				t.Fatalf("Dial errno = %d, want %d", e, tt.dialErr)
			}
			if e != OK {
				if c != nil {
					t.Fatal("a failed Dial returned a socket")
				}
				if at := n.NextAt(); at != math.MaxInt64 {
					t.Fatalf("a failed Dial scheduled a delivery at %d", at)
				}
				return
			}
			if got, want := stateOf(c), (readiness{false, false, EINPROGRESS}); got != want {
				t.Fatalf("just dialed: %v, want %v", got, want)
			}
			if _, e := n.Write(c, []byte("x")); e != EAGAIN {
				t.Fatalf("write while connecting: errno %d, want EAGAIN", e)
			}
			if _, e := n.Read(c, make([]byte, 1)); e != EAGAIN {
				t.Fatalf("read while connecting: errno %d, want EAGAIN", e)
			}
			if at, _ := step(n); at != 5*ms {
				t.Fatalf("SYN arrived at %d, want %d", at, 5*ms)
			}
			if c.Status() != tt.afterSyn {
				t.Fatalf("after the SYN: status %d, want %d", c.Status(), tt.afterSyn)
			}
			if l != nil && tt.final == OK {
				if !l.Readable() {
					t.Fatal("listener not readable with a connection in its backlog")
				}
			}
			at, _ := step(n)
			if at != tt.finalAt {
				t.Fatalf("answer arrived at %d, want %d", at, tt.finalAt)
			}
			if c.Status() != tt.final {
				t.Fatalf("final status %d, want %d", c.Status(), tt.final)
			}
			if at := n.NextAt(); at != math.MaxInt64 {
				t.Fatalf("something still pending at %d", at)
			}
			switch tt.final {
			case OK:
				if got, want := stateOf(c), (readiness{false, true, OK}); got != want {
					t.Fatalf("established: %v, want %v", got, want)
				}
				s, e := n.Accept(l)
				if e != OK || s == nil {
					t.Fatalf("accept: errno %d", e)
				}
				if s.Peer != c || c.Peer != s {
					t.Fatal("accepted socket is not the dialer's peer")
				}
				if s.Node != "b" || s.Port != 7000 || s.Listener {
					t.Fatalf("accepted socket: node %q port %d listener %v", s.Node, s.Port, s.Listener)
				}
				if got, want := stateOf(s), (readiness{false, true, OK}); got != want {
					t.Fatalf("accepted: %v, want %v", got, want)
				}
				if l.Readable() {
					t.Fatal("listener readable with an empty backlog")
				}
				if _, e := n.Accept(l); e != EAGAIN {
					t.Fatalf("second accept: errno %d, want EAGAIN", e)
				}
			case ECONNREFUSED:
				if got, want := stateOf(c), (readiness{true, true, ECONNREFUSED}); got != want {
					t.Fatalf("refused: %v, want %v", got, want)
				}
				if _, e := n.Read(c, make([]byte, 1)); e != ECONNREFUSED {
					t.Fatalf("read after refusal: errno %d", e)
				}
				if _, e := n.Write(c, []byte("x")); e != ECONNREFUSED {
					t.Fatalf("write after refusal: errno %d", e)
				}
				if l != nil && l.Readable() {
					t.Fatal("a refused dial left something in the listener's backlog")
				}
			}
		})
	}
}

func TestHandshakeTakesARoundTripOfDrawnLatencies(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		n := ranged(seed)
		l := listen(t, n, "b", 80)
		c, _ := n.Dial("a", 1, "b", 80)
		syn, _ := step(n)
		ack, _ := step(n)
		if c.Status() != OK {
			t.Fatalf("seed %d: status %d after two deliveries", seed, c.Status())
		}
		if syn < 1*ms || syn > 50*ms || ack-syn < 1*ms || ack-syn > 50*ms {
			t.Fatalf("seed %d: SYN at %d, SYN-ACK at %d: a hop outside [1ms, 50ms]", seed, syn, ack)
		}
		if _, e := n.Accept(l); e != OK {
			t.Fatalf("seed %d: accept errno %d", seed, e)
		}
	}
}

func TestListen(t *testing.T) {
	tests := []struct {
		name       string
		node       string
		port       int
		closeFirst bool
		want       Errno
	}{
		{name: "same node and port", node: "b", port: 7000, want: EADDRINUSE},
		{name: "same port on another node", node: "a", port: 7000, want: OK},
		{name: "another port", node: "b", port: 7001, want: OK},
		{name: "same port after close", node: "b", port: 7000, closeFirst: true, want: OK},
		{name: "port 0", node: "b", port: 0, want: EINVAL},
		{name: "port 65536", node: "b", port: 65536, want: EINVAL},
		{name: "port 65535", node: "b", port: 65535, want: OK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := fixed(t)
			first := listen(t, n, "b", 7000)
			if got, want := stateOf(first), (readiness{false, false, OK}); got != want {
				t.Fatalf("new listener: %v, want %v", got, want)
			}
			if tt.closeFirst {
				n.Close(first)
			}
			l, e := n.Listen(tt.node, 2, tt.port)
			if e != tt.want {
				t.Fatalf("Listen(%s, %d) errno %d, want %d", tt.node, tt.port, e, tt.want)
			}
			if e != OK {
				if l != nil {
					t.Fatal("failed Listen returned a socket")
				}
				return
			}
			if !l.Listener || l.Node != tt.node || l.Port != tt.port || l.Instance != 2 {
				t.Fatalf("listener fields: %+v", l)
			}
			// The new listener is the one that accepts.
			c, s := connect(t, n, l)
			if s.Instance != 2 || c.Status() != OK {
				t.Fatalf("accepted by instance %d, status %d", s.Instance, c.Status())
			}
		})
	}
}

func TestListenerSocketsRefuseIO(t *testing.T) {
	n := fixed(t)
	l := listen(t, n, "b", 7000)
	if _, e := n.Read(l, make([]byte, 4)); e != ENOTCONN {
		t.Fatalf("read on a listener: errno %d, want ENOTCONN", e)
	}
	if _, e := n.Write(l, []byte("x")); e != ENOTCONN {
		t.Fatalf("write on a listener: errno %d, want ENOTCONN", e)
	}
	if e := n.ShutdownWrite(l); e != ENOTCONN {
		t.Fatalf("shutdown on a listener: errno %d, want ENOTCONN", e)
	}
	c, _ := n.Dial("a", 1, "b", 7000)
	if _, e := n.Accept(c); e != EINVAL {
		t.Fatalf("accept on a connection: errno %d, want EINVAL", e)
	}
}

// writeOp is one write of a test script: at a time, some bytes.
type writeOp struct {
	at   int64
	size int
}

func TestDataArrivesInOrder(t *testing.T) {
	small := func(count int) []writeOp {
		var ops []writeOp
		for i := range count {
			ops = append(ops, writeOp{at: 0, size: 1 + i%7})
		}
		return ops
	}
	tests := []struct {
		name string
		ops  []writeOp
	}{
		{"many small writes at one instant", small(500)},
		{"large writes split into chunks", []writeOp{{0, 3*MaxChunk + 5}, {0, MaxChunk}, {0, MaxChunk + 1}}},
		{"one write of exactly MaxChunk", []writeOp{{0, MaxChunk}}},
		{"writes spread over time, shorter than the latency apart", []writeOp{
			{0, 10}, {1 * ms, 2 * MaxChunk}, {2 * ms, 3}, {2 * ms, 4}, {30 * ms, 5 * MaxChunk}, {31 * ms, 1}, {40 * ms, 100}}},
		{"small and large interleaved", []writeOp{{0, 1}, {0, 4 * MaxChunk}, {0, 2}, {0, 2*MaxChunk - 1}, {0, 3}}},
	}
	for _, tt := range tests {
		for _, seed := range []uint64{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/seed %d", tt.name, seed), func(t *testing.T) {
				n := ranged(seed)
				l := listen(t, n, "b", 9)
				c, s := connect(t, n, l)
				start := n.Now()

				// Draw the sender's latencies ourselves, from a copy of its
				// stream, to prove the script makes a later chunk draw a
				// shorter latency than an earlier one (the case ordering is
				// about).
				shadow := *c.stream
				var sent []byte
				var rawAt []int64
				chunks := 0
				for i, op := range tt.ops {
					if now := start + op.at; now > n.Now() {
						// Deliver what is due before moving on, as the engine does.
						n.Advance(now)
					}
					p := bytes.Repeat([]byte{byte('a' + i%26)}, op.size)
					for j := range p {
						p[j] += byte(j % 3)
					}
					before := len(n.queue)
					w, e := n.Write(c, p)
					if e != OK || w != len(p) {
						t.Fatalf("write %d: %d, errno %d", i, w, e)
					}
					want := (op.size + MaxChunk - 1) / MaxChunk
					if got := len(n.queue) - before; got != want {
						t.Fatalf("write of %d bytes made %d chunks, want %d", op.size, got, want)
					}
					for range want {
						rawAt = append(rawAt, n.Now()+shadow.Between(1*ms, 50*ms))
					}
					chunks += want
					sent = append(sent, p...)
				}
				inversions := 0
				for i := 1; i < len(rawAt); i++ {
					if rawAt[i] < rawAt[i-1] {
						inversions++
					}
				}
				if chunks > 1 && inversions == 0 {
					t.Logf("no chunk drew an earlier arrival than its predecessor; ordering not exercised")
				}

				var got []byte
				last := int64(-1)
				for {
					at, ok := step(n)
					if !ok {
						break
					}
					if at < last {
						t.Fatalf("delivery at %d after one at %d", at, last)
					}
					last = at
					got = append(got, readAll(t, n, s)...)
					if !bytes.Equal(got, sent[:len(got)]) {
						t.Fatalf("at %d: received bytes are not a prefix of what was sent (got %d bytes)", at, len(got))
					}
				}
				if !bytes.Equal(got, sent) {
					t.Fatalf("received %d bytes, sent %d", len(got), len(sent))
				}
				if chunks > 1 && len(tt.ops) > 10 && inversions == 0 {
					t.Fatal("the script never drew a shorter latency after a longer one")
				}
			})
		}
	}
}

func TestNothingReadableBeforeDelivery(t *testing.T) {
	n := fixed(t)
	l := listen(t, n, "b", 1)
	c, s := connect(t, n, l) // established at 10ms
	n.SetNow(12 * ms)
	if _, e := n.Write(c, []byte("hello")); e != OK {
		t.Fatalf("write errno %d", e)
	}
	if at := n.NextAt(); at != 17*ms {
		t.Fatalf("NextAt = %d, want %d", at, 17*ms)
	}
	buf := make([]byte, 16)
	for _, now := range []int64{12 * ms, 15 * ms, 17*ms - 1} {
		n.Advance(now)
		if s.Readable() || s.Buffered() != 0 {
			t.Fatalf("at %d: readable before the delivery time", now)
		}
		if c, e := n.Read(s, buf); e != EAGAIN || c != 0 {
			t.Fatalf("at %d: read = %d, errno %d; want 0, EAGAIN", now, c, e)
		}
	}
	n.Advance(17 * ms)
	if !s.Readable() || s.Buffered() != 5 {
		t.Fatalf("at delivery: readable %v, buffered %d", s.Readable(), s.Buffered())
	}
	if c, e := n.Read(s, buf[:2]); e != OK || string(buf[:c]) != "he" {
		t.Fatalf("read = %q, errno %d", buf[:c], e)
	}
	if s.Buffered() != 3 || !s.Readable() {
		t.Fatalf("after a partial read: buffered %d", s.Buffered())
	}
	if c, e := n.Read(s, buf); e != OK || string(buf[:c]) != "llo" {
		t.Fatalf("read = %q, errno %d", buf[:c], e)
	}
	if s.Readable() {
		t.Fatal("readable with an empty buffer")
	}
	if c, e := n.Read(s, buf); e != EAGAIN || c != 0 {
		t.Fatalf("read of an empty buffer = %d, errno %d; want 0, EAGAIN", c, e)
	}
	if w, e := n.Write(c, nil); w != 0 || e != OK {
		t.Fatalf("empty write = %d, errno %d", w, e)
	}
	if n.NextAt() != math.MaxInt64 {
		t.Fatal("an empty write scheduled a delivery")
	}
}

func TestShutdownWrite(t *testing.T) {
	n := fixed(t)
	l := listen(t, n, "b", 1)
	c, s := connect(t, n, l)
	n.Write(c, []byte("abc"))
	n.Write(c, bytes.Repeat([]byte("z"), MaxChunk+1))
	if e := n.ShutdownWrite(c); e != OK {
		t.Fatalf("shutdown errno %d", e)
	}
	if e := n.ShutdownWrite(c); e != OK {
		t.Fatalf("second shutdown errno %d", e)
	}
	if _, e := n.Write(c, []byte("late")); e != EPIPE {
		t.Fatalf("write after shutdown: errno %d, want EPIPE", e)
	}
	if got, want := stateOf(c), (readiness{false, true, OK}); got != want {
		t.Fatalf("shut-down dialer: %v, want %v", got, want)
	}
	if len(n.queue) != 3+1 {
		t.Fatalf("%d events pending, want 3 chunks and one FIN (a second shutdown must not send another)", len(n.queue))
	}
	if s.Readable() {
		t.Fatal("peer readable before anything arrived")
	}
	settle(n)
	if !s.Readable() {
		t.Fatal("peer not readable after data and FIN arrived")
	}
	got := readAll(t, n, s)
	if want := "abc" + string(bytes.Repeat([]byte("z"), MaxChunk+1)); string(got) != want {
		t.Fatalf("peer read %d bytes, want %d", len(got), len(want))
	}
	for range 2 {
		if c, e := n.Read(s, make([]byte, 4)); c != 0 || e != OK {
			t.Fatalf("read at end of stream = %d, errno %d; want 0, OK", c, e)
		}
		if !s.Readable() {
			t.Fatal("end of stream is not readable")
		}
	}
	// Half close: the other direction still works.
	if _, e := n.Write(s, []byte("reply")); e != OK {
		t.Fatalf("peer write errno %d", e)
	}
	settle(n)
	if got := readAll(t, n, c); string(got) != "reply" {
		t.Fatalf("dialer read %q after its own shutdown", got)
	}
	if c.Status() != OK || s.Status() != OK {
		t.Fatalf("statuses %d, %d after a half close", c.Status(), s.Status())
	}
}

func TestShutdownBeforeEstablished(t *testing.T) {
	n := fixed(t)
	listen(t, n, "b", 1)
	c, _ := n.Dial("a", 1, "b", 1)
	if e := n.ShutdownWrite(c); e != ENOTCONN {
		t.Fatalf("shutdown while connecting: errno %d, want ENOTCONN", e)
	}
	r, _ := n.Dial("a", 1, "b", 2)
	settle(n)
	if e := n.ShutdownWrite(r); e != ENOTCONN {
		t.Fatalf("shutdown of a refused socket: errno %d, want ENOTCONN", e)
	}
}

func TestClose(t *testing.T) {
	tests := []struct {
		name    string
		closeBy string // "client" or "server"
	}{
		{"client closes", "client"},
		{"server closes", "server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := fixed(t)
			l := listen(t, n, "b", 1)
			c, s := connect(t, n, l)
			closer, peer := c, s
			if tt.closeBy == "server" {
				closer, peer = s, c
			}
			n.Write(closer, []byte("bye"))
			n.Close(closer)
			n.Close(closer) // twice is harmless
			at := settle(n)
			if got := readAll(t, n, peer); string(got) != "bye" {
				t.Fatalf("peer read %q, want \"bye\"", got)
			}
			if c, e := n.Read(peer, make([]byte, 1)); c != 0 || e != OK {
				t.Fatalf("peer read after close = %d, errno %d; want EOF (0, OK)", c, e)
			}
			if got, want := stateOf(peer), (readiness{true, true, OK}); got != want {
				t.Fatalf("peer at EOF: %v, want %v", got, want)
			}

			// Data sent to the closed end makes it answer with a reset, one
			// hop later, and the sender is reset another hop after that.
			n.SetNow(at + ms)
			if _, e := n.Write(peer, []byte("anyone?")); e != OK {
				t.Fatalf("write to a closed peer fails at once: errno %d", e)
			}
			arrive, _ := step(n)
			if arrive != at+6*ms {
				t.Fatalf("data arrived at %d, want %d", arrive, at+6*ms)
			}
			if closer.Status() != ECONNRESET {
				t.Fatalf("closed end status %d after receiving data, want ECONNRESET", closer.Status())
			}
			if peer.Status() != OK {
				t.Fatal("sender reset before the reset could travel back")
			}
			rst, _ := step(n)
			if rst != at+11*ms {
				t.Fatalf("reset arrived at %d, want %d", rst, at+11*ms)
			}
			if got, want := stateOf(peer), (readiness{true, true, ECONNRESET}); got != want {
				t.Fatalf("sender after the reset: %v, want %v", got, want)
			}
			if _, e := n.Read(peer, make([]byte, 1)); e != ECONNRESET {
				t.Fatalf("read after reset: errno %d", e)
			}
			if _, e := n.Write(peer, []byte("x")); e != ECONNRESET {
				t.Fatalf("write after reset: errno %d", e)
			}
			if n.NextAt() != math.MaxInt64 {
				t.Fatal("a reset provoked more traffic")
			}
		})
	}
}

func TestCloseWhileConnecting(t *testing.T) {
	n := fixed(t)
	l := listen(t, n, "b", 1)
	c, _ := n.Dial("a", 1, "b", 1)
	n.Close(c)
	settle(n)
	s, e := n.Accept(l)
	if e != OK {
		t.Fatalf("accept errno %d", e)
	}
	if s.Status() != ECONNRESET {
		t.Fatalf("server end of a connection its dialer closed while connecting: status %d, want ECONNRESET", s.Status())
	}
}

func TestCrash(t *testing.T) {
	tests := []struct {
		name    string
		crashed string // "client" or "server"
	}{
		{"client crashes", "client"},
		{"server crashes", "server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := fixed(t)
			l := listen(t, n, "b", 1)
			c, s := connect(t, n, l) // at 10ms
			dead, peer := c, s
			if tt.crashed == "server" {
				dead, peer = s, c
			}
			n.SetNow(20 * ms)
			n.Write(dead, []byte("last words"))
			n.SetNow(21 * ms)
			n.Write(peer, []byte("too late"))
			n.Crash([]*Socket{dead})
			if dead.Status() != ECONNRESET {
				t.Fatalf("crashed end status %d, want ECONNRESET", dead.Status())
			}
			if peer.Status() != OK {
				t.Fatal("peer reset at once, before the reset traveled")
			}
			// Data written before the crash still arrives, then the reset.
			n.Advance(25 * ms)
			if got := readAll(t, n, peer); string(got) != "last words" {
				t.Fatalf("peer read %q before the reset", got)
			}
			n.Advance(26*ms - 1)
			if peer.Status() != OK {
				t.Fatal("reset arrived before the latency")
			}
			n.Advance(26 * ms)
			if got, want := stateOf(peer), (readiness{true, true, ECONNRESET}); got != want {
				t.Fatalf("peer after the reset: %v, want %v", got, want)
			}
			if c, e := n.Read(peer, make([]byte, 4)); c != 0 || e != ECONNRESET {
				t.Fatalf("peer read = %d, errno %d; want ECONNRESET", c, e)
			}
			if _, e := n.Write(peer, []byte("x")); e != ECONNRESET {
				t.Fatalf("peer write errno %d, want ECONNRESET", e)
			}
			if e := n.ShutdownWrite(peer); e != ENOTCONN {
				t.Fatalf("peer shutdown errno %d, want ENOTCONN", e)
			}
			settle(n)
			if n.NextAt() != math.MaxInt64 {
				t.Fatal("traffic after everything settled")
			}
		})
	}
}

func TestResetDropsUnreadData(t *testing.T) {
	n := fixed(t)
	l := listen(t, n, "b", 1)
	c, s := connect(t, n, l)
	n.Write(c, []byte("unread"))
	settle(n)
	if s.Buffered() != 6 {
		t.Fatalf("buffered %d", s.Buffered())
	}
	n.Crash([]*Socket{c})
	settle(n)
	if s.Buffered() != 0 || s.Status() != ECONNRESET {
		t.Fatalf("after a reset: buffered %d, status %d", s.Buffered(), s.Status())
	}
}

func TestCrashSkipsClosedSockets(t *testing.T) {
	n := fixed(t)
	l := listen(t, n, "b", 1)
	c, s := connect(t, n, l)
	n.Close(c)
	n.Crash([]*Socket{c})
	settle(n)
	if s.Status() != OK {
		t.Fatalf("a crash after a clean close reset the peer: status %d", s.Status())
	}
	if c, e := n.Read(s, make([]byte, 1)); c != 0 || e != OK {
		t.Fatalf("peer read = %d, errno %d; want EOF", c, e)
	}
}

func TestListenerGoesAway(t *testing.T) {
	tests := []struct {
		name string
		end  func(n *Net, l *Socket)
	}{
		{"closed", func(n *Net, l *Socket) { n.Close(l) }},
		{"crashed", func(n *Net, l *Socket) { n.Crash([]*Socket{l}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := fixed(t)
			l := listen(t, n, "b", 7000)
			accepted, acceptedPeer := connect(t, n, l) // 0..10ms
			_ = accepted
			// Two connections wait in the backlog, established on both sides.
			w1, _ := n.Dial("a", 1, "b", 7000)
			w2, _ := n.Dial("a", 1, "b", 7000)
			// One has only its SYN delivered, its SYN-ACK still in flight.
			n.SetNow(12 * ms)
			half, _ := n.Dial("a", 1, "b", 7000)
			advanceTo(n, 20*ms) // w1, w2 established at 20ms; half's SYN at 17ms, SYN-ACK due 22ms
			if w1.Status() != OK || w2.Status() != OK || half.Status() != EINPROGRESS {
				t.Fatalf("statuses %d %d %d", w1.Status(), w2.Status(), half.Status())
			}
			if len(l.backlog) != 3 {
				t.Fatalf("backlog %d, want 3", len(l.backlog))
			}
			// A fourth dial whose SYN is in flight when the listener goes.
			n.SetNow(21 * ms)
			late, _ := n.Dial("a", 1, "b", 7000)
			tt.end(n, l)
			if l.Readable() {
				t.Fatal("a listener that went away is readable")
			}
			if _, e := n.Accept(l); e != EAGAIN {
				t.Fatalf("accept on a listener that went away: errno %d", e)
			}
			settle(n)
			for i, s := range []*Socket{w1, w2, half} {
				if s.Status() != ECONNRESET {
					t.Errorf("%s dialer: status %d, want ECONNRESET", []string{"first waiting", "second waiting", "half open"}[i], s.Status())
				}
			}
			if late.Status() != ECONNREFUSED {
				t.Errorf("dial in flight: status %d, want ECONNREFUSED", late.Status())
			}
			// The connection accepted before is the program's, not the listener's.
			if acceptedPeer.Status() != OK || accepted.Status() != OK {
				t.Errorf("accepted connection touched: %d %d", accepted.Status(), acceptedPeer.Status())
			}
			again, _ := n.Dial("a", 1, "b", 7000)
			settle(n)
			if again.Status() != ECONNREFUSED {
				t.Errorf("new dial: status %d, want ECONNREFUSED", again.Status())
			}
			// The port is free again.
			l2 := listen(t, n, "b", 7000)
			if c, _ := connect(t, n, l2); c.Status() != OK {
				t.Error("could not connect to a new listener on the same port")
			}
		})
	}
}

// TestDialerCrashWhileConnecting: a dialer that dies with its handshake
// under way must not leave the server an accepted connection that never
// ends. A real stack answers the SYN-ACK (or later data) for a socket
// that no longer exists with a reset.
func TestDialerCrashWhileConnecting(t *testing.T) {
	tests := []struct {
		name    string
		crashAt int64 // the SYN arrives at 5ms, the SYN-ACK at 10ms
	}{
		{"before the SYN arrives", 2 * ms},
		{"after the SYN arrived", 7 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := fixed(t)
			l := listen(t, n, "b", 1)
			c, _ := n.Dial("a", 1, "b", 1)
			n.Advance(tt.crashAt)
			n.Crash([]*Socket{c})
			settle(n)
			s, e := n.Accept(l)
			if e == EAGAIN {
				return // never accepted: fine
			}
			// The server writes a greeting; a dead peer must reset it.
			n.SetNow(n.Now() + ms)
			n.Write(s, []byte("hello?"))
			settle(n)
			if s.Status() != ECONNRESET {
				_, rerr := n.Read(s, make([]byte, 1))
				w, werr := n.Write(s, []byte("again"))
				settle(n)
				t.Fatalf("regression: the dialer crashed while connecting (at %s), yet the server's accepted socket "+
					"stays established forever: status %d, read errno %d, write %d bytes errno %d, status after "+
					"that write arrived %d; the SYN-ACK and the data reach a reset socket and are dropped "+
					"without a reset in reply",
					fmtMs(tt.crashAt), s.Status(), rerr, w, werr, s.Status())
			}
		})
	}
}

// TestAdvanceOverSeveralInstants: Advance is documented to deliver
// everything due at or before now. What a delivery sends in reply (a
// SYN-ACK, a refusal, a reset) must leave from the delivery's own time, so a
// handshake takes one round trip however far a single Advance jumps.
func TestAdvanceOverSeveralInstants(t *testing.T) {
	n := fixed(t)
	listen(t, n, "b", 1)
	c, _ := n.Dial("a", 1, "b", 1) // SYN at 5ms, SYN-ACK due at 10ms
	n.Advance(8 * ms)
	n.Advance(10 * ms)
	if c.Status() != OK {
		t.Fatalf("regression: Advance(8ms) delivered the SYN that was due at 5ms but timed the SYN-ACK from 8ms, "+
			"so the handshake is not over at 10ms (status %d, SYN-ACK due at %s): replies leave from the "+
			"Advance target, not from the delivery's own time; unreachable from the engine today, whose loop "+
			"advances to each delivery instant in turn", c.Status(), fmtMs(n.NextAt()))
	}
}

func fmtMs(ns int64) string { return fmt.Sprintf("%dms", ns/ms) }

// TestReadinessThroughALifetime walks one connection through every stage
// and checks what each end reports.
func TestReadinessThroughALifetime(t *testing.T) {
	n := fixed(t)
	l := listen(t, n, "b", 1)
	c, _ := n.Dial("a", 1, "b", 1)
	var s *Socket
	type check struct {
		stage     string
		do        func()
		dialer    readiness
		acceptor  *readiness // nil before accept
		listenerR bool
	}
	rd := func(r, w bool, st Errno) *readiness { return &readiness{r, w, st} }
	checks := []check{
		{stage: "dialed", do: func() {}, dialer: readiness{false, false, EINPROGRESS}},
		{stage: "SYN arrived", do: func() { n.Advance(5 * ms) }, dialer: readiness{false, false, EINPROGRESS}, listenerR: true},
		{stage: "SYN-ACK arrived", do: func() { n.Advance(10 * ms) }, dialer: readiness{false, true, OK}, listenerR: true},
		{stage: "accepted", do: func() { s, _ = n.Accept(l) }, dialer: readiness{false, true, OK}, acceptor: rd(false, true, OK)},
		{stage: "data in flight", do: func() { n.Write(c, []byte("q")) }, dialer: readiness{false, true, OK}, acceptor: rd(false, true, OK)},
		{stage: "data arrived", do: func() { n.Advance(15 * ms) }, dialer: readiness{false, true, OK}, acceptor: rd(true, true, OK)},
		{stage: "data read", do: func() { n.Read(s, make([]byte, 8)) }, dialer: readiness{false, true, OK}, acceptor: rd(false, true, OK)},
		{stage: "FIN in flight", do: func() { n.ShutdownWrite(c) }, dialer: readiness{false, true, OK}, acceptor: rd(false, true, OK)},
		{stage: "FIN arrived", do: func() { n.Advance(20 * ms) }, dialer: readiness{false, true, OK}, acceptor: rd(true, true, OK)},
		{stage: "acceptor closed", do: func() { n.Close(s); n.Advance(25 * ms) }, dialer: readiness{true, true, OK}, acceptor: rd(true, true, OK)},
	}
	for _, ch := range checks {
		ch.do()
		if got := stateOf(c); got != ch.dialer {
			t.Errorf("%s: dialer %v, want %v", ch.stage, got, ch.dialer)
		}
		if ch.acceptor != nil {
			if got := stateOf(s); got != *ch.acceptor {
				t.Errorf("%s: acceptor %v, want %v", ch.stage, got, *ch.acceptor)
			}
		}
		if got := l.Readable(); got != ch.listenerR {
			t.Errorf("%s: listener readable %v, want %v", ch.stage, got, ch.listenerR)
		}
		if l.Writable() {
			t.Errorf("%s: listener writable", ch.stage)
		}
	}
}

// timeline runs a fixed script of dials and writes and returns every
// delivery time and what each end read, as a string.
func timeline(seed uint64) string {
	n := ranged(seed)
	var out bytes.Buffer
	l, _ := n.Listen("b", 1, 80)
	var clients, servers []*Socket
	for range 3 {
		c, _ := n.Dial("a", 1, "b", 80)
		clients = append(clients, c)
	}
	n.Dial("a", 1, "b", 81) // refused
	for {
		at, ok := step(n)
		if !ok {
			break
		}
		fmt.Fprintf(&out, "%d:", at)
		for {
			s, e := n.Accept(l)
			if e != OK {
				break
			}
			servers = append(servers, s)
			n.Write(s, []byte(fmt.Sprintf("hello %d;", len(servers))))
			n.Write(s, bytes.Repeat([]byte{'x'}, MaxChunk*2))
		}
		for i, c := range clients {
			if c.Status() == OK && c.Buffered() > 0 {
				buf := make([]byte, c.Buffered())
				k, _ := n.Read(c, buf)
				fmt.Fprintf(&out, " c%d+%d", i, k)
				if k > 0 && buf[0] == 'h' {
					n.Write(c, []byte("ack"))
				}
			}
		}
		for i, s := range servers {
			if s.Buffered() > 0 {
				buf := make([]byte, s.Buffered())
				k, _ := n.Read(s, buf)
				fmt.Fprintf(&out, " s%d:%s", i, buf[:k])
				n.Close(s)
			}
		}
		out.WriteByte('\n')
	}
	return out.String()
}

func TestDeterminism(t *testing.T) {
	a, b := timeline(42), timeline(42)
	if a != b {
		t.Fatalf("same seed, different timelines:\n%s\nvs\n%s", a, b)
	}
	seen := map[string]uint64{a: 42}
	for _, seed := range []uint64{1, 2, 3, 43} {
		tl := timeline(seed)
		if prev, dup := seen[tl]; dup {
			t.Fatalf("seeds %d and %d give the same timeline:\n%s", prev, seed, tl)
		}
		seen[tl] = seed
	}
	if lines := bytes.Count([]byte(a), []byte("\n")); lines < 10 {
		t.Fatalf("timeline too short to mean anything (%d deliveries):\n%s", lines, a)
	}
}

func TestLatencyRange(t *testing.T) {
	tests := []struct {
		name   string
		lo, hi int64
	}{
		{"zero latency", 0, 0},
		{"fixed", 3 * ms, 3 * ms},
		{"range", 1, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := New(9, [2]int64{tt.lo, tt.hi}, []string{"a", "b"})
			l := listen(t, n, "b", 1)
			c, s := connect(t, n, l)
			prev := int64(0)
			for i := range 200 {
				n.SetNow(n.Now() + 100)
				n.Write(c, []byte{byte(i)})
				var at int64 // the new chunk is the latest event pending
				for _, e := range n.queue {
					at = max(at, e.at)
				}
				lat := at - n.Now()
				switch {
				case lat < tt.lo:
					t.Fatalf("chunk %d arrives after %d, below the minimum %d", i, lat, tt.lo)
				case lat > tt.hi && at != prev:
					t.Fatalf("chunk %d arrives after %d, above the maximum %d and not held back by the chunk before", i, lat, tt.hi)
				case at < prev:
					t.Fatalf("chunk %d arrives at %d, before the chunk before it (%d)", i, at, prev)
				}
				prev = at
			}
			settle(n)
			if got := readAll(t, n, s); len(got) != 200 {
				t.Fatalf("read %d bytes", len(got))
			}
		})
	}
}

// TestChunksSharingABlockStayApart: small chunks written on different
// connections share a block (chunkCopy), and a receive buffer that took
// one whole and then gets more must copy rather than write over the next.
// chunkCopy and deliver both cap the slices; the test fails with neither.
func TestChunksSharingABlockStayApart(t *testing.T) {
	n := fixed(t)
	l := listen(t, n, "b", 80)
	c1, s1 := connect(t, n, l)
	c2, s2 := connect(t, n, l)
	for _, w := range []struct {
		c *Socket
		p string
	}{{c1, "aaa"}, {c2, "bbb"}, {c1, "ccc"}, {c2, "ddd"}} {
		if k, e := n.Write(w.c, []byte(w.p)); e != OK || k != len(w.p) {
			t.Fatalf("write %q: %d, errno %d", w.p, k, e)
		}
	}
	if len(n.block) == 0 {
		t.Fatal("the writes made no block")
	}
	settle(n)
	if got := string(readAll(t, n, s2)); got != "bbbddd" {
		t.Fatalf("second connection read %q, want %q", got, "bbbddd")
	}
	if got := string(readAll(t, n, s1)); got != "aaaccc" {
		t.Fatalf("first connection read %q, want %q", got, "aaaccc")
	}
}
