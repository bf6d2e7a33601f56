// Command addrs prints the addresses sim.Listen and sim.Dial report, so a
// test can check that they name the nodes and ports.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/sf-dst/sf/sim"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		l, err := sim.Listen(":7300")
		if err != nil {
			fmt.Println("addrs:", err)
			os.Exit(1)
		}
		fmt.Printf("addrs: listener %v\n", l.Addr())
		c, err := l.Accept()
		if err != nil {
			fmt.Println("addrs:", err)
			os.Exit(1)
		}
		fmt.Printf("addrs: accepted local %v remote %v\n", c.LocalAddr(), c.RemoteAddr())
		time.Sleep(time.Hour) // stay up; the workload ends the run
	}
	for {
		c, err := sim.Dial("server:7300")
		if err != nil {
			continue
		}
		fmt.Printf("addrs: dialed local %v remote %v\n", c.LocalAddr(), c.RemoteAddr())
		return
	}
}
