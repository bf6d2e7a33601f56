package main

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// start serves a fresh counter on a free local port and returns its address.
func start(t *testing.T, dedup bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go newCounter(dedup).serveAll(ln)
	return ln.Addr().String()
}

func TestProtocol(t *testing.T) {
	tests := []struct {
		name  string
		dedup bool
		steps [][2]string // request, reply
	}{
		{"without dedup", false, [][2]string{
			{"GET", "VALUE 0"},
			{"INC a", "VALUE 1"},
			{"INC b", "VALUE 2"},
			{"INC a", "VALUE 3"}, // the repeated id is applied again
			{"GET", "VALUE 3"},
			{"INC", "ERR usage: INC <request-id>"},
			{"INC a b", "ERR usage: INC <request-id>"},
			{"GET x", `ERR unknown request "GET x"`},
			{"PUT x", `ERR unknown request "PUT x"`},
			{"GET", "VALUE 3"},
		}},
		{"with dedup", true, [][2]string{
			{"GET", "VALUE 0"},
			{"INC a", "VALUE 1"},
			{"INC b", "VALUE 2"},
			{"INC a", "VALUE 1"}, // answered with the value it produced first
			{"GET", "VALUE 2"},
			{"INC c", "VALUE 3"},
			{"INC b", "VALUE 2"},
			{"GET", "VALUE 3"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", start(t, tc.dedup))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(5 * time.Second))
			r := bufio.NewReader(c)
			for _, st := range tc.steps {
				fmt.Fprintf(c, "%s\n", st[0])
				line, err := r.ReadString('\n')
				if err != nil {
					t.Fatalf("%s: %v", st[0], err)
				}
				if got := strings.TrimSuffix(line, "\n"); got != st[1] {
					t.Errorf("%s: got %q, want %q", st[0], got, st[1])
				}
			}
		})
	}
}

// TestRetryOfAppliedIncrement replays, without the simulator, what "reply
// lost after apply" leads to: the same request id arrives twice.
func TestRetryOfAppliedIncrement(t *testing.T) {
	for _, tc := range []struct {
		dedup bool
		want  int
	}{{false, 2}, {true, 1}} {
		c := newCounter(tc.dedup)
		c.handle("INC client-1") // applied; pretend the reply was lost
		reply, ok := c.handle("INC client-1")
		if want := fmt.Sprintf("VALUE %d\n", tc.want); reply != want || !ok {
			t.Errorf("dedup=%v: retry answered %q, %v; want %q, true", tc.dedup, reply, ok, want)
		}
		if got := c.get(); got != tc.want {
			t.Errorf("dedup=%v: counter is %d after one increment retried once, want %d", tc.dedup, got, tc.want)
		}
	}
}
