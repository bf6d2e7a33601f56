// Command queue is a workload for history tests that needs no server: a few
// logical clients, each a goroutine, enqueue to and dequeue from an
// in-memory FIFO queue and record every operation with sim.Invoke (model
// queue: enqueue a string, dequeue the item taken, "" when empty). Each
// operation takes effect at one instant between its invocation and its
// completion, so the history is linearizable.
//
// With -dup, after the clients are done, client 0 takes one item and then
// gets it again from a redelivery buffer: the same item is dequeued twice,
// which no FIFO queue can do. With -typo, client 0 also records a put, an
// operation the queue model does not have.
//
// Usage:
//
//	queue [-clients 3] [-ops 8] [-dup] [-typo]
package main

import (
	"flag"
	"fmt"
	"sync"
	"time"

	"github.com/sf-dst/sf/sim"
)

// fifo is the in-memory queue; every operation holds mu for the instant it
// takes effect.
type fifo struct {
	mu    sync.Mutex
	items []string
}

func (q *fifo) enqueue(v string) {
	q.mu.Lock()
	q.items = append(q.items, v)
	q.mu.Unlock()
}

func (q *fifo) dequeue() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return ""
	}
	v := q.items[0]
	q.items = q.items[1:]
	return v
}

// intn returns a number from 0 to n-1 drawn from the node's seeded random
// stream, so the seed decides every choice and interleaving.
func intn(n int) int { return int(sim.Random() % uint64(n)) }

// pause sleeps 1 to 5ms of virtual time, so that operations of different
// clients overlap.
func pause() { time.Sleep(time.Duration(1+intn(5)) * time.Millisecond) }

func main() {
	clients := flag.Int("clients", 3, "logical clients")
	ops := flag.Int("ops", 8, "operations per client")
	dup := flag.Bool("dup", false, "plant a duplicate delivery")
	typo := flag.Bool("typo", false, "record a put, which the queue model does not have")
	flag.Parse()

	q := &fifo{}
	var wg sync.WaitGroup
	for c := range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range *ops {
				if intn(3) < 2 {
					v := fmt.Sprintf("%d-%d", c, i)
					op := sim.Invoke(c, "enqueue", "q", v)
					pause()
					q.enqueue(v)
					pause()
					op.Ok(nil)
				} else {
					op := sim.Invoke(c, "dequeue", "q", nil)
					pause()
					v := q.dequeue()
					pause()
					op.Ok(v)
				}
			}
		}()
	}
	wg.Wait()

	if *typo {
		op := sim.Put(0, "q", "oops")
		op.Ok("")
	}
	if *dup {
		// Make sure there is an item, take it, then take it again: the
		// steps are a millisecond apart, so they cannot be concurrent.
		op := sim.Invoke(0, "enqueue", "q", "last")
		q.enqueue("last")
		op.Ok(nil)
		time.Sleep(time.Millisecond)
		var taken string
		for taken != "last" {
			op = sim.Invoke(0, "dequeue", "q", nil)
			taken = q.dequeue()
			op.Ok(taken)
			time.Sleep(time.Millisecond)
		}
		op = sim.Invoke(0, "dequeue", "q", nil)
		op.Ok(taken) // redelivered
		fmt.Printf("queue: dequeued %q twice\n", taken)
	}
	fmt.Printf("queue: %d clients did %d operations each\n", *clients, *ops)
}
