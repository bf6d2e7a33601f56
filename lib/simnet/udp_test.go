package simnet

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

func listenPacket(t *testing.T, n *Net, node string, port int) *Socket {
	t.Helper()
	s, e := n.ListenPacket(node, 1, port)
	if e != OK {
		t.Fatalf("listen packet %s:%d: errno %d", node, port, e)
	}
	return s
}

type recv struct {
	data      string
	from      string
	port      int
	truncated bool
	errno     Errno
}

func recvFrom(n *Net, s *Socket, size int) recv {
	buf := make([]byte, size)
	c, from, port, trunc, e := n.RecvFrom(s, buf)
	return recv{string(buf[:c]), from, port, trunc, e}
}

func TestDatagramDelivery(t *testing.T) {
	n := fixed(t)
	pa := listenPacket(t, n, "a", 0)
	pa2 := listenPacket(t, n, "a", 0)
	pb := listenPacket(t, n, "b", 53)
	if pa.Port != 32768 || pa2.Port != 32769 || pb.Port != 53 {
		t.Fatalf("ports %d, %d, %d; want the first ephemeral ports 32768, 32769 and 53", pa.Port, pa2.Port, pb.Port)
	}
	if got, want := stateOf(pb), (readiness{false, true, OK}); got != want {
		t.Fatalf("new datagram socket: %v, want %v", got, want)
	}
	if got := recvFrom(n, pb, 8); got.errno != EAGAIN {
		t.Fatalf("recv from an empty socket: %+v, want EAGAIN", got)
	}
	n.SetNow(1 * ms)
	if e := n.SendTo(pa, "b", 53, []byte("hello"), false, false); e != OK {
		t.Fatalf("send: errno %d", e)
	}
	n.SendTo(pa2, "b", 53, nil, false, false) // an empty datagram is a datagram
	n.SendTo(pb, "b", 53, []byte("self"), false, false)
	if at := n.NextAt(); at != 6*ms {
		t.Fatalf("next delivery at %s, want 6ms", fmtMs(at))
	}
	n.Advance(6*ms - 1)
	if pb.Readable() {
		t.Fatal("readable before the latency")
	}
	n.Advance(6 * ms)
	if !pb.Readable() || pb.Queued() != 3 {
		t.Fatalf("readable %v, queued %d after delivery; want 3", pb.Readable(), pb.Queued())
	}
	for _, want := range []recv{
		{"hello", "a", 32768, false, OK},
		{"", "a", 32769, false, OK},
		{"self", "b", 53, false, OK},
		{"", "", 0, false, EAGAIN},
	} {
		if got := recvFrom(n, pb, 64); got != want {
			t.Fatalf("recv %+v, want %+v", got, want)
		}
	}
	if pb.Readable() {
		t.Fatal("readable when empty")
	}
	// The sender may reuse its buffer at once.
	p := []byte("first")
	n.SendTo(pa, "b", 53, p, false, false)
	copy(p, "XXXXX")
	settle(n)
	if got := recvFrom(n, pb, 64); got.data != "first" {
		t.Fatalf("recv %q: the datagram shares the sender's buffer", got.data)
	}
}

func TestDatagramTruncation(t *testing.T) {
	tests := []struct {
		name  string
		size  int
		buf   int
		want  string
		trunc bool
	}{
		{"fits", 10, 64, "0123456789", false},
		{"exactly", 10, 10, "0123456789", false},
		{"longer than the buffer", 10, 4, "0123", true},
		{"into an empty buffer", 10, 0, "", true},
		{"empty datagram, empty buffer", 0, 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := fixed(t)
			pa := listenPacket(t, n, "a", 0)
			pb := listenPacket(t, n, "b", 53)
			n.SendTo(pa, "b", 53, []byte("0123456789")[:tt.size], false, false)
			n.SendTo(pa, "b", 53, []byte("next"), false, false)
			settle(n)
			if got, want := recvFrom(n, pb, tt.buf), (recv{tt.want, "a", pa.Port, tt.trunc, OK}); got != want {
				t.Fatalf("recv %+v, want %+v", got, want)
			}
			// The rest of a truncated datagram is gone: the next read gets
			// the next datagram, through Read as well.
			buf := make([]byte, 64)
			if c, e := n.Read(pb, buf); e != OK || string(buf[:c]) != "next" {
				t.Fatalf("read %q, errno %d; want the next datagram", buf[:c], e)
			}
			if _, e := n.Read(pb, buf); e != EAGAIN {
				t.Fatalf("read of an empty datagram socket: errno %d, want EAGAIN", e)
			}
		})
	}
}

func TestDatagramErrors(t *testing.T) {
	tests := []struct {
		name string
		do   func(n *Net, pa, tcp *Socket) Errno
		want Errno
	}{
		{"send to an unknown node", func(n *Net, pa, _ *Socket) Errno { return n.SendTo(pa, "z", 53, nil, false, false) }, EHOSTUNREACH},
		{"send to port 0", func(n *Net, pa, _ *Socket) Errno { return n.SendTo(pa, "b", 0, nil, false, false) }, EINVAL},
		{"send to port 65536", func(n *Net, pa, _ *Socket) Errno { return n.SendTo(pa, "b", 65536, nil, false, false) }, EINVAL},
		{"send MaxDatagram", func(n *Net, pa, _ *Socket) Errno {
			return n.SendTo(pa, "b", 53, make([]byte, MaxDatagram), false, false)
		}, OK},
		{"send more than MaxDatagram", func(n *Net, pa, _ *Socket) Errno {
			return n.SendTo(pa, "b", 53, make([]byte, MaxDatagram+1), false, false)
		}, EMSGSIZE},
		{"send on a connection", func(n *Net, _, tcp *Socket) Errno { return n.SendTo(tcp, "b", 53, nil, false, false) }, EINVAL},
		{"send on a closed socket", func(n *Net, pa, _ *Socket) Errno {
			n.Close(pa)
			return n.SendTo(pa, "b", 53, nil, false, false)
		}, EINVAL},
		{"recv on a connection", func(n *Net, _, tcp *Socket) Errno { return recvFrom(n, tcp, 8).errno }, EINVAL},
		{"listen on a taken port", func(n *Net, pa, _ *Socket) Errno { _, e := n.ListenPacket("a", 1, pa.Port); return e }, EADDRINUSE},
		{"listen on the port another node took", func(n *Net, pa, _ *Socket) Errno { _, e := n.ListenPacket("b", 1, pa.Port); return e }, OK},
		{"listen on a TCP listener's port", func(n *Net, _, _ *Socket) Errno { _, e := n.ListenPacket("b", 1, 80); return e }, OK},
		{"listen on a port after close", func(n *Net, pa, _ *Socket) Errno {
			n.Close(pa)
			_, e := n.ListenPacket("a", 1, pa.Port)
			return e
		}, OK},
		{"listen on port -1", func(n *Net, _, _ *Socket) Errno { _, e := n.ListenPacket("a", 1, -1); return e }, EINVAL},
		{"listen on port 65536", func(n *Net, _, _ *Socket) Errno { _, e := n.ListenPacket("a", 1, 65536); return e }, EINVAL},
		{"write with no destination", func(n *Net, pa, _ *Socket) Errno { _, e := n.Write(pa, []byte("x")); return e }, EDESTADDRREQ},
		{"accept", func(n *Net, pa, _ *Socket) Errno { _, e := n.Accept(pa); return e }, EINVAL},
		{"shutdown", func(n *Net, pa, _ *Socket) Errno { return n.ShutdownWrite(pa) }, ENOTCONN},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := fixed(t)
			l := listen(t, n, "b", 80)
			tcp, _ := connect(t, n, l)
			pa := listenPacket(t, n, "a", 0)
			if got := tt.do(n, pa, tcp); got != tt.want {
				t.Fatalf("errno %d, want %d", got, tt.want)
			}
			if tt.want != OK && n.NextAt() != math.MaxInt64 {
				t.Fatal("a failed call scheduled a delivery")
			}
		})
	}
}

// TestDatagramDrops: each way a datagram is lost, and the counter it lands
// in.
func TestDatagramDrops(t *testing.T) {
	tests := []struct {
		name string
		do   func(t *testing.T, n *Net, pa, pb *Socket)
		got  []string // the datagrams b reads, in order
		want Drops
	}{
		{"delivered", func(t *testing.T, n *Net, pa, pb *Socket) {
			n.SendTo(pa, "b", 53, []byte("x"), false, false)
		}, []string{"x"}, Drops{}},
		{"lost", func(t *testing.T, n *Net, pa, pb *Socket) {
			n.SendTo(pa, "b", 53, []byte("x"), true, false)
		}, nil, Drops{Loss: 1}},
		{"duplicated", func(t *testing.T, n *Net, pa, pb *Socket) {
			n.SendTo(pa, "b", 53, []byte("x"), false, true)
		}, []string{"x", "x"}, Drops{}},
		{"lost and duplicated: lost", func(t *testing.T, n *Net, pa, pb *Socket) {
			n.SendTo(pa, "b", 53, []byte("x"), true, true)
		}, nil, Drops{Loss: 1}},
		{"nothing bound there", func(t *testing.T, n *Net, pa, pb *Socket) {
			n.SendTo(pa, "b", 54, []byte("x"), false, false)
		}, nil, Drops{NoSocket: 1}},
		{"bound after the send, before the arrival", func(t *testing.T, n *Net, pa, pb *Socket) {
			n.SendTo(pa, "b", 54, []byte("x"), false, false)
			p := listenPacket(t, n, "b", 54)
			settle(n)
			if got := recvFrom(n, p, 8); got.data != "x" {
				t.Fatalf("the socket bound in time got %+v", got)
			}
		}, nil, Drops{}},
		{"closed before the arrival", func(t *testing.T, n *Net, pa, pb *Socket) {
			n.SendTo(pa, "b", 53, []byte("x"), false, false)
			n.Close(pb)
		}, nil, Drops{NoSocket: 1}},
		{"the reader crashed", func(t *testing.T, n *Net, pa, pb *Socket) {
			n.SendTo(pa, "b", 53, []byte("x"), false, false)
			n.Crash([]*Socket{pb})
		}, nil, Drops{NoSocket: 1}},
		{"partition when sent", func(t *testing.T, n *Net, pa, pb *Socket) {
			mustPartition(t, n, [][]string{{"a"}, {"b"}})
			n.SendTo(pa, "b", 53, []byte("x"), false, false)
			n.Heal()
		}, nil, Drops{Cut: 1}},
		{"partition when arriving", func(t *testing.T, n *Net, pa, pb *Socket) {
			n.SendTo(pa, "b", 53, []byte("x"), false, false)
			mustPartition(t, n, [][]string{{"a"}, {"b"}})
		}, nil, Drops{Cut: 1}},
		{"partition that the datagram outlives", func(t *testing.T, n *Net, pa, pb *Socket) {
			n.SendTo(pa, "b", 53, []byte("x"), false, false)
			mustPartition(t, n, [][]string{{"a"}, {"b"}})
			n.Advance(3 * ms)
			n.Heal()
		}, []string{"x"}, Drops{}},
		{"a node left out of the partition", func(t *testing.T, n *Net, pa, pb *Socket) {
			mustPartition(t, n, [][]string{{"b"}, {"c"}})
			n.SendTo(pa, "b", 53, []byte("x"), false, false)
		}, []string{"x"}, Drops{}},
		{"queue full of empty datagrams", func(t *testing.T, n *Net, pa, pb *Socket) {
			for range DatagramQueueMax + 3 {
				n.SendTo(pa, "b", 53, nil, false, false)
			}
			settle(n)
			if pb.Queued() != DatagramQueueMax {
				t.Fatalf("queued %d, want %d", pb.Queued(), DatagramQueueMax)
			}
			for pb.Queued() > 0 {
				recvFrom(n, pb, 0)
			}
		}, nil, Drops{Full: 3}},
		{"buffer full of bytes", func(t *testing.T, n *Net, pa, pb *Socket) {
			for range 4 {
				n.SendTo(pa, "b", 53, make([]byte, MaxDatagram), false, false)
			}
			settle(n)
			// Three fit in DatagramBufferBytes; once one is read, a fourth
			// fits again.
			recvFrom(n, pb, 0)
			n.SendTo(pa, "b", 53, []byte("x"), false, false)
			settle(n)
			recvFrom(n, pb, 0)
			recvFrom(n, pb, 0)
		}, []string{"x"}, Drops{Full: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := New(1, [2]int64{5 * ms, 5 * ms}, []string{"a", "b", "c"})
			pa := listenPacket(t, n, "a", 0)
			pb := listenPacket(t, n, "b", 53)
			tt.do(t, n, pa, pb)
			settle(n)
			var got []string
			for {
				r := recvFrom(n, pb, 8)
				if r.errno != OK {
					break
				}
				got = append(got, r.data)
			}
			if !slices.Equal(got, tt.got) {
				t.Fatalf("b read %q, want %q", got, tt.got)
			}
			if d := n.DatagramDrops(); d != tt.want {
				t.Fatalf("drops %+v, want %+v", d, tt.want)
			}
		})
	}
}

// datagramArrivals sends 40 datagrams from a to b, 10 at each of 4 instants
// 1ms apart, and returns each one's arrival time by name and the order
// they were read in. drop and dup choose per datagram.
func datagramArrivals(t *testing.T, seed uint64, drop, dup func(i int) bool) (map[string][]int64, []string) {
	n := ranged(seed)
	pa := listenPacket(t, n, "a", 0)
	pb := listenPacket(t, n, "b", 53)
	for i := range 40 {
		n.SetNow(int64(i/10) * ms)
		n.SendTo(pa, "b", 53, []byte(fmt.Sprint(i)), drop(i), dup(i))
	}
	arrivals := map[string][]int64{}
	var order []string
	for {
		at, ok := step(n)
		if !ok {
			break
		}
		for {
			r := recvFrom(n, pb, 8)
			if r.errno != OK {
				break
			}
			arrivals[r.data] = append(arrivals[r.data], at)
			order = append(order, r.data)
		}
	}
	return arrivals, order
}

func never(int) bool { return false }

// TestDatagramOrder: datagrams arrive in any order, but in the same order
// every time.
func TestDatagramOrder(t *testing.T) {
	arrivals, order := datagramArrivals(t, 3, never, never)
	_, again := datagramArrivals(t, 3, never, never)
	if !slices.Equal(order, again) {
		t.Fatalf("same seed, different orders:\n%v\n%v", order, again)
	}
	_, other := datagramArrivals(t, 4, never, never)
	if slices.Equal(order, other) {
		t.Fatal("seeds 3 and 4 give the same order")
	}
	if len(order) != 40 {
		t.Fatalf("%d datagrams arrived, want 40", len(order))
	}
	inversions := 0
	for i := 1; i < len(order); i++ {
		var a, b int
		fmt.Sscan(order[i-1], &a)
		fmt.Sscan(order[i], &b)
		if b < a {
			inversions++
		}
	}
	if inversions == 0 {
		t.Fatalf("datagrams arrived in the order sent: %v", order)
	}
	for name, at := range arrivals {
		if len(at) != 1 {
			t.Fatalf("datagram %s arrived %d times", name, len(at))
		}
	}
}

// TestDatagramDupsAndDropsMoveNothingElse: a duplicate arrives twice, with
// its own latency, and adding or removing drops and dups (as shrinking
// does) leaves every other datagram's arrival time as it was.
func TestDatagramDupsAndDropsMoveNothingElse(t *testing.T) {
	base, _ := datagramArrivals(t, 8, never, never)
	dropped := func(i int) bool { return i%7 == 3 }
	duped := func(i int) bool { return i%5 == 1 }
	got, _ := datagramArrivals(t, 8, dropped, duped)
	differ := 0
	for i := range 40 {
		name := fmt.Sprint(i)
		switch {
		case dropped(i):
			if len(got[name]) != 0 {
				t.Errorf("dropped datagram %s arrived", name)
			}
		case duped(i):
			// The copy may arrive first: the original keeps its time.
			if len(got[name]) != 2 || !slices.Contains(got[name], base[name][0]) {
				t.Errorf("duplicated datagram %s arrived at %v, want twice, once at %v", name, got[name], base[name])
			}
			if got[name][0] != got[name][1] {
				differ++
			}
		default:
			if !slices.Equal(got[name], base[name]) {
				t.Errorf("datagram %s arrived at %v with drops and dups around it, %v without", name, got[name], base[name])
			}
		}
	}
	if differ == 0 {
		t.Error("every duplicate arrived at the same time as its original: the latencies are not independent")
	}
}

func TestEphemeralPorts(t *testing.T) {
	n := fixed(t)
	taken := listenPacket(t, n, "a", 32769)
	p1 := listenPacket(t, n, "a", 0)
	p2 := listenPacket(t, n, "a", 0)
	if p1.Port != 32768 || p2.Port != 32770 {
		t.Fatalf("ephemeral ports %d, %d; want 32768 and 32770 around the taken 32769", p1.Port, p2.Port)
	}
	n.Close(p1)
	n.Close(taken)
	if p3 := listenPacket(t, n, "a", 0); p3.Port != 32771 {
		t.Fatalf("next ephemeral port %d, want 32771: ports are not reused at once", p3.Port)
	}
	if pb := listenPacket(t, n, "b", 0); pb.Port != 32768 {
		t.Fatalf("b's first ephemeral port %d, want 32768: each node has its own", pb.Port)
	}
	// Going round the range: the port after the last is the first free one.
	n.nextPort["a"] = ephemeralHi
	if p := listenPacket(t, n, "a", 0); p.Port != ephemeralHi {
		t.Fatalf("port %d, want %d", p.Port, ephemeralHi)
	}
	if p := listenPacket(t, n, "a", 0); p.Port != 32768 {
		t.Fatalf("port %d after the top of the range, want 32768 (free again)", p.Port)
	}
}

func TestEphemeralPortsRunOut(t *testing.T) {
	n := fixed(t)
	for p := ephemeralLo; p <= ephemeralHi; p++ {
		listenPacket(t, n, "a", p)
	}
	if _, e := n.ListenPacket("a", 1, 0); e != EADDRINUSE {
		t.Fatalf("with every ephemeral port taken: errno %d, want EADDRINUSE", e)
	}
}

// TestDatagramSlowdowns: a slow clog and a slow node delay datagrams.
func TestDatagramSlowdowns(t *testing.T) {
	n := New(1, [2]int64{5 * ms, 5 * ms}, []string{"a", "b", "c"})
	mustClog(t, n, Clog{Node: "b", Dir: DirIn, Mode: ClogSlow, DelayNs: 20 * ms})
	if got := oneWay(t, n, "a", "b"); got != 25*ms {
		t.Fatalf("a -> b under a slow clog on b's inbound: %s, want 25ms", fmtMs(got))
	}
	if got := oneWay(t, n, "b", "a"); got != 5*ms {
		t.Fatalf("b -> a: %s, want 5ms", fmtMs(got))
	}
	n.SetSlow("c", 2)
	if got := oneWay(t, n, "c", "b"); got != 30*ms {
		t.Fatalf("c -> b with c 2x slow: %s, want 30ms", fmtMs(got))
	}
}
