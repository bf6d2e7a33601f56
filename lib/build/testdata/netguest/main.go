// Command netguest is the package the build tests compile with and without
// net_overlay: a plain TCP dial, nothing more.
package main

import (
	"fmt"
	"net"
	"os"
)

func main() {
	c, err := net.Dial("tcp", "server:7000")
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	c.Close()
}
