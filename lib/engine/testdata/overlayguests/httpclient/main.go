// Command httpclient is the workload of the net_overlay tests: an ordinary Go
// program that knows nothing of sf. It talks to httpserver with net/http and
// plain net, checks every answer, and exits 0 when all checks pass or 1 at
// the first that fails. The checks: name lookups both ways; the key-value API
// through http.Get, http.Post and PUT requests, also from several goroutines
// at once; the addresses both ends see; an echo of a large payload with
// CloseWrite, dialed with a Control function; a read deadline; a refused
// connection; an unknown host name; a dial with a canceled context and one
// that times out; and a listener of its own on port 0, which a second
// listener cannot share.
//
// Usage:
//
//	httpclient [-server server]
//
// The program's own name (argv[0], the node's name under sf) is looked up to
// learn its address.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

var checks int

func fail(format string, args ...any) {
	fmt.Printf("httpclient: FAIL: "+format+"\n", args...)
	os.Exit(1)
}

func check(ok bool, format string, args ...any) {
	if !ok {
		fail(format, args...)
	}
	checks++
}

func main() {
	server := flag.String("server", "server", "the server's host name")
	flag.Parse()
	self := filepath.Base(os.Args[0])

	serverIPs, err := net.LookupHost(*server)
	check(err == nil && len(serverIPs) == 1, "LookupHost(%q) = %v, %v; want one address", *server, serverIPs, err)
	selfIPs, err := net.LookupHost(self)
	check(err == nil && len(selfIPs) == 1, "LookupHost(%q) = %v, %v; want one address", self, selfIPs, err)
	serverIP, selfIP := serverIPs[0], selfIPs[0]
	check(serverIP != selfIP, "the server and this program share the address %s", serverIP)
	names, err := net.LookupAddr(serverIP)
	check(err == nil && len(names) > 0 && strings.TrimSuffix(names[0], ".") == *server, "LookupAddr(%s) = %v, %v; want %s", serverIP, names, err, *server)

	base := "http://" + *server + ":8080"
	whoami := waitForServer(base + "/whoami")
	var remote, local string
	if _, err := fmt.Sscanf(whoami, "remote %s local %s", &remote, &local); err != nil {
		fail("whoami answered %q: %v", whoami, err)
	}
	host, _, _ := net.SplitHostPort(remote)
	check(host == selfIP, "the server saw the request come from %s, want %s:<port>", remote, selfIP)
	check(local == serverIP+":8080", "the server saw the request arrive at %s, want %s:8080", local, serverIP)

	put(base+"/kv/a", "1")
	resp, err := http.Post(base+"/kv/b", "text/plain", strings.NewReader("2"))
	check(err == nil && resp.StatusCode == http.StatusNoContent, "POST /kv/b: %v %v", status(resp), err)
	resp.Body.Close()
	check(get(base+"/kv/a") == "1", "GET /kv/a after PUT 1")
	check(get(base+"/kv/b") == "2", "GET /kv/b after POST 2")
	resp, err = http.Get(base + "/kv/missing")
	check(err == nil && resp.StatusCode == http.StatusNotFound, "GET /kv/missing: %v %v, want 404", status(resp), err)
	resp.Body.Close()

	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key, val := fmt.Sprintf("%s/kv/k%d", base, i), fmt.Sprint(i*i)
			put(key, val)
			if got := get(key); got != val {
				fail("GET %s = %q, want %q", key, got, val)
			}
		}()
	}
	wg.Wait()
	checks++

	// Echo: 100 KB one way, CloseWrite, and all of it back, on a connection
	// whose dialer has a Control function.
	var controlled string
	dialer := &net.Dialer{Control: func(network, address string, _ syscall.RawConn) error {
		controlled = network + " " + address
		return nil
	}}
	c, err := dialer.Dial("tcp", *server+":7000")
	check(err == nil, "dial %s:7000: %v", *server, err)
	check(controlled == "tcp4 "+serverIP+":7000", "the dialer's Control saw %q, want %q", controlled, "tcp4 "+serverIP+":7000")
	check(c.RemoteAddr().String() == serverIP+":7000", "RemoteAddr = %s, want %s:7000", c.RemoteAddr(), serverIP)
	lhost, lport, _ := net.SplitHostPort(c.LocalAddr().String())
	check(lhost == selfIP && lport != "0", "LocalAddr = %s, want %s:<port>", c.LocalAddr(), selfIP)
	// Socket options succeed and change nothing, as on Linux.
	tc := c.(*net.TCPConn)
	check(tc.SetNoDelay(false) == nil, "SetNoDelay: %v", tc.SetNoDelay(false))
	check(tc.SetKeepAlive(true) == nil, "SetKeepAlive: %v", tc.SetKeepAlive(true))
	check(tc.SetKeepAlivePeriod(time.Second) == nil, "SetKeepAlivePeriod: %v", tc.SetKeepAlivePeriod(time.Second))
	check(tc.SetLinger(0) == nil, "SetLinger: %v", tc.SetLinger(0))
	check(tc.SetReadBuffer(1<<20) == nil, "SetReadBuffer: %v", tc.SetReadBuffer(1<<20))
	check(tc.SetWriteBuffer(1<<20) == nil, "SetWriteBuffer: %v", tc.SetWriteBuffer(1<<20))
	payload := bytes.Repeat([]byte("0123456789abcdef"), 6400)
	go func() {
		if _, err := c.Write(payload); err != nil {
			fail("echo write: %v", err)
		}
		if err := c.(*net.TCPConn).CloseWrite(); err != nil {
			fail("echo CloseWrite: %v", err)
		}
	}()
	back, err := io.ReadAll(c)
	check(err == nil && bytes.Equal(back, payload), "echo: got %d bytes back (%v), want the %d sent", len(back), err, len(payload))
	c.Close()

	// A read deadline on a connection that never answers.
	c, err = net.Dial("tcp", *server+":7001")
	check(err == nil, "dial %s:7001: %v", *server, err)
	start := time.Now()
	c.SetReadDeadline(start.Add(300 * time.Millisecond))
	_, err = c.Read(make([]byte, 1))
	waited := time.Since(start)
	check(errors.Is(err, os.ErrDeadlineExceeded), "read past the deadline: %v, want a timeout", err)
	check(waited >= 300*time.Millisecond && waited < time.Second, "the read deadline of 300ms fired after %s", waited)
	fmt.Printf("httpclient: the 300ms read deadline fired after %s\n", waited)
	c.Close()

	_, err = net.Dial("tcp", *server+":9")
	check(errors.Is(err, syscall.ECONNREFUSED), "dial a port nobody listens on: %v, want connection refused", err)

	_, err = net.Dial("tcp", "nosuchnode:80")
	var dnsErr *net.DNSError
	check(errors.As(err, &dnsErr) && dnsErr.IsNotFound, "dial an unknown host: %v, want no such host", err)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = (&net.Dialer{}).DialContext(ctx, "tcp", *server+":8080")
	check(errors.Is(err, context.Canceled), "dial with a canceled context: %v", err)

	// A handshake takes a round trip of at least the network's latency, so
	// a microsecond is too short for any dial.
	_, err = net.DialTimeout("tcp", *server+":8080", time.Microsecond)
	var netErr net.Error
	check(errors.As(err, &netErr) && netErr.Timeout(), "dial with a 1µs timeout: %v, want a timeout", err)

	// A listener of our own on an ephemeral port, dialed over loopback.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err == nil, "listen on 127.0.0.1:0: %v", err)
	port := ln.Addr().(*net.TCPAddr).Port
	check(port != 0, "listener on port 0 reports %s", ln.Addr())
	_, err = net.Listen("tcp", fmt.Sprintf(":%d", port))
	check(errors.Is(err, syscall.EADDRINUSE), "listen again on port %d: %v, want address in use", port, err)
	go func() {
		s, err := ln.Accept()
		if err != nil {
			fail("accept: %v", err)
		}
		s.Write([]byte("hello from " + self))
		s.Close()
	}()
	c, err = net.Dial("tcp", ln.Addr().String())
	check(err == nil, "dial %s: %v", ln.Addr(), err)
	b, err := io.ReadAll(c)
	check(err == nil && string(b) == "hello from "+self, "loopback read %q, %v", b, err)
	c.Close()
	ln.Close()

	fmt.Printf("httpclient: ok: %d checks passed\n", checks)
}

// waitForServer polls url until the server answers, as a client that starts
// with its server must.
func waitForServer(url string) string {
	var last error
	for range 100 {
		resp, err := http.Get(url)
		if err == nil {
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err == nil && resp.StatusCode == http.StatusOK {
				return string(b)
			}
			last = fmt.Errorf("%s: %s", resp.Status, b)
		} else {
			last = err
		}
		time.Sleep(50 * time.Millisecond)
	}
	fail("the server never answered %s: %v", url, last)
	return ""
}

func put(url, val string) {
	req, _ := http.NewRequest(http.MethodPut, url, strings.NewReader(val))
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		fail("PUT %s: %v %v", url, status(resp), err)
	}
	resp.Body.Close()
}

func get(url string) string {
	resp, err := http.Get(url)
	if err != nil {
		fail("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		fail("GET %s: %s %q %v", url, resp.Status, b, err)
	}
	return string(b)
}

func status(resp *http.Response) string {
	if resp == nil {
		return "no response"
	}
	return resp.Status
}
