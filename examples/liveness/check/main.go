// Command check is the finally check of the liveness example. It runs once,
// after the client has exited 0, with the faults stopped and every node up.
//
// Usage:
//
//	check [-adds 50] [-primary primary:7000] [-backup backup:7000]
//
// It waits up to 5s for the primary and the backup to report the same total,
// and then checks that the total is exactly the number of adds the client
// made: more means an add was applied twice, less that an acknowledged add
// was lost. -adds must match the client's -adds.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/sf-dst/sf/sim"
)

const (
	// convergeWithin is how long the primary and the backup may take to
	// agree once the faults have stopped.
	convergeWithin = 5 * time.Second
	requestTimeout = 500 * time.Millisecond
)

func main() {
	adds := flag.Int("adds", 50, "number of adds the client made")
	primary := flag.String("primary", "primary:7000", "address of the primary")
	backup := flag.String("backup", "backup:7000", "address of the backup")
	flag.Parse()
	// sim.Budget caps the count as it caps the client's, so the two agree
	// when a shrunk schedule runs fewer adds.
	n := sim.Budget(*adds)
	total := check(*primary, *backup, n, convergeWithin)
	fmt.Printf("check: primary and backup both count %d after %d adds\n", total, n)
}

// check waits until the primary and the backup report the same total, then
// checks it against adds and returns it. It fails through the sim
// properties, which panic outside the simulator.
func check(primary, backup string, adds int, within time.Duration) int {
	var p, b int
	sim.Eventually(func() bool {
		p, b = count(primary), count(backup)
		return p >= 0 && p == b
	}, "primary and backup report the same count", within)
	sim.AlwaysLessThanOrEqualTo(p, adds, "no add is applied twice")
	sim.AlwaysGreaterThanOrEqualTo(p, adds, "no acknowledged add is lost")
	return p
}

// count asks the server at addr for its total, or returns -1 if it cannot.
func count(addr string) int {
	c, err := sim.Dial(addr)
	if err != nil {
		return -1
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(requestTimeout))
	if _, err := io.WriteString(c, "GET\n"); err != nil {
		return -1
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return -1
	}
	s, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "VALUE ")
	n, err := strconv.Atoi(s)
	if !ok || err != nil {
		return -1
	}
	return n
}
