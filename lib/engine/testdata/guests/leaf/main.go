// Command leaf exercises preemption at the entry of frameless functions,
// the stack checks wasmrewrite adds to them (leaf.go). Four goroutines call
// frameless closures (whose context must survive a preemption), frameless
// functions with pointer arguments (scanned by the collector while the
// goroutine is stopped at their entry) and deep recursions (whose stacks
// grow and shrink), and check every result. Then two goroutines race on a
// count whose read-modify-write window is only the call of a frameless
// function.
//
// It exits 3 if a result is wrong, 1 if the race lost updates (so some
// goroutine was preempted inside a frameless call) and 0 otherwise.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
)

type node struct {
	v    int
	next *node
}

// load is frameless: a pointer argument, a nil check and no frame.
//
//go:noinline
func load(p *node) int { return p.v }

// bump is frameless: a loop and no call.
//
//go:noinline
func bump(v int) int {
	for i := 0; i < 4; i++ {
		v += i & 1
	}
	return v - 1
}

// pinned is a frameless function Go must never be preempted at: the
// rewrite leaves go:nosplit functions alone, as the runtime does.
//
//go:nosplit
//go:noinline
func pinned(v int) int { return v ^ 0x5a }

// deep recurses with a frame, so that stacks grow; a frameless call sits
// at the bottom.
//
//go:noinline
func deep(n int, p *node) int {
	if n == 0 {
		return load(p)
	}
	var pad [8]int
	pad[n%8] = n
	return deep(n-1, p) + pad[n%8] - n
}

var adders []func(int) int

func main() {
	for k := range 8 {
		adders = append(adders, func(x int) int { return x + k*1000 })
	}
	var wg sync.WaitGroup
	bad := make(chan string, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var keep *node
			for i := range 3000 {
				if r := adders[(i+g)%8](i); r != i+((i+g)%8)*1000 {
					bad <- fmt.Sprintf("closure %d(%d) = %d", (i+g)%8, i, r)
					return
				}
				keep = &node{v: i, next: keep}
				if load(keep) != i || pinned(pinned(i)) != i {
					bad <- fmt.Sprintf("load or pinned at %d", i)
					return
				}
				if i%500 == 0 {
					if r := deep(200+g*50, keep); r != i {
						bad <- fmt.Sprintf("deep(%d) = %d, want %d", 200+g*50, r, i)
						return
					}
					runtime.GC()
				}
			}
			for n, want := keep, 2999; n != nil; n, want = n.next, want-1 {
				if n.v != want {
					bad <- fmt.Sprintf("list holds %d, want %d", n.v, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(bad)
	for msg := range bad {
		fmt.Println("leaf:", msg)
		os.Exit(3)
	}

	count := 0
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2000 {
				v := count
				v = bump(v)
				count = v
			}
		}()
	}
	wg.Wait()
	if count != 4000 {
		fmt.Printf("leaf: count is %d, want 4000\n", count)
		os.Exit(1)
	}
	fmt.Println("leaf: count is 4000")
}
