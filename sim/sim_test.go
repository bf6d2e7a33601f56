package sim

import (
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
)

func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		r := recover()
		if r == nil {
			t.Fatalf("no panic, want one containing %q", want)
		}
		if s, _ := r.(string); !strings.Contains(s, want) {
			t.Fatalf("panic %v, want one containing %q", r, want)
		}
	}()
	f()
}

func TestFallbacksOutsideTheSimulator(t *testing.T) {
	t.Setenv("SEEDFALL", "")
	if Enabled() || Node() != "" {
		t.Fatal("Enabled or Node set outside the simulator")
	}
	mustPanic(t, "sim.Fail: boom", func() { Fail("boom") })
	mustPanic(t, "sim.Assert: lost", func() { Assert(false, "lost") })
	Assert(true, "fine")
	mustPanic(t, `sim.Always: x {"k":1}`, func() { Always(false, "x", map[string]int{"k": 1}) })
	Always(true, "x")
	mustPanic(t, "sim.Unreachable: never", func() { Unreachable("never") })
	mustPanic(t, `"left":1`, func() { AlwaysGreaterThan(1, 2, "gt") })
	AlwaysGreaterThanOrEqualTo(2, 2, "ge")
	AlwaysLessThan(1.5, 2.0, "lt")
	mustPanic(t, "AlwaysSome", func() { AlwaysSome(map[string]bool{"a": false}, "some") })
	// The rest do nothing outside the simulator.
	AlwaysOrUnreachable(false, "x")
	Sometimes(false, "x")
	Reachable("x")
	SometimesGreaterThan(1, 2, "x")
	SometimesAll(map[string]bool{"a": false}, "x")
	Event("e", nil)
	QuietFor(time.Second)
	SetupComplete()
	if Buggify("site") || BuggifyWithProb("site", 1) {
		t.Fatal("buggify fired outside the simulator")
	}
	if Budget(7) != 7 {
		t.Fatal("Budget changed n")
	}
	op := Put(1, "k", "v")
	op.Ok("")
	op.Unknown() // a second completion is ignored
	Txn(1, Read("x"), Append("x", "1")).Failed()
}

func TestEventuallyUsesRealTimeOutside(t *testing.T) {
	n := 0
	if !Eventually(func() bool { n++; return n >= 3 }, "third time", time.Second) {
		t.Fatal("Eventually returned false")
	}
	mustPanic(t, "not true within 20ms", func() { Eventually(func() bool { return false }, "never", 20*time.Millisecond) })
}

func TestRandomChoiceCoversEveryItem(t *testing.T) {
	seen := map[int]int{}
	for range 3000 {
		seen[RandomChoice([]int{1, 2, 3})]++
	}
	for _, v := range []int{1, 2, 3} {
		if seen[v] < 800 {
			t.Fatalf("item %d chosen %d times of 3000", v, seen[v])
		}
	}
	mustPanic(t, "empty slice", func() { RandomChoice([]int{}) })
}

func TestMopJSON(t *testing.T) {
	b, err := Append("x", "1-0").MarshalJSON()
	if err != nil || string(b) != `["append","x","1-0"]` {
		t.Fatalf("got %s, %v", b, err)
	}
}

// TestConnErrorsNameNodes: errors of simulated connections name the nodes'
// addresses, not Go's unknown ones (":0->:0").
func TestConnErrorsNameNodes(t *testing.T) {
	local, remote := Addr{"tcp", "client:49152"}, Addr{"tcp", "server:7000"}
	orig := &net.OpError{Op: "read", Net: "tcp", Source: &net.TCPAddr{}, Addr: &net.TCPAddr{}, Err: syscall.ECONNRESET}
	got := withOpAddrs(orig, local, remote)
	if want := "read tcp client:49152->server:7000: " + syscall.ECONNRESET.Error(); got.Error() != want {
		t.Errorf("error %q, want %q", got, want)
	}
	if orig.Source.String() != ":0" {
		t.Errorf("the original error changed: %v", orig)
	}
	if got := withOpAddrs(orig, nil, remote); got.Error() != "read tcp server:7000: "+syscall.ECONNRESET.Error() {
		t.Errorf("error without a source %q", got)
	}
	if got := withOpAddrs(io.EOF, local, remote); got != io.EOF {
		t.Errorf("a plain error changed: %v", got)
	}
	if withOpAddrs(nil, local, remote) != nil {
		t.Error("nil became an error")
	}
}
