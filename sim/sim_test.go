package sim

import (
	"io"
	"math"
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

// TestComparisonsOfIntegersAreExact is issue 27's: integers compare as
// integers, signed and unsigned, not as float64s that cannot tell 1.7e18
// from 1.7e18+1.
func TestComparisonsOfIntegersAreExact(t *testing.T) {
	t.Setenv("SEEDFALL", "")
	a := int64(1_700_000_000_000_000_000)
	AlwaysLessThan(a, a+1, "a timestamp before the next")
	AlwaysGreaterThan(a+1, a, "the next after a timestamp")
	AlwaysGreaterThan(uint64(1<<63)+5, uint64(1<<63), "above 2^63")
	AlwaysLessThanOrEqualTo(uint64(1<<64-2), uint64(1<<64-1), "near the top")
	AlwaysGreaterThan(int64(math.MaxInt64), int64(math.MinInt64), "the widest gap")
	mustPanic(t, `{"left":1700000000000000001,"right":1700000000000000001}`, func() { AlwaysLessThan(a+1, a+1, "equal is not less") })
	mustPanic(t, `{"left":9223372036854775813,"right":9223372036854775813}`, func() {
		AlwaysGreaterThan(uint64(1<<63)+5, uint64(1<<63)+5, "equal is not greater")
	})
	type nanos int64 // a named type compares the same way
	AlwaysLessThan(nanos(a), nanos(a+1), "named")
	for _, tc := range []struct {
		op          string
		left, right int64
		neg         bool
		mag         uint64
		cond        bool
	}{
		{"lt", a, a + 1, false, 1, true},
		{"gt", math.MaxInt64, math.MinInt64, false, math.MaxUint64, true},
		{"lt", math.MaxInt64, math.MinInt64, true, math.MaxUint64, false},
		{"ge", -3, -3, false, 0, true},
	} {
		cond, m := compareValues(tc.op, tc.left, tc.right)
		if cond != tc.cond || m.float || m.neg != tc.neg || m.mag != tc.mag {
			t.Errorf("%d %s %d: %v %+v, want %v, neg %v mag %d", tc.left, tc.op, tc.right, cond, m, tc.cond, tc.neg, tc.mag)
		}
	}
	if _, m := compareValues("gt", uint64(1<<63)+5, uint64(1<<63)); m.float || m.neg || m.mag != 5 {
		t.Errorf("uint64 margin %+v, want 5", m)
	}
	if _, m := compareValues("lt", 0.5, 2.0); !m.float || m.f != 1.5 {
		t.Errorf("float margin %+v, want 1.5", m)
	}
}

// TestNonFiniteComparisons is issue 27's: an infinity is a margin like any
// other, and a NaN, which never compares, keeps its left and right in the
// details, written as strings since JSON has no number for them.
func TestNonFiniteComparisons(t *testing.T) {
	t.Setenv("SEEDFALL", "")
	AlwaysLessThan(0, math.Inf(1), "below infinity")
	mustPanic(t, `sim.AlwaysLessThan: never a NaN {"left":0,"right":"NaN"}`, func() { AlwaysLessThan(0, math.NaN(), "never a NaN") })
	mustPanic(t, `{"left":"-Inf","right":"+Inf"}`, func() { AlwaysGreaterThan(math.Inf(-1), math.Inf(1), "backwards") })
	mustPanic(t, `{"details":3,"left":"NaN","right":1}`, func() { AlwaysGreaterThan(float32(math.NaN()), 1, "f32", 3) })
}
