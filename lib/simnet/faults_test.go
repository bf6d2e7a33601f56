package simnet

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// errName names the statuses a dialer goes through, for logs.
func errName(e Errno) string {
	switch e {
	case OK:
		return "ok"
	case EINPROGRESS:
		return "in progress"
	case ECONNREFUSED:
		return "refused"
	case ECONNRESET:
		return "reset"
	}
	return fmt.Sprintf("errno %d", e)
}

// watch follows what the programs on nodes a and b would see, one delivery
// instant at a time, and logs every change as "15ms what".
type watch struct {
	t      *testing.T
	n      *Net
	log    []string
	l      *Socket          // a listener whose accepts are logged
	ends   map[*Socket]bool // connection ends: their reads and errors are logged
	order  []*Socket        // ends, in the order they were added
	dial   *Socket          // a dial whose status changes are logged
	dialSt Errno
	pkts   []*Socket // datagram sockets whose datagrams are logged
}

func newWatch(t *testing.T, n *Net) *watch {
	return &watch{t: t, n: n, ends: map[*Socket]bool{}}
}

func (w *watch) logf(format string, args ...any) {
	w.log = append(w.log, fmtMs(w.n.Now())+" "+fmt.Sprintf(format, args...))
}

func (w *watch) end(s *Socket) {
	if !w.ends[s] {
		w.ends[s] = true
		w.order = append(w.order, s)
	}
}

func (w *watch) observe() {
	if w.dial != nil && w.dial.Status() != w.dialSt {
		w.dialSt = w.dial.Status()
		w.logf("dial %s", errName(w.dialSt))
	}
	if w.l != nil {
		for {
			if _, e := w.n.Accept(w.l); e != OK {
				break
			}
			w.logf("%s accepts", w.l.Node)
		}
	}
	for _, s := range w.order {
		if st := s.Status(); st != OK {
			w.logf("%s end %s", s.Node, errName(st))
			delete(w.ends, s)
			w.order = slices.DeleteFunc(w.order, func(x *Socket) bool { return x == s })
			continue
		}
		if s.Buffered() > 0 {
			w.logf("%s reads %q", s.Node, readAll(w.t, w.n, s))
		}
	}
	for _, p := range w.pkts {
		buf := make([]byte, 64)
		for {
			c, from, port, _, e := w.n.RecvFrom(p, buf)
			if e != OK {
				break
			}
			w.logf("%s gets %q from %s:%d", p.Node, buf[:c], from, port)
		}
	}
}

// until moves time to t one delivery instant at a time, observing after
// each.
func (w *watch) until(t int64) {
	for w.n.NextAt() <= t {
		step(w.n)
		w.observe()
	}
	w.n.Advance(t)
	w.observe()
}

func mustClog(t *testing.T, n *Net, c Clog) ClogID {
	t.Helper()
	id, err := n.Clog(c)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func mustPartition(t *testing.T, n *Net, groups [][]string) {
	t.Helper()
	if err := n.Partition(groups); err != nil {
		t.Fatal(err)
	}
}

// TestWhatAProgramSees is the spec's table of network faults, one row per
// mode (and shape) and protocol. Every hop takes 5ms. The fault starts at
// 10ms and lifts at 60ms.
//
// TCP: a connection a->b is up at 10ms; at 10ms a writes "ping", b writes
// "pong" and a dials b again. UDP: a sends "zero" at 8ms, "one" at 10ms and
// "two" at 60ms, after the lift; b sends "back" at 10ms.
func TestWhatAProgramSees(t *testing.T) {
	type lift func()
	partition := func(t *testing.T, n *Net) lift {
		mustPartition(t, n, [][]string{{"a"}, {"b"}})
		return n.Heal
	}
	clog := func(c Clog) func(t *testing.T, n *Net) lift {
		return func(t *testing.T, n *Net) lift {
			id := mustClog(t, n, c)
			return func() {
				if !n.Unclog(id) {
					t.Fatal("unclog: no such clog")
				}
			}
		}
	}
	ab := func(mode string, delay int64) Clog { return Clog{From: "a", To: "b", Mode: mode, DelayNs: delay} }
	ba := func(mode string, delay int64) Clog { return Clog{From: "b", To: "a", Mode: mode, DelayNs: delay} }
	tests := []struct {
		name  string
		proto string
		fault func(t *testing.T, n *Net) lift
		want  []string
	}{
		// Refused dial, data held both ways and delivered after the heal.
		{"partition", "tcp", partition, []string{
			"15ms dial refused", "60ms lift", `65ms a reads "pong"`, `65ms b reads "ping"`}},
		{"partition", "udp", partition, []string{
			"60ms lift", `65ms b gets "two" from a:32768`}},
		// A stop clog on one direction: the dial is refused, what crosses
		// the stopped direction is held, the other direction flows.
		{"stop a->b", "tcp", clog(ab(ClogStop, 0)), []string{
			"15ms dial refused", `15ms a reads "pong"`, "60ms lift", `65ms b reads "ping"`}},
		{"stop b->a", "tcp", clog(ba(ClogStop, 0)), []string{
			"15ms dial refused", `15ms b reads "ping"`, "60ms lift", `65ms a reads "pong"`}},
		{"stop, a out", "tcp", clog(Clog{Node: "a", Dir: DirOut, Mode: ClogStop}), []string{
			"15ms dial refused", `15ms a reads "pong"`, "60ms lift", `65ms b reads "ping"`}},
		{"stop, b in", "tcp", clog(Clog{Node: "b", Dir: DirIn, Mode: ClogStop}), []string{
			"15ms dial refused", `15ms a reads "pong"`, "60ms lift", `65ms b reads "ping"`}},
		{"stop, b both", "tcp", clog(Clog{Node: "b", Dir: DirBoth, Mode: ClogStop}), []string{
			"15ms dial refused", "60ms lift", `65ms a reads "pong"`, `65ms b reads "ping"`}},
		{"stop a->b", "udp", clog(ab(ClogStop, 0)), []string{
			`15ms a gets "back" from b:53`, "60ms lift", `65ms b gets "two" from a:32768`}},
		// A jam: no error anywhere, no data and no connection until the
		// lift; the dial then completes.
		{"jam a->b", "tcp", clog(ab(ClogJam, 0)), []string{
			`15ms a reads "pong"`, "60ms lift", "65ms b accepts", `65ms b reads "ping"`, "70ms dial ok"}},
		{"jam b->a", "tcp", clog(ba(ClogJam, 0)), []string{
			`15ms b reads "ping"`, "60ms lift", "65ms b accepts", `65ms a reads "pong"`, "70ms dial ok"}},
		{"jam a->b", "udp", clog(ab(ClogJam, 0)), []string{
			`15ms a gets "back" from b:53`, "60ms lift", `65ms b gets "two" from a:32768`}},
		// Slow: 20ms more on every message across a->b, in order; the
		// listener accepts 20ms later only when the slow direction points
		// at it, the dialer completes 20ms later either way.
		{"slow a->b", "tcp", clog(ab(ClogSlow, 20*ms)), []string{
			`15ms a reads "pong"`, "35ms b accepts", `35ms b reads "ping"`, "40ms dial ok", "60ms lift"}},
		{"slow b->a", "tcp", clog(ba(ClogSlow, 20*ms)), []string{
			"15ms b accepts", `15ms b reads "ping"`, `35ms a reads "pong"`, "40ms dial ok", "60ms lift"}},
		{"slow a->b", "udp", clog(ab(ClogSlow, 20*ms)), []string{
			`13ms b gets "zero" from a:32768`, `15ms a gets "back" from b:53`, `35ms b gets "one" from a:32768`,
			"60ms lift", `65ms b gets "two" from a:32768`}},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.proto, func(t *testing.T) {
			n := fixed(t)
			w := newWatch(t, n)
			var lifted lift
			switch tt.proto {
			case "tcp":
				l := listen(t, n, "b", 80)
				c, s := connect(t, n, l) // up at 10ms
				w.end(c)
				w.end(s)
				lifted = tt.fault(t, n)
				n.Write(c, []byte("ping"))
				n.Write(s, []byte("pong"))
				d, _ := n.Dial("a", 1, "b", 80)
				w.l, w.dial, w.dialSt = l, d, EINPROGRESS
			case "udp":
				pa, e := n.ListenPacket("a", 1, 0)
				if e != OK {
					t.Fatalf("listen a: errno %d", e)
				}
				pb, _ := n.ListenPacket("b", 1, 53)
				w.pkts = []*Socket{pa, pb}
				n.Advance(8 * ms)
				n.SendTo(pa, "b", 53, []byte("zero"), false, false)
				n.Advance(10 * ms)
				lifted = tt.fault(t, n)
				n.SendTo(pa, "b", 53, []byte("one"), false, false)
				n.SendTo(pb, "a", pa.Port, []byte("back"), false, false)
				defer func() {
					n.SendTo(pa, "b", 53, []byte("two"), false, false)
					w.until(200 * ms)
					w.check(tt.want)
				}()
			}
			w.until(60 * ms)
			lifted()
			w.logf("lift")
			w.observe()
			if tt.proto == "tcp" {
				w.until(200 * ms)
				w.check(tt.want)
			}
		})
	}
}

func (w *watch) check(want []string) {
	w.t.Helper()
	if !slices.Equal(w.log, want) {
		w.t.Fatalf("the programs saw\n\t%s\nwant\n\t%s", strings.Join(w.log, "\n\t"), strings.Join(want, "\n\t"))
	}
	if w.n.Held() != 0 || w.n.NextAt() != math.MaxInt64 {
		w.t.Fatalf("%d messages still held, next delivery at %d", w.n.Held(), w.n.NextAt())
	}
}

// TestInFlightTrafficIsHeld: what is on its way when a partition starts,
// data and a FIN, waits for the heal and arrives in order after it.
func TestInFlightTrafficIsHeld(t *testing.T) {
	n := fixed(t)
	l := listen(t, n, "b", 1)
	c, s := connect(t, n, l) // up at 10ms
	n.Write(c, []byte("in flight"))
	n.ShutdownWrite(c) // data and FIN due at 15ms
	n.Advance(12 * ms)
	mustPartition(t, n, [][]string{{"a"}, {"b"}})
	advanceTo(n, 40*ms)
	if s.Readable() || n.Held() != 2 {
		t.Fatalf("at 40ms: readable %v, %d held; want nothing readable and 2 held", s.Readable(), n.Held())
	}
	n.Heal()
	if at := n.NextAt(); at != 45*ms {
		t.Fatalf("after the heal at 40ms the next delivery is at %s, want 45ms", fmtMs(at))
	}
	advanceTo(n, 45*ms)
	if got := readAll(t, n, s); string(got) != "in flight" {
		t.Fatalf("read %q", got)
	}
	if k, e := n.Read(s, make([]byte, 1)); k != 0 || e != OK {
		t.Fatalf("after the data: %d, errno %d; want end of stream", k, e)
	}
}

// TestDialInFlightWhenAPartitionStarts: a SYN that arrives across a
// partition is refused; one held by a jam is accepted after the jam.
func TestDialInFlightWhenAPartitionStarts(t *testing.T) {
	n := fixed(t)
	l := listen(t, n, "b", 1)
	d, _ := n.Dial("a", 1, "b", 1) // SYN due at 5ms
	n.Advance(2 * ms)
	mustPartition(t, n, [][]string{{"a"}, {"b"}})
	n.Advance(5 * ms) // the SYN arrives, refused; the refusal takes a hop
	n.Heal()
	settle(n)
	if d.Status() != ECONNREFUSED || l.Readable() {
		t.Fatalf("dial %s, listener readable %v; want refused and nothing to accept", errName(d.Status()), l.Readable())
	}
}

// TestHeldTrafficStaysInOrder writes a stream in many chunks with drawn
// latencies while partitions come and go, and checks that the reader gets a
// prefix of the stream at every instant, nothing while a partition holds
// it, and all of it in the end.
func TestHeldTrafficStaysInOrder(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			n := ranged(seed)
			l := listen(t, n, "b", 1)
			c, s := connect(t, n, l)
			start := n.Now()
			// Cuts of both kinds over [start+20ms, start+120ms) and
			// [start+150ms, start+160ms); the writer writes every 3ms.
			type change struct {
				at int64
				do func()
			}
			var jam ClogID
			changes := []change{
				{start + 20*ms, func() { mustPartition(t, n, [][]string{{"a"}, {"b"}}) }},
				{start + 70*ms, func() { jam = mustClog(t, n, Clog{From: "a", To: "b", Mode: ClogJam}) }},
				{start + 90*ms, func() { n.Heal() }},
				{start + 120*ms, func() { n.Unclog(jam) }},
				{start + 150*ms, func() { mustClog(t, n, Clog{Node: "b", Dir: DirIn, Mode: ClogSlow, DelayNs: 30 * ms}) }},
				{start + 151*ms, func() { mustPartition(t, n, [][]string{{"b"}, {"a"}}) }},
				{start + 160*ms, func() { n.HealAll() }},
			}
			cut := func(at int64) bool {
				return (at >= start+20*ms && at < start+120*ms) || (at >= start+151*ms && at < start+160*ms)
			}
			var sent, got []byte
			for i := 0; i < 100; i++ {
				now := start + int64(i)*3*ms
				for len(changes) > 0 && changes[0].at <= now {
					advanceTo(n, changes[0].at)
					// What came before the change; nothing if a cut was
					// already on before this instant.
					before := len(got)
					got = append(got, readAll(t, n, s)...)
					if at := changes[0].at; len(got) > before && cut(at-1) {
						t.Fatalf("at %s (during a cut) read %d new bytes", fmtMs(at-start), len(got)-before)
					}
					changes[0].do()
					changes = changes[1:]
				}
				advanceTo(n, now)
				p := bytes.Repeat([]byte{byte('A' + i%26)}, 1+i%5)
				if i%17 == 0 {
					p = bytes.Repeat([]byte{byte('a' + i%26)}, 2*MaxChunk+3)
				}
				n.Write(c, p)
				sent = append(sent, p...)
				before := len(got)
				got = append(got, readAll(t, n, s)...)
				if len(got) > before && cut(now) {
					t.Fatalf("at %s (during a cut) read %d new bytes", fmtMs(now-start), len(got)-before)
				}
				if !bytes.Equal(got, sent[:len(got)]) {
					t.Fatalf("at %s: the bytes read are not a prefix of the bytes sent", fmtMs(now-start))
				}
			}
			for _, ch := range changes {
				advanceTo(n, ch.at)
				ch.do()
			}
			for {
				if _, ok := step(n); !ok {
					break
				}
				got = append(got, readAll(t, n, s)...)
				if !bytes.Equal(got, sent[:len(got)]) {
					t.Fatalf("at %s: the bytes read are not a prefix of the bytes sent", fmtMs(n.Now()-start))
				}
			}
			if !bytes.Equal(got, sent) {
				t.Fatalf("read %d bytes, sent %d", len(got), len(sent))
			}
			if n.Held() != 0 {
				t.Fatalf("%d still held", n.Held())
			}
		})
	}
}

// TestPartitionTopologies gives each topology shape as explicit groups and
// checks who can reach whom, both with Direction and with real dials.
func TestPartitionTopologies(t *testing.T) {
	nodes := []string{"n1", "n2", "n3", "n4", "client"}
	tests := []struct {
		name   string
		groups [][]string
		talk   []string // the pairs that can talk, both ways
	}{
		{"no partition", nil, []string{
			"n1-n2", "n1-n3", "n1-n4", "n1-client", "n2-n3", "n2-n4", "n2-client", "n3-n4", "n3-client", "n4-client"}},
		{"two halves", [][]string{{"n1", "n2", "client"}, {"n3", "n4"}}, []string{
			"n1-n2", "n1-client", "n2-client", "n3-n4"}},
		{"one isolated", [][]string{{"n3"}, {"n1", "n2", "n4", "client"}}, []string{
			"n1-n2", "n1-n4", "n1-client", "n2-n4", "n2-client", "n4-client"}},
		{"majority", [][]string{{"n2", "n4", "client"}, {"n1", "n3"}}, []string{
			"n2-n4", "n2-client", "n4-client", "n1-n3"}},
		// Every node talks to its two neighbours on the ring n1 n2 n3 n4
		// client: each sees a majority of 3 of 5, and no two see the same.
		{"majorities ring of five", [][]string{{"n1", "n2"}, {"n2", "n3"}, {"n3", "n4"}, {"n4", "client"}, {"client", "n1"}}, []string{
			"n1-n2", "n2-n3", "n3-n4", "n4-client", "n1-client"}},
		// The spec's example: a ring of four; n4, in no group, is left out
		// of the partition and talks to everyone.
		{"majorities ring of four, n4 left out", [][]string{{"n1", "n2"}, {"n2", "n3"}, {"n3", "client"}, {"client", "n1"}}, []string{
			"n1-n2", "n2-n3", "n3-client", "n1-client", "n1-n4", "n2-n4", "n3-n4", "n4-client"}},
		{"random groups", [][]string{{"n4"}, {"client", "n2"}, {"n1", "n3"}}, []string{
			"n2-client", "n1-n3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := New(1, [2]int64{5 * ms, 5 * ms}, nodes)
			talks := map[string]bool{}
			for _, p := range tt.talk {
				a, b, _ := strings.Cut(p, "-")
				talks[a+"-"+b], talks[b+"-"+a] = true, true
			}
			for _, node := range nodes {
				listen(t, n, node, 1)
			}
			mustPartition(t, n, tt.groups)
			type dial struct {
				from, to string
				s        *Socket
			}
			var dials []dial
			for _, a := range nodes {
				for _, b := range nodes {
					if a == b {
						continue
					}
					if got, want := n.Direction(a, b).Stopped, !talks[a+"-"+b]; got != want {
						t.Errorf("%s -> %s stopped %v, want %v", a, b, got, want)
					}
					s, _ := n.Dial(a, 1, b, 1)
					dials = append(dials, dial{a, b, s})
				}
			}
			settle(n)
			for _, d := range dials {
				want := ECONNREFUSED
				if talks[d.from+"-"+d.to] {
					want = OK
				}
				if d.s.Status() != want {
					t.Errorf("dial %s -> %s: %s, want %s", d.from, d.to, errName(d.s.Status()), errName(want))
				}
			}
			if strings.HasPrefix(tt.name, "majorities ring of five") {
				seen := map[string]string{}
				for _, a := range nodes {
					view := []string{a}
					for _, b := range nodes {
						if talks[a+"-"+b] {
							view = append(view, b)
						}
					}
					slices.Sort(view)
					if len(view) < 3 {
						t.Errorf("%s sees %v, not a majority", a, view)
					}
					key := strings.Join(view, ",")
					if other, dup := seen[key]; dup {
						t.Errorf("%s and %s see the same majority %s", other, a, key)
					}
					seen[key] = a
				}
			}
		})
	}
}

// TestNewPartitionReplacesPrevious: the traffic the old partition held and
// the new one does not cut goes at once; what the new one cuts waits.
func TestNewPartitionReplacesPrevious(t *testing.T) {
	n := New(1, [2]int64{5 * ms, 5 * ms}, []string{"a", "b", "c"})
	pb, _ := n.ListenPacket("b", 1, 9)
	_ = pb
	lb := listen(t, n, "b", 1)
	lc := listen(t, n, "c", 1)
	ab, sb := connect(t, n, lb)
	ac, sc := connect(t, n, lc) // both up at 10ms
	mustPartition(t, n, [][]string{{"a"}, {"b", "c"}})
	n.Write(ab, []byte("to b"))
	n.Write(ac, []byte("to c"))
	advanceTo(n, 30*ms)
	if n.Held() != 2 {
		t.Fatalf("%d held, want 2", n.Held())
	}
	mustPartition(t, n, [][]string{{"a", "b"}, {"c"}})
	advanceTo(n, 35*ms)
	if got := readAll(t, n, sb); string(got) != "to b" {
		t.Fatalf("b read %q at 35ms, want \"to b\"", got)
	}
	if sc.Readable() || n.Held() != 1 {
		t.Fatalf("c readable %v, %d held; want c to wait", sc.Readable(), n.Held())
	}
	if d := n.Direction("a", "b"); d.Stopped {
		t.Fatal("a -> b still stopped")
	}
	n.Heal()
	advanceTo(n, 40*ms)
	if got := readAll(t, n, sc); string(got) != "to c" {
		t.Fatalf("c read %q at 40ms", got)
	}
}

// TestFaultsStack: a slow clog over a partition adds its delay to the held
// traffic; traffic held by two faults waits for both to lift.
func TestFaultsStack(t *testing.T) {
	tests := []struct {
		name   string
		script func(t *testing.T, n *Net) // runs at 10ms; the data is written then
		want   int64                      // when the data arrives
	}{
		{"partition alone, healed at 100ms", func(t *testing.T, n *Net) {
			mustPartition(t, n, [][]string{{"a"}, {"b"}})
			advanceTo(n, 100*ms)
			n.Heal()
		}, 105 * ms},
		{"slow clog over a partition", func(t *testing.T, n *Net) {
			mustPartition(t, n, [][]string{{"a"}, {"b"}})
			mustClog(t, n, Clog{From: "a", To: "b", Mode: ClogSlow, DelayNs: 30 * ms})
			advanceTo(n, 100*ms)
			n.Heal()
		}, 135 * ms},
		{"two slow clogs add up over a partition", func(t *testing.T, n *Net) {
			mustPartition(t, n, [][]string{{"a"}, {"b"}})
			mustClog(t, n, Clog{From: "a", To: "b", Mode: ClogSlow, DelayNs: 30 * ms})
			mustClog(t, n, Clog{Node: "b", Dir: DirIn, Mode: ClogSlow, DelayNs: 7 * ms})
			advanceTo(n, 100*ms)
			n.Heal()
		}, 142 * ms},
		{"slow clog that ended before the heal", func(t *testing.T, n *Net) {
			mustPartition(t, n, [][]string{{"a"}, {"b"}})
			id := mustClog(t, n, Clog{From: "a", To: "b", Mode: ClogSlow, DelayNs: 30 * ms})
			advanceTo(n, 50*ms)
			n.Unclog(id)
			advanceTo(n, 100*ms)
			n.Heal()
		}, 105 * ms},
		{"stop clog outlasts the partition", func(t *testing.T, n *Net) {
			mustPartition(t, n, [][]string{{"a"}, {"b"}})
			id := mustClog(t, n, Clog{Node: "a", Dir: DirOut, Mode: ClogStop})
			advanceTo(n, 100*ms)
			n.Heal()
			advanceTo(n, 150*ms)
			n.Unclog(id)
		}, 155 * ms},
		{"partition outlasts a jam", func(t *testing.T, n *Net) {
			mustPartition(t, n, [][]string{{"a"}, {"b"}})
			id := mustClog(t, n, Clog{From: "a", To: "b", Mode: ClogJam})
			advanceTo(n, 100*ms)
			n.Unclog(id)
			advanceTo(n, 150*ms)
			n.Heal()
		}, 155 * ms},
		{"HealAll ends everything", func(t *testing.T, n *Net) {
			mustPartition(t, n, [][]string{{"a"}, {"b"}})
			mustClog(t, n, Clog{From: "a", To: "b", Mode: ClogJam})
			mustClog(t, n, Clog{From: "a", To: "b", Mode: ClogSlow, DelayNs: 30 * ms})
			n.SetSlow("a", 4)
			advanceTo(n, 100*ms)
			n.HealAll()
		}, 105 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := fixed(t)
			l := listen(t, n, "b", 1)
			c, s := connect(t, n, l)
			n.Write(c, []byte("x"))
			tt.script(t, n)
			at, ok := step(n)
			if !ok || at != tt.want || s.Buffered() != 1 {
				t.Fatalf("data arrived at %s (buffered %d), want %s", fmtMs(at), s.Buffered(), fmtMs(tt.want))
			}
		})
	}
}

func TestClogShapes(t *testing.T) {
	nodes := []string{"a", "b", "c"}
	tests := []struct {
		clog Clog
		cut  []string // the directions it cuts
	}{
		{Clog{From: "a", To: "b", Mode: ClogStop}, []string{"a->b"}},
		{Clog{Node: "a", Dir: DirOut, Mode: ClogStop}, []string{"a->b", "a->c"}},
		{Clog{Node: "a", Dir: DirIn, Mode: ClogStop}, []string{"b->a", "c->a"}},
		{Clog{Node: "a", Dir: DirBoth, Mode: ClogStop}, []string{"a->b", "a->c", "b->a", "c->a"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%+v", tt.clog), func(t *testing.T) {
			n := New(1, [2]int64{5 * ms, 5 * ms}, nodes)
			id := mustClog(t, n, tt.clog)
			var cut []string
			for _, a := range nodes {
				for _, b := range nodes {
					if n.Direction(a, b).Stopped {
						cut = append(cut, a+"->"+b)
					}
				}
			}
			if !slices.Equal(cut, tt.cut) {
				t.Fatalf("cuts %v, want %v", cut, tt.cut)
			}
			n.Unclog(id)
			for _, a := range nodes {
				for _, b := range nodes {
					if n.Direction(a, b) != (DirState{}) {
						t.Fatalf("%s -> %s still clogged after Unclog", a, b)
					}
				}
			}
		})
	}
}

func TestClogIDs(t *testing.T) {
	n := fixed(t)
	a := mustClog(t, n, Clog{From: "a", To: "b", Mode: ClogJam})
	b := mustClog(t, n, Clog{From: "a", To: "b", Mode: ClogStop})
	if a != 1 || b != 2 {
		t.Fatalf("ids %d, %d; want 1, 2", a, b)
	}
	if !n.Unclog(a) || n.Unclog(a) || n.Unclog(99) {
		t.Fatal("Unclog must report true once for an existing clog and false otherwise")
	}
	if d := n.Direction("a", "b"); !d.Stopped || d.Jammed {
		t.Fatalf("after removing the jam: %+v", d)
	}
	if c := mustClog(t, n, Clog{From: "b", To: "a", Mode: ClogJam}); c != 3 {
		t.Fatalf("id %d reused, want 3", c)
	}
}

func TestFaultErrors(t *testing.T) {
	tests := []struct {
		name string
		do   func(n *Net) error
		want string
	}{
		{"unknown mode", func(n *Net) error {
			_, err := n.Clog(Clog{From: "a", To: "b", Mode: "fast"})
			return err
		}, `clog: unknown mode "fast", want stop, slow or jam`},
		{"no mode", func(n *Net) error { _, err := n.Clog(Clog{From: "a", To: "b"}); return err },
			`clog: unknown mode "", want stop, slow or jam`},
		{"negative delay", func(n *Net) error {
			_, err := n.Clog(Clog{From: "a", To: "b", Mode: ClogSlow, DelayNs: -1})
			return err
		}, `clog: negative delay -1`},
		{"delay on a stop clog", func(n *Net) error {
			_, err := n.Clog(Clog{From: "a", To: "b", Mode: ClogStop, DelayNs: 5})
			return err
		}, `clog: a delay with mode "stop"; only slow takes one`},
		{"node and link", func(n *Net) error {
			_, err := n.Clog(Clog{Node: "a", Dir: DirIn, To: "b", Mode: ClogStop})
			return err
		}, `clog: node "a" with from or to; a clog is one link or one node`},
		{"node without dir", func(n *Net) error { _, err := n.Clog(Clog{Node: "a", Mode: ClogStop}); return err },
			`clog: node "a" needs dir in, out or both, got ""`},
		{"bad dir", func(n *Net) error { _, err := n.Clog(Clog{Node: "a", Dir: "up", Mode: ClogStop}); return err },
			`clog: node "a" needs dir in, out or both, got "up"`},
		{"unknown clog node", func(n *Net) error { _, err := n.Clog(Clog{Node: "z", Dir: DirIn, Mode: ClogStop}); return err },
			`clog: unknown node "z"`},
		{"dir without node", func(n *Net) error {
			_, err := n.Clog(Clog{From: "a", To: "b", Dir: DirIn, Mode: ClogStop})
			return err
		}, `clog: dir "in" without a node`},
		{"link to itself", func(n *Net) error { _, err := n.Clog(Clog{From: "a", To: "a", Mode: ClogStop}); return err },
			`clog: from and to must name two different nodes, got "a" and "a"`},
		{"half a link", func(n *Net) error { _, err := n.Clog(Clog{From: "a", Mode: ClogStop}); return err },
			`clog: from and to must name two different nodes, got "a" and ""`},
		{"unknown link node", func(n *Net) error { _, err := n.Clog(Clog{From: "a", To: "z", Mode: ClogStop}); return err },
			`clog: unknown node "z"`},
		{"partition of an unknown node", func(n *Net) error { return n.Partition([][]string{{"a"}, {"b", "z"}}) },
			`partition: groups[1][1]: unknown node "z"`},
		{"link from an unknown node", func(n *Net) error {
			return n.SetLinks([]Link{{To: "b", LatencyNs: [2]int64{1, 2}}, {From: "z", LatencyNs: [2]int64{1, 2}}})
		}, `links[1].from: unknown node "z"`},
		{"link to an unknown node", func(n *Net) error { return n.SetLinks([]Link{{To: "z", LatencyNs: [2]int64{1, 2}}}) },
			`links[0].to: unknown node "z"`},
		{"reversed link latency", func(n *Net) error { return n.SetLinks([]Link{{To: "b", LatencyNs: [2]int64{5, 2}}}) },
			`links[0].latency: reversed range [5 2]`},
		{"negative link latency", func(n *Net) error { return n.SetLinks([]Link{{To: "b", LatencyNs: [2]int64{-1, 2}}}) },
			`links[0].latency: negative range [-1 2]`},
		{"slow below 1", func(n *Net) error { return n.SetSlow("a", 0.5) }, `slow a: factor 0.5, want at least 1`},
		{"slow NaN", func(n *Net) error { return n.SetSlow("a", math.NaN()) }, `slow a: factor NaN, want at least 1`},
		{"slow infinite", func(n *Net) error { return n.SetSlow("a", math.Inf(1)) }, `slow a: factor +Inf, want at least 1`},
		{"slow unknown node", func(n *Net) error { return n.SetSlow("z", 2) }, `slow: unknown node "z"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := fixed(t)
			mustPartition(t, n, [][]string{{"a"}, {"b"}})
			err := tt.do(n)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			// A rejected call changes nothing.
			if d := n.Direction("a", "b"); !d.Stopped || d.Jammed || d.DelayNs != 0 {
				t.Fatalf("state changed: %+v", d)
			}
			if len(n.clogs) != 0 || len(n.links) != 0 || len(n.slow) != 0 {
				t.Fatalf("state changed: %d clogs, %d links, %d slow", len(n.clogs), len(n.links), len(n.slow))
			}
		})
	}
}

// oneWay measures the latency of one datagram from one node to another.
func oneWay(t *testing.T, n *Net, from, to string) int64 {
	t.Helper()
	src, e1 := n.ListenPacket(from, 1, 0)
	dst, e2 := n.ListenPacket(to, 1, 0)
	if e1 != OK || e2 != OK {
		t.Fatalf("listen: errno %d, %d", e1, e2)
	}
	defer n.Close(src)
	defer n.Close(dst)
	start := n.Now()
	if e := n.SendTo(src, to, dst.Port, []byte("?"), false, false); e != OK {
		t.Fatalf("send: errno %d", e)
	}
	at, ok := step(n)
	if !ok || dst.Queued() != 1 {
		t.Fatalf("%s -> %s: datagram lost", from, to)
	}
	return at - start
}

// tcpOneWay measures the latency of one chunk on a connection.
func tcpOneWay(t *testing.T, n *Net, c, s *Socket) int64 {
	t.Helper()
	start := n.Now()
	n.Write(c, []byte("?"))
	at, ok := step(n)
	if !ok || s.Buffered() == 0 {
		t.Fatal("chunk lost")
	}
	readAll(t, n, s)
	return at - start
}

func TestLinksFirstMatchWins(t *testing.T) {
	n := New(1, [2]int64{5 * ms, 5 * ms}, []string{"a", "b", "c"})
	err := n.SetLinks([]Link{
		{From: "a", To: "b", LatencyNs: [2]int64{20 * ms, 20 * ms}},
		{To: "b", LatencyNs: [2]int64{40 * ms, 40 * ms}},
		{From: "c", LatencyNs: [2]int64{60 * ms, 60 * ms}},
		{From: "b", To: "c", LatencyNs: [2]int64{1 * ms, 2 * ms}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		from, to string
		want     int64
	}{
		{"a", "b", 20 * ms}, // the first entry
		{"c", "b", 40 * ms}, // "to b" comes before "from c"
		{"c", "a", 60 * ms},
		{"b", "a", 5 * ms}, // no entry: the global range; links are one-way
		{"a", "c", 5 * ms},
	} {
		if got := oneWay(t, n, tt.from, tt.to); got != tt.want {
			t.Errorf("%s -> %s took %s, want %s", tt.from, tt.to, fmtMs(got), fmtMs(tt.want))
		}
	}
	seen := map[int64]bool{}
	for range 40 {
		got := oneWay(t, n, "b", "c")
		if got < 1*ms || got > 2*ms {
			t.Fatalf("b -> c took %d, outside the link's [1ms, 2ms]", got)
		}
		seen[got] = true
	}
	if len(seen) < 10 {
		t.Fatalf("b -> c drew only %d distinct latencies", len(seen))
	}
	// Links apply to TCP too, one-way: the handshake takes 20ms there and
	// 5ms back.
	l := listen(t, n, "b", 1)
	d, _ := n.Dial("a", 1, "b", 1)
	start := n.Now()
	for d.Status() == EINPROGRESS {
		step(n)
	}
	if got := n.Now() - start; got != 25*ms || d.Status() != OK {
		t.Fatalf("handshake a -> b took %s (%s), want 25ms", fmtMs(got), errName(d.Status()))
	}
	s, _ := n.Accept(l)
	if got := tcpOneWay(t, n, d, s); got != 20*ms {
		t.Fatalf("chunk a -> b took %s, want 20ms", fmtMs(got))
	}
	if got := tcpOneWay(t, n, s, d); got != 5*ms {
		t.Fatalf("chunk b -> a took %s, want 5ms", fmtMs(got))
	}
	// Replacing the links with none restores the global range.
	n.SetLinks(nil)
	if got := oneWay(t, n, "a", "b"); got != 5*ms {
		t.Fatalf("a -> b took %s after clearing the links", fmtMs(got))
	}
}

func TestSetSlow(t *testing.T) {
	n := New(1, [2]int64{5 * ms, 5 * ms}, []string{"a", "b", "c"})
	steps := []struct {
		name string
		do   func()
		want map[string]int64 // "from->to": latency
	}{
		{"nobody slow", func() {}, map[string]int64{"a->b": 5 * ms, "b->a": 5 * ms, "a->c": 5 * ms}},
		{"b 3x", func() { n.SetSlow("b", 3) }, map[string]int64{"a->b": 15 * ms, "b->a": 15 * ms, "a->c": 5 * ms, "b->b": 15 * ms}},
		{"a 2x too: the larger wins", func() { n.SetSlow("a", 2) }, map[string]int64{"a->b": 15 * ms, "a->c": 10 * ms}},
		{"a fractional", func() { n.SetSlow("a", 4.5) }, map[string]int64{"a->b": 22*ms + ms/2, "c->a": 22*ms + ms/2}},
		{"a slow clog is added, not stretched", func() {
			mustClog(t, n, Clog{From: "c", To: "b", Mode: ClogSlow, DelayNs: 10 * ms})
		}, map[string]int64{"c->b": 25 * ms, "b->c": 15 * ms}},
		{"factor 1 ends it", func() { n.SetSlow("b", 1); n.SetSlow("a", 1) }, map[string]int64{"a->b": 5 * ms, "b->a": 5 * ms, "c->b": 15 * ms}},
	}
	for _, st := range steps {
		st.do()
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range st.want {
				if !yield(k) {
					return
				}
			}
		}) {
			from, to, _ := strings.Cut(k, "->")
			if got := oneWay(t, n, from, to); got != st.want[k] {
				t.Errorf("%s: %s took %d, want %d", st.name, k, got, st.want[k])
			}
		}
	}
	// The stretch applies to TCP chunks and keeps them in order.
	n2 := ranged(7)
	l := listen(t, n2, "b", 1)
	c, s := connect(t, n2, l)
	n2.SetSlow("a", 10)
	var sent []byte
	for i := range 50 {
		n2.SetNow(n2.Now() + ms)
		p := []byte{byte(i)}
		n2.Write(c, p)
		sent = append(sent, p...)
	}
	var last int64
	for e := range n2.queue {
		last = max(last, n2.queue[e].at)
	}
	if last-n2.Now() < 50*ms {
		t.Fatalf("the last chunk arrives %s after the last write; a 10x slowdown of [1ms, 50ms] should make some take longer", fmtMs(last-n2.Now()))
	}
	settle(n2)
	if got := readAll(t, n2, s); !bytes.Equal(got, sent) {
		t.Fatalf("read %v, sent %v", got, sent)
	}
}

func TestResetNode(t *testing.T) {
	n := New(1, [2]int64{5 * ms, 5 * ms}, []string{"a", "b", "c"})
	lb := listen(t, n, "b", 80)
	la := listen(t, n, "a", 81)
	lc := listen(t, n, "c", 82)
	dial := func(from string, l *Socket) *Socket {
		d, _ := n.Dial(from, 1, l.Node, l.Port)
		return d
	}
	x1 := dial("a", lb) // a's dial to b
	x2 := dial("c", la) // c's dial to a, accepted below
	x3 := dial("c", la) // c's dial to a, left in a's backlog
	x4 := dial("b", lc) // b's dial to c: nothing to do with a
	x5 := dial("a", lb) // a's dial to b, closed cleanly below
	settle(n)
	y1, _ := n.Accept(lb)
	y5, _ := n.Accept(lb)
	y2, _ := n.Accept(la)
	y4, _ := n.Accept(lc)
	n.Close(x5)
	n.Close(y5)
	settle(n)
	for _, s := range []*Socket{x1, x2, x3, x4, y1, y2, y4} {
		if s.Status() != OK {
			t.Fatalf("setup: a connection is not up: %s", errName(s.Status()))
		}
	}
	if got := n.ResetNode("c"); got != 3 {
		// Only to check the count of a node with several ends; undone
		// below by starting over.
		t.Fatalf("ResetNode(c) = %d, want 3 (two dials to a and the end accepted from b)", got)
	}
	if x2.Status() != ECONNRESET || x3.Status() != ECONNRESET || y4.Status() != ECONNRESET {
		t.Fatal("c's ends not reset at once")
	}
	if got := n.ResetNode("c"); got != 0 {
		t.Fatalf("second ResetNode(c) = %d, want 0", got)
	}
	start := n.Now()
	if y2.Status() != OK || x4.Status() != OK {
		t.Fatal("peers reset before the reset traveled")
	}
	at, _ := step(n)
	if at != start+5*ms {
		t.Fatalf("reset reached the peers at %s, want one hop", fmtMs(at-start))
	}
	if y2.Status() != ECONNRESET || x4.Status() != ECONNRESET {
		t.Fatalf("peers after one hop: %s, %s", errName(y2.Status()), errName(x4.Status()))
	}
	// a's end of x3, never accepted, was reset: accepting it shows it.
	y3, e := n.Accept(la)
	if e != OK || y3.Status() != ECONNRESET {
		t.Fatalf("accepting a reset backlog connection: errno %d, status %s", e, errName(y3.Status()))
	}
	settle(n)
	// Now a: one dial to b; the closed connection does not count.
	if x1.Status() != OK || y1.Status() != OK {
		t.Fatal("a's connection to b touched by c's reset")
	}
	// A reset across a partition reaches the peer after the heal.
	mustPartition(t, n, [][]string{{"a"}, {"b", "c"}})
	if got := n.ResetNode("a"); got != 1 {
		t.Fatalf("ResetNode(a) = %d, want 1", got)
	}
	if x1.Status() != ECONNRESET {
		t.Fatal("a's end not reset at once")
	}
	advanceTo(n, n.Now()+100*ms)
	if y1.Status() != OK {
		t.Fatal("the reset crossed the partition")
	}
	n.Heal()
	settle(n)
	if y1.Status() != ECONNRESET {
		t.Fatalf("b's end after the heal: %s", errName(y1.Status()))
	}
	// Listeners survive: both accept new connections.
	for _, l := range []*Socket{la, lb, lc} {
		c := dial("c", l)
		settle(n)
		if c.Status() != OK {
			t.Fatalf("dial to %s after the resets: %s", l.Node, errName(c.Status()))
		}
	}
	if got := n.ResetNode("nobody"); got != 0 {
		t.Fatalf("ResetNode of an unknown node = %d", got)
	}
}

// TestResetNodeDuringHandshake: a dial under way is reset too, and its
// listener does not keep a connection nobody owns.
func TestResetNodeDuringHandshake(t *testing.T) {
	n := fixed(t)
	l := listen(t, n, "b", 1)
	d, _ := n.Dial("a", 1, "b", 1)
	n.Advance(7 * ms) // the SYN arrived at 5ms, the SYN-ACK is due at 10ms
	if got := n.ResetNode("a"); got != 1 {
		t.Fatalf("ResetNode = %d, want 1", got)
	}
	settle(n)
	if d.Status() != ECONNRESET {
		t.Fatalf("dialer %s", errName(d.Status()))
	}
	s, e := n.Accept(l)
	if e != OK || s.Status() != ECONNRESET {
		t.Fatalf("accepted end: errno %d, %s", e, errName(s.Status()))
	}
}

// TestConnsListIsCompacted: connections that ended do not pile up in the
// list ResetNode walks.
func TestConnsListIsCompacted(t *testing.T) {
	n := fixed(t)
	l := listen(t, n, "b", 1)
	for range 1000 {
		c, s := connect(t, n, l)
		n.Close(c)
		n.Close(s)
		settle(n)
	}
	if len(n.conns) > 200 {
		t.Fatalf("%d sockets tracked after 1000 closed connections", len(n.conns))
	}
}

// faultTimeline runs a fixed script of connections, datagrams and faults
// over drawn latencies and returns everything the programs saw.
func faultTimeline(seed uint64) string { return faultTimelineCloned(seed, -1, nil) }

// faultTimelineCloned is faultTimeline that, at time cloneAt, goes on with a
// clone of the network, handing the original to scribble first.
func faultTimelineCloned(seed uint64, cloneAt int64, scribble func(n *Net, socks []*Socket)) string {
	return faultTimelineCopied(seed, cloneAt, scribble, func(n *Net, _ []*Socket) (*Net, func(*Socket) *Socket) {
		cl := n.Clone()
		return cl.Net, cl.Socket
	})
}

// faultTimelineCopied is faultTimelineCloned with the copy made by copyNet,
// which is given the sockets the script holds and returns the copy and the
// map from the original's sockets to the copy's.
func faultTimelineCopied(seed uint64, cloneAt int64, scribble func(n *Net, socks []*Socket),
	copyNet func(n *Net, held []*Socket) (*Net, func(*Socket) *Socket)) string {
	n := New(seed, [2]int64{1 * ms, 30 * ms}, []string{"a", "b", "c"})
	n.SetLinks([]Link{{From: "c", LatencyNs: [2]int64{10 * ms, 90 * ms}}})
	var out strings.Builder
	lb, _ := n.Listen("b", 1, 80)
	pb, _ := n.ListenPacket("b", 1, 53)
	pa, _ := n.ListenPacket("a", 1, 0)
	pc, _ := n.ListenPacket("c", 1, 0)
	var conns []*Socket
	script := map[int64]func(){
		0:        func() { conns = append(conns, must(n.Dial("a", 1, "b", 80)), must(n.Dial("c", 1, "b", 80))) },
		40 * ms:  func() { n.Partition([][]string{{"a", "b"}, {"b", "c"}}) },
		60 * ms:  func() { n.Clog(Clog{Node: "b", Dir: DirOut, Mode: ClogSlow, DelayNs: 25 * ms}) },
		90 * ms:  func() { n.SetSlow("a", 3) },
		120 * ms: func() { n.Clog(Clog{From: "a", To: "b", Mode: ClogJam}) },
		150 * ms: func() { n.Heal() },
		170 * ms: func() { conns = append(conns, must(n.Dial("c", 1, "b", 80))) },
		200 * ms: func() { n.Unclog(2) },
		230 * ms: func() { fmt.Fprintf(&out, "reset a: %d\n", n.ResetNode("a")) },
		260 * ms: func() { n.HealAll() },
	}
	var accepted []*Socket
	for now := int64(0); now <= 400*ms; now += ms {
		if now == cloneAt {
			old := append(append([]*Socket(nil), conns...), accepted...)
			c, sock := copyNet(n, append([]*Socket{lb, pb, pa, pc}, old...))
			for _, p := range []**Socket{&lb, &pb, &pa, &pc} {
				*p = sock(*p)
			}
			for i := range conns {
				conns[i] = sock(conns[i])
			}
			for i := range accepted {
				accepted[i] = sock(accepted[i])
			}
			if scribble != nil {
				scribble(n, old)
			}
			n = c
		}
		advanceTo(n, now)
		if f := script[now]; f != nil {
			f()
		}
		for {
			s, e := n.Accept(lb)
			if e != OK {
				break
			}
			accepted = append(accepted, s)
		}
		if now%(7*ms) == 0 {
			for i, c := range conns {
				if c.Status() == OK {
					n.Write(c, []byte(fmt.Sprintf("%d@%d;", i, now/ms)))
				}
			}
			n.SendTo(pa, "b", 53, []byte(fmt.Sprintf("a%d", now/ms)), now%(21*ms) == 0, now%(35*ms) == 0)
			n.SendTo(pc, "b", 53, []byte(fmt.Sprintf("c%d", now/ms)), false, false)
		}
		for i, s := range accepted {
			if s.Buffered() > 0 || s.Status() != OK {
				buf := make([]byte, 1024)
				k, e := n.Read(s, buf)
				fmt.Fprintf(&out, "%d s%d %q %d\n", now/ms, i, buf[:k], e)
			}
		}
		for {
			buf := make([]byte, 16)
			k, from, _, _, e := n.RecvFrom(pb, buf)
			if e != OK {
				break
			}
			fmt.Fprintf(&out, "%d b<-%s %q\n", now/ms, from, buf[:k])
		}
		for i, c := range conns {
			if c.Status() != OK && c.Status() != EINPROGRESS {
				fmt.Fprintf(&out, "%d c%d %s\n", now/ms, i, errName(c.Status()))
			}
		}
	}
	fmt.Fprintf(&out, "drops %+v held %d\n", n.DatagramDrops(), n.Held())
	return out.String()
}

func must(s *Socket, e Errno) *Socket {
	if e != OK {
		panic(fmt.Sprintf("errno %d", e))
	}
	return s
}

func TestDeterminismWithFaults(t *testing.T) {
	a, b := faultTimeline(5), faultTimeline(5)
	if a != b {
		t.Fatalf("same seed, different timelines:\n%s\nvs\n%s", a, b)
	}
	if c := faultTimeline(6); c == a {
		t.Fatal("seeds 5 and 6 give the same timeline")
	}
	for _, want := range []string{"b<-a", "b<-c", "reset a: ", "Cut:", "s0", "s1"} {
		if !strings.Contains(a, want) {
			t.Fatalf("the timeline never shows %q, so the script does not exercise it:\n%s", want, a)
		}
	}
}
