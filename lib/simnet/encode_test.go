package simnet

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/sf-dst/sf/lib/wire"
	"github.com/sf-dst/sf/lib/wire/wiretest"
)

// TestEncodeGoesOn: a network encoded and decoded at any moment of a script
// of connections, datagrams and faults shows the programs exactly what the
// network it was encoded from would have, and the decoded network encodes
// to the same bytes.
func TestEncodeGoesOn(t *testing.T) {
	for _, seed := range []uint64{5, 6, 7} {
		want := faultTimeline(seed)
		for _, at := range []int64{0, 1 * ms, 45 * ms, 61 * ms, 121 * ms, 149 * ms, 201 * ms, 231 * ms, 300 * ms} {
			t.Run(fmt.Sprintf("seed %d at %dms", seed, at/ms), func(t *testing.T) {
				got := faultTimelineCopied(seed, at, scribble, func(n *Net, held []*Socket) (*Net, func(*Socket) *Socket) {
					enc, num := encodeNet(n, held)
					if again, _ := encodeNet(n, held); !bytes.Equal(enc, again) {
						t.Fatal("one network encoded twice gave different bytes")
					}
					r := wire.NewReader(enc)
					c, sock := Decode(r)
					if err := r.Done(); err != nil {
						t.Fatalf("decoding: %v", err)
					}
					if again, _ := encodeNet(c, mapped(held, num, sock)); !bytes.Equal(enc, again) {
						t.Fatal("the decoded network encodes otherwise than the original")
					}
					return c, func(s *Socket) *Socket { return sock(num(s)) }
				})
				if got != want {
					t.Errorf("the decoded network's timeline differs:\n%s\nwant\n%s", got, want)
				}
			})
		}
	}
}

func encodeNet(n *Net, held []*Socket) ([]byte, func(*Socket) uint64) {
	w := wire.NewWriter(0)
	num := n.Encode(w, held)
	return w.Data(), num
}

func mapped(held []*Socket, num func(*Socket) uint64, sock func(uint64) *Socket) []*Socket {
	out := make([]*Socket, len(held))
	for i, s := range held {
		out[i] = sock(num(s))
	}
	return out
}

// TestDecodeCorrupt: every prefix of a network's encoding, and the encoding
// with any one byte changed, decodes to an error or a network, never a
// panic, and a socket number past the sockets is an error.
func TestDecodeCorrupt(t *testing.T) {
	var enc []byte
	faultTimelineCopied(6, 121*ms, nil, func(n *Net, held []*Socket) (*Net, func(*Socket) *Socket) {
		enc, _ = encodeNet(n, held)
		return n, func(s *Socket) *Socket { return s }
	})
	for k := range len(enc) {
		r := wire.NewReader(enc[:k])
		if n, _ := Decode(r); n != nil && r.Done() == nil {
			t.Fatalf("the first %d of %d bytes decoded without an error", k, len(enc))
		}
	}
	for i := range enc {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			b := bytes.Clone(enc)
			b[i] ^= x
			r := wire.NewReader(b)
			Decode(r)
			_ = r.Done()
		}
	}
	r := wire.NewReader(enc)
	_, sock := Decode(r)
	if sock(1<<40) != nil || r.Err() == nil {
		t.Errorf("a socket number past the sockets: error %v", r.Err())
	}
}

// FuzzDecode: no input makes Decode panic.
func FuzzDecode(f *testing.F) {
	n := New(1, [2]int64{ms, 2 * ms}, []string{"a", "b"})
	l, _ := n.Listen("b", 1, 80)
	c, _ := n.Dial("a", 1, "b", 80)
	enc, _ := encodeNet(n, []*Socket{l, c})
	f.Add(enc)
	f.Fuzz(func(t *testing.T, b []byte) {
		r := wire.NewReader(b)
		Decode(r)
		_ = r.Done()
	})
}

// TestEncodeCoversEveryField pins the fields Encode writes: a field added
// to one of these types fails here until Encode and Decode write it. Net's
// free is the one field that is not state (delivered events kept for reuse):
// Encode leaves it out, as Clone does.
func TestEncodeCoversEveryField(t *testing.T) {
	pinned := map[reflect.Type]string{
		reflect.TypeFor[Net](): "seed latencyNs nodes listeners queue seq nextID now conns connsLive free block faults udp mutantState",
		reflect.TypeFor[Socket](): "ID Node Instance Listener Datagram Port Peer State backlog rbuf rdEOF wrClosed closed lastAt stream " +
			"accepted connectTo connectNode lastData rbufLast rbufFrom inbox inboxBytes dupStream",
		reflect.TypeFor[event]():       "at seq kind target from data src dst port delivered dropped",
		reflect.TypeFor[faults]():      "links groupsOf clogs nextClog slow held",
		reflect.TypeFor[udp]():         "bound nextPort drops",
		reflect.TypeFor[mutantState](): "mutant mutantNodes mutantHits chunks",
		reflect.TypeFor[clogEntry]():   "id Clog",
		reflect.TypeFor[Clog]():        "From To Node Dir Mode DelayNs",
		reflect.TypeFor[datagram]():    "from port data",
		reflect.TypeFor[Drops]():       "Loss Cut NoSocket Full",
		reflect.TypeFor[Link]():        "From To LatencyNs",
	}
	wiretest.CheckFields(t, pinned)
}
