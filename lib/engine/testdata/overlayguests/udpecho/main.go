// Command udpecho is the UDP guest of the net_overlay tests: an ordinary Go
// program that knows nothing of sf. With -serve it is an echo server on
// net.ListenUDP; otherwise it is a client that checks, through plain net, the
// addresses both ends see, echoes through net.Dial("udp", ...), net.DialUDP
// and net.ListenPacket, and a read deadline, and exits 0 when every check
// passes or 1 at the first that fails. Each echo is retried after a 200ms
// read deadline, so that lost datagrams cost retries, not failures; with
// -strict the first lost one fails the run instead.
//
// Usage:
//
//	udpecho -serve :9000
//	udpecho [-server server:9000] [-n 20] [-strict]
//
// The program's own name (argv[0], the node's name under sf) is looked up to
// learn its address.
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"
)

const (
	retryAfter = 200 * time.Millisecond
	triesMax   = 12
)

var checks, retries, stale int

func fail(format string, args ...any) {
	fmt.Printf("udpecho: FAIL: "+format+"\n", args...)
	os.Exit(1)
}

func check(ok bool, format string, args ...any) {
	if !ok {
		fail(format, args...)
	}
	checks++
}

func main() {
	serve := flag.String("serve", "", "serve echoes on this address")
	server := flag.String("server", "server:9000", "the echo server's address")
	n := flag.Int("n", 20, "echoes per kind of socket")
	strict := flag.Bool("strict", false, "fail at the first lost echo")
	flag.Parse()
	if *serve != "" {
		serveEcho(*serve)
		return
	}
	tries := triesMax
	if *strict {
		tries = 1
	}
	self := filepath.Base(os.Args[0])
	host, port, err := net.SplitHostPort(*server)
	check(err == nil, "-server %q: %v", *server, err)
	serverIPs, err := net.LookupHost(host)
	check(err == nil && len(serverIPs) == 1, "LookupHost(%q) = %v, %v; want one address", host, serverIPs, err)
	selfIPs, err := net.LookupHost(self)
	check(err == nil && len(selfIPs) == 1, "LookupHost(%q) = %v, %v; want one address", self, selfIPs, err)
	serverAddr, selfIP := net.JoinHostPort(serverIPs[0], port), selfIPs[0]

	// net.Dial: a connected socket on the node's address.
	c, err := net.Dial("udp", *server)
	check(err == nil, "Dial(udp, %s): %v", *server, err)
	local := c.LocalAddr().(*net.UDPAddr)
	check(local.IP.String() == selfIP && local.Port > 0, "Dial's local address is %v, want %s:<port>", local, selfIP)
	check(c.RemoteAddr().String() == serverAddr, "Dial's remote address is %v, want %s", c.RemoteAddr(), serverAddr)
	seen := echo(c, nil, "whoami", tries)
	check(seen == local.String(), "the server saw the datagram come from %s, want %s", seen, local)
	for i := range *n {
		msg := fmt.Sprintf("dial %d", i)
		check(echo(c, nil, msg, tries) == msg, "echo of %q", msg)
	}
	c.Close()

	// net.ListenPacket: an unconnected socket, answers from the server's
	// address.
	pc, err := net.ListenPacket("udp", ":0")
	check(err == nil, "ListenPacket(udp, :0): %v", err)
	to, err := net.ResolveUDPAddr("udp", *server)
	check(err == nil && to.String() == serverAddr, "ResolveUDPAddr(%s) = %v, %v; want %s", *server, to, err, serverAddr)
	seen = echo(pc, to, "whoami", tries)
	check(seen == selfIP+":"+portOf(pc.LocalAddr()), "the server saw the datagram come from %s, want %s:%s", seen, selfIP, portOf(pc.LocalAddr()))
	for i := range *n {
		msg := fmt.Sprintf("packet %d", i)
		check(echo(pc, to, msg, tries) == msg, "echo of %q", msg)
	}
	pc.Close()

	// net.DialUDP with Write and Read.
	uc, err := net.DialUDP("udp", nil, to)
	check(err == nil, "DialUDP(%v): %v", to, err)
	for i := range *n {
		msg := fmt.Sprintf("dialudp %d", i)
		check(echo(uc, nil, msg, tries) == msg, "echo of %q", msg)
	}
	_, err = uc.WriteTo([]byte("x"), to)
	check(errors.Is(err, net.ErrWriteToConnected), "WriteTo on a connected socket: %v, want %v", err, net.ErrWriteToConnected)
	uc.Close()

	// A read deadline on a socket nobody writes to.
	quiet, err := net.ListenUDP("udp", &net.UDPAddr{})
	check(err == nil, "ListenUDP(:0): %v", err)
	// Buffer sizes succeed and change nothing, as on Linux; memberlist,
	// for one, stops when it cannot size its buffer.
	check(quiet.SetReadBuffer(2<<20) == nil, "SetReadBuffer: %v", quiet.SetReadBuffer(2<<20))
	check(quiet.SetWriteBuffer(2<<20) == nil, "SetWriteBuffer: %v", quiet.SetWriteBuffer(2<<20))
	start := time.Now()
	quiet.SetReadDeadline(start.Add(300 * time.Millisecond))
	_, _, err = quiet.ReadFromUDP(make([]byte, 16))
	took := time.Since(start)
	var ne net.Error
	check(errors.As(err, &ne) && ne.Timeout() && errors.Is(err, os.ErrDeadlineExceeded), "ReadFromUDP past its deadline: %v, want a timeout", err)
	check(took >= 300*time.Millisecond && took < 400*time.Millisecond, "the 300ms read deadline fired after %v", took)
	fmt.Printf("udpecho: the 300ms read deadline fired after %v\n", took)
	quiet.Close()

	fmt.Printf("udpecho: ok: %d checks passed, %d retries, %d stale answers\n", checks, retries, stale)
}

// echo sends msg on c (to to, or to its peer when to is nil) until an answer
// to msg comes back, and returns that answer. Answers to earlier messages
// (late or duplicated) are skipped. Each answer must come from the server.
func echo(c interface{ SetReadDeadline(time.Time) error }, to net.Addr, msg string, tries int) string {
	buf := make([]byte, 256)
	for try := range tries {
		if try > 0 {
			retries++
		}
		var err error
		if to != nil {
			_, err = c.(net.PacketConn).WriteTo([]byte(msg), to)
		} else {
			_, err = c.(net.Conn).Write([]byte(msg))
		}
		check(err == nil, "sending %q: %v", msg, err)
		c.SetReadDeadline(time.Now().Add(retryAfter))
		for {
			var n int
			var from net.Addr
			if to != nil {
				n, from, err = c.(net.PacketConn).ReadFrom(buf)
			} else {
				n, err = c.(net.Conn).Read(buf)
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				break
			}
			check(err == nil, "reading the echo of %q: %v", msg, err)
			if from != nil {
				check(from.String() == to.String(), "an answer came from %v, want %v", from, to)
			}
			got := string(buf[:n])
			if msg == "whoami" && got != msg || got == msg {
				return got
			}
			stale++
		}
	}
	fail("no echo of %q after %d tries", msg, tries)
	return ""
}

func portOf(a net.Addr) string {
	_, port, _ := net.SplitHostPort(a.String())
	return port
}

// serveEcho answers each datagram with itself, and "whoami" with the
// address it came from.
func serveEcho(addr string) {
	la, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		fail("ResolveUDPAddr(%s): %v", addr, err)
	}
	c, err := net.ListenUDP("udp", la)
	if err != nil {
		fail("ListenUDP(%s): %v", addr, err)
	}
	fmt.Printf("udpecho: listening on %v\n", c.LocalAddr())
	buf := make([]byte, 2048)
	for {
		n, from, err := c.ReadFromUDP(buf)
		if err != nil {
			fail("ReadFromUDP: %v", err)
		}
		reply := buf[:n]
		if string(reply) == "whoami" {
			reply = []byte(from.String())
		}
		if _, err := c.WriteToUDP(reply, from); err != nil {
			fail("WriteToUDP(%v): %v", from, err)
		}
	}
}
