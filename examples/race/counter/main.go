// Command counter is the race example's only program. Two goroutines each
// deposit into one account n times, and at the end the balance must be the
// sum of the deposits.
//
// Usage:
//
//	counter [-n 20000] [-mutex]
//
// A deposit reads the balance, computes the new one in a function call and
// writes it back. Nothing guards that read-modify-write unless -mutex is
// given, so a goroutine switch between the read and the write loses the
// other goroutine's deposits. Under wasip1 every goroutine runs on one
// thread and switches only when one blocks, so the race never shows without
// preemption inside the node.
package main

import (
	"flag"
	"fmt"
	"os"
	"sync"
)

type account struct {
	mu      sync.Mutex
	guarded bool
	balance int
}

// The go:noinline marks keep each step a call of its own, as it would be in
// a larger program where reading, computing and writing live apart.

//go:noinline
func (a *account) read() int { return a.balance }

//go:noinline
func (a *account) write(v int) { a.balance = v }

// credit computes the new balance. It calls other functions, so Go gives it
// a stack check on entry, the point where a goroutine can be preempted.
//
//go:noinline
func credit(v, amount int) int { return plus(v, amount-fee(amount)) }

//go:noinline
func fee(amount int) int { return amount / 100 }

//go:noinline
func plus(v, amount int) int { return v + amount }

func (a *account) deposit(amount int) {
	if a.guarded {
		a.mu.Lock()
		defer a.mu.Unlock()
	}
	v := a.read()
	v = credit(v, amount)
	a.write(v)
}

func main() {
	n := flag.Int("n", 20000, "deposits per goroutine")
	guarded := flag.Bool("mutex", false, "hold a mutex around each deposit")
	flag.Parse()

	a := &account{guarded: *guarded}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range *n {
				a.deposit(100)
			}
		}()
	}
	wg.Wait()
	deposits := 2 * *n
	if want := deposits * credit(0, 100); a.balance != want {
		fmt.Printf("balance is %d after %d deposits, want %d\n", a.balance, deposits, want)
		os.Exit(1)
	}
	fmt.Printf("balance is %d after %d deposits\n", a.balance, deposits)
}
