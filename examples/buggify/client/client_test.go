package main

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeServer speaks the counter protocol. Every loseEvery-th INC is applied
// and then its reply is lost, by closing the connection or, with hang, by
// answering only after the client's reply timeout; with dedup a repeated id is
// answered with the value it produced first.
type fakeServer struct {
	loseEvery int
	hang      bool
	dedup     bool

	mu      sync.Mutex
	value   int
	incs    int
	applied map[string]int
}

func (f *fakeServer) start(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	f.applied = map[string]int{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go f.serve(c)
		}
	}()
	return ln.Addr().String()
}

func (f *fakeServer) serve(c net.Conn) {
	defer c.Close()
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		reply, lose := f.handle(sc.Text())
		if lose && !f.hang {
			return
		}
		if lose {
			time.Sleep(replyTimeout + 50*time.Millisecond)
		}
		fmt.Fprintf(c, "%s\n", reply)
	}
}

func (f *fakeServer) handle(line string) (reply string, lose bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id, ok := strings.CutPrefix(line, "INC ")
	if !ok {
		return fmt.Sprintf("VALUE %d", f.value), false
	}
	f.incs++
	if v, seen := f.applied[id]; seen && f.dedup {
		return fmt.Sprintf("VALUE %d", v), false
	}
	f.value++
	f.applied[id] = f.value
	return fmt.Sprintf("VALUE %d", f.value), f.loseEvery > 0 && f.incs%f.loseEvery == 0
}

func TestWorkloadPassesAgainstDedup(t *testing.T) {
	for _, hang := range []bool{false, true} {
		f := &fakeServer{loseEvery: 4, dedup: true, hang: hang}
		if v := workload(f.start(t), "client", 10); v != 10 {
			t.Errorf("hang=%v: workload returned %d, want 10", hang, v)
		}
		if f.incs <= 10 {
			t.Errorf("hang=%v: server saw %d INC requests for 10 increments, want retries", hang, f.incs)
		}
	}
}

func TestWorkloadFindsDoubleApply(t *testing.T) {
	f := &fakeServer{loseEvery: 4}
	addr := f.start(t)
	defer func() {
		// The 4th, 8th and 12th INC requests lose their replies. A retry is
		// a request too, so they are increments 4, 7 and 10, each applied
		// twice.
		want := "sim.Assert: counter is 13 after 10 acknowledged increments"
		if got := recover(); got != want {
			t.Errorf("workload panicked with %v, want %q", got, want)
		}
	}()
	workload(addr, "client", 10)
}

func TestWorkloadSendsUniqueIDs(t *testing.T) {
	f := &fakeServer{dedup: true}
	workload(f.start(t), "c7", 3)
	for _, id := range []string{"c7-1", "c7-2", "c7-3"} {
		if _, ok := f.applied[id]; !ok {
			t.Errorf("server never saw request id %q; it saw %v", id, f.applied)
		}
	}
}

func TestWorkloadFailsOnUnexpectedReply(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		bufio.NewReader(c).ReadString('\n')
		fmt.Fprintf(c, "ERR unknown request\n")
	}()
	defer func() {
		want := `sim.Fail: unexpected reply "ERR unknown request"`
		if got := recover(); got != want {
			t.Errorf("workload panicked with %v, want %q", got, want)
		}
	}()
	workload(ln.Addr().String(), "client", 1)
}
