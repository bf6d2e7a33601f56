// Command client is the workload of sf-mutate's gave-up test: it sends the
// server five puts and records each in the history, as completed when the
// server answers "ok" and as failed otherwise. With -empty it sends empty
// lines, which the server refuses.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"time"

	"github.com/sf-dst/sf/sim"
)

func main() {
	empty := flag.Bool("empty", false, "send empty lines")
	flag.Parse()
	var conn net.Conn
	for {
		c, err := sim.Dial("server:7000")
		if err == nil {
			conn = c
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	r := bufio.NewReader(conn)
	for i := range 5 {
		op := sim.Put(1, "k", fmt.Sprint(i))
		if *empty {
			fmt.Fprint(conn, "\n")
		} else {
			fmt.Fprintf(conn, "put k %d\n", i)
		}
		answer, err := r.ReadString('\n')
		switch {
		case err != nil:
			op.Unknown()
			return
		case answer == "ok\n":
			op.Ok(nil)
		default:
			op.Failed()
		}
	}
}
