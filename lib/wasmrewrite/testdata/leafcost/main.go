// Command leafcost runs one of a few kernels n times. BenchmarkPreemptCost
// runs it under wazero as it is, with preempt's call counting, and with the
// counting and the leaf checks, to measure what each costs in guest CPU; no
// preemption is ever requested, so only the instrumentation runs.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
)

// sink keeps results alive so that the compiler cannot drop the work.
var sink int

type account struct{ balance int }

// The deposit of examples/race: a read, a computation in two small
// functions and a write, all frameless.

//go:noinline
func (a *account) read() int { return a.balance }

//go:noinline
func (a *account) write(v int) { a.balance = v }

//go:noinline
func fee(amount int) int { return amount / 100 }

//go:noinline
func plus(v, amount int) int { return v + amount }

func deposits(n int) {
	a := &account{}
	for range n {
		v := a.read()
		v = plus(v, 100-fee(100))
		a.write(v)
	}
	sink += a.balance
}

func sprintf(n int) {
	for i := range n {
		sink += len(fmt.Sprintf("key-%d/%s", i, "value"))
	}
}

func mapUpdate(n int) {
	m := map[string]int{}
	for i := range n {
		k := "k" + strconv.Itoa(i%1024)
		m[k] += i
	}
	sink += len(m)
}

func sortInts(n int) {
	s := make([]int, 64)
	for i := range n {
		for j := range s {
			s[j] = (j*7919 + i) % 101
		}
		sort.Ints(s)
		sink += s[0]
	}
}

func main() {
	kernel := flag.String("kernel", "deposits", "the kernel to run: deposits, sprintf, map or sort")
	n := flag.Int("n", 1000, "how many operations")
	flag.Parse()
	// A collection imports sched_yield, which the rewrite needs.
	runtime.GC()
	kernels := map[string]func(int){"deposits": deposits, "sprintf": sprintf, "map": mapUpdate, "sort": sortInts}
	run, ok := kernels[*kernel]
	if !ok {
		fmt.Fprintf(os.Stderr, "leafcost: no kernel named %q\n", *kernel)
		os.Exit(2)
	}
	run(*n)
	fmt.Println(sink)
}
