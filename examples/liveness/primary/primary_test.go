package main

import (
	"bufio"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeBackup acknowledges "ADD <seq> <id> <n>" as the real backup does,
// applying an add only if it is the next one. crash closes its listener and
// every connection; listen starts it again on the same address. With loseAck
// set, it applies that add the first time it arrives and then closes the
// connection instead of acknowledging it.
type fakeBackup struct {
	addr    string
	loseAck int

	mu       sync.Mutex
	ln       net.Listener
	conns    []net.Conn
	adds     []string // "<seq> <id> <n>", applied in order
	requests int
}

// start listens, on a free port the first time and on the same address after
// a crash.
func (f *fakeBackup) start(t *testing.T) {
	t.Helper()
	if err := f.listen(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.crash)
}

func (f *fakeBackup) listen() error {
	if f.addr == "" {
		f.addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.ln, f.addr = ln, ln.Addr().String()
	f.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f.mu.Lock()
			f.conns = append(f.conns, c)
			f.mu.Unlock()
			go f.serve(c)
		}
	}()
	return nil
}

func (f *fakeBackup) crash() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ln.Close()
	for _, c := range f.conns {
		c.Close()
	}
	f.conns = nil
}

func (f *fakeBackup) serve(c net.Conn) {
	defer c.Close()
	for sc := bufio.NewScanner(c); sc.Scan(); {
		reply, lose := f.handle(sc.Text())
		if lose {
			return
		}
		fmt.Fprint(c, reply)
	}
}

func (f *fakeBackup) handle(line string) (reply string, lose bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests++
	var seq, n int
	var id string
	if _, err := fmt.Sscanf(line, "ADD %d %s %d", &seq, &id, &n); err != nil {
		return "ERR bad request\n", false
	}
	switch {
	case seq == len(f.adds)+1:
		f.adds = append(f.adds, fmt.Sprintf("%d %s %d", seq, id, n))
		if seq == f.loseAck {
			return "", true
		}
	case seq > len(f.adds)+1:
		return fmt.Sprintf("ERR expected add %d, got %d\n", len(f.adds)+1, seq), false
	}
	return fmt.Sprintf("OK %d\n", seq), false
}

func (f *fakeBackup) applied() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.adds)
}

// connect makes a primary for the backup f and connects it, as run does.
func connect(t *testing.T, f *fakeBackup, reconnect, dedup bool) *primary {
	t.Helper()
	p := newPrimary(f.addr, reconnect, dedup)
	if err := p.dial(); err != nil {
		t.Fatal(err)
	}
	return p
}

// expect sends each request line to p and checks the replies.
func expect(t *testing.T, p *primary, steps ...[2]string) {
	t.Helper()
	for _, st := range steps {
		if got := strings.TrimSuffix(p.handle(st[0]), "\n"); got != st[1] {
			t.Errorf("%s: got %q, want %q", st[0], got, st[1])
		}
	}
}

func TestProtocolOverTCP(t *testing.T) {
	f := &fakeBackup{}
	f.start(t)
	p := connect(t, f, false, false)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go p.serveAll(ln)
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(c)
	for _, st := range [][2]string{
		{"GET", "VALUE 0"},
		{"ADD a 1", "OK 1"},
		{"ADD b 2", "OK 3"},
		{"GET", "VALUE 3"},
		{"ADD a", "ERR usage: ADD <id> <n>"},
		{"ADD a 0", "ERR usage: ADD <id> <n>"},
		{"ADD a x", "ERR usage: ADD <id> <n>"},
		{"PUT a 1", `ERR unknown request "PUT a 1"`},
	} {
		fmt.Fprintf(c, "%s\n", st[0])
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: %v", st[0], err)
		}
		if got := strings.TrimSuffix(line, "\n"); got != st[1] {
			t.Errorf("%s: got %q, want %q", st[0], got, st[1])
		}
	}
	if got, want := f.applied(), []string{"1 a 1", "2 b 2"}; !slices.Equal(got, want) {
		t.Errorf("backup applied %q, want %q", got, want)
	}
}

func TestDedup(t *testing.T) {
	tests := []struct {
		dedup bool
		reply string
		adds  []string
	}{
		{false, "OK 3", []string{"1 a 1", "2 b 1", "3 a 1"}},
		{true, "OK 2", []string{"1 a 1", "2 b 1"}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("dedup=%v", tc.dedup), func(t *testing.T) {
			f := &fakeBackup{}
			f.start(t)
			p := connect(t, f, false, tc.dedup)
			expect(t, p, [2]string{"ADD a 1", "OK 1"}, [2]string{"ADD b 1", "OK 2"},
				[2]string{"ADD a 1", tc.reply}) // a client resends add a
			if got := f.applied(); !slices.Equal(got, tc.adds) {
				t.Errorf("backup applied %q, want %q", got, tc.adds)
			}
		})
	}
}

// TestNoReconnect shows the planted bug: after one broken connection, the
// primary refuses every add although the backup is back.
func TestNoReconnect(t *testing.T) {
	f := &fakeBackup{}
	f.start(t)
	p := connect(t, f, false, false)
	expect(t, p, [2]string{"ADD a 1", "OK 1"})
	f.crash()
	f.start(t)
	expect(t, p,
		[2]string{"ADD b 1", "ERR backup unavailable"},
		[2]string{"ADD b 1", "ERR backup unavailable"},
		[2]string{"ADD c 1", "ERR backup unavailable"})
	if got, want := f.applied(), []string{"1 a 1"}; !slices.Equal(got, want) {
		t.Errorf("backup applied %q, want %q", got, want)
	}
}

func TestReconnect(t *testing.T) {
	f := &fakeBackup{}
	f.start(t)
	p := connect(t, f, true, false)
	expect(t, p, [2]string{"ADD a 1", "OK 1"})
	f.crash()
	time.AfterFunc(100*time.Millisecond, func() {
		if err := f.listen(); err != nil {
			t.Error(err)
		}
	})
	// The add waits, redialling, until the backup is back.
	expect(t, p, [2]string{"ADD b 1", "OK 2"}, [2]string{"ADD c 1", "OK 3"})
	if got, want := f.applied(), []string{"1 a 1", "2 b 1", "3 c 1"}; !slices.Equal(got, want) {
		t.Errorf("backup applied %q, want %q", got, want)
	}
}

// TestReconnectResendsUnacked loses the backup's acknowledgement of an add it
// applied: the primary resends that add with the same number, and the backup
// does not apply it again.
func TestReconnectResendsUnacked(t *testing.T) {
	f := &fakeBackup{loseAck: 2}
	f.start(t)
	p := connect(t, f, true, false)
	expect(t, p, [2]string{"ADD a 1", "OK 1"}, [2]string{"ADD b 1", "OK 2"}, [2]string{"GET", "VALUE 2"})
	if got, want := f.applied(), []string{"1 a 1", "2 b 1"}; !slices.Equal(got, want) {
		t.Errorf("backup applied %q, want %q", got, want)
	}
	if f.requests != 3 {
		t.Errorf("backup saw %d requests, want 3 (add 2 twice)", f.requests)
	}
}
