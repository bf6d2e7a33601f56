// Command txn is a workload for history tests that needs no server: a few
// logical clients, each a goroutine, run list-append transactions against an
// in-memory store of lists and record them with sim.Txn (model
// list-append). Each transaction runs whole under one lock, so the history
// is serializable.
//
// With -read-skew, after the clients are done, client 0 runs a read-only
// transaction that reads x, lets client 1's transaction append to both x and
// y and commit, and then reads y: it sees y after client 1 and x before it,
// a cycle with one read-write edge (G-single). A last transaction reads both
// keys, so the checker learns the order of their appends.
//
// Usage:
//
//	txn [-clients 3] [-txns 6] [-keys 3] [-read-skew]
package main

import (
	"flag"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/sf-dst/sf/sim"
)

// store is the in-memory key -> list map.
type store struct {
	mu    sync.Mutex
	lists map[string][]string
}

// apply runs the micro-ops of one transaction, filling in what each read
// returned. The caller holds mu.
func (s *store) apply(mops []sim.Mop) {
	for i, m := range mops {
		switch m.F {
		case "r":
			read := slices.Clone(s.lists[m.Key])
			if read == nil {
				read = []string{}
			}
			mops[i].Value = read
		case "append":
			s.lists[m.Key] = append(s.lists[m.Key], m.Value.(string))
		}
	}
}

// run applies mops whole under the lock.
func (s *store) run(mops []sim.Mop) {
	s.mu.Lock()
	s.apply(mops)
	s.mu.Unlock()
}

// intn returns a number from 0 to n-1 drawn from the node's seeded random
// stream, so the seed decides every choice and interleaving.
func intn(n int) int { return int(sim.Random() % uint64(n)) }

// pause sleeps 1 to 5ms of virtual time, so that transactions of different
// clients overlap.
func pause() { time.Sleep(time.Duration(1+intn(5)) * time.Millisecond) }

func main() {
	clients := flag.Int("clients", 3, "logical clients")
	txns := flag.Int("txns", 6, "transactions per client")
	keys := flag.Int("keys", 3, "keys")
	skew := flag.Bool("read-skew", false, "plant a read skew (G-single)")
	flag.Parse()

	s := &store{lists: map[string][]string{}}
	var wg sync.WaitGroup
	for c := range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range *txns {
				var mops []sim.Mop
				for j := range 1 + intn(3) {
					k := fmt.Sprintf("k%d", intn(*keys))
					if intn(2) == 0 {
						mops = append(mops, sim.Read(k))
					} else {
						mops = append(mops, sim.Append(k, fmt.Sprintf("%d-%d-%d", c, i, j)))
					}
				}
				op := sim.Txn(c, mops...)
				pause()
				s.run(mops)
				pause()
				op.Ok(mops)
			}
		}()
	}
	wg.Wait()

	if *skew {
		reader := []sim.Mop{sim.Read("x"), sim.Read("y")}
		writer := []sim.Mop{sim.Append("x", "w-x"), sim.Append("y", "w-y")}
		rop := sim.Txn(0, reader...)
		s.run(reader[:1]) // read x, then let go of the lock: the bug
		time.Sleep(time.Millisecond)
		wop := sim.Txn(1, writer...)
		s.run(writer)
		wop.Ok(writer)
		time.Sleep(time.Millisecond)
		s.run(reader[1:])
		rop.Ok(reader)
		// A last read shows where w-x landed in x's order: a checker infers
		// the version order from reads alone.
		time.Sleep(time.Millisecond)
		final := []sim.Mop{sim.Read("x"), sim.Read("y")}
		fop := sim.Txn(2, final...)
		s.run(final)
		fop.Ok(final)
		fmt.Printf("txn: read x = %v and y = %v in one transaction\n", reader[0].Value, reader[1].Value)
	}
	fmt.Printf("txn: %d clients ran %d transactions each\n", *clients, *txns)
}
