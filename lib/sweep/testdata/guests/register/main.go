// Command register is a workload for history tests that needs no server: a
// few logical clients, each a goroutine, read and write a handful of keys of
// an in-memory map and record every operation with sim.Put and sim.Get. Each
// operation takes effect at one instant between its invocation and its
// completion, so the history is linearizable (model kv).
//
// With -stale, client 0 serves one last get from a cache it filled before
// client 1 overwrote the key, so that get returns a value that was already
// overwritten by a completed put: the history is not linearizable.
//
// Usage:
//
//	register [-clients 3] [-ops 8] [-keys 2] [-stale]
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/sf-dst/sf/sim"
)

// store is the in-memory register map; every operation holds mu for the
// instant it takes effect.
type store struct {
	mu sync.Mutex
	m  map[string]string
}

func (s *store) put(k, v string) {
	s.mu.Lock()
	s.m[k] = v
	s.mu.Unlock()
}

func (s *store) get(k string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[k]
}

// pause sleeps a little virtual time, drawn from the node's seeded stream,
// so that operations of different clients overlap.
func pause(r *rand.Rand) { time.Sleep(time.Duration(1+r.IntN(5)) * time.Millisecond) }

func main() {
	clients := flag.Int("clients", 3, "logical clients")
	ops := flag.Int("ops", 8, "operations per client")
	keys := flag.Int("keys", 2, "keys")
	stale := flag.Bool("stale", false, "plant a stale read")
	flag.Parse()

	s := &store{m: map[string]string{}}
	var wg sync.WaitGroup
	for c := range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// rand.New over sim.Random: the seed decides the interleaving.
			r := rand.New(rand.NewPCG(sim.Random(), uint64(c)))
			for i := range *ops {
				k := fmt.Sprintf("k%d", r.IntN(*keys))
				if r.IntN(2) == 0 {
					v := fmt.Sprintf("%d-%d", c, i)
					op := sim.Put(c, k, v)
					pause(r)
					s.put(k, v)
					pause(r)
					op.Ok("")
				} else {
					op := sim.Get(c, k)
					pause(r)
					v := s.get(k)
					pause(r)
					op.Ok(v)
				}
			}
		}()
	}
	wg.Wait()

	if *stale {
		// Client 0 reads k0 and keeps it in its cache; client 1 then writes
		// k0 and the write completes; client 0's next get answers from the
		// cache. Nothing runs concurrently, so no order can explain it. The
		// steps are a millisecond apart: events at one virtual instant count
		// as concurrent, and would hide the stale read.
		op := sim.Get(0, "k0")
		cached := s.get("k0")
		op.Ok(cached)
		time.Sleep(time.Millisecond)
		op = sim.Put(1, "k0", "fresh")
		s.put("k0", "fresh")
		op.Ok("")
		time.Sleep(time.Millisecond)
		op = sim.Get(0, "k0")
		op.Ok(cached)
		fmt.Printf("register: served k0 = %q from a stale cache\n", cached)
	}
	fmt.Printf("register: %d clients did %d operations each\n", *clients, *ops)
}
