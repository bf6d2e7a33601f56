// Command tcpbench pushes bytes and then small messages through one TCP
// connection to itself, over sim.Listen and sim.Dial: in the simulator that
// is the simulated network, natively it is real loopback TCP. The speed
// benchmark runs it both ways and compares the real time taken.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/sf-dst/sf/sim"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:7100", "address to listen on")
	mb := flag.Int("mb", 16, "megabytes to stream")
	msgs := flag.Int("msgs", 2000, "request/response round trips")
	flag.Parse()
	l, err := sim.Listen(*addr)
	if err != nil {
		fail(err)
	}
	target := l.Addr().String()
	if sim.Enabled() {
		target = "localhost" + (*addr)[len(*addr)-5:]
	}
	done := make(chan error, 1)
	go func() { done <- serve(l, int64(*mb)<<20, *msgs) }()
	c, err := sim.Dial(target)
	if err != nil {
		fail(err)
	}
	chunk := make([]byte, 16<<10)
	for sent := 0; sent < *mb<<20; sent += len(chunk) {
		if _, err := c.Write(chunk); err != nil {
			fail(err)
		}
	}
	r := bufio.NewReader(c)
	msg := make([]byte, 64)
	for i := 0; i < *msgs; i++ {
		if _, err := c.Write(msg); err != nil {
			fail(err)
		}
		if _, err := io.ReadFull(r, msg); err != nil {
			fail(err)
		}
	}
	c.Close()
	if err := <-done; err != nil {
		fail(err)
	}
	fmt.Printf("tcpbench: %d MB and %d round trips\n", *mb, *msgs)
}

func serve(l net.Listener, total int64, msgs int) error {
	c, err := l.Accept()
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := io.CopyN(io.Discard, c, total); err != nil {
		return err
	}
	msg := make([]byte, 64)
	for i := 0; i < msgs; i++ {
		if _, err := io.ReadFull(c, msg); err != nil {
			return err
		}
		if _, err := c.Write(msg); err != nil {
			return err
		}
	}
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "tcpbench:", err)
	os.Exit(1)
}
