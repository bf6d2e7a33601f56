package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// childEnv makes the test binary run the server instead of the tests, so that
// a test can kill a real server process without building one first.
const childEnv = "KVLOG_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(run(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// server is a running server process.
type server struct {
	cmd   *exec.Cmd
	addr  string
	lines []string // what it printed before it listened
}

// startServer runs the server on a free local port with its log in dir and
// waits until it listens.
func startServer(t *testing.T, dir string, extra ...string) *server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-addr", "127.0.0.1:0", "-dir", dir}, extra...)
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd}
	t.Cleanup(s.kill)

	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		io.Copy(io.Discard, out)
	}()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("server exited before listening; it printed %q", s.lines)
			}
			if addr, found := strings.CutPrefix(line, "server: listening on "); found {
				s.addr = addr
				go func() {
					for range lines {
					}
				}()
				return s
			}
			s.lines = append(s.lines, line)
		case <-timeout:
			t.Fatalf("server did not listen within 5s; it printed %q", s.lines)
		}
	}
}

// kill ends the process with SIGKILL, as a crash would; it may be called
// more than once.
func (s *server) kill() {
	if s.cmd.ProcessState == nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
}

// conn is one protocol connection to a server.
type conn struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

func dial(t *testing.T, s *server) *conn {
	t.Helper()
	c, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(5 * time.Second))
	return &conn{t: t, c: c, r: bufio.NewReader(c)}
}

// do sends one request line and returns the reply without its newline.
func (c *conn) do(req string) string {
	c.t.Helper()
	if _, err := io.WriteString(c.c, req+"\n"); err != nil {
		c.t.Fatalf("%s: %v", req, err)
	}
	line, err := c.r.ReadString('\n')
	if err != nil {
		c.t.Fatalf("%s: %v", req, err)
	}
	return strings.TrimSuffix(line, "\n")
}

func (c *conn) expect(req, want string) {
	c.t.Helper()
	if got := c.do(req); got != want {
		c.t.Errorf("%s: got %q, want %q", req, got, want)
	}
}

func TestProtocol(t *testing.T) {
	steps := []struct{ req, want string }{
		{"GET a", "NONE"},
		{"PUT a 1", "OK"},
		{"GET a", "VALUE 1"},
		{"PUT a 2", "OK"},
		{"GET a", "VALUE 2"},
		{"PUT b hello world", "OK"},
		{"GET b", "VALUE hello world"},
		{"PUT e ", "OK"},
		{"GET e", "VALUE "},
		{"PUT a", "ERR usage: PUT <key> <value>"},
		{"PUT  x", "ERR usage: PUT <key> <value>"},
		{"GET", "ERR usage: GET <key>"},
		{"GET a b", "ERR usage: GET <key>"},
		{"DEL a", `ERR unknown command "DEL"`},
		{"PUT " + strings.Repeat("k", keyBytesMax+1) + " v", "ERR key longer than 1024 bytes or value longer than 65536 bytes"},
		{"GET a", "VALUE 2"},
	}
	for _, mode := range []struct {
		name string
		args []string
	}{
		{"fsync before ack", nil},
		{"ack before fsync", []string{"-ack-before-fsync"}},
		{"read from disk", []string{"-read-from-disk"}},
		{"checksum", []string{"-checksum"}},
		{"reread", []string{"-reread"}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			s := startServer(t, t.TempDir(), mode.args...)
			c := dial(t, s)
			for _, st := range steps {
				c.expect(st.req, st.want)
			}
		})
	}
}

func TestKilledServerKeepsAcknowledgedWrites(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	c := dial(t, s)
	for _, k := range keys(50) {
		c.expect("PUT "+k+" v"+k, "OK")
	}
	c.expect("PUT k1 new", "OK")
	s.kill()

	s = startServer(t, dir)
	if want := "server: recovered 50 keys from " + filepath.Join(dir, logName); s.lines[0] != want {
		t.Errorf("restart printed %q, want %q", s.lines[0], want)
	}
	c = dial(t, s)
	c.expect("GET k1", "VALUE new")
	for _, k := range keys(50)[1:] {
		c.expect("GET "+k, "VALUE v"+k)
	}
}

func TestReplayCutsTornTail(t *testing.T) {
	a, b := encodeRecord("a", "1"), encodeRecord("b", "2")
	next := encodeRecord("c", "3")
	flipped := bytes.Clone(next)
	flipped[len(flipped)-1] ^= 1
	huge := bytes.Clone(next)
	huge[0] = 0x40 // key length 1<<30
	tails := []struct {
		name string
		tail []byte
	}{
		{"torn header", next[:5]},
		{"torn body", next[:len(next)-1]},
		{"bad checksum", flipped},
		{"zeros", make([]byte, 32)},
		{"huge key length", huge},
	}
	for _, tc := range tails {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, logName)
			good := append(bytes.Clone(a), b...)
			if err := os.WriteFile(path, append(bytes.Clone(good), tc.tail...), 0o644); err != nil {
				t.Fatal(err)
			}
			s := startServer(t, dir)
			want := []string{
				"server: recovered 2 keys from " + path,
				"server: cut " + strconv.Itoa(len(tc.tail)) + " bytes of torn log tail",
			}
			if strings.Join(s.lines, "\n") != strings.Join(want, "\n") {
				t.Errorf("start printed %q, want %q", s.lines, want)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, good) {
				t.Errorf("log after start is %d bytes, want the %d good ones", len(got), len(good))
			}
			c := dial(t, s)
			c.expect("PUT c 3", "OK")
			s.kill()

			// The new record follows the good ones, so it is replayed too.
			s = startServer(t, dir)
			if want := "server: recovered 3 keys from " + path; strings.Join(s.lines, "\n") != want {
				t.Errorf("restart printed %q, want %q", s.lines, want)
			}
			c = dial(t, s)
			c.expect("GET a", "VALUE 1")
			c.expect("GET b", "VALUE 2")
			c.expect("GET c", "VALUE 3")
		})
	}
}

// TestReadFromDiskSeesTheDisk: with -read-from-disk a GET reads the record
// back, so a byte changed on disk under the running server reaches the
// reply: as a wrong value when the server trusts the disk, as an error with
// -checksum, and still as an error with -reread, because reading again
// cannot bring back bytes the disk itself lost.
func TestReadFromDiskSeesTheDisk(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-read-from-disk"}, "VALUE two"},
		{[]string{"-read-from-disk", "-checksum"}, "ERR record of k2 at offset 17 fails its checksum"},
		{[]string{"-reread"}, "ERR record of k2 at offset 17 fails its checksum"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			s := startServer(t, dir, tc.args...)
			c := dial(t, s)
			c.expect("PUT k1 one", "OK") // 12 + 2 + 3 = 17 bytes
			c.expect("PUT k2 twO", "OK") // at offset 17
			c.expect("PUT k3 three", "OK")
			path := filepath.Join(dir, logName)
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			// The last byte of k2's value: 'O' (0x4f) becomes 'o' (0x6f).
			if _, err := f.WriteAt([]byte{'o'}, 17+headerBytes+2+2); err != nil {
				t.Fatal(err)
			}
			f.Close()
			c.expect("GET k1", "VALUE one")
			c.expect("GET k2", tc.want)
			c.expect("GET k3", "VALUE three")
			c.expect("GET k4", "NONE")
			s.kill()

			// Recovery checks every record and cuts the log at k2's.
			s = startServer(t, dir, tc.args...)
			want := []string{"server: recovered 1 keys from " + path, "server: cut 36 bytes of torn log tail"}
			if strings.Join(s.lines, "\n") != strings.Join(want, "\n") {
				t.Errorf("restart printed %q, want %q", s.lines, want)
			}
			c = dial(t, s)
			c.expect("GET k1", "VALUE one")
			c.expect("GET k2", "NONE")
		})
	}
}

func TestRecordRoundTrip(t *testing.T) {
	var log bytes.Buffer
	log.Write(encodeRecord("k", "v with spaces"))
	log.Write(encodeRecord("empty", ""))
	for _, want := range [][2]string{{"k", "v with spaces"}, {"empty", ""}} {
		k, v, n, err := readRecord(&log)
		if err != nil || k != want[0] || v != want[1] || n != int64(headerBytes+len(k)+len(v)) {
			t.Errorf("readRecord = %q, %q, %d, %v; want %q, %q", k, v, n, err, want[0], want[1])
		}
	}
	if _, _, _, err := readRecord(&log); err != io.EOF {
		t.Errorf("readRecord at the end = %v, want io.EOF", err)
	}
}

func keys(n int) []string {
	ks := make([]string, n)
	for i := range ks {
		ks[i] = "k" + strconv.Itoa(i+1)
	}
	return ks
}
