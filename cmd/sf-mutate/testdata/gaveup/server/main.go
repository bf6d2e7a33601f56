// Command server is a node for sf-mutate's tests: it answers every request
// line with "ok". Its one comparison decides the answer, so flipping it
// makes the server refuse everything, the client records every operation
// as failed, and the history is left with nothing to check. It has no
// other comparison and no early return, so that is its only mutant.
package main

import (
	"bufio"
	"net"

	"github.com/sf-dst/sf/sim"
)

func main() {
	ln, err := sim.Listen(":7000")
	switch err {
	case nil:
	default:
		panic(err)
	}
	for {
		c, err := ln.Accept()
		switch err {
		case nil:
			go serve(c)
		default:
			panic(err)
		}
	}
}

func serve(c net.Conn) {
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		switch err {
		case nil:
		default:
			c.Close()
			return
		}
		answer := "no\n"
		if len(line) > 1 {
			answer = "ok\n"
		}
		c.Write([]byte(answer))
	}
}
