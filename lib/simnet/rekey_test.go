package simnet

import (
	"reflect"
	"testing"
)

// latencies writes one byte on c, count times, and returns how long each
// took to arrive. rekeyAt, when above 0, re-keys the network with seed
// before that write (counting from 1).
func latencies(t *testing.T, n *Net, c *Socket, count, rekeyAt int, seed uint64) []int64 {
	t.Helper()
	var out []int64
	for i := 1; i <= count; i++ {
		if i == rekeyAt {
			n.Rekey(seed)
		}
		if _, e := n.Write(c, []byte{byte(i)}); e != OK {
			t.Fatalf("write %d: errno %d", i, e)
		}
		at := n.NextAt()
		out = append(out, at-n.Now())
		settle(n)
	}
	return out
}

func udpLatencies(t *testing.T, n *Net, count, rekeyAt int, seed uint64) []int64 {
	t.Helper()
	a, e := n.ListenPacket("a", 1, 9000)
	if e != OK {
		t.Fatal(e)
	}
	if _, e := n.ListenPacket("b", 1, 9000); e != OK {
		t.Fatal(e)
	}
	var out []int64
	for i := 1; i <= count; i++ {
		if i == rekeyAt {
			n.Rekey(seed)
		}
		if e := n.SendTo(a, "b", 9000, []byte{byte(i)}, false, false); e != OK {
			t.Fatalf("send %d: errno %d", i, e)
		}
		out = append(out, n.NextAt()-n.Now())
		settle(n)
	}
	return out
}

// TestRekey: after Rekey, open sockets draw their latencies from the new
// seed; before it, nothing changes; the same re-key twice gives the same
// latencies.
func TestRekey(t *testing.T) {
	tcp := func(rekeyAt int, seed uint64) []int64 {
		n := ranged(7)
		c, _ := connect(t, n, listen(t, n, "b", 7000))
		return latencies(t, n, c, 30, rekeyAt, seed)
	}
	udp := func(rekeyAt int, seed uint64) []int64 {
		return udpLatencies(t, ranged(7), 30, rekeyAt, seed)
	}
	for name, run := range map[string]func(int, uint64) []int64{"tcp": tcp, "udp": udp} {
		t.Run(name, func(t *testing.T) {
			plain := run(0, 0)
			branched := run(11, 99)
			if !reflect.DeepEqual(branched[:10], plain[:10]) {
				t.Errorf("latencies before the re-key moved:\n%v\n%v", branched[:10], plain[:10])
			}
			if reflect.DeepEqual(branched[10:], plain[10:]) {
				t.Errorf("latencies after the re-key are the old ones: %v", plain[10:])
			}
			if again := run(11, 99); !reflect.DeepEqual(again, branched) {
				t.Errorf("the same re-key twice: %v, then %v", branched, again)
			}
			if other := run(11, 100); reflect.DeepEqual(other[10:], branched[10:]) {
				t.Errorf("re-keys with seeds 99 and 100 give the same latencies")
			}
		})
	}
}
