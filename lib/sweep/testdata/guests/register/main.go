// Command register is a workload for history tests that needs no server: a
// few logical clients, each a goroutine, read and write a handful of keys of
// an in-memory map and record every operation with sim.Put and sim.Get. Each
// operation takes effect at one instant between its invocation and its
// completion, so the history is linearizable (model kv).
//
// Some operations end otherwise, as they do against a real server: a put
// that times out after it took effect completes with Unknown, a put that is
// refused (not applied) with Failed, and a get that times out with Unknown.
// None of them makes the history illegal.
//
// With -stale, client 0 serves one last get from a cache it filled before
// client 1 overwrote the key, so that get returns a value that a completed
// put had already overwritten: the history is not linearizable. With
// -phantom, client 1 records a put as Failed although it took effect, and
// client 0 then reads its value: a value nobody wrote.
//
// Usage:
//
//	register [-clients 3] [-ops 8] [-keys 2] [-stale] [-phantom]
package main

import (
	"flag"
	"fmt"
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

// intn returns a number from 0 to n-1 drawn from the node's seeded random
// stream, so the seed decides every choice and interleaving.
func intn(n int) int { return int(sim.Random() % uint64(n)) }

// pause sleeps 1 to 5ms of virtual time, so that operations of different
// clients overlap.
func pause() { time.Sleep(time.Duration(1+intn(5)) * time.Millisecond) }

func main() {
	clients := flag.Int("clients", 3, "logical clients")
	ops := flag.Int("ops", 8, "operations per client")
	keys := flag.Int("keys", 2, "keys")
	stale := flag.Bool("stale", false, "plant a stale read")
	phantom := flag.Bool("phantom", false, "plant a read of a write recorded as failed")
	flag.Parse()

	s := &store{m: map[string]string{}}
	var wg sync.WaitGroup
	for c := range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range *ops {
				k := fmt.Sprintf("k%d", intn(*keys))
				outcome := intn(8) // 0: timed out, 1: refused, else ok
				if intn(2) == 0 {
					v := fmt.Sprintf("%d-%d", c, i)
					op := sim.Put(c, k, v)
					pause()
					if outcome != 1 {
						s.put(k, v)
					}
					pause()
					switch outcome {
					case 0:
						op.Unknown()
					case 1:
						op.Failed()
					default:
						op.Ok("")
					}
				} else {
					op := sim.Get(c, k)
					pause()
					v := s.get(k)
					pause()
					if outcome == 0 {
						op.Unknown()
					} else {
						op.Ok(v)
					}
				}
			}
		}()
	}
	wg.Wait()

	if *stale {
		// Client 0 writes k0 and reads it back into its cache; client 1
		// then writes k0 and the write completes; client 0's next get
		// answers from the cache. Nothing runs concurrently and nobody else
		// wrote the cached value, so no order can explain it. The steps are
		// a millisecond apart: events at one virtual instant count as
		// concurrent, and would hide the stale read.
		op := sim.Put(0, "k0", "cached")
		s.put("k0", "cached")
		op.Ok("")
		time.Sleep(time.Millisecond)
		op = sim.Get(0, "k0")
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
	if *phantom {
		// The put takes effect but is recorded as refused; the read a
		// millisecond later sees it.
		op := sim.Put(1, "k1", "phantom")
		s.put("k1", "phantom")
		op.Failed()
		time.Sleep(time.Millisecond)
		op = sim.Get(0, "k1")
		op.Ok(s.get("k1"))
		fmt.Println("register: read a put that was recorded as failed")
	}
	fmt.Printf("register: %d clients did %d operations each\n", *clients, *ops)
}
