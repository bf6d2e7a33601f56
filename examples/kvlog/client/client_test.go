package main

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
)

// fakeServer speaks the kvlog protocol from a map. It closes the connection
// instead of answering every dropEvery-th request (after applying a PUT), as
// a crash would, and calls forget before each PUT so that a test can lose
// writes on purpose.
type fakeServer struct {
	mu        sync.Mutex
	kv        map[string]string
	requests  int
	dropEvery int
	forget    func(kv map[string]string, key string)
}

func (f *fakeServer) start(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	f.kv = map[string]string{}
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
		reply, drop := f.handle(sc.Text())
		if drop {
			return
		}
		fmt.Fprintf(c, "%s\n", reply)
	}
}

func (f *fakeServer) handle(line string) (reply string, drop bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests++
	drop = f.dropEvery > 0 && f.requests%f.dropEvery == 0
	fields := strings.SplitN(line, " ", 3)
	switch {
	case fields[0] == "PUT" && len(fields) == 3:
		if f.forget != nil {
			f.forget(f.kv, fields[1])
		}
		f.kv[fields[1]] = fields[2]
		return "OK", drop
	case fields[0] == "GET" && len(fields) == 2:
		if v, ok := f.kv[fields[1]]; ok {
			return "VALUE " + v, drop
		}
		return "NONE", drop
	}
	return "ERR bad request", drop
}

func TestWorkloadPasses(t *testing.T) {
	f := &fakeServer{dropEvery: 7}
	workload(f.start(t), 25)
	if len(f.kv) != 25 || f.kv["k25"] != "v25" {
		t.Errorf("server holds %d keys, k25=%q; want 25 keys, k25=v25", len(f.kv), f.kv["k25"])
	}
}

func TestWorkloadFindsLostWrite(t *testing.T) {
	tests := []struct {
		name   string
		forget func(kv map[string]string, key string)
		want   string
	}{
		{
			name:   "missing key",
			forget: func(kv map[string]string, key string) { delete(kv, "k3") },
			want:   `sim.Assert: acknowledged write lost: k3=v3, server now answers "NONE"`,
		},
		{
			name: "other value",
			forget: func(kv map[string]string, key string) {
				if key == "k12" {
					kv["k11"] = "v1"
				}
			},
			want: `sim.Assert: acknowledged value changed: k11=v11, server now answers "v1"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeServer{forget: tc.forget}
			addr := f.start(t)
			defer func() {
				if got := recover(); got != tc.want {
					t.Errorf("workload panicked with %v, want %q", got, tc.want)
				}
			}()
			workload(addr, 15)
		})
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
		fmt.Fprintf(c, "ERR disk full\n")
	}()
	defer func() {
		want := `sim.Fail: PUT k1: unexpected reply "ERR disk full"`
		if got := recover(); got != want {
			t.Errorf("workload panicked with %v, want %q", got, want)
		}
	}()
	workload(ln.Addr().String(), 1)
}
