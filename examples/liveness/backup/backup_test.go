package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// start opens the backup's log in dir and serves it on two free local ports,
// as run does, and returns them with a function that stops it as a crash
// would (the log on disk stays).
func start(t *testing.T, dir string) (peer, reads string, stop func()) {
	t.Helper()
	b, err := open(filepath.Join(dir, logName))
	if err != nil {
		t.Fatal(err)
	}
	var lns []net.Listener
	for range 2 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		go b.serveAll(ln)
	}
	stop = func() {
		for _, ln := range lns {
			ln.Close()
		}
		b.log.Close()
	}
	t.Cleanup(stop)
	return lns[0].Addr().String(), lns[1].Addr().String(), stop
}

type conn struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

func dial(t *testing.T, addr string) *conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(5 * time.Second))
	return &conn{t, c, bufio.NewReader(c)}
}

func (c *conn) expect(req, want string) {
	c.t.Helper()
	fmt.Fprintf(c.c, "%s\n", req)
	line, err := c.r.ReadString('\n')
	if err != nil {
		c.t.Fatalf("%s: %v", req, err)
	}
	if got := strings.TrimSuffix(line, "\n"); got != want {
		c.t.Errorf("%s: got %q, want %q", req, got, want)
	}
}

func TestProtocolAndRestart(t *testing.T) {
	dir := t.TempDir()
	peer, reads, stop := start(t, dir)
	p, r := dial(t, peer), dial(t, reads)
	r.expect("GET", "VALUE 0")
	p.expect("ADD 1 client-1 1", "OK 1")
	p.expect("ADD 1 client-1 1", "OK 1") // a resend: acknowledged, not applied
	p.expect("ADD 3 client-3 1", "ERR expected add 2, got 3")
	p.expect("ADD 2 client-2 5", "OK 2")
	p.expect("GET", "VALUE 6")
	r.expect("GET", "VALUE 6")
	p.expect("ADD 3 client-3", "ERR usage: ADD <seq> <id> <n>")
	p.expect("ADD 3 client-3 0", "ERR usage: ADD <seq> <id> <n>")
	p.expect("ADD x client-3 1", "ERR usage: ADD <seq> <id> <n>")
	p.expect("DEL", `ERR unknown request "DEL"`)
	stop()

	peer, reads, _ = start(t, dir)
	dial(t, reads).expect("GET", "VALUE 6")
	p = dial(t, peer)
	p.expect("ADD 2 client-2 5", "OK 2")
	p.expect("ADD 3 client-3 1", "OK 3")
	p.expect("GET", "VALUE 7")
	if got, _ := os.ReadFile(filepath.Join(dir, logName)); string(got) != "1 client-1 1\n2 client-2 5\n3 client-3 1\n" {
		t.Errorf("log holds %q", got)
	}
}

func TestReplay(t *testing.T) {
	tests := []struct {
		name, log    string
		seq, total   int
		kept, errMsg string
	}{
		{"empty", "", 0, 0, "", ""},
		{"whole", "1 a 1\n2 b 2\n", 2, 3, "1 a 1\n2 b 2\n", ""},
		{"torn last line", "1 a 1\n2 b", 1, 1, "1 a 1\n", ""},
		{"gap", "1 a 1\n3 c 1\n", 0, 0, "", `bad line "3 c 1\n" after add 1`},
		{"garbage", "1 a 1\nxyz\n", 0, 0, "", `bad line "xyz\n" after add 1`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), logName)
			if err := os.WriteFile(path, []byte(tc.log), 0o644); err != nil {
				t.Fatal(err)
			}
			b, err := open(path)
			if tc.errMsg != "" {
				if want := "replay " + path + ": " + tc.errMsg; err == nil || err.Error() != want {
					t.Errorf("open: %v, want %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer b.log.Close()
			if b.seq != tc.seq || b.total != tc.total {
				t.Errorf("replayed %d adds, total %d; want %d, %d", b.seq, b.total, tc.seq, tc.total)
			}
			if got, _ := os.ReadFile(path); string(got) != tc.kept {
				t.Errorf("log after open is %q, want %q", got, tc.kept)
			}
		})
	}
}
