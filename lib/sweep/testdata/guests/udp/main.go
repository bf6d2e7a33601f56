// Command udp exchanges datagrams over sim.ListenPacket: with -serve it
// echoes every datagram back to its sender; with -ping it sends -n numbered
// datagrams to an echo server, one at a time, waiting up to 100ms for each
// echo, and reports how many came back. Loss shows as missing echoes,
// duplication as extra ones.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/sf-dst/sf/sim"
)

func main() {
	serve := flag.String("serve", "", "echo datagrams on this address")
	ping := flag.String("ping", "", "send datagrams to this echo server")
	n := flag.Int("n", 20, "datagrams to send")
	strict := flag.Bool("strict", false, "exit 1 when a datagram or its echo is lost")
	flag.Parse()
	switch {
	case *serve != "":
		echo(*serve)
	case *ping != "":
		if got := pinger(*ping, *n); *strict && got < *n {
			fmt.Fprintf(os.Stderr, "udp: %d of %d datagrams lost\n", *n-got, *n)
			os.Exit(1)
		}
	default:
		fmt.Fprintln(os.Stderr, "udp: give -serve or -ping")
		os.Exit(2)
	}
}

func echo(addr string) {
	c, err := sim.ListenPacket(addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "udp:", err)
		os.Exit(1)
	}
	buf := make([]byte, 2048)
	for {
		n, from, err := c.ReadFrom(buf)
		if err != nil {
			fmt.Fprintln(os.Stderr, "udp: read:", err)
			os.Exit(1)
		}
		if _, err := c.WriteTo(buf[:n], from); err != nil {
			fmt.Fprintln(os.Stderr, "udp: write:", err)
		}
	}
}

func pinger(to string, n int) int {
	c, err := sim.ListenPacket(":0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "udp:", err)
		os.Exit(1)
	}
	time.Sleep(10 * time.Millisecond) // let the echo server bind
	dst := sim.Addr{Net: "udp", Address: to}
	buf := make([]byte, 2048)
	got, extra, timeouts := 0, 0, 0
	seen := map[string]bool{}
	for i := 1; i <= n; i++ {
		msg := fmt.Sprintf("ping %d", i)
		if _, err := c.WriteTo([]byte(msg), dst); err != nil {
			fmt.Fprintln(os.Stderr, "udp: write:", err)
			os.Exit(1)
		}
		c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		for {
			k, _, err := c.ReadFrom(buf)
			if errors.Is(err, os.ErrDeadlineExceeded) {
				timeouts++
				break
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "udp: read:", err)
				os.Exit(1)
			}
			reply := string(buf[:k])
			if seen[reply] {
				extra++
				continue
			}
			seen[reply] = true
			if reply == msg {
				got++
				break
			}
		}
	}
	fmt.Printf("udp: sent %d, %d echoed, %d timeouts, %d duplicates\n", n, got, timeouts, extra)
	return got
}
