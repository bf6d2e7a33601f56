package simnet

import (
	"fmt"
	"testing"
)

// TestCloneGoesOnApart: a network cloned at any moment of a script of
// connections, datagrams and faults shows the programs exactly what the
// network it was cloned from would have, however the original is used
// after the clone.
func TestCloneGoesOnApart(t *testing.T) {
	for _, seed := range []uint64{5, 6, 7} {
		want := faultTimeline(seed)
		for _, at := range []int64{0, 1 * ms, 45 * ms, 61 * ms, 121 * ms, 149 * ms, 201 * ms, 231 * ms, 300 * ms} {
			t.Run(fmt.Sprintf("seed %d at %dms", seed, at/ms), func(t *testing.T) {
				got := faultTimelineCloned(seed, at, scribble)
				if got != want {
					t.Errorf("the clone's timeline differs:\n%s\nwant\n%s", got, want)
				}
			})
		}
	}
}

// scribble uses the original network hard: it writes to, shuts down and
// closes its sockets, resets and partitions its nodes, and delivers
// everything in flight. Whatever the clone shares with it by mistake shows.
func scribble(n *Net, socks []*Socket) {
	for _, s := range socks {
		n.Write(s, []byte("scribble"))
		n.Read(s, make([]byte, 3))
	}
	n.Partition([][]string{{"a"}, {"b", "c"}})
	n.Clog(Clog{Node: "c", Dir: DirBoth, Mode: ClogJam})
	n.SetSlow("b", 7)
	for _, s := range socks {
		n.ShutdownWrite(s)
	}
	n.ResetNode("b")
	for _, s := range socks {
		n.Close(s)
	}
	n.Rekey(12345)
	n.HealAll()
	advanceTo(n, n.Now()+10_000*ms)
}
