// Command ifaces is the interfaces guest of the net_overlay tests: an
// ordinary Go program that knows nothing of sf. It prints, one line each,
// what net.Interfaces, (*net.Interface).Addrs, net.InterfaceAddrs,
// net.InterfaceByName and net.InterfaceByIndex return, then exits 0. The
// tests compare the lines with the node's simulated interfaces.
//
// Usage:
//
//	ifaces [-after 1s]
//
// -after waits that long (virtual time under sf) before it starts, so that a
// workload running it lets the nodes print first.
package main

import (
	"flag"
	"fmt"
	"net"
	"time"
)

func main() {
	after := flag.Duration("after", 0, "wait this long before starting")
	flag.Parse()
	time.Sleep(*after)
	ift, err := net.Interfaces()
	fmt.Printf("ifaces: Interfaces: %d, err %v\n", len(ift), err)
	for _, ifi := range ift {
		fmt.Printf("ifaces: %s\n", describe(&ifi))
		addrs, err := ifi.Addrs()
		fmt.Printf("ifaces: %s Addrs: %s, err %v\n", ifi.Name, list(addrs), err)
	}
	addrs, err := net.InterfaceAddrs()
	fmt.Printf("ifaces: InterfaceAddrs: %s, err %v\n", list(addrs), err)
	for _, name := range []string{"lo", "eth0", "eth1"} {
		ifi, err := net.InterfaceByName(name)
		fmt.Printf("ifaces: InterfaceByName(%q): %s, err %v\n", name, describe(ifi), err)
	}
	for _, index := range []int{1, 2, 3} {
		ifi, err := net.InterfaceByIndex(index)
		fmt.Printf("ifaces: InterfaceByIndex(%d): %s, err %v\n", index, describe(ifi), err)
	}
}

func describe(ifi *net.Interface) string {
	if ifi == nil {
		return "nil"
	}
	return fmt.Sprintf("index %d name %s mtu %d hw %q flags %v", ifi.Index, ifi.Name, ifi.MTU, ifi.HardwareAddr.String(), ifi.Flags)
}

// list names each address with its Go type, so that the tests see *net.IPNet
// rather than another Addr with the same text.
func list(addrs []net.Addr) string {
	s := "["
	for i, a := range addrs {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%T %v", a, a)
	}
	return s + "]"
}
